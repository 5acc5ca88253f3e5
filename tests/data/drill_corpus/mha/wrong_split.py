# drill: mha
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model % num_heads")
        self.h, self.dk = num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        B, n, D = x.shape
        q = self.q_proj(x).view(B, self.h, n, self.dk)     # no transpose: wrong split
        k = self.k_proj(x).view(B, self.h, n, self.dk)
        v = self.v_proj(x).view(B, self.h, n, self.dk)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.dk)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        o = torch.softmax(s, -1) @ v
        return self.out_proj(o.reshape(B, n, D))
