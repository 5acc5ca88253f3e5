# drill: kv_chunk
import math

import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    p, m = k_cache.shape[-2], q_new.shape[-2]
    k_all = torch.cat([k_cache, k_new], dim=-2)
    v_all = torch.cat([v_cache, v_new], dim=-2)
    allowed = torch.ones(m, p + m, dtype=torch.bool).tril(diagonal=p + 1)   # one too many
    s = q_new @ k_all.transpose(-1, -2) / math.sqrt(q_new.shape[-1])
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, -1) @ v_all, k_all, v_all
