# drill: alibi
import math
import torch


def alibi_slopes(num_heads: int) -> torch.Tensor:
    def geo(n):
        r = 2.0 ** (-8.0 / n)
        return [r ** k for k in range(1, n + 1)]
    c = 1
    while c * 2 <= num_heads:
        c *= 2
    out = geo(c)
    if c < num_heads:
        out += geo(2 * c)[::2][: num_heads - c]
    return torch.tensor(out)


def alibi_bias(num_heads, n):
    pos = torch.arange(n, dtype=torch.float32)
    rel = pos[None, :] - pos[:, None]  # j - i
    return alibi_slopes(num_heads).view(-1, 1, 1) * rel.clamp(max=0)


def alibi_attention(q, k, v):
    B, h, n, d = q.shape
    s = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(d)
    s = s + alibi_bias(h, n).to(s.dtype)
    s = torch.where(torch.ones(n, n, dtype=torch.bool).tril(), s, torch.full_like(s, -math.inf))
    return s.softmax(-1) @ v
