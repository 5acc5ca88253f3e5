# drill: rope
"""RoPE with interleaved pairs, computed in float64 then cast back."""

import torch


def rope(x, positions, base=10000.0):
    """Rotate pairs (2i, 2i+1) by positions[t] * base ** (-2i/d)."""
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rope: d must be even, got {d}")
    i = torch.arange(d // 2, dtype=torch.float64, device=x.device)
    theta = float(base) ** (-2.0 * i / d)
    ang = positions.to(torch.float64)[:, None] * theta[None, :]
    cos, sin = ang.cos(), ang.sin()
    xd = x.to(torch.float64)
    x0 = xd[..., 0::2]
    x1 = xd[..., 1::2]
    o0 = x0 * cos - x1 * sin
    o1 = x0 * sin + x1 * cos
    out = torch.stack((o0, o1), dim=-1).flatten(-2)
    return out.to(x.dtype)
