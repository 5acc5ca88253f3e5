"""Tiled attention with an online softmax (the FlashAttention idea): exact, never builds the n_q x n_k matrix.

For each query block keep a running max m, a running denominator l and an accumulator acc; for each key
block: m' = max(m, rowmax(s)), p = exp(s - m'), l = exp(m - m') l + rowsum(p), acc = exp(m - m') acc + p v.
At the end out = acc / l. For float16 / bfloat16 inputs each block is computed in float32 and m, l, acc stay
float32 (as FlashAttention keeps them in fp32 registers); only the output is cast back to the input dtype.
"""

from __future__ import annotations

import math

import torch

from ._checks import broadcast_shape, check_has_keys, check_positive_int, check_qkv

__all__ = ["linear_attention", "tiled_attention"]


def tiled_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    block_size: int = 64,
    causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v), blockwise in O(block^2) memory.

    ``causal`` uses the end-aligned mask of ``causal_mask`` (query i sits at n_k - n_q + i).
    n_k = 0 raises ``ValueError`` (as in ``scaled_dot_product_attention``); n_q = 0 gives an empty output.
    """
    check_qkv(q, k, v)
    check_has_keys(k)
    block_size = check_positive_int(block_size, "block_size")
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q  # absolute position of query i is i + offset
    neg_inf = float("-inf")
    # the running sums in float32 for 16-bit inputs (in fp16 l overflows past 65504 at ~65k similar keys)
    acc_t = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    batch = broadcast_shape(q.shape[:-2], k.shape[:-2], v.shape[:-2]) or ()
    blocks = [q.new_zeros((*batch, 0, v.shape[-1]))]  # (..., 0, d_v): n_q = 0 returns this empty output
    for qs in range(0, n_q, block_size):
        qe = min(qs + block_size, n_q)
        q_blk = q[..., qs:qe, :].to(acc_t) * scale  # (..., bq, d_k)
        bq = qe - qs
        m = q_blk.new_full((*q_blk.shape[:-1], 1), neg_inf)  # (..., bq, 1) running max
        l = q_blk.new_zeros((*q_blk.shape[:-1], 1))  # (..., bq, 1) running denominator  # noqa: E741
        acc = None  # (..., bq, d_v) running numerator, created on the first key block
        k_stop = min(n_k, qe + offset) if causal else n_k  # keys after the last query's position are skipped
        for ks in range(0, max(k_stop, 0), block_size):
            ke = min(ks + block_size, k_stop)
            s = q_blk @ k[..., ks:ke, :].to(acc_t).transpose(-2, -1)  # (..., bq, bk)
            if causal and ke - 1 > qs + offset:  # block crosses the diagonal: mask j > i + offset
                q_pos = torch.arange(qs, qe, device=q.device)[:, None] + offset  # (bq, 1)
                k_pos = torch.arange(ks, ke, device=q.device)[None, :]  # (1, bk)
                s = s.masked_fill(k_pos > q_pos, neg_inf)  # (..., bq, bk)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., bq, 1)
            m_safe = m_new.masked_fill(m_new == neg_inf, 0.0)  # rows with no key yet: avoid -inf - -inf
            p = torch.exp(s - m_safe)  # (..., bq, bk)
            alpha = torch.exp(m - m_safe)  # (..., bq, 1) rescales what was accumulated under the old max
            pv = p @ v[..., ks:ke, :].to(acc_t)  # (..., bq, d_v)
            l = alpha * l + p.sum(dim=-1, keepdim=True)  # (..., bq, 1)  # noqa: E741
            acc = pv if acc is None else alpha * acc + pv  # (..., bq, d_v)
            m = m_new
        if acc is None:  # no key visible to this whole block (causal with n_q > n_k)
            blocks.append(q.new_zeros((*batch, bq, v.shape[-1])))  # (..., bq, d_v)
            continue
        out_blk = acc / torch.where(l == 0, torch.ones_like(l), l)  # (..., bq, d_v); empty rows -> 0
        blocks.append(out_blk.to(q.dtype))  # cast once, at the end
    return torch.cat(blocks, dim=-2)  # (..., n_q, d_v)


def _log_elu1(x: torch.Tensor) -> torch.Tensor:
    """log(elu(x) + 1): x for x <= 0, log1p(x) for x > 0, never -inf."""
    return torch.where(x > 0, torch.log1p(x.clamp_min(0)), x)


def linear_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v): linear attention, elu + 1.

    o_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / phi(q_i)^T sum_j phi(k_j) with phi = elu + 1 (Katharopoulos et
    al. 2020), the sums over j <= i when ``causal`` (then n_q must equal n_k). A different model from softmax
    attention, not an approximation of it; O(n d_k d_v) time, never an n x n tensor.
    For float16 / bfloat16 inputs the features, both sums and the division run in float32 and only the
    output is cast back: the normaliser is about n_k d_k (elu + 1 features are ~1), past fp16's 65504 at
    n_k d_k ~ 65k, and finite / inf would give exact zeros.
    The features are rescaled by constants that cancel (a per-row maximum for q, one for all keys), so a query
    or key set with every entry far negative (elu + 1 = expm1 + 1 cancelling to 0 in fp32 below about -17)
    gives the finite answer, not 0 / 0 = NaN. A row can still give 0 / 0 only if, after both shifts, every
    product of its features with a key's underflows (a query large in one coordinate, every key far negative
    there and large in another): contrived inputs. With ``causal`` the key shift is still one maximum over all
    keys, not over each row's prefix: if every log-feature log(elu(k) + 1) of a prefix's keys lies more than
    about 100 below the largest one of the whole sequence (fp32: exp underflows to 0 below about -103.97; fp64
    about -745), that prefix's features underflow and its rows are 0 / 0 = NaN although the exact answer is
    finite (e.g. keys 0-2 at -110, whose log-features are -110, and later keys ordinary). Also contrived; not
    handled.
    n_k = 0 raises ``ValueError``; n_q = 0 gives an empty output.
    """
    check_qkv(q, k, v)
    check_has_keys(k)
    if causal and q.shape[-2] != k.shape[-2]:
        shapes = f"q {tuple(q.shape)}, k {tuple(k.shape)}"
        raise ValueError(f"causal linear attention needs n_q == n_k: got {shapes}")
    out_t = q.dtype
    acc_t = torch.float32 if out_t in (torch.float16, torch.bfloat16) else out_t
    q, k, v = q.to(acc_t), k.to(acc_t), v.to(acc_t)
    # elu(x) + 1 = expm1(x) + 1 cancels to exactly 0 below about -17 in fp32 (-37 in fp64): a query with
    # every entry there (or every key) had normaliser 0 and output 0 / 0 = NaN. So phi is formed from its log,
    # shifted by a per-row maximum for q and one maximum over all keys and features for k: both constants
    # cancel in num / den (in every causal prefix too, unless a prefix's own features all underflow
    # against the global key maximum: see the docstring); the largest feature of a row, or of the keys, is 1.
    lq, lk = _log_elu1(q), _log_elu1(k)
    fq = torch.exp(lq - lq.amax(dim=-1, keepdim=True))  # (..., n_q, d_k): positive features
    fk = torch.exp(lk - lk.amax(dim=(-2, -1), keepdim=True))  # (..., n_k, d_k)
    if causal:
        kv = torch.einsum("...nd,...ne->...nde", fk, v).cumsum(dim=-3)  # (..., n, d_k, d_v): n prefix states
        num = torch.einsum("...nd,...nde->...ne", fq, kv)  # (..., n, d_v)
        den = (fq * fk.cumsum(dim=-2)).sum(dim=-1, keepdim=True)  # (..., n, 1)
    else:
        num = fq @ (fk.transpose(-2, -1) @ v)  # (..., n_q, d_v): the d_k x d_v sum first
        den = fq @ fk.sum(dim=-2).unsqueeze(-1)  # (..., n_q, 1)
    return (num / den).to(out_t)  # (..., n_q, d_v), cast once, at the end
