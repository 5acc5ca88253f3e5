# drill: causal
import math

import torch


def causal_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


def stable_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    s64 = scores.double()
    lse = torch.logcumsumexp(s64, dim=-1)[..., -1:]
    return torch.nan_to_num(torch.exp(s64 - lse).to(scores.dtype), nan=0.0)


def causal_attention(q, k, v):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    return stable_softmax(s, causal_mask(q.shape[-2])) @ v
