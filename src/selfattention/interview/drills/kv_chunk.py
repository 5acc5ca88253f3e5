"""The checks of the 'kv_chunk' drill (their names: ``checks_index.NAMES['kv_chunk']``)."""

from __future__ import annotations

from types import ModuleType

import torch

import selfattention as sa

from ._common import (
    _call,
    _close,
    _get,
    _pair,
    _qkv,
    _ref,
    _shape,
    _tensor,
    seed_of,
)


def _chunk_inputs(seed: int, n: int):
    return _qkv(seed, 2, 2, n, n, 8, 8)


def _chunk_call(mod: ModuleType, q, k, v, kc, vc):
    f = _get(mod, "decode_chunk")
    return _pair("decode_chunk", _call("decode_chunk", f, q, k, v, kc, vc), 3)


def _chunk_hints(q, K, V, p: int) -> tuple[tuple[str, torch.Tensor], ...]:
    m = q.shape[-2]
    top_left = torch.tril(torch.ones(m, p + m, dtype=torch.bool))
    return (
        (
            "the causal mask is aligned top-left (torch.tril on the m x (p + m) scores, or is_causal=True): "
            "align it bottom-right, new token i sits at position p + i",
            _ref(q, K, V, mask=top_left)[0],
        ),
        ("the new tokens see each other freely: mask the later new tokens", _ref(q, K, V)[0]),
        (
            "the mask is off by one: new token i also sees position p + i + 1; it may see keys 0 .. p + i "
            "(torch.tril(..., diagonal=p))",
            _ref(q, K, V, mask=torch.tril(torch.ones(m, p + m, dtype=torch.bool), diagonal=p + 1))[0],
        ),
        ("the 1/sqrt(d_k) scale looks missing", _ref(q, K, V, mask=sa.causal_mask(m, p + m), scale=1.0)[0]),
    )


def chunk_shapes(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(30, 7)
    out, k2, v2 = _chunk_call(mod, q[:, :, 4:], k[:, :, 4:], v[:, :, 4:], k[:, :, :4], v[:, :, :4])
    _shape("out", out, (2, 2, 3, 8))
    _shape("k_cache_new", k2, (2, 2, 7, 8))
    _shape("v_cache_new", v2, (2, 2, 7, 8))


def chunk_append(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(31, 7)
    _, k2, v2 = _chunk_call(mod, q[:, :, 4:], k[:, :, 4:], v[:, :, 4:], k[:, :, :4], v[:, :, :4])
    for label, got, ref in (("k_cache_new", k2, k), ("v_cache_new", v2, v)):
        alt = torch.cat([ref[:, :, 4:], ref[:, :, :4]], 2)
        _close(
            label,
            _tensor(label, got),
            ref,
            f"seed {seed_of(31)}, p = 4, m = 3",
            hints=(("the new tokens are put first; append them at the end (dim 2)", alt),),
        )


def _chunk_full(mod: ModuleType, seed: int, p: int, m: int) -> None:
    q, k, v = _chunk_inputs(seed, p + m)
    out, _, _ = _chunk_call(mod, q[:, :, p:], k[:, :, p:], v[:, :, p:], k[:, :, :p], v[:, :, :p])
    full = _ref(q, k, v, mask=sa.causal_mask(p + m))[0][:, :, p:]
    _close(
        "out",
        _tensor("out", out),
        full,
        f"seed {seed_of(seed)}, cache p = {p}, m = {m} new tokens",
        hints=_chunk_hints(q[:, :, p:], k, v, p),
    )


def chunk_last_rows(mod: ModuleType) -> None:
    _chunk_full(mod, 32, 4, 3)


def chunk_empty_cache(mod: ModuleType) -> None:
    _chunk_full(mod, 33, 0, 5)


def chunk_sequence(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(34, 6)
    kc, vc = k[:, :, :0], v[:, :, :0]
    outs, start = [], 0
    for m in (2, 3, 1):
        s = slice(start, start + m)
        out, kc, vc = _chunk_call(mod, q[:, :, s], k[:, :, s], v[:, :, s], kc, vc)
        outs.append(_shape(f"out for new tokens {start}..{start + m - 1}", out, (2, 2, m, 8)))
        start += m
    _close(
        "the chunked output",
        torch.cat(outs, 2),
        _ref(q, k, v, mask=sa.causal_mask(6))[0],
        f"seed {seed_of(34)}, q/k/v (2, 2, 6, 8) in chunks of 2, 3, 1 from an empty cache "
        "vs full causal attention",
    )
