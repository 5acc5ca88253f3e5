# drill: kv_chunk
import math
import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    """Bottom-right causal mask; a softmax by hand."""
    p = k_cache.size(2)
    m = q_new.size(2)
    k_all = torch.cat((k_cache, k_new), 2)
    v_all = torch.cat((v_cache, v_new), 2)
    s = torch.matmul(q_new, k_all.transpose(2, 3)) / math.sqrt(q_new.size(3))
    keep = torch.arange(p + m).unsqueeze(0) <= (torch.arange(m).unsqueeze(1) + p)
    s = torch.where(keep, s, torch.tensor(-math.inf, dtype=s.dtype))
    w = torch.exp(s - s.amax(-1, keepdim=True))
    w = w / w.sum(-1, keepdim=True)
    return w @ v_all, k_all, v_all
