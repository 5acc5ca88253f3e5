"""The checks of the 'online_softmax' drill (their names: ``checks_index.NAMES['online_softmax']``)."""

from __future__ import annotations

import math
from types import ModuleType

import torch

from ._common import (
    CheckFailed,
    _call,
    _case,
    _close,
    _get,
    _qkv,
    _ref,
    _shape,
    _tensor,
    seeded,
)


def _online_no_rescale(q, k, v, block: int) -> torch.Tensor:
    """The classic bug: the running sum and output are not rescaled when the max grows."""
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"))
    l = torch.zeros(q.shape[:-1] + (1,))  # noqa: E741
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],))
    for s0 in range(0, k.shape[-2], block):
        s = q @ k[..., s0 : s0 + block, :].transpose(-2, -1) * scale
        m = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m)
        l = l + p.sum(-1, keepdim=True)  # noqa: E741
        o = o + p @ v[..., s0 : s0 + block, :]
    return o / l


def _online_case(mod: ModuleType, seed: int, n_k: int, block: int, scale: float = 1.0) -> None:
    f = _get(mod, "online_attention")
    q, k, v = _qkv(seed, 2, 2, 5, n_k, 8, 6, scale=scale)
    got = _tensor("online_attention", _call("online_attention", f, q, k, v, block))
    ref = _ref(q, k, v)[0]
    hints = (
        (
            "when the running max grows, rescale the running sum and the output by exp(m_old - m_new)",
            _online_no_rescale(q, k, v, block),
        ),
        ("the 1/sqrt(d) scale looks missing", _ref(q, k, v, scale=1.0)[0]),
        (
            "it divides by sqrt(d_v) instead of sqrt(d): the scale uses the query/key width q.shape[-1]",
            _ref(q, k, v, scale=1 / math.sqrt(v.shape[-1]))[0],
        ),
    )
    last = (n_k - 1) // block * block  # the start of the last block
    if last > 0:
        hints += (
            (
                "the last block of keys is dropped: visit range(0, n_k, block_size), the last block may be "
                "shorter",
                _ref(q, k[..., :last, :], v[..., :last, :])[0],
            ),
        )
    _close(
        "online_attention",
        got,
        ref,
        _case(seed, q=q, k=k, v=v) + f", block_size {block}",
        atol=1e-4 if scale > 1 else 1e-5,
        hints=hints,
    )


def online_shape(mod: ModuleType) -> None:
    f = _get(mod, "online_attention")
    q, k, v = _qkv(50, 2, 2, 5, 8, 8, 6)
    _shape("online_attention output", _call("online_attention", f, q, k, v, 4), (2, 2, 5, 6))


def online_divides(mod: ModuleType) -> None:
    _online_case(mod, 51, 12, 4)


def online_ragged(mod: ModuleType) -> None:
    _online_case(mod, 52, 10, 4)


def online_extremes(mod: ModuleType) -> None:
    _online_case(mod, 53, 7, 1)
    _online_case(mod, 54, 7, 64)


def online_large(mod: ModuleType) -> None:
    _online_case(mod, 55, 9, 3, scale=40.0)


def online_negative_row(mod: ModuleType) -> None:
    """Rows whose scores are all far below 0 (exp underflows to 0 unless the running max starts at -inf)."""
    f = _get(mod, "online_attention")
    g = seeded(56)
    k = torch.rand(1, 2, 10, 8, generator=g) * 2.5 + 0.5  # all entries > 0
    q = torch.randn(1, 2, 4, 8, generator=g)
    q[:, :, 0] = -100.0  # every score of query 0 is below -140
    q[:, 1, 2] = -60.0 - 40.0 * torch.rand(8, generator=g)
    v = torch.randn(1, 2, 10, 6, generator=g)
    got = _tensor("online_attention", _call("online_attention", f, q, k, v, 4))
    case = _case(56, q=q, k=k, v=v) + ", block_size 4, rows 0 (both heads) and 2 (head 1): every score < -80"
    _close(
        "online_attention",
        got,
        _ref(q, k, v)[0],
        case,
        atol=1e-4,
        hints=(
            (
                "the running max must start at -inf (not 0): with every score far below 0, exp(s - 0) "
                "underflows to 0 "
                "and the sum is 0",
                torch.full_like(got, float("nan")),
            ),
        ),
    )


def online_no_full_matrix(mod: ModuleType) -> None:
    """No tensor as large as half the (n_q, n_k) score matrix is ever built, and no tensor other than k, v
    (or a view of them) has all n_k keys along an axis: the keys are visited in blocks (watched in the
    candidate's process, op by op)."""
    f = _get(mod, "online_attention")
    B, h, n_q, n_k, d, block = 1, 2, 16, 128, 4, 8
    q, k, v = _qkv(57, B, h, n_q, n_k, d, d)
    f.mod.watch_keys = n_k
    try:
        got = _tensor("online_attention", _call("online_attention", f, q, k, v, block))
    finally:
        f.mod.watch_keys = 0
    if f.mod.wide_shape:
        raise CheckFailed(
            f"online_attention builds a tensor of shape {tuple(f.mod.wide_shape)} for q {tuple(q.shape)}, "
            f"k {tuple(k.shape)}, block_size {block}: it spans all {n_k} keys, so the keys were not visited "
            f"in blocks; compute the scores of one block of at most block_size keys at a time"
        )
    limit = B * h * n_q * n_k // 2
    largest = f.mod.largest
    if largest >= limit:
        raise CheckFailed(
            f"online_attention builds a tensor of {largest} elements "
            f"(shape {tuple(f.mod.largest_shape)}) for "
            f"q {tuple(q.shape)}, k {tuple(k.shape)}, block_size {block}: the full score matrix is "
            f"({B}, {h}, {n_q}, {n_k}) = {2 * limit} elements; keep one block of scores (n_q, block_size) "
            "at a time"
        )
    _close("online_attention", got, _ref(q, k, v)[0], _case(57, q=q, k=k, v=v) + f", block_size {block}")
