# drill: online_softmax
import math

import torch


def online_attention(q, k, v, block_size):
    dv = v.shape[-1]
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (dv,), dtype=q.dtype)
    for s0 in range(0, k.shape[-2], block_size):
        s = q @ k[..., s0 : s0 + block_size, :].transpose(-1, -2) / math.sqrt(dv)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        a = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        l = l * a + p.sum(-1, keepdim=True)
        o = o * a + p @ v[..., s0 : s0 + block_size, :]
        m = m_new
    return o / l
