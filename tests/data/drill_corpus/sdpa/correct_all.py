# drill: sdpa
"""Scaled dot-product attention from scratch."""

import math

import torch

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(q, k, v, mask=None):
    """Return (out, weights)."""
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    s = s - s.amax(-1, keepdim=True)
    e = s.exp()
    w = e / e.sum(-1, keepdim=True)
    return w @ v, w
