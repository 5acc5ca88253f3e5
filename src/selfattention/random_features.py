"""Random-feature linear attention (Performer's FAVOR+ features): an estimator of softmax attention.

Choromanski et al. (2021) draw m vectors w ~ N(0, I) and map x to the positive features
phi(x) = exp(w^T x - |x|^2 / 2) / sqrt(m). Then E_w[phi(q) . phi(k)] = exp(q . k) exactly, so linear
attention with these features is a Monte-Carlo estimate of softmax attention that improves as m grows.
Deterministic maps such as elu + 1 (`linear_attention`) have no such property: no finite phi gives
phi(q) . phi(k) = exp(q . k).

This is the plain estimator with i.i.d. features: no orthogonal features, no redrawing, no stabilising
max-shift.
"""

from __future__ import annotations

import math

import torch

from ._checks import check_positive_int, check_qkv

__all__ = ["favor_features", "performer_attention"]


def favor_features(x: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """(..., n, d) x (m, d) -> (..., n, m): positive random features exp(omega x - |x|^2 / 2) / sqrt(m)."""
    if omega.ndim != 2 or omega.shape[-1] != x.shape[-1]:
        raise ValueError(f"omega must be (m, d) with d = {x.shape[-1]}: got {tuple(omega.shape)}")
    m = omega.shape[0]
    sq = (x * x).sum(dim=-1, keepdim=True) / 2  # (..., n, 1)
    return torch.exp(x @ omega.T - sq) / math.sqrt(m)  # (..., n, m)


def performer_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    num_features: int,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v): FAVOR+ softmax estimate.

    Estimates softmax(q k^T / sqrt(d_k)) v with ``num_features`` i.i.d. Gaussian features, never an n x n
    tensor: O(n m (d_k + d_v)) time. The estimate is unbiased for each kernel value exp(q . k / sqrt(d_k)),
    not for the normalised output (a ratio of two estimates), and its variance grows with the scores.
    """
    check_qkv(q, k, v)
    m = check_positive_int(num_features, "num_features")
    d_k = q.shape[-1]
    omega = torch.randn(m, d_k, generator=generator, dtype=q.dtype, device=q.device)  # (m, d_k)
    s = d_k**-0.25  # split 1/sqrt(d_k) between q and k
    fq, fk = favor_features(q * s, omega), favor_features(k * s, omega)  # (..., n_q, m), (..., n_k, m)
    num = fq @ (fk.transpose(-2, -1) @ v)  # (..., n_q, d_v): the m x d_v sum first
    den = fq @ fk.sum(dim=-2).unsqueeze(-1)  # (..., n_q, 1)
    return num / den
