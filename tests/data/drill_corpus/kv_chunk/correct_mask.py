# drill: kv_chunk
"""Chunked decode step: the causal mask aligned bottom-right."""

import math

import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    """New token i is at absolute position p + i and sees keys 0 .. p + i."""
    p, m = k_cache.shape[-2], q_new.shape[-2]
    k_all = torch.cat([k_cache, k_new], dim=-2)
    v_all = torch.cat([v_cache, v_new], dim=-2)
    qi = torch.arange(m, device=q_new.device)[:, None] + p
    kj = torch.arange(p + m, device=q_new.device)[None, :]
    allowed = kj <= qi
    s = torch.einsum("bhqd,bhkd->bhqk", q_new, k_all) / math.sqrt(q_new.shape[-1])
    s = s.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(s, dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", w, v_all)
    return out, k_all, v_all
