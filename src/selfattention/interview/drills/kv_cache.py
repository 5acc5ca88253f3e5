"""The checks of the 'kv_cache' drill (their names: ``checks_index.NAMES['kv_cache']``)."""

from __future__ import annotations

from types import ModuleType

import torch

import selfattention as sa
from selfattention.decoding import KVCache

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
    seeded,
)


def _kv_inputs(seed: int, t: int):
    g = seeded(seed)
    B, h, d = 2, 2, 8
    new = [torch.randn(B, h, 1, d, generator=g) for _ in range(3)]
    k_cache = torch.randn(B, h, t, d, generator=g)
    v_cache = torch.randn(B, h, t, d, generator=g)
    return new[0], new[1], new[2], k_cache, v_cache


def kv_shapes(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v, kc, vc = _kv_inputs(0, 4)
    out, k2, v2 = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
    _shape("out", out, (2, 2, 1, 8))
    _shape("k_cache_new", k2, (2, 2, 5, 8))
    _shape("v_cache_new", v2, (2, 2, 5, 8))


def kv_append(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v, kc, vc = _kv_inputs(1, 4)
    _, k2, v2 = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
    cache = KVCache()
    cache.append(kc, vc)
    ref_k, ref_v = cache.append(k, v)
    for label, got, ref, alt in (
        ("k_cache_new", k2, ref_k, torch.cat([k, kc], 2)),
        ("v_cache_new", v2, ref_v, torch.cat([v, vc], 2)),
    ):
        _close(
            label,
            _tensor(label, got),
            ref,
            f"seed {seed_of(1)}, cache t=4",
            hints=(("the new token is put first; append it at the end (dim 2)", alt),),
        )


def kv_output(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    for seed, t in ((2, 4), (3, 0)):
        q, k, v, kc, vc = _kv_inputs(seed, t)
        out, _, _ = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
        K, V = torch.cat([kc, k], 2), torch.cat([vc, v], 2)
        hints = [("the 1/sqrt(d_k) scale looks missing", _ref(q, K, V, scale=1.0)[0])]
        if t > 0:
            hints.append(
                ("the new token doesn't attend to itself (include it in the keys)", _ref(q, kc, vc)[0])
            )
        _close(
            "out",
            _tensor("out", out),
            _ref(q, K, V)[0],
            f"seed {seed_of(seed)}, cache t={t}" + (" (first step, empty cache)" if t == 0 else ""),
            hints=tuple(hints),
        )


def kv_sequence(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v = _qkv(4, 2, 2, 6, 6, 8, 8)
    kc, vc = k[:, :, :0], v[:, :, :0]
    outs = []
    for t in range(6):
        out, kc, vc = _pair(
            "decode_step",
            _call("decode_step", f, q[:, :, t : t + 1], k[:, :, t : t + 1], v[:, :, t : t + 1], kc, vc),
            3,
        )
        outs.append(_shape(f"out at step {t}", out, (2, 2, 1, 8)))
    full = _ref(q, k, v, mask=sa.causal_mask(6))[0]
    _close(
        "token-by-token outputs",
        torch.cat(outs, 2),
        full,
        f"seed {seed_of(4)}, q/k/v (2, 2, 6, 8) decoded from an empty cache vs full causal attention",
    )
