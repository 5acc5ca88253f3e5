# drill: kv_chunk
"""Chunked KV cache step."""
import math
import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    p, m = k_cache.shape[-2], q_new.shape[-2]
    k = torch.cat([k_cache, k_new], dim=-2)
    v = torch.cat([v_cache, v_new], dim=-2)
    s = q_new @ k.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    i = torch.arange(m)[:, None]
    j = torch.arange(p + m)[None, :]
    allowed = torch.ones(m, p + m, dtype=torch.bool).tril(diagonal=p)
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, dim=-1) @ v, k, v
