# drill: rope
import torch


def rope(x, positions, base=10000.0):
    # angles computed in x's dtype (loses precision at large positions in half)
    d = x.shape[-1]
    theta = base ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    ang = positions.to(x.dtype)[:, None] * theta[None, :]
    cos, sin = ang.cos(), ang.sin()
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), -1).flatten(-2)
