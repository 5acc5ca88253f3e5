# drill: gqa
"""Grouped-query attention."""
import math
import torch


def gqa_attention(q, k, v, mask=None):
    h, g = q.shape[1], k.shape[1]
    if h % g:
        raise ValueError("h must be a multiple of g")
    r = h // g
    k = k.repeat(1, r, 1, 1)
    v = v.repeat(1, r, 1, 1)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v
