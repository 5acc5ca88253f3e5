# drill: mha
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("bad")
        self.h = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        B, n, d = x.shape
        sp = lambda t: t.view(B, n, self.h, d // self.h).transpose(1, 2)
        q, k, v = sp(self.q_proj(x)), sp(self.k_proj(x)), sp(self.v_proj(x))
        op = torch.ops.aten._scaled_dot_product_attention_math
        a = op(q, k, v, attn_mask=mask)[0]
        return self.out_proj(a.transpose(1, 2).reshape(B, n, d))
