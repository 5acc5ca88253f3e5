# drill: gqa
import math

import torch


def gqa_attention(q, k, v, mask=None):
    B, h, n_q, d_k = q.shape
    g = k.shape[1]
    if h % g:
        raise ValueError("h must be a multiple of g")
    k = k.repeat(1, h // g, 1, 1)
    v = v.repeat(1, h // g, 1, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(d_k)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v
