# drill: gqa
import torch


def gqa_attention(q, k, v, mask=None):
    h, g = q.shape[1], k.shape[1]
    if h % g:
        raise ValueError("h % g")
    k = k.repeat_interleave(h // g, 1)
    v = v.repeat_interleave(h // g, 1)
    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v, attn_mask=mask)[0]
