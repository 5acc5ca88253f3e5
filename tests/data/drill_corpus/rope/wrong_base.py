# drill: rope
import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = positions.double()[:, None] * theta[None, :]
    cos, sin = ang.cos(), ang.sin()
    xd = x.double()
    x0, x1 = xd[..., 0::2], xd[..., 1::2]
    out = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), -1).flatten(-2)
    return out.to(x.dtype)
