# drill: mha
"""MultiHeadAttention written from scratch (no torch.nn.MultiheadAttention, no F.scaled_dot_product_attention)."""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """Same parameters as selfattention's MultiHeadAttention: q_proj, k_proj, v_proj, out_proj."""

    def __init__(self, d_model: int, num_heads: int) -> None:
        """Build the four projections."""
        super().__init__()
        if num_heads <= 0 or d_model % num_heads != 0:
            raise ValueError(f"MultiHeadAttention: d_model={d_model} not divisible by num_heads={num_heads}")
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        """Unlike nn.MultiheadAttention, mask True means may attend."""
        B, n, _ = x.shape
        h, dk = self.num_heads, self.d_k
        q = self.q_proj(x).view(B, n, h, dk)
        k = self.k_proj(x).view(B, n, h, dk)
        v = self.v_proj(x).view(B, n, h, dk)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dk)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        w = torch.softmax(s, dim=-1)
        o = torch.einsum("bhqk,bkhd->bqhd", w, v).reshape(B, n, self.d_model)
        return self.out_proj(o)
