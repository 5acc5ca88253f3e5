"""The checks of the 'sdpa' drill (their names: ``checks_index.NAMES['sdpa']``)."""

from __future__ import annotations

import math
from types import ModuleType

import torch

import selfattention as sa

from ._common import (
    CheckFailed,
    _call,
    _case,
    _close,
    _err,
    _get,
    _pair,
    _qkv,
    _random_mask,
    _ref,
    _shape,
    _tensor,
    with_fp16_fill_hint,
)


def sdpa_shapes(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(0, 2, 3, 5, 7, 8, 6)
    out, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    _shape("out", out, (2, 3, 5, 6))
    _shape("weights", w, (2, 3, 5, 7))


def sdpa_rows(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(1, 2, 3, 5, 7, 8, 6)
    _, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    w = _shape("weights", w, (2, 3, 5, 7))
    rows = w.sum(-1)
    dev = float((rows - 1).abs().max())
    if dev > 1e-5 or bool((w < 0).any()):
        msg = f"rows of weights don't sum to 1 (max deviation {dev:.3g})"
        if float((w.sum(-2) - 1).abs().max()) < 1e-5:
            msg += "; the columns do: the softmax runs over the queries (dim -2) instead of the keys (dim -1)"
        raise CheckFailed(msg)


def sdpa_reference(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    for seed, (B, h, n_q, n_k, d_k, d_v) in enumerate(
        [(2, 3, 5, 7, 8, 6), (1, 2, 4, 4, 64, 16), (3, 1, 6, 3, 2, 5)]
    ):
        q, k, v = _qkv(seed, B, h, n_q, n_k, d_k, d_v)
        out, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
        ref_out, ref_w = _ref(q, k, v)
        hints = (
            ("the 1/sqrt(d_k) scale looks missing", _ref(q, k, v, scale=1.0)),
            ("it divides by d_k instead of sqrt(d_k)", _ref(q, k, v, scale=1.0 / d_k)),
            ("it scales by sqrt(d_k) instead of dividing by it", _ref(q, k, v, scale=math.sqrt(d_k))),
        )
        case = _case(seed, q=q, k=k, v=v)
        _close("weights", _tensor("weights", w), ref_w, case, hints=tuple((h_, r[1]) for h_, r in hints))
        _close("out", _tensor("out", out), ref_out, case, hints=tuple((h_, r[0]) for h_, r in hints))


def sdpa_mask(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    for seed, mshape in ((3, (2, 1, 5, 7)), (4, (5, 7))):
        q, k, v = _qkv(seed, 2, 3, 5, 7, 8, 6)
        mask = _random_mask(seed, mshape)
        out, w = _pair(
            "scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v, mask)
        )
        w = _shape("weights", w, (2, 3, 5, 7))
        ref_out, ref_w = _ref(q, k, v, mask=mask)
        case = _case(seed, q=q, k=k, v=v, mask=mask)
        leaked = float(w.masked_select(~mask.expand(2, 3, 5, 7)).abs().max())
        inv = _ref(q, k, v, mask=~mask)[1]
        if not leaked <= 1e-7:
            hint = "; the mask looks inverted: True must mean 'may attend'" if _err(w, inv) <= 1e-5 else ""
            raise CheckFailed(
                f"masked positions (mask False) get weight up to {leaked:.3g}, expected 0 for {case}{hint}"
            )
        after = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1) * mask
        hint = (
            "the mask is applied after the softmax: the rows no longer sum to 1; set the hidden scores to "
            "-inf before the softmax",
        )
        _close("weights", w, ref_w, case, hints=((hint[0], after),))
        _close("out", _tensor("out", out), ref_out, case, hints=((hint[0], after @ v),))


def sdpa_fp16(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = (t.half() for t in _qkv(14, 1, 2, 4, 6, 8, 8))
    mask = _random_mask(14, (4, 6))
    case = _case(14, q=q, k=k, v=v, mask=mask) + " in float16"
    try:
        res = _call("scaled_dot_product_attention", f, q, k, v, mask)
    except CheckFailed as exc:
        raise with_fp16_fill_hint(exc) from None
    out, w = _pair("scaled_dot_product_attention", res)
    if _tensor("out", out).dtype != torch.float16:
        raise CheckFailed(f"out is {out.dtype} for float16 inputs; keep the dtype of q ({case})")
    ref_out, ref_w = _ref(q.float(), k.float(), v.float(), mask=mask)
    _close("weights", _tensor("weights", w).float(), ref_w, case, atol=2e-3)
    _close("out", _tensor("out", out).float(), ref_out, case, atol=1e-2)


def sdpa_padding(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(5, 3, 2, 4, 6, 8, 8)
    pad = sa.padding_mask([6, 2, 4], 6)[:, None, None, :]  # (B, 1, 1, n_k)
    out, _ = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v, pad))
    _close("out", _tensor("out", out), _ref(q, k, v, mask=pad)[0], _case(5, q=q, k=k, v=v, mask=pad))


def sdpa_large(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(6, 1, 2, 4, 4, 8, 4, scale=40.0)  # scores ~ 1e3 .. 1e4
    out, _ = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    _close(
        "out",
        _tensor("out", out),
        _ref(q, k, v)[0],
        _case(6, q=q, k=k, v=v) + " (scores up to ~1e4)",
        atol=1e-4,
    )
