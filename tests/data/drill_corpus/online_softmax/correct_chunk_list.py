# drill: online_softmax
import math
import torch


def online_attention(q, k, v, block_size):
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = None
    for kb, vb in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
        s = (q @ kb.transpose(-1, -2)) * scale
        bm = s.amax(dim=-1, keepdim=True)
        if m is None:
            m = bm
            p = (s - m).exp()
            l = p.sum(-1, keepdim=True)
            o = p @ vb
            continue
        m_new = torch.maximum(m, bm)
        a = (m - m_new).exp()
        p = (s - m_new).exp()
        l = l * a + p.sum(-1, keepdim=True)
        o = o * a + p @ vb
        m = m_new
    return o / l
