# drill: gqa
"""Grouped-query attention via einsum. Not torch.nn.MultiheadAttention, not selfattention.MultiHeadAttention."""

import math

import torch


def gqa_attention(q, k, v, mask=None):
    """GQA: like MultiHeadAttention but with g shared kv heads."""
    B, h, n_q, d_k = q.shape
    g = k.shape[1]
    if g == 0 or h % g != 0:
        raise ValueError(f"GroupedQueryAttention: h={h} is not a multiple of g={g}")
    r = h // g
    qg = q.reshape(B, g, r, n_q, d_k)
    s = torch.einsum("bgrqd,bgkd->bgrqk", qg, k) / math.sqrt(d_k)
    n_k = k.shape[2]
    if mask is not None:
        m = torch.broadcast_to(mask, (B, h, n_q, n_k)).reshape(B, g, r, n_q, n_k)
        s = s.masked_fill(~m, float("-inf"))
    mx = s.amax(dim=-1, keepdim=True)
    mx = torch.where(torch.isfinite(mx), mx, torch.zeros_like(mx))
    e = torch.exp(s - mx)
    den = e.sum(dim=-1, keepdim=True)
    w = torch.where(den > 0, e / den.clamp_min(torch.finfo(e.dtype).tiny), torch.zeros_like(e))
    out = torch.einsum("bgrqk,bgkd->bgrqd", w, v)
    return out.reshape(B, h, n_q, v.shape[-1])
