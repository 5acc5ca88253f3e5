# drill: rope
"""RoPE as complex multiplication: (x0 + i x1) * e^{i m theta}."""

import torch


def rope(x, positions, base=10000.0):
    """Same shape and dtype as x."""
    *lead, n, d = x.shape
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    exps = torch.arange(0, d, 2, dtype=work, device=x.device) / d
    theta = torch.pow(torch.tensor(float(base), dtype=work), -exps)
    ang = torch.outer(positions.to(work), theta)
    rot = torch.polar(torch.ones_like(ang), ang)
    xc = torch.view_as_complex(x.to(work).reshape(*lead, n, d // 2, 2).contiguous())
    out = torch.view_as_real(xc * rot).reshape(*lead, n, d)
    return out.to(x.dtype)
