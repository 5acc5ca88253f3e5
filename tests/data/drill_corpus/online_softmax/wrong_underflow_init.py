# drill: online_softmax
import math
import torch


def online_attention(q, k, v, block_size):
    # a running max that starts at 0 instead of -inf: rows whose scores are all very negative underflow
    d = q.shape[-1]
    m = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        s = q @ k[..., start:start + block_size, :].transpose(-2, -1) / math.sqrt(d)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        a = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        l = l * a + p.sum(-1, keepdim=True)
        o = o * a + p @ v[..., start:start + block_size, :]
        m = m_new
    return o / l
