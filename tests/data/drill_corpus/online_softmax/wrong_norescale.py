# drill: online_softmax
import math

import torch


def online_attention(q, k, v, block_size):
    d = q.shape[-1]
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype)
    for s0 in range(0, k.shape[-2], block_size):
        s = q @ k[..., s0 : s0 + block_size, :].transpose(-1, -2) / math.sqrt(d)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
        o = o + p @ v[..., s0 : s0 + block_size, :]   # forgot to rescale o
        m = m_new
    return o / l
