# drill: mha
"""Multi-head attention with a loop over heads and explicit views."""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """A MultiHeadAttention module."""

    def __init__(self, d_model: int, num_heads: int) -> None:
        super().__init__()
        if d_model % num_heads:
            raise ValueError("MultiHeadAttention requires d_model % num_heads == 0 (see torch.nn.MultiheadAttention)")
        self.h = num_heads
        self.dk = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        heads = []
        for i in range(self.h):
            sl = slice(i * self.dk, (i + 1) * self.dk)
            s = q[..., sl] @ k[..., sl].transpose(-2, -1) / math.sqrt(self.dk)
            if mask is not None:
                s = s.masked_fill(mask.logical_not(), -math.inf)
            s = s - s.max(dim=-1, keepdim=True).values
            e = s.exp()
            heads.append((e / e.sum(-1, keepdim=True)) @ v[..., sl])
        return self.out_proj(torch.cat(heads, dim=-1))
