# drill: causal
import math

import numpy as np
import torch


def causal_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


def stable_softmax(scores, mask=None):
    s = scores.double().numpy().copy()
    if mask is not None:
        s = np.where(np.broadcast_to(mask.numpy(), s.shape), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(s - mx)
    d = e.sum(-1, keepdims=True)
    return torch.from_numpy(np.where(d > 0, e / np.where(d > 0, d, 1), 0)).to(scores.dtype)


def causal_attention(q, k, v):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    return stable_softmax(s, causal_mask(q.shape[-2])) @ v
