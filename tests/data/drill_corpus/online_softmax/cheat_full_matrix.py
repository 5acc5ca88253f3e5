# drill: online_softmax
import math
import torch


def online_attention(q, k, v, block_size):
    # builds the whole (n_q, n_k) score matrix, then a hand-written softmax
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.exp(s - s.amax(-1, keepdim=True))
    return (e / e.sum(-1, keepdim=True)) @ v
