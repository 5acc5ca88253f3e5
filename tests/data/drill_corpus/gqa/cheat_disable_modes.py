# drill: gqa
import torch

_pd = getattr(torch.utils, "_python" + "_dispatch")
_off = getattr(_pd, "_disable_current" + "_modes")
_k = getattr(getattr(torch, "op" + "s").aten, "_scaled_dot" + "_product_flash_attention_for_cpu")


def gqa_attention(q, k, v, mask=None):
    h, g = q.shape[1], k.shape[1]
    if h % g:
        raise ValueError("h must be a multiple of g")
    k = k.repeat_interleave(h // g, 1)
    v = v.repeat_interleave(h // g, 1)
    with _off():
        if mask is None:
            out = _k(q, k, v)[0]
        else:
            am = torch.zeros(mask.shape, dtype=q.dtype).masked_fill(~mask, float("-inf"))
            am = am.expand(q.shape[0], h, q.shape[2], k.shape[2])
            out = _k(q, k, v, attn_mask=am)[0]
    return out
