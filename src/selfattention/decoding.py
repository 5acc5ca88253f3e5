"""Decoding with a KV cache: past keys/values are stored; a new token attends to all of them."""

from __future__ import annotations

import torch

from ._checks import _shape, check_rank, check_tensor
from .multi_head import MultiHeadAttention

__all__ = ["KVCache", "decode_step"]


class KVCache:
    """Keys and values seen so far: k, v of shape (B, h_kv, n_cached, d) (``None`` while empty)."""

    def __init__(self) -> None:
        self.k: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (B, h_kv, n_new, d) along the sequence; return the full (B, h_kv, n_cached, d) pair."""
        for name, t in (("k", k), ("v", v)):
            check_tensor(t, name)
            check_rank(t, name, 4, 4)
        if k.shape != v.shape:
            raise ValueError(
                f"k and v must have the same shape (B, h_kv, n_new, d): got k {_shape(k)}, v {_shape(v)}"
            )
        if self.k is not None and self.v is not None:
            old = self.k.shape
            if (k.shape[0], k.shape[1], k.shape[3]) != (old[0], old[1], old[3]) or k.dtype != self.k.dtype:
                raise ValueError(
                    f"new k must match the cache in (B, h_kv, d) and dtype: got k {_shape(k)} {k.dtype}, "
                    f"cache {tuple(old)} {self.k.dtype}"
                )
            self.k = torch.cat([self.k, k], dim=2)  # (B, h_kv, n_cached + n_new, d)
            self.v = torch.cat([self.v, v], dim=2)  # (B, h_kv, n_cached + n_new, d)
        else:
            self.k, self.v = k, v  # (B, h_kv, n_new, d)
        return self.k, self.v

    def __len__(self) -> int:
        """Number of cached positions n_cached."""
        return 0 if self.k is None else self.k.shape[2]

    def nbytes(self) -> int:
        """Bytes held: 2 (k and v) * B * h_kv * n_cached * d * itemsize."""
        if self.k is None or self.v is None:
            return 0
        return self.k.numel() * self.k.element_size() + self.v.numel() * self.v.element_size()

    def reset(self) -> None:
        """Forget everything."""
        self.k = self.v = None


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
