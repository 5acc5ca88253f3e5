"""Positive random features (Performer's FAVOR+ without orthogonalisation): an estimator of softmax attention.

Choromanski et al. (2021) draw m vectors w ~ N(0, I) and map x to the positive features
phi(x) = exp(w^T x - |x|^2 / 2) / sqrt(m). Then E_w[phi(q) . phi(k)] = exp(q . k) exactly: the *kernel* is
estimated without bias, so linear attention with these features is a Monte-Carlo estimate of softmax
attention that improves as m grows. The normalised output is a ratio of two such estimates and is biased at
finite m. The relative variance of one feature's product is exp(|q + k|^2) - 1 (their Lemma 2, with q and k
already scaled by d_k^(-1/4)): it grows with the *norms* of q and k, not with the score q . k alone.
Deterministic maps such as elu + 1 (`linear_attention`) have no such property: no finite phi gives
phi(q) . phi(k) = exp(q . k).

FAVOR+ proper draws the w's orthogonal (block-orthogonal Gaussian), which lowers the variance; this module
implements the plain estimator with i.i.d. features and no redrawing. It does subtract a maximum before the
exponential (per query row for q's features, one maximum over all keys and features for k's): both factors
cancel between numerator and normaliser, so the result is unchanged, but exp no longer overflows to inf
(and the output to NaN) for large inputs in float16, bfloat16 or float32. The shift bounds the features,
not their sums: the normaliser reaches about m n_k, so 16-bit inputs are computed in float32 (see
`performer_attention`). The shift alone does not stop
underflow: when every shifted cross term of a query row is below about -17 (float16) or -103 (float32), its
normaliser is exactly 0 and the output 0 / 0 = NaN. So, as Performer's reference
`softmax_kernel_transformation` does (numerical_stabilizer = 1e-6), a small constant is added to every
shifted feature. The shift is exact; the stabiliser is not: it biases the weights towards the uniform
average of v by a relative amount of order stabilizer / (a row's mean shifted feature). That is small
unless the shifted features are themselves tiny, which happens when one feature dominates the maximum: in an
outlier draw it can move the error noticeably (chapter 06, unit-variance q, k, m = 16384: 0.140 -> 0.127).
"""

from __future__ import annotations

import math

import torch

from ._checks import check_has_keys, check_positive_int, check_qkv

__all__ = ["favor_features", "performer_attention"]


def _log_features(x: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """(..., n, d) x (m, d) -> (..., n, m): the exponent omega x - |x|^2 / 2 of the features."""
    if omega.ndim != 2 or omega.shape[-1] != x.shape[-1]:
        raise ValueError(f"omega must be (m, d) with d = {x.shape[-1]}: got {tuple(omega.shape)}")
    sq = (x * x).sum(dim=-1, keepdim=True) / 2  # (..., n, 1)
    return x @ omega.T - sq  # (..., n, m)


def favor_features(x: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """(..., n, d) x (m, d) -> (..., n, m): positive random features exp(omega x - |x|^2 / 2) / sqrt(m)."""
    return torch.exp(_log_features(x, omega)) / math.sqrt(omega.shape[0])


def performer_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    num_features: int,
    generator: torch.Generator | None = None,
    stabilizer: float = 1e-6,
) -> torch.Tensor:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v): random-feature estimate.

    Estimates softmax(q k^T / sqrt(d_k)) v with ``num_features`` i.i.d. Gaussian features, never an n x n
    tensor: O(n m (d_k + d_v)) time. The estimate is unbiased for each kernel value exp(q . k / sqrt(d_k)),
    not for the normalised output (a ratio of two estimates); its variance grows with the norms of q and k.
    ``stabilizer`` is added to every max-shifted feature so that no normaliser is exactly 0 (see the module
    docstring); ``stabilizer=0`` gives the plain estimator, exactly.
    For float16 / bfloat16 inputs omega is drawn in float32 and the features, both sums and the division run
    in float32; only the output is cast back. The max-shift bounds each feature by 1 + stabilizer, not the
    normaliser: with small-norm q and k (unit-norm, or q = k = 0) the features are all near 1 and the
    normaliser nears m n_k, past fp16's 65504 at m n_k ~ 65k, and finite / inf would give exact zeros.
    """
    check_qkv(q, k, v)
    check_has_keys(k)  # n_k = 0 would give 0 / 0
    m = check_positive_int(num_features, "num_features")
    d_k = q.shape[-1]
    out_t = q.dtype
    acc_t = torch.float32 if out_t in (torch.float16, torch.bfloat16) else out_t
    q, k, v = q.to(acc_t), k.to(acc_t), v.to(acc_t)
    omega = torch.randn(m, d_k, generator=generator, dtype=acc_t, device=q.device)  # (m, d_k)
    s = d_k**-0.25  # split 1/sqrt(d_k) between q and k
    lq, lk = _log_features(q * s, omega), _log_features(k * s, omega)  # (..., n_q, m), (..., n_k, m)
    # Max-shift: a per-row constant for q and one constant per (batch, head) for k cancel in num / den.
    fq = torch.exp(lq - lq.amax(dim=-1, keepdim=True)) + stabilizer
    fk = torch.exp(lk - lk.amax(dim=(-2, -1), keepdim=True)) + stabilizer  # the 1/sqrt(m) also cancels
    num = fq @ (fk.transpose(-2, -1) @ v)  # (..., n_q, d_v): the m x d_v sum first
    den = fq @ fk.sum(dim=-2).unsqueeze(-1)  # (..., n_q, 1): up to about m n_k
    return (num / den).to(out_t)  # (..., n_q, d_v), cast once, at the end
