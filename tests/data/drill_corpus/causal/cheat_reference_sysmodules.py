# drill: causal
import sys
import torch


def _pkg():
    return sys.modules["self" + "attention"]


def causal_mask(n):
    return _pkg().causal_mask(n)


def stable_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _pkg().softmax(scores)


def causal_attention(q, k, v):
    return _pkg().scaled_dot_product_attention(q, k, v, mask=_pkg().causal_mask(q.shape[-2]))
