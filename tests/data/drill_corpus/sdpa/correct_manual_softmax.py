# drill: sdpa
import math
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    """Not F.scaled_dot_product_attention: by hand."""
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.size(-1)))
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf"), dtype=s.dtype))
    s = s - s.amax(dim=-1, keepdim=True)
    e = torch.exp(s)
    w = e / e.sum(dim=-1, keepdim=True)
    return torch.matmul(w, v), w
