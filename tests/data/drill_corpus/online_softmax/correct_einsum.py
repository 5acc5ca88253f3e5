# drill: online_softmax
"""Online softmax attention (FlashAttention forward recurrence), einsum flavour."""

import math

import torch


def online_attention(q, k, v, block_size):
    """Blocks of keys, running max m, running sum l, running output o."""
    if block_size <= 0:
        raise ValueError("block_size must be positive")
    d = q.shape[-1]
    n_k = k.shape[-2]
    scale = 1.0 / math.sqrt(d)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    for start in range(0, n_k, block_size):
        kb = k[..., start : start + block_size, :]
        vb = v[..., start : start + block_size, :]
        s = torch.einsum("...qd,...kd->...qk", q, kb) * scale
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o * alpha + torch.einsum("...qk,...kd->...qd", p, vb)
        m = m_new
    return o / l
