# drill: kv_cache
import math
import torch


def decode_step(q_t, k_t, v_t, k_cache, v_cache):
    """One step. (F.scaled_dot_product_attention would do it, but not here.)"""
    k_all = torch.cat((k_cache, k_t), dim=2)
    v_all = torch.cat((v_cache, v_t), dim=2)
    s = torch.einsum("bhqd,bhkd->bhqk", q_t, k_all) / math.sqrt(q_t.size(-1))
    s = s - s.max(-1, keepdim=True).values
    w = s.exp()
    w = w / w.sum(-1, keepdim=True)
    return torch.einsum("bhqk,bhkd->bhqd", w, v_all), k_all, v_all
