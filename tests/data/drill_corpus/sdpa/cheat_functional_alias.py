# drill: sdpa
import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    fn = getattr(torch._C._nn, "scaled_dot_" + "product_attention")
    out = fn(q, k, v, attn_mask=mask)
    s = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return out, torch.softmax(s, -1)
