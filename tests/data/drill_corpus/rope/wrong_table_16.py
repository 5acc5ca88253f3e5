# drill: rope
"""RoPE with a cos/sin table built for 16 positions (a max_seq_len that is too small)."""
import torch

_MAX = 16


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    ang = torch.arange(_MAX, dtype=torch.float32)[:, None] * theta
    cos, sin = ang.cos()[positions.clamp(max=_MAX - 1)], ang.sin()[positions.clamp(max=_MAX - 1)]
    xf = x.float()
    a, b = xf[..., 0::2], xf[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2).to(x.dtype)
