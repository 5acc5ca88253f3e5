"""Scaled dot-product attention: a fast path (PyTorch's kernel), a readable manual path, and a NumPy twin.

    A = softmax(Q K^T / sqrt(d_k) + bias, masked where mask is False),   O = A V
"""

from __future__ import annotations

import math
from typing import NamedTuple, overload

import numpy as np
import torch
import torch.nn.functional as F

from ._checks import (
    _shape,
    broadcast_shape,
    broadcastable_to,
    check_bias,
    check_has_keys,
    check_mask,
    check_qkv,
)

__all__ = ["softmax", "scaled_dot_product_attention", "attention_steps", "AttentionSteps"]


@overload
def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor: ...
@overload
def softmax(x: np.ndarray, dim: int = -1) -> np.ndarray: ...
def softmax(x: torch.Tensor | np.ndarray, dim: int = -1) -> torch.Tensor | np.ndarray:
    """Numerically stable softmax over ``dim`` (max subtracted); a row of all -inf gives zeros, not NaN."""
    if isinstance(x, torch.Tensor):
        if not x.is_floating_point():
            raise ValueError(f"x must be floating point: got dtype {x.dtype} with shape {_shape(x)}")
        if not -x.ndim <= dim < max(x.ndim, 1):
            raise ValueError(f"dim {dim} is out of range for x with shape {_shape(x)}")
        m = x.amax(dim=dim, keepdim=True).detach()  # shift-invariance: the max needs no gradient
        m = m.masked_fill(m == float("-inf"), 0.0)  # all -inf row: shift by 0 so exp gives 0, not NaN
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)  # empty row -> 0 / 1 = 0
    if isinstance(x, np.ndarray):
        if not np.issubdtype(x.dtype, np.floating):
            raise ValueError(f"x must be floating point: got dtype {x.dtype} with shape {x.shape}")
        if not -x.ndim <= dim < max(x.ndim, 1):
            raise ValueError(f"dim {dim} is out of range for x with shape {x.shape}")
        m = np.max(x, axis=dim, keepdims=True)
        m = np.where(m == -np.inf, 0.0, m)
        e = np.exp(x - m)
        s = np.sum(e, axis=dim, keepdims=True)
        return e / np.where(s == 0, 1.0, s)
    raise ValueError(f"x must be a torch.Tensor or np.ndarray: got {type(x).__name__}")


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    scale: float | None = None,
    return_weights: bool = False,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v) [, weights (..., n_q, n_k)].

    ``mask``: boolean, True = may attend, broadcastable to (..., n_q, n_k).
    ``bias``: float, broadcastable to (..., n_q, n_k), added to the scaled scores.
    A query whose row is fully masked gets output 0 (and weights 0), never NaN.
    """
    check_qkv(q, k, v)
    check_has_keys(k)  # with n_k = 0 both paths would have to invent an answer (zeros, or an IndexError)
    batch = broadcast_shape(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # checked: not None
    assert batch is not None
    target = (*batch, q.shape[-2], k.shape[-2])  # (..., n_q, n_k)
    if mask is not None:
        check_mask(mask, target)
    if bias is not None:
        check_bias(bias, target)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    elif not isinstance(scale, (int, float)) or not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number: got {scale!r}")
    return _attend(q, k, v, mask, bias, float(scale), return_weights, batch)


def _attend(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    scale: float | None = None,
    return_weights: bool = False,
    batch: tuple[int, ...] | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """``scaled_dot_product_attention`` without the checks, for callers that validated their inputs."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if return_weights:
        return _manual_attention(q, k, v, mask, bias, scale)
    if batch is None:
        batch = broadcast_shape(q.shape[:-2], k.shape[:-2], v.shape[:-2])
        assert batch is not None
    return _fast_attention(q, k, v, mask, bias, scale, batch)


def _manual_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
    bias: torch.Tensor | None,
    scale: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The readable path: scores, mask, stable softmax, weighted sum. Returns (out, weights).

    16-bit inputs are computed in float32 and the results rounded back, as PyTorch's kernels accumulate: in
    float16 the unscaled q·kᵀ overflows above 65504 even when the scaled scores would fit.
    """
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
        bias = None if bias is None else bias.float()
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., n_q, n_k)
    if bias is not None:
        scores = scores + bias  # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., n_q, n_k), -inf where not allowed
    weights = softmax(scores, dim=-1)  # (..., n_q, n_k), rows sum to 1 (or 0 if fully masked)
    out = weights @ v  # (..., n_q, d_v)
    return out.to(dtype), weights.to(dtype)


def _fast_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
    bias: torch.Tensor | None,
    scale: float,
    batch: tuple[int, ...],
) -> torch.Tensor:
    """Delegate to ``F.scaled_dot_product_attention``; fully masked rows run unmasked, then are zeroed."""
    mask = _at_least_2d(mask)
    if q.shape[:-2] != batch:
        q = q.expand(*batch, *q.shape[-2:])  # (..., n_q, d_k)
    if k.shape[:-2] != batch:
        k = k.expand(*batch, *k.shape[-2:])  # (..., n_k, d_k)
    if v.shape[:-2] != batch:
        v = v.expand(*batch, *v.shape[-2:])  # (..., n_k, d_v)
    if mask is not None and bias is None and _is_square_causal(mask, q.shape[-2], k.shape[-2]):
        # a plain causal mask: let PyTorch skip the masked blocks (is_causal builds its own
        # (n_q, n_k) top-left mask, which equals our end-aligned mask exactly when n_q == n_k
        # and the mask itself is that full (n, n) pattern, not a broadcast (1, 1) or (1, n_k))
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)  # (..., n_q, d_v)
    row_ok = None
    if mask is not None:
        row_ok = mask.any(dim=-1, keepdim=True)  # (..., n_q, 1): does the query see any key?
        if not bool(row_ok.all()):
            mask = mask | ~row_ok  # fully masked rows attend everywhere (finite), zeroed below
        else:
            row_ok = None
    attn_mask: torch.Tensor | None = mask
    if bias is not None:
        attn_mask = bias if mask is None else torch.where(mask, bias, float("-inf"))  # (..., n_q, n_k)
        attn_mask = attn_mask.to(q.dtype)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=scale)  # (..., n_q, d_v)
    if row_ok is not None:
        out = out * row_ok.to(out.dtype)  # (..., n_q, d_v), zero where the row was fully masked
    return out


def _at_least_2d(mask: torch.Tensor | None) -> torch.Tensor | None:
    """A 0-D or 1-D mask as (1, 1) or (1, n_k): one mask for every query, as the readable path broadcasts it
    (SDPA's fast path and the row checks below index dims -2 and -1)."""
    if mask is None or mask.ndim >= 2:
        return mask
    return mask.reshape((1,) * (2 - mask.ndim) + tuple(mask.shape))


def _is_square_causal(mask: torch.Tensor, n_q: int, n_k: int) -> bool:
    """True when ``mask`` is one (n, n) lower-triangular pattern, n = n_q = n_k, over unit leading dims.

    The mask's own last two dims must be (n_q, n_k): an all-True (1, 1) mask equals tril(ones(1, 1))
    but means "attend everywhere" once broadcast, and must not become is_causal=True.
    """
    if n_q != n_k or mask.ndim < 2 or tuple(mask.shape[-2:]) != (n_q, n_k):
        return False
    if any(s != 1 for s in mask.shape[:-2]):
        return False
    n = n_q
    tril = torch.ones(n, n, dtype=torch.bool, device=mask.device).tril_()  # (n, n)
    return bool(torch.equal(mask.reshape(n, n), tril))


class AttentionSteps(NamedTuple):
    """Every intermediate of one attention pass (NumPy): Q, K, V, S = QK^T, S_scaled (masked = -inf), A, O."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    S: np.ndarray
    S_scaled: np.ndarray
    A: np.ndarray
    O: np.ndarray  # noqa: E741


def attention_steps(
    X: np.ndarray,
    W_q: np.ndarray,
    W_k: np.ndarray,
    W_v: np.ndarray,
    mask: np.ndarray | None = None,
) -> AttentionSteps:
    """X (..., n, d_model), W_q/W_k (d_model, d_k), W_v (d_model, d_v) -> AttentionSteps, O (..., n, d_v)."""
    arrays = {}
    for name, a in (("X", X), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        a = np.asarray(a.detach().cpu().numpy() if isinstance(a, torch.Tensor) else a)
        if not np.issubdtype(a.dtype, np.floating):
            raise ValueError(f"{name} must be a floating-point array: got dtype {a.dtype}, shape {a.shape}")
        if np.isnan(a).any():
            raise ValueError(f"{name} contains NaN: got shape {a.shape}")
        arrays[name] = a
    X, W_q, W_k, W_v = arrays["X"], arrays["W_q"], arrays["W_k"], arrays["W_v"]
    if X.ndim < 2:
        raise ValueError(f"X must have rank >= 2 (..., n, d_model): got rank {X.ndim} with shape {X.shape}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(
                f"{name} must have shape (d_model, d) with d_model = X.shape[-1]: "
                f"got X {X.shape} and {name} {W.shape}"
            )
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(
            f"W_q and W_k must have the same output dim (d_k): got W_q {W_q.shape} and W_k {W_k.shape}"
        )
    Q = X @ W_q  # (..., n, d_k)
    K = X @ W_k  # (..., n, d_k)
    V = X @ W_v  # (..., n, d_v)
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n, n)
    S_scaled = S / np.sqrt(Q.shape[-1])  # (..., n, n)
    if mask is not None:
        mask = np.asarray(mask.cpu().numpy() if isinstance(mask, torch.Tensor) else mask)
        if mask.dtype != np.bool_:
            raise ValueError(
                f"mask must be boolean (True = may attend): got dtype {mask.dtype}, shape {mask.shape}"
            )
        if not broadcastable_to(mask.shape, S.shape):
            raise ValueError(
                f"mask must be broadcastable to (..., n_q, n_k) = {S.shape}: got mask {mask.shape}"
            )
        S_scaled = np.where(mask, S_scaled, -np.inf)  # (..., n, n), -inf where not allowed
    A = softmax(S_scaled, dim=-1)  # (..., n, n)
    O = A @ V  # (..., n, d_v)  # noqa: E741
    return AttentionSteps(Q=Q, K=K, V=V, S=S, S_scaled=S_scaled, A=A, O=O)
