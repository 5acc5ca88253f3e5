# drill: rope
"""RoPE."""
import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    i = torch.arange(d // 2, dtype=torch.float32)
    theta = base ** (-2 * i / d)
    ang = positions.to(torch.float32)[:, None] * theta[None, :]
    cos, sin = ang.cos(), ang.sin()
    xf = x.float()
    x0, x1 = xf[..., 0::2], xf[..., 1::2]
    o0 = x0 * cos - x1 * sin
    o1 = x0 * sin + x1 * cos
    return torch.stack([o0, o1], dim=-1).flatten(-2).to(torch.float32)
