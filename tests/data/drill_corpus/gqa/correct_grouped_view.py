# drill: gqa
import math
import torch


def gqa_attention(q, k, v, mask=None):
    """No F.scaled_dot_product_attention(enable_gqa=True): heads grouped by a view."""
    B, h, n_q, d = q.shape
    g = k.shape[1]
    if h % g != 0:
        raise ValueError(f"{h} query heads cannot share {g} key/value heads")
    qg = q.reshape(B, g, h // g, n_q, d)
    s = qg @ k.unsqueeze(2).transpose(-2, -1) / math.sqrt(d)
    if mask is not None:
        m = torch.broadcast_to(mask, (B, h, n_q, k.shape[2])).reshape(B, g, h // g, n_q, k.shape[2])
        s = s.masked_fill(~m, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return (w @ v.unsqueeze(2)).reshape(B, h, n_q, v.shape[-1])
