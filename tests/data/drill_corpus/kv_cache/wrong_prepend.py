# drill: kv_cache
"""KV cache step."""
import math
import torch


def decode_step(q_t, k_t, v_t, k_cache, v_cache):
    k = torch.cat([k_t, k_cache], dim=-2)
    v = torch.cat([v_t, v_cache], dim=-2)
    s = q_t @ k.transpose(-2, -1) / math.sqrt(q_t.shape[-1])
    w = torch.softmax(s, dim=-1)
    return w @ v, k, v
