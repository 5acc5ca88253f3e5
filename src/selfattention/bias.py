"""Position biases added to attention scores: ALiBi (Press et al., 2022) and T5 relative buckets."""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import check_positive_int

__all__ = ["alibi_slopes", "alibi_bias", "t5_relative_bucket", "RelativePositionBias"]


def _slopes_power_of_2(n: int) -> list[float]:
    """Geometric sequence starting at 2^(-8/n) with ratio 2^(-8/n)."""
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # = 2^(-8/n)
    return [start * start**i for i in range(n)]


def _slopes(h: int) -> list[float]:
    """The paper's recipe: power of 2 -> geometric; else closest power of 2, plus every other slope of 2x."""
    if math.log2(h).is_integer():
        return _slopes_power_of_2(h)
    closest = 2 ** math.floor(math.log2(h))  # largest power of 2 below h
    return _slopes_power_of_2(closest) + _slopes(2 * closest)[0::2][: h - closest]


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """(h,) float32 head slopes m_h: 2^(-8/h), 2^(-16/h), ... (non-powers of 2: the paper's recipe)."""
    return torch.tensor(_slopes(check_positive_int(num_heads, "num_heads")), dtype=torch.float32)


def alibi_bias(
    num_heads: int,
    n_q: int,
    n_k: int,
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """(h, n_q, n_k) bias m_h * (j - i), query i at end-aligned position n_k - n_q + i (as ``causal_mask``).

    For j <= i this is the paper's -m_h * (i - j) <= 0. For j > i the same formula is positive; a causal
    mask hides those entries (ALiBi was designed for causal LMs).
    """
    n_q = check_positive_int(n_q, "n_q")
    n_k = check_positive_int(n_k, "n_k")
    m = alibi_slopes(num_heads).to(device=device, dtype=dtype)  # (h,)
    q_pos = torch.arange(n_q, device=device)[:, None] + (n_k - n_q)  # (n_q, 1)
    k_pos = torch.arange(n_k, device=device)[None, :]  # (1, n_k)
    rel = (k_pos - q_pos).to(dtype)  # (n_q, n_k), j - i
    return m[:, None, None] * rel  # (h, n_q, n_k)


def t5_relative_bucket(
    relative_position: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """Integer tensor of (key - query) offsets -> bucket ids (same shape); T5's ``_relative_position_bucket``.

    Half the buckets (per direction) are exact for small distances, the rest are log-spaced up to
    ``max_distance``; farther offsets share the last bucket. Unidirectional: positive offsets go to bucket 0.
    """
    if not isinstance(relative_position, torch.Tensor) or relative_position.is_floating_point():
        raise ValueError(
            "relative_position must be an integer tensor: "
            f"got {getattr(relative_position, 'dtype', type(relative_position).__name__)}"
        )
    num_buckets = check_positive_int(num_buckets, "num_buckets")
    max_distance = check_positive_int(max_distance, "max_distance")
    rel = relative_position.to(torch.long)
    buckets = torch.zeros_like(rel)
    if bidirectional:
        if num_buckets < 4:
            raise ValueError(f"num_buckets must be >= 4 when bidirectional: got {num_buckets}")
        num_buckets //= 2
        buckets = buckets + (rel > 0).to(torch.long) * num_buckets  # keys after the query: upper half
        rel = rel.abs()
    else:
        if num_buckets < 2:
            raise ValueError(f"num_buckets must be >= 2: got {num_buckets}")
        rel = -torch.clamp(rel, max=0)  # only keys before the query count; later keys -> distance 0
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance must exceed num_buckets // 2 = {max_exact}: got {max_distance}")
    is_small = rel < max_exact
    rel_if_large = max_exact + (
        torch.log(rel.float().clamp(min=1) / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)  # log-spaced buckets, truncated toward zero like T5
    rel_if_large = torch.clamp(rel_if_large, max=num_buckets - 1)
    return buckets + torch.where(is_small, rel, rel_if_large)


class RelativePositionBias(nn.Module):
    """T5-style learned bias: one scalar per (bucket, head); forward(n_q, n_k) -> (h, n_q, n_k)."""

    def __init__(
        self, num_heads: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True
    ) -> None:
        super().__init__()
        self.num_heads = check_positive_int(num_heads, "num_heads")
        self.num_buckets = check_positive_int(num_buckets, "num_buckets")
        self.max_distance = check_positive_int(max_distance, "max_distance")
        self.bidirectional = bidirectional
        self.embedding = nn.Embedding(num_buckets, num_heads)  # (num_buckets, h)

    def forward(self, n_q: int, n_k: int) -> torch.Tensor:
        """(h, n_q, n_k) bias; query i at end-aligned position n_k - n_q + i, relative position j - i."""
        n_q = check_positive_int(n_q, "n_q")
        n_k = check_positive_int(n_k, "n_k")
        device = self.embedding.weight.device
        q_pos = torch.arange(n_q, device=device)[:, None] + (n_k - n_q)  # (n_q, 1)
        k_pos = torch.arange(n_k, device=device)[None, :]  # (1, n_k)
        buckets = t5_relative_bucket(k_pos - q_pos, self.bidirectional, self.num_buckets, self.max_distance)
        return self.embedding(buckets).permute(2, 0, 1)  # (n_q, n_k, h) -> (h, n_q, n_k)
