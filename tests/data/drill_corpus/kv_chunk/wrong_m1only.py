# drill: kv_chunk
import math

import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    # "new tokens see the whole chunk": only right when m == 1
    k_all = torch.cat([k_cache, k_new], dim=-2)
    v_all = torch.cat([v_cache, v_new], dim=-2)
    s = q_new @ k_all.transpose(-1, -2) / math.sqrt(q_new.shape[-1])
    return torch.softmax(s, -1) @ v_all, k_all, v_all
