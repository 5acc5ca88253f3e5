# drill: kv_chunk
"""Chunked decode step that reuses a tiny attention helper."""

import math

import torch


def masked_attention(q, k, v, allowed):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, -1) @ v


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    """Query i (absolute p + i) sees keys 0 .. p + i."""
    p, m = k_cache.shape[-2], q_new.shape[-2]
    k_all = torch.cat([k_cache, k_new], -2)
    v_all = torch.cat([v_cache, v_new], -2)
    allowed = torch.ones(m, p + m, dtype=torch.bool).tril(diagonal=p)
    if m == 0:
        raise ValueError("decode_chunk: no new tokens (see selfattention.kv_cache for the one-token step)")
    return masked_attention(q_new, k_all, v_all, allowed), k_all, v_all
