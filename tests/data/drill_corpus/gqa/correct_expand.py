# drill: gqa
"""Grouped-query attention."""
import math
import torch


def gqa_attention(q, k, v, mask=None):
    h, g = q.shape[1], k.shape[1]
    if h % g:
        raise ValueError("h must be a multiple of g")
    r = h // g
    k = k[:, :, None].expand(-1, -1, r, -1, -1).reshape(k.shape[0], h, k.shape[2], k.shape[3])
    v = v[:, :, None].expand(-1, -1, r, -1, -1).reshape(v.shape[0], h, v.shape[2], v.shape[3])
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, torch.finfo(s.dtype).min)
    return torch.softmax(s, dim=-1) @ v
