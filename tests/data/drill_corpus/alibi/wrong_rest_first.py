# drill: alibi
"""ALiBi."""
import math
import torch


def _pow2(h):
    start = 2 ** (-8 / h)
    return [start ** (i + 1) for i in range(h)]


def alibi_slopes(num_heads):
    if math.log2(num_heads).is_integer():
        s = _pow2(num_heads)
    else:
        c = 2 ** math.floor(math.log2(num_heads))
        s = _pow2(c) + _pow2(2 * c)[: num_heads - c]
    return torch.tensor(s, dtype=torch.float32)


def alibi_bias(num_heads, n):
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    dist = (i - j).clamp_min(0).float()
    return -alibi_slopes(num_heads)[:, None, None] * dist


def alibi_attention(q, k, v):
    h, n = q.shape[1], q.shape[-2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + alibi_bias(h, n).to(q.dtype)
    s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(s, dim=-1) @ v
