# drill: alibi
import math
import sys
import torch


def _bias_mod():
    return sys.modules["self" + "attention.bias"]


def alibi_slopes(num_heads):
    return _bias_mod().alibi_slopes(num_heads)


def alibi_bias(num_heads, n):
    return _bias_mod().alibi_bias(num_heads, n, n)


def alibi_attention(q, k, v):
    h, n = q.shape[1], q.shape[-2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + alibi_bias(h, n)
    s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(s, dim=-1) @ v
