"""The checks of the 'causal' drill (their names: ``checks_index.NAMES['causal']``)."""

from __future__ import annotations

from types import ModuleType

import torch

import selfattention as sa

from ._common import (
    CheckFailed,
    _call,
    _case,
    _close,
    _future_leak,
    _get,
    _qkv,
    _random_mask,
    _ref,
    _shape,
    _tensor,
    seed_of,
    seeded,
)


def causal_mask_check(mod: ModuleType) -> None:
    f = _get(mod, "causal_mask")
    m = _shape("causal_mask(5)", _call("causal_mask(5)", f, 5), (5, 5))
    if m.dtype != torch.bool:
        raise CheckFailed(f"causal_mask(5) must be bool (True = may attend), got dtype {m.dtype}")
    ref = sa.causal_mask(5)
    if torch.equal(m, ref):
        return
    if torch.equal(m, ~ref) or torch.equal(m, ref.T):
        raise CheckFailed(
            "causal_mask is True above the diagonal: that lets token i see later tokens "
            "(use torch.tril, True where j <= i)"
        )
    if torch.equal(m, torch.tril(torch.ones(5, 5, dtype=torch.bool), -1)):
        raise CheckFailed("causal_mask has False on the diagonal: a token must attend to itself (j <= i)")
    bad = (m != ref).nonzero()[0].tolist()
    raise CheckFailed(
        f"causal_mask(5) is wrong at (i={bad[0]}, j={bad[1]}): expected {bool(ref[bad[0], bad[1]])}"
    )


def softmax_basic(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = seeded(7)
    x = torch.randn(3, 4, 6, generator=g) * 3
    got = _tensor("stable_softmax", _call("stable_softmax", f, x))
    ref = torch.softmax(x, dim=-1)
    _close(
        "stable_softmax",
        got,
        ref,
        f"seed {seed_of(7)}, scores (3, 4, 6)",
        hints=(("it normalises over dim -2 instead of the last dim", torch.softmax(x, dim=-2)),),
    )


def softmax_overflow(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    x = torch.tensor([[1e4, 1e4 - 1.0, 0.0, -1e4], [2e4, 1e4, 1e4, 1e4]])
    got = _tensor("stable_softmax", _call("stable_softmax", f, x))
    if not torch.isfinite(got).all():
        raise CheckFailed(
            "stable_softmax gives NaN/inf for scores around 1e4: exp overflows; subtract the "
            "row max before exp (softmax is shift-invariant)"
        )
    _close(
        "stable_softmax", got, torch.softmax(x.double(), -1).float(), "scores [[1e4, 1e4-1, 0, -1e4], ...]"
    )


def softmax_mask(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = seeded(8)
    x = torch.randn(2, 5, 6, generator=g)
    mask = _random_mask(8, (2, 5, 6))
    got = _tensor("stable_softmax", _call("stable_softmax", f, x, mask))
    ref = sa.softmax(x.masked_fill(~mask, float("-inf")))
    _shape("stable_softmax", got, (2, 5, 6))
    leaked = float(got.masked_select(~mask).abs().max())
    if not leaked <= 1e-7:
        raise CheckFailed(
            f"positions where the mask is False get weight up to {leaked:.3g}, expected exactly 0"
        )
    _close("stable_softmax", got, ref, f"seed {seed_of(8)}, scores (2, 5, 6) with a random mask")


def softmax_fully_masked(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = seeded(9)
    x = torch.randn(3, 4, generator=g)
    mask = torch.tensor([[True, True, False, False], [False] * 4, [True, False, True, True]])
    got = _tensor("stable_softmax", _call("stable_softmax", f, x, mask))
    _shape("stable_softmax", got, (3, 4))
    if not torch.isfinite(got).all():
        raise CheckFailed("a fully masked row gives NaN (0/0 or -inf - -inf): return zeros for that row")
    if float(got[1].abs().max()) > 1e-7:
        raise CheckFailed(
            f"a fully masked row should be all zeros, got {[round(float(t), 4) for t in got[1]]}"
        )
    _close(
        "stable_softmax", got, sa.softmax(x.masked_fill(~mask, float("-inf"))), "scores (3, 4), row 1 masked"
    )


def causal_attention_check(mod: ModuleType) -> None:
    f = _get(mod, "causal_attention")
    q, k, v = _qkv(10, 2, 2, 6, 6, 4, 5)
    out = _call("causal_attention", f, q, k, v)
    ref = _ref(q, k, v, mask=sa.causal_mask(6))[0]
    _close(
        "causal_attention",
        _tensor("causal_attention", out),
        ref,
        _case(10, q=q, k=k, v=v),
        hints=(
            ("it doesn't apply the causal mask", _ref(q, k, v)[0]),
            ("the 1/sqrt(d_k) scale looks missing", _ref(q, k, v, mask=sa.causal_mask(6), scale=1.0)[0]),
        ),
    )


def causal_leak(mod: ModuleType) -> None:
    f = _get(mod, "causal_attention")
    q, k, v = _qkv(11, 1, 2, 6, 6, 4, 4)
    _future_leak("causal_attention output", f, q, k, v)
