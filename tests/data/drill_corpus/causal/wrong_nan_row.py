# drill: causal
"""Causal attention."""
import math
import torch


def causal_mask(n):
    return torch.tril(torch.ones(n, n, dtype=torch.bool))


def stable_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    if mask is not None:
        e = e * mask
    s = e.sum(dim=-1, keepdim=True)
    return e / s


def causal_attention(q, k, v):
    n = q.shape[-2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return stable_softmax(s, causal_mask(n)) @ v
