# drill: gqa
"""Grouped-query attention with an explicit loop over query heads.

Raises ValueError (as nn.MultiheadAttention would for bad shapes) when h % g != 0.
"""

import math

import torch


def gqa_attention(q, k, v, mask=None):
    """One head at a time; head i reads kv head i // (h // g)."""
    B, h, n_q, d_k = q.shape
    g, n_k = k.shape[1], k.shape[2]
    if h % g:
        raise ValueError("MultiHeadAttention-style GQA needs h divisible by g")
    per = h // g
    if mask is not None:
        mask = mask.expand(B, h, n_q, n_k)
    outs = []
    for i in range(h):
        j = i // per
        s = q[:, i] @ k[:, j].transpose(-1, -2)
        s = s / math.sqrt(d_k)
        if mask is not None:
            s = s.masked_fill(mask[:, i].logical_not(), -float("inf"))
        row_max = s.max(dim=-1, keepdim=True).values
        row_max = row_max.nan_to_num(0.0, posinf=0.0, neginf=0.0)
        e = (s - row_max).exp()
        tot = e.sum(-1, keepdim=True)
        w = e / torch.where(tot == 0, torch.ones_like(tot), tot)
        outs.append(w @ v[:, j])
    return torch.stack(outs, dim=1)
