"""FlashAttention with its backward pass (Dao 2022; Dao 2023), and split-K decoding merged by log-sum-exp.

Forward: per query block, an online softmax over key blocks (as in ``tiled_attention``); it keeps, besides its
inputs q, k, v, only the output O (..., n_q, d_v) and the per-row log-sum-exp L (..., n_q). Backward
recomputes every score block S = q k^T * scale from q, k and L (P = exp(S - L)), so the n_q x n_k matrix
never lives in memory: with D = rowsum(dO * O), dV += P^T dO, dP = dO V^T, dS = P * (dP - D),
dQ += dS K scale, dK += dS^T Q scale.

Precision: for float16 / bfloat16 inputs every block is computed in float32 and the running max m, the
denominator l, the output accumulator and dQ, dK, dV stay in float32 (as FlashAttention's kernels keep them
in fp32 registers); O and the gradients are cast to the input dtype at the end, L stays float32. float32 and
float64 inputs are computed in their own dtype.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from ._checks import _shape, broadcast_shape, check_positive_int, check_qkv

__all__ = ["flash_attention", "attention_with_lse", "merge_attention_partials", "split_kv_attention"]

_NEG_INF = float("-inf")


def accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype the running sums are kept in: float32 for float16 / bfloat16, else ``dtype`` itself."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _block_mask(qs: int, qe: int, ks: int, ke: int, offset: int, device: torch.device) -> torch.Tensor:
    """(bq, bk) bool, True where key j <= query position i + offset (the end-aligned causal mask)."""
    q_pos = torch.arange(qs, qe, device=device)[:, None] + offset  # (bq, 1)
    k_pos = torch.arange(ks, ke, device=device)[None, :]  # (1, bk)
    return k_pos <= q_pos  # (bq, bk)


def _key_stop(qe: int, n_k: int, offset: int, causal: bool) -> int:
    """Keys [0, stop) visible to a query block ending at row qe (causal: up to position qe - 1 + offset)."""
    return max(0, min(n_k, qe + offset)) if causal else n_k


def _forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, block: int, scale: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """q (..., n_q, d), k (..., n_k, d), v (..., n_k, d_v) -> O (..., n_q, d_v), L (..., n_q); one batch."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q
    acc_t = accumulation_dtype(q.dtype)  # float32 for 16-bit inputs
    out = q.new_zeros((*q.shape[:-1], v.shape[-1]))  # (..., n_q, d_v); fully masked rows stay 0
    lse = q.new_full(q.shape[:-1], _NEG_INF, dtype=acc_t)  # (..., n_q); fully masked rows stay -inf
    for qs in range(0, n_q, block):
        qe = min(qs + block, n_q)
        q_blk = q[..., qs:qe, :].to(acc_t) * scale  # (..., bq, d)
        m = q_blk.new_full((*q_blk.shape[:-1], 1), _NEG_INF)  # (..., bq, 1) running max
        l = q_blk.new_zeros((*q_blk.shape[:-1], 1))  # (..., bq, 1) running denominator  # noqa: E741
        acc = q_blk.new_zeros((*q_blk.shape[:-1], v.shape[-1]))  # (..., bq, d_v) running numerator
        for ks in range(0, _key_stop(qe, n_k, offset, causal), block):
            ke = min(ks + block, _key_stop(qe, n_k, offset, causal))
            s = q_blk @ k[..., ks:ke, :].to(acc_t).transpose(-2, -1)  # (..., bq, bk)
            if causal and ke - 1 > qs + offset:  # the block crosses the diagonal
                s = s.masked_fill(~_block_mask(qs, qe, ks, ke, offset, q.device), _NEG_INF)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., bq, 1)
            m_safe = m_new.masked_fill(m_new == _NEG_INF, 0.0)  # rows with no key yet
            p = torch.exp(s - m_safe)  # (..., bq, bk)
            alpha = torch.exp(m - m_safe)  # (..., bq, 1)
            l = alpha * l + p.sum(dim=-1, keepdim=True)  # noqa: E741
            acc = alpha * acc + p @ v[..., ks:ke, :].to(acc_t)  # (..., bq, d_v)
            m = m_new
        seen = l > 0  # (..., bq, 1): rows that saw at least one key
        l_safe = torch.where(seen, l, torch.ones_like(l))  # (..., bq, 1)
        out[..., qs:qe, :] = torch.where(seen, acc / l_safe, 0.0).to(q.dtype)  # (..., bq, d_v), cast once
        lse[..., qs:qe] = torch.where(seen, m + torch.log(l_safe), _NEG_INF).squeeze(-1)  # (..., bq)
    return out, lse


def _backward(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    out: torch.Tensor,
    lse: torch.Tensor,
    d_out: torch.Tensor,
    causal: bool,
    block: int,
    scale: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Gradients dq, dk, dv by recomputing P block by block from q, k and L (never the full n_q x n_k)."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q
    acc_t = accumulation_dtype(q.dtype)  # float32 for 16-bit inputs
    dq, dk, dv = (torch.zeros_like(t, dtype=acc_t) for t in (q, k, v))  # accumulated in acc_t
    d_out = d_out.to(acc_t)
    delta = (d_out * out.to(acc_t)).sum(dim=-1, keepdim=True)  # (..., n_q, 1) D_i = dO_i . O_i
    lse_safe = lse.masked_fill(lse == _NEG_INF, float("inf"))[..., None]  # empty rows: P = 0
    for qs in range(0, n_q, block):
        qe = min(qs + block, n_q)
        q_blk, do_blk = q[..., qs:qe, :].to(acc_t), d_out[..., qs:qe, :]  # (..., bq, d), (..., bq, d_v)
        l_blk, d_blk = lse_safe[..., qs:qe, :], delta[..., qs:qe, :]  # (..., bq, 1) each
        stop = _key_stop(qe, n_k, offset, causal)
        for ks in range(0, stop, block):
            ke = min(ks + block, stop)
            k_blk = k[..., ks:ke, :].to(acc_t)  # (..., bk, d)
            v_blk = v[..., ks:ke, :].to(acc_t)  # (..., bk, d_v)
            s = (q_blk @ k_blk.transpose(-2, -1)) * scale  # (..., bq, bk), recomputed
            if causal and ke - 1 > qs + offset:
                s = s.masked_fill(~_block_mask(qs, qe, ks, ke, offset, q.device), _NEG_INF)
            p = torch.exp(s - l_blk)  # (..., bq, bk): the softmax, from the saved log-sum-exp
            dv[..., ks:ke, :] += p.transpose(-2, -1) @ do_blk  # (..., bk, d_v)
            dp = do_blk @ v_blk.transpose(-2, -1)  # (..., bq, bk)
            ds = p * (dp - d_blk)  # (..., bq, bk): softmax backward
            dq[..., qs:qe, :] += (ds @ k_blk) * scale  # (..., bq, d)
            dk[..., ks:ke, :] += (ds.transpose(-2, -1) @ q_blk) * scale  # (..., bk, d)
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


class _FlashAttention(torch.autograd.Function):
    """Autograd wrapper: saves q, k, v (the inputs), O and L; recomputes the rest in backward.

    The backward is written by hand and treats L as a constant, so differentiating it again (double
    backward) would give wrong values. It raises whenever the graph of the backward is requested
    (``create_graph=True``), whether or not the upstream gradient requires grad: ``once_differentiable``
    alone raises only in the first case and silently returns wrong second derivatives in the second.
    """

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, block: int, scale: float
    ) -> torch.Tensor:
        out, lse = _forward(q, k, v, causal, block, scale)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal, ctx.block, ctx.scale = causal, block, scale
        return out

    @staticmethod
    def backward(ctx: Any, d_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        if torch.is_grad_enabled():  # create_graph=True: a second derivative through this would be wrong
            raise RuntimeError(
                "flash_attention is once-differentiable: its hand-written backward cannot be differentiated "
                "again (create_graph=True / double backward); use the explicit attention for second "
                "derivatives"
            )
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = _backward(q, k, v, out, lse, d_out.contiguous(), ctx.causal, ctx.block, ctx.scale)
        return dq, dk, dv, None, None, None


def _prepare(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, scale: float | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int, float]:
    """Validate once at the door; broadcast q, k, v to one batch shape (autograd sums the expand back)."""
    check_qkv(q, k, v)
    block = check_positive_int(block_size, "block_size")
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number: got {scale!r}")
    batch = broadcast_shape(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    assert batch is not None  # check_qkv checked it
    q = q.expand(*batch, *q.shape[-2:])  # (..., n_q, d)
    k = k.expand(*batch, *k.shape[-2:])  # (..., n_k, d)
    v = v.expand(*batch, *v.shape[-2:])  # (..., n_k, d_v)
    return q, k, v, block, float(scale)


def flash_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    block_size: int = 128,
    scale: float | None = None,
) -> torch.Tensor:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v), differentiable in O(n) memory.

    ``causal`` uses the end-aligned mask of ``causal_mask`` (query i sits at n_k - n_q + i); rows with no
    visible key give 0. Exact (not an approximation): equals softmax(q k^T scale) v up to rounding.
    """
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be a bool: got {causal!r}")
    q, k, v, block, s = _prepare(q, k, v, block_size, scale)
    out = _FlashAttention.apply(q, k, v, causal, block, s)
    assert isinstance(out, torch.Tensor)
    return out


def _inference_only(name: str, *tensors: torch.Tensor) -> None:
    """Raise if an input needs a gradient through ``name``: it runs without a graph, so it would be lost."""
    if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in tensors):
        raise RuntimeError(
            f"{name} is inference only (not differentiable): an input requires grad; use flash_attention "
            "for gradients, or call it under torch.no_grad() / on detached tensors"
        )


def attention_with_lse(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int = 128, scale: float | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Non-causal attention returning (O (..., n_q, d_v), L (..., n_q)), L = log sum_j exp(q.k_j scale).

    O has the input dtype; L is float32 for float16 / bfloat16 inputs (as FlashAttention returns it).
    Inference only (a decoding helper, not differentiable): it raises if an input requires grad while grad
    mode is on, instead of returning a result detached from the graph.
    """
    _inference_only("attention_with_lse", q, k, v)
    q, k, v, block, s = _prepare(q, k, v, block_size, scale)
    with torch.no_grad():
        return _forward(q, k, v, False, block, s)


def merge_attention_partials(
    outs: Sequence[torch.Tensor], lses: Sequence[torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Merge attention over disjoint key sets: O_i (..., n_q, d_v), L_i (..., n_q) -> (O, L).

    L = logsumexp_i L_i and O = sum_i exp(L_i - L) O_i: each part's softmax is re-weighted by its share of
    the total denominator (Flash-Decoding's reduction).
    """
    if len(outs) == 0 or len(outs) != len(lses):
        raise ValueError(f"outs and lses must be non-empty and of equal length: got {len(outs)}, {len(lses)}")
    for i, (o, lse) in enumerate(zip(outs, lses, strict=True)):
        if o.shape[:-1] != lse.shape or o.shape != outs[0].shape:
            raise ValueError(
                f"outs[{i}] must be (..., n_q, d_v) = {_shape(outs[0])} with lses[{i}] (..., n_q): "
                f"got {_shape(o)} and {_shape(lse)}"
            )
    acc_t = accumulation_dtype(torch.promote_types(outs[0].dtype, lses[0].dtype))  # float32 for 16-bit
    stacked_l = torch.stack(list(lses)).to(acc_t)  # (parts, ..., n_q)
    total = torch.logsumexp(stacked_l, dim=0)  # (..., n_q)
    total_safe = total.masked_fill(total == _NEG_INF, 0.0)
    w = torch.exp(stacked_l - total_safe)  # (parts, ..., n_q), sums to 1 over parts
    out = (w[..., None] * torch.stack(list(outs)).to(acc_t)).sum(dim=0)  # (..., n_q, d_v)
    return out.to(outs[0].dtype), total


def split_kv_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, num_splits: int, scale: float | None = None
) -> torch.Tensor:
    """Split-K (Flash-Decoding): attend to ``num_splits`` key chunks independently, merge by log-sum-exp.

    q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v) -> (..., n_q, d_v); non-causal (decoding: the
    new token sees the whole cache). Inference only, like ``attention_with_lse`` (raises if an input requires
    grad while grad mode is on).
    """
    check_qkv(q, k, v)
    _inference_only("split_kv_attention", q, k, v)
    splits = check_positive_int(num_splits, "num_splits")
    n_k = k.shape[-2]
    if splits > n_k:
        raise ValueError(f"num_splits must be <= n_k: got num_splits={splits}, k {_shape(k)}")
    bounds = [round(i * n_k / splits) for i in range(splits + 1)]
    outs, lses = [], []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        o, lse = attention_with_lse(q, k[..., a:b, :], v[..., a:b, :], block_size=max(1, b - a), scale=scale)
        outs.append(o)
        lses.append(lse)
    return merge_attention_partials(outs, lses)[0]
