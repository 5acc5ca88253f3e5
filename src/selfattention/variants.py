"""Two attention variants of recent models, small enough to assert on.

- ``soft_cap``: Gemma 2's logit soft-capping, c·tanh(s/c) (attention logits capped at 50, final
  logits at 30).
- ``differential_attention``: the Differential Transformer's difference of two softmax maps,
  (softmax(Q1 K1ᵀ/√d) − λ·softmax(Q2 K2ᵀ/√d)) V (Ye et al., ICLR 2025), which cancels attention both maps
  give alike.
"""

from __future__ import annotations

import math

import torch

from ._checks import _shape
from .core import scaled_dot_product_attention

__all__ = ["differential_attention", "soft_cap"]


def soft_cap(scores: torch.Tensor, cap: float) -> torch.Tensor:
    """cap · tanh(scores / cap): smooth, monotone, |out| ≤ cap (< cap in exact arithmetic; in floating point
    tanh rounds to 1 for large inputs), ≈ scores where |scores| ≪ cap."""
    if not isinstance(scores, torch.Tensor) or not scores.is_floating_point():
        got = getattr(scores, "dtype", type(scores))
        raise ValueError(f"scores must be a floating-point tensor: got {got}")
    if not isinstance(cap, (int, float)) or isinstance(cap, bool) or not math.isfinite(cap) or cap <= 0:
        raise ValueError(f"cap must be a positive finite number: got {cap!r}")
    return cap * torch.tanh(scores / cap)


def differential_attention(
    q1: torch.Tensor,
    k1: torch.Tensor,
    q2: torch.Tensor,
    k2: torch.Tensor,
    v: torch.Tensor,
    lam: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    return_weights: bool = False,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """(A1 − λ·A2) V with A_i = softmax(Q_i K_iᵀ/√d_k).

    q1, q2 (..., n_q, d_k); k1, k2 (..., n_k, d_k); v (..., n_k, d_v). The per-head normalisation and the
    (1 − λ_init) output scale of the paper are left to the caller. ``lam``: a finite number (the paper's one
    λ per layer) or a finite tensor broadcastable to the weights as (..., 1, 1), e.g. (h, 1, 1) for one λ per
    head (a (h,) tensor would broadcast over the keys and is rejected); a tensor λ is cast to the weights'
    dtype. Each row with a visible key sums to 1 − λ (a fully masked row is 0), and weights may be negative.
    Returns out (..., n_q, d_v) [, weights (..., n_q, n_k)].
    """
    for name, t in (("q1", q1), ("k1", k1), ("q2", q2), ("k2", k2), ("v", v)):
        if not isinstance(t, torch.Tensor) or t.ndim < 2:
            raise ValueError(f"{name} must be a tensor (..., n, d): got {_shape(t)}")
    if q1.shape != q2.shape or k1.shape != k2.shape:
        raise ValueError(
            f"the two maps need matching shapes: q1 {_shape(q1)} vs q2 {_shape(q2)}, "
            f"k1 {_shape(k1)} vs k2 {_shape(k2)}"
        )
    if isinstance(lam, torch.Tensor):
        if not lam.is_floating_point() or not bool(torch.isfinite(lam).all()):
            head = lam.flatten()[:4].tolist()
            raise ValueError(f"lam must be finite floating-point: got {lam.dtype} {head}")
        if lam.ndim and (lam.shape[-1] != 1 or (lam.ndim > 1 and lam.shape[-2] != 1)):
            raise ValueError(
                f"lam must broadcast as (..., 1, 1), one λ per query row's map (e.g. (h, 1, 1)): "
                f"got {_shape(lam)}"
            )
    elif isinstance(lam, bool) or not isinstance(lam, (int, float)) or not math.isfinite(lam):
        raise ValueError(f"lam must be a finite number or tensor: got {lam!r}")
    _, a1 = scaled_dot_product_attention(q1, k1, v, mask=mask, return_weights=True)
    _, a2 = scaled_dot_product_attention(q2, k2, v, mask=mask, return_weights=True)
    if isinstance(lam, torch.Tensor):  # a float64 (h, 1, 1) λ with float32 maps would make w float64 and
        lam = lam.to(dtype=a1.dtype)  # `w @ v` fail: λ is cast to the maps' dtype (autograd flows through)
    w = a1 - lam * a2  # (..., n_q, n_k)
    out = w @ v  # (..., n_q, d_v)
    return (out, w) if return_weights else out
