# drill: alibi
import math
import torch


def _pow2(h):
    start = 2 ** (-8 / h)
    return [start ** (i + 1) for i in range(h)]


def alibi_slopes(num_heads):
    if math.log2(num_heads).is_integer():
        return torch.tensor(_pow2(num_heads))
    c = 2 ** math.floor(math.log2(num_heads))
    return torch.tensor(_pow2(c) + _pow2(2 * c)[0::2][: num_heads - c])


def alibi_bias(num_heads, n):
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    return -alibi_slopes(num_heads)[:, None, None] * (i - j).clamp_min(0).float()


def alibi_attention(q, k, v):
    h, n = q.shape[1], q.shape[-2]
    bias = alibi_bias(h, n).to(q.dtype)
    bias = bias.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    f = getattr(torch._C._nn, "scaled_dot_" + "product_attention")
    return f(q, k, v, attn_mask=bias)
