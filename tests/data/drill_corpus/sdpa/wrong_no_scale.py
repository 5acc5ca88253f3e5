# drill: sdpa
"""Scaled dot-product attention."""
import math
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores * math.sqrt(d_k), dim=-1)
    return weights @ v, weights
