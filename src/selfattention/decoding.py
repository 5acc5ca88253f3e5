"""Decoding with a KV cache: past keys/values are stored; a new token attends to all of them."""

from __future__ import annotations

import torch

from ._checks import check_rank, check_tensor
from .caches import KVCache  # the cache lives in caches.py; this import keeps the old path
from .multi_head import MultiHeadAttention

__all__ = ["KVCache", "decode_step"]


def decode_step(mha: MultiHeadAttention, x_t: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """x_t (B, d_model) or (B, n_new, d_model) -> same shape, attending causally to cache + new tokens."""
    if not isinstance(mha, MultiHeadAttention):
        raise ValueError(f"mha must be a selfattention.MultiHeadAttention: got {type(mha).__name__}")
    if not isinstance(cache, KVCache):
        raise ValueError(f"cache must be a KVCache: got {type(cache).__name__}")
    check_tensor(x_t, "x_t")
    check_rank(x_t, "x_t", 2, 3)
    single = x_t.ndim == 2
    x = x_t[:, None, :] if single else x_t  # (B, n_new, d_model)
    out = mha(x, kv_cache=cache)  # (B, n_new, d_model)
    assert isinstance(out, torch.Tensor)
    return out[:, 0, :] if single else out  # (B, d_model) or (B, n_new, d_model)
