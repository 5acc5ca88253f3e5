"""The checks of the 'mha' drill (their names: ``checks_index.NAMES['mha']``)."""

from __future__ import annotations

import math
from types import ModuleType

import torch

import selfattention as sa
from selfattention.multi_head import MultiHeadAttention as RefMHA

from ._common import (
    CheckFailed,
    RemoteError,
    RemoteObject,
    _call,
    _close,
    _future_leak,
    _get,
    _shape,
    _tensor,
    seed_of,
    seeded,
)


def _copy_to_ref(user: RemoteObject, d_model: int, h: int, q_gain: float = 1.0) -> RefMHA:
    ref = RefMHA(d_model, h)
    with torch.no_grad():
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            src = user.linears[name]
            dst = getattr(ref, name)
            gain = q_gain if name == "q_proj" else 1.0
            dst.weight.copy_(src.weight * gain)
            dst.bias.copy_(src.bias * gain)
    return ref.eval()


def _make_mha(mod: ModuleType, d_model: int, h: int, seed: int) -> RemoteObject:
    cls = _get(mod, "MultiHeadAttention")
    m = _call(f"MultiHeadAttention({d_model}, {h})", cls, d_model, h)
    if not isinstance(m, RemoteObject) or not m.is_module:
        raise CheckFailed("MultiHeadAttention must be an nn.Module subclass")
    for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
        lin = m.linears.get(name)
        if lin is None or lin.weight.shape != (d_model, d_model) or lin.bias is None:
            got = (
                "nothing"
                if lin is None
                else f"nn.Linear({lin.in_features}, {lin.out_features}, bias={lin.bias is not None})"
            )
            raise CheckFailed(
                f"MultiHeadAttention({d_model}, {h}).{name} must be nn.Linear({d_model}, {d_model}) "
                f"with bias, got {got}"
            )
    return m


def mha_init(mod: ModuleType) -> None:
    _make_mha(mod, 16, 4, 0)
    cls = _get(mod, "MultiHeadAttention")
    try:
        cls(10, 3)
    except RemoteError as exc:
        if exc.is_a("ValueError", "AssertionError"):
            return
        raise CheckFailed(
            f"MultiHeadAttention(10, 3) should raise ValueError (10 % 3 != 0), raised {exc.type}: {exc.msg}"
        ) from None
    raise CheckFailed("MultiHeadAttention(10, 3) should raise ValueError: 10 is not divisible by 3 heads")


def mha_shape(mod: ModuleType) -> None:
    m = _make_mha(mod, 16, 4, 0)
    x = torch.randn(2, 5, 16, generator=seeded(0))
    _shape("forward(x) for x (2, 5, 16)", _call("forward", m, x), (2, 5, 16))


def _mha_variant(
    m: RemoteObject,
    x: torch.Tensor,
    h: int,
    mask: torch.Tensor | None,
    scale: float | None = None,
    axis: int = -1,
    out_proj: bool = True,
) -> torch.Tensor:
    """Multi-head attention with the user's weights and one deliberate bug (for naming the bug)."""
    B, n, D = x.shape
    d_k = D // h

    def split(t: torch.Tensor) -> torch.Tensor:
        return t.view(B, n, h, d_k).transpose(1, 2)

    lin = m.linears
    q, k, v = split(lin["q_proj"](x)), split(lin["k_proj"](x)), split(lin["v_proj"](x))
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(d_k) if scale is None else scale)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    o = (torch.softmax(s, axis) @ v).transpose(1, 2).reshape(B, n, D)
    return lin["out_proj"](o) if out_proj else o


def _mha_compare(mod: ModuleType, h: int, seeds: range, mask: torch.Tensor | None = None) -> None:
    d_model = 16
    for seed in seeds:
        m = _make_mha(mod, d_model, h, seed)
        x = torch.randn(2, 5, d_model, generator=seeded(seed))
        got = _tensor("forward", _call("forward", m, x) if mask is None else _call("forward", m, x, mask))
        with torch.no_grad():
            ref = _copy_to_ref(m, d_model, h)(x, mask=mask)
            hints = (
                ("the 1/sqrt(d_k) scale looks missing", _mha_variant(m, x, h, mask, scale=1.0)),
                (
                    "it divides by sqrt(d_model) instead of sqrt(d_k): that is sqrt(h * d_k), the full width",
                    _mha_variant(m, x, h, mask, scale=1 / math.sqrt(d_model)),
                ),
                (
                    "the softmax runs over the queries (dim -2) instead of the keys (dim -1)",
                    _mha_variant(m, x, h, mask, axis=-2),
                ),
                (
                    "the output projection out_proj is missing: apply it after merging the heads",
                    _mha_variant(m, x, h, mask, out_proj=False),
                ),
            )
            if mask is not None:
                hints += (
                    (
                        "the mask is transposed (query i sees keys j >= i): mask[i, j] is True where query i "
                        "may attend key j",
                        _mha_variant(m, x, h, mask.transpose(-2, -1)),
                    ),
                )
        case = f"seed {seed_of(seed)}, x (2, 5, {d_model}), num_heads={h}" + (
            "" if mask is None else ", causal mask (5, 5)"
        )
        _close("forward(x)", got, ref, case, hints=hints)


def mha_one_head(mod: ModuleType) -> None:
    _mha_compare(mod, 1, range(2))


def mha_heads(mod: ModuleType) -> None:
    try:
        _mha_compare(mod, 4, range(3))
    except CheckFailed as exc:
        msg = str(exc)
        if "hint" not in msg and "looks" not in msg and "instead" not in msg:
            try:
                _mha_compare(mod, 1, range(1))
                msg += (
                    "; it is correct with 1 head and wrong with 4: check the head split "
                    "(B, n, h, d_k).transpose(1, 2) "
                    "and the merge back transpose(1, 2).reshape(B, n, d_model)"
                )
            except CheckFailed:
                pass
        raise CheckFailed(msg) from None


def mha_mask(mod: ModuleType) -> None:
    _mha_compare(mod, 4, range(2), mask=sa.causal_mask(5))


def mha_leak(mod: ModuleType) -> None:
    m = _make_mha(mod, 16, 4, 3)
    x = torch.randn(1, 6, 16, generator=seeded(3))
    mask = sa.causal_mask(6)
    _future_leak("forward(x, causal_mask) output", lambda a, b, c: m(a, mask), x, x, x)
