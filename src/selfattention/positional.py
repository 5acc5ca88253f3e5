"""Absolute and rotary position information: sinusoidal and learned embeddings, RoPE.

Self-attention without positions is permutation equivariant; these are the ways to break that symmetry
by changing the *inputs* (absolute embeddings) or *queries and keys* (RoPE). The other family, a bias on
the scores (ALiBi, T5), lives in ``bias.py``.
"""

from __future__ import annotations

import torch
from torch import nn

from selfattention._checks import check_positive_int, check_rank, check_tensor

__all__ = [
    "sinusoidal_positions",
    "LearnedPositionalEmbedding",
    "rope_frequencies",
    "rope_rotate",
]


def _check_even_dim(d: int, name: str) -> int:
    d = check_positive_int(d, name)
    if d % 2 != 0:
        raise ValueError(f"{name} must be even (dimensions come in pairs): got {name}={d}")
    return d


def sinusoidal_positions(n: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """Vaswani et al.'s table (n, d_model): PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(same)."""
    n = check_positive_int(n, "n")
    d_model = _check_even_dim(d_model, "d_model")
    if not base > 1:
        raise ValueError(f"base must be > 1: got base={base!r}")
    pos = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    inv_freq = float(base) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (d/2,)
    angles = pos * inv_freq  # (n, d/2)
    pe = torch.empty(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe.to(torch.get_default_dtype())


class LearnedPositionalEmbedding(nn.Module):
    """One trained vector per position 0..max_len-1 (BERT/GPT-2 style); undefined beyond max_len."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = check_positive_int(max_len, "max_len")
        self.d_model = check_positive_int(d_model, "d_model")
        self.weight = nn.Parameter(torch.randn(self.max_len, self.d_model) * 0.02)

    def forward(self, n: int) -> torch.Tensor:
        """Embeddings of positions 0..n-1: (n, d_model). Raises if n > max_len (no extrapolation)."""
        n = check_positive_int(n, "n")
        if n > self.max_len:
            raise ValueError(
                f"n must be <= max_len: a learned table has no row for position {n - 1} "
                f"(got n={n}, max_len={self.max_len})"
            )
        return self.weight[:n]


def rope_frequencies(d: int, base: float = 10000.0) -> torch.Tensor:
    """Rotation frequencies theta_i = base^(-2i/d) for the d/2 pairs: (d/2,)."""
    d = _check_even_dim(d, "d")
    if not base > 1:
        raise ValueError(f"base must be > 1: got base={base!r}")
    return float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


def rope_rotate(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary embedding (Su et al.): rotate each pair (x[2i], x[2i+1]) of x (..., n, d) by angle p * theta_i.

    ``positions`` is (n,) (ints or floats), one position per row of x. Pairs are interleaved, as in the
    RoFormer paper; rotating q at m and k at n makes q_m . k_n depend on m - n only.
    """
    check_tensor(x, "x")
    check_rank(x, "x", min_rank=2)
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError(f"x must have an even last dim (rotation pairs): got x {tuple(x.shape)}")
    if not isinstance(positions, torch.Tensor):
        raise ValueError(f"positions must be a torch.Tensor of shape (n,): got {type(positions).__name__}")
    if positions.ndim != 1 or positions.shape[0] != x.shape[-2]:
        raise ValueError(
            f"positions must have shape (n,) with n = x.shape[-2]: got positions {tuple(positions.shape)} "
            f"and x {tuple(x.shape)}"
        )
    theta = rope_frequencies(d, base)  # (d/2,) float64
    angles = positions.to(torch.float64)[:, None] * theta  # (n, d/2)
    cos = torch.cos(angles).to(x.dtype)
    sin = torch.sin(angles).to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) each: the two coordinates of every pair
    out = torch.empty_like(x)
    out[..., 0::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x1 * sin + x2 * cos
    return out
