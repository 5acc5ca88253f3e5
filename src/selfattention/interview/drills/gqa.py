"""The checks of the 'gqa' drill (their names: ``checks_index.NAMES['gqa']``)."""

from __future__ import annotations

import math
from types import ModuleType

import torch

from ._common import (
    CheckFailed,
    RemoteError,
    _call,
    _case,
    _close,
    _get,
    _random_mask,
    _ref,
    _shape,
    _where,
    seeded,
    with_fp16_fill_hint,
)


def _gqa_inputs(seed: int, h: int, g: int, n_q: int = 5, n_k: int = 6, d: int = 8):
    gen = seeded(seed)
    q = torch.randn(2, h, n_q, d, generator=gen)
    k = torch.randn(2, g, n_k, d, generator=gen)
    v = torch.randn(2, g, n_k, d, generator=gen)
    return q, k, v


def _gqa_ref(q, k, v, mask=None, tile: bool = False):
    rep = q.shape[1] // k.shape[1]
    if tile:  # the classic bug: head i gets kv head i % g
        k, v = k.repeat(1, rep, 1, 1), v.repeat(1, rep, 1, 1)
    else:
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    return _ref(q, k, v, mask=mask)[0]


def _gqa_case(mod: ModuleType, seed: int, h: int, g: int, mask: torch.Tensor | None = None) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(seed, h, g)
    got = _call("gqa_attention", f, q, k, v) if mask is None else _call("gqa_attention", f, q, k, v, mask)
    hints: tuple[tuple[str, torch.Tensor], ...] = ()
    if 1 < g < h:
        hints = (
            (
                "query head i uses key/value head i % g (repeat / tiling); the groups are consecutive: use "
                "repeat_interleave, so head i uses kv head i // (h/g)",
                _gqa_ref(q, k, v, mask, tile=True),
            ),
        )
    hints += (("the 1/sqrt(d_k) scale looks missing", _gqa_ref(q * math.sqrt(q.shape[-1]), k, v, mask)),)
    case = _case(seed, q=q, k=k, v=v) + (f", mask {tuple(mask.shape)}" if mask is not None else "")
    _close(
        "gqa_attention",
        _shape("gqa_attention output", got, (2, h, 5, 8)),
        _gqa_ref(q, k, v, mask),
        case,
        hints=hints,
    )


def gqa_shape(mod: ModuleType) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(20, 4, 2, n_q=3, n_k=7, d=8)
    v = torch.randn(2, 2, 7, 5, generator=seeded(21))
    _shape("gqa_attention output", _call("gqa_attention", f, q, k, v), (2, 4, 3, 5))


def gqa_mha(mod: ModuleType) -> None:
    _gqa_case(mod, 22, 4, 4)


def gqa_mqa(mod: ModuleType) -> None:
    _gqa_case(mod, 23, 4, 1)


def gqa_groups(mod: ModuleType) -> None:
    _gqa_case(mod, 24, 8, 2)


def gqa_mask(mod: ModuleType) -> None:
    _gqa_case(mod, 25, 6, 3, mask=_random_mask(25, (5, 6)))


def gqa_rejects(mod: ModuleType) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(26, 6, 4)
    try:
        f(q, k, v)
    except RemoteError as exc:
        if exc.is_a("ValueError"):
            return
        if exc.is_a("NotImplementedError"):
            where = _where(exc).strip(" ()")
            raise CheckFailed(
                "gqa_attention is not implemented yet (NotImplementedError"
                + (f" at {where})" if where else ")")
            ) from None
        raise CheckFailed(
            f"gqa_attention with h=6, g=4 should raise ValueError (6 % 4 != 0), raised "
            f"{exc.type}: {exc.msg}{_where(exc)}"
        ) from None
    raise CheckFailed("gqa_attention with h=6 query heads and g=4 kv heads should raise ValueError")


def gqa_masks_dv(mod: ModuleType) -> None:
    """d_v != d_k, a per-head mask (B, h, n_q, n_k) and a padding mask (B, 1, 1, n_k), h = 6, g = 2."""
    f = _get(mod, "gqa_attention")
    B, h, g, n_q, n_k, d_k, d_v = 2, 6, 2, 5, 7, 8, 3
    gen = seeded(27)
    q = torch.randn(B, h, n_q, d_k, generator=gen)
    k = torch.randn(B, g, n_k, d_k, generator=gen)
    v = torch.randn(B, g, n_k, d_v, generator=gen)
    lengths = torch.tensor([n_k, 3])
    padding = (torch.arange(n_k)[None, :] < lengths[:, None])[:, None, None, :]
    for what, mask in (
        ("no mask", None),
        ("a per-head mask (B, h, n_q, n_k)", _random_mask(27, (B, h, n_q, n_k))),
        ("a padding mask (B, 1, 1, n_k)", padding),
    ):
        got = _call("gqa_attention", f, q, k, v) if mask is None else _call("gqa_attention", f, q, k, v, mask)
        case = _case(27, q=q, k=k, v=v) + f", {what}"
        hints = (
            (
                "it scales by 1/sqrt(d_v); the scale is 1/sqrt(d_k), the width of q and k",
                _gqa_ref(q * math.sqrt(d_k / d_v), k, v, mask),
            ),
            (
                "query head i uses key/value head i % g (repeat / tiling); use repeat_interleave",
                _gqa_ref(q, k, v, mask, tile=True),
            ),
        )
        _close(
            "gqa_attention",
            _shape("gqa_attention output", got, (B, h, n_q, d_v)),
            _gqa_ref(q, k, v, mask),
            case,
            hints=hints,
        )


def gqa_fp16(mod: ModuleType) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = (t.half() for t in _gqa_inputs(28, 4, 2))
    mask = _random_mask(28, (5, 6))
    case = _case(28, q=q, k=k, v=v) + ", mask (5, 6) in float16"
    try:
        got = _call("gqa_attention", f, q, k, v, mask)
    except CheckFailed as exc:
        raise with_fp16_fill_hint(exc) from None
    got = _shape("gqa_attention output", got, (2, 4, 5, 8))
    if got.dtype != torch.float16:
        raise CheckFailed(
            f"gqa_attention returned {got.dtype} for float16 inputs; keep the dtype of q ({case})"
        )
    _close(
        "gqa_attention", got.float(), _gqa_ref(q.float(), k.float(), v.float(), mask).float(), case, atol=1e-2
    )
