"""The checks of the 'alibi' drill (their names: ``checks_index.NAMES['alibi']``)."""

from __future__ import annotations

import math
from types import ModuleType

import torch

import selfattention as sa
from selfattention.bias import alibi_bias as ref_alibi_bias
from selfattention.bias import alibi_slopes as ref_alibi_slopes

from ._common import (
    CheckFailed,
    _call,
    _case,
    _close,
    _future_leak,
    _get,
    _qkv,
    _ref,
    _shape,
    _tensor,
)


def alibi_pow2(mod: ModuleType) -> None:
    f = _get(mod, "alibi_slopes")
    got = _tensor("alibi_slopes(8)", _call("alibi_slopes(8)", f, 8)).float()
    ref = ref_alibi_slopes(8)
    _close(
        "alibi_slopes(8)",
        got,
        ref,
        "h=8 (expected 1/2, 1/4, ..., 1/256)",
        atol=1e-6,
        hints=(("the order is reversed: head 1 gets the steepest slope 2^(-8/h)", ref.flip(0)),),
    )


def alibi_non_pow2(mod: ModuleType) -> None:
    f = _get(mod, "alibi_slopes")
    for h in (6, 12):
        got = _tensor(f"alibi_slopes({h})", _call(f"alibi_slopes({h})", f, h)).float()
        _close(
            f"alibi_slopes({h})",
            got,
            ref_alibi_slopes(h),
            f"h={h} (not a power of 2: the paper's "
            "recipe takes the slopes for the power of 2 below h, then every other slope of twice that)",
            atol=1e-6,
        )


def alibi_bias_check(mod: ModuleType) -> None:
    f = _get(mod, "alibi_bias")
    got = _shape("alibi_bias(8, 5)", _call("alibi_bias(8, 5)", f, 8, 5), (8, 5, 5)).float()
    ref = ref_alibi_bias(8, 5, 5)
    lower = sa.causal_mask(5)
    err = float((got - ref).abs().masked_select(lower).max())
    if err > 1e-6:
        msg = f"alibi_bias(8, 5) is wrong on or below the diagonal (j <= i): max abs error {err:.3g}"
        if float((got + ref).abs().masked_select(lower).max()) <= 1e-6:
            msg += "; the sign is flipped: ALiBi penalises distance, bias = -m_h * (i - j) <= 0"
        raise CheckFailed(msg)
    if not torch.isfinite(got).all():
        raise CheckFailed(
            "alibi_bias contains inf/NaN above the diagonal: use a finite value there; the causal "
            "mask does the hiding"
        )


def alibi_attention_check(mod: ModuleType) -> None:
    f = _get(mod, "alibi_attention")
    q, k, v = _qkv(12, 2, 4, 6, 6, 8, 8)
    ref = _ref(q, k, v, mask=sa.causal_mask(6), bias=ref_alibi_bias(4, 6, 6))[0]
    _close(
        "alibi_attention",
        _tensor("alibi_attention", _call("alibi_attention", f, q, k, v)),
        ref,
        _case(12, q=q, k=k, v=v),
        hints=(
            ("the ALiBi bias is missing", _ref(q, k, v, mask=sa.causal_mask(6))[0]),
            ("the causal mask is missing", _ref(q, k, v, bias=ref_alibi_bias(4, 6, 6))[0]),
            (
                "the bias is divided by sqrt(d_k) together with the scores: add it after the scaling",
                _ref(q, k, v, mask=sa.causal_mask(6), bias=ref_alibi_bias(4, 6, 6) / math.sqrt(8))[0],
            ),
        ),
    )


def alibi_leak(mod: ModuleType) -> None:
    f = _get(mod, "alibi_attention")
    q, k, v = _qkv(13, 1, 4, 6, 6, 8, 8)
    _future_leak("alibi_attention output", f, q, k, v)
