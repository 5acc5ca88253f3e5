# drill: kv_cache
"""KV cache step."""
import math
import torch


def decode_step(q_t, k_t, v_t, k_cache, v_cache):
    k = torch.cat([k_cache, k_t], dim=-2)
    v = torch.cat([v_cache, v_t], dim=-2)
    s = q_t @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    w = torch.softmax(s, dim=-1)
    return w @ v, k, v
