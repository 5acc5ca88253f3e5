# drill: kv_chunk
"""Chunked decode step, one new token at a time (a loop, no mask tensor)."""

import math

import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    """Loop over the m new tokens; token i reads the first p + i + 1 keys."""
    p = k_cache.shape[2]
    m = q_new.shape[2]
    k_all = torch.cat((k_cache, k_new), 2)
    v_all = torch.cat((v_cache, v_new), 2)
    scale = q_new.shape[-1] ** -0.5
    rows = []
    for i in range(m):
        kk = k_all[:, :, : p + i + 1]
        vv = v_all[:, :, : p + i + 1]
        sc = (q_new[:, :, i : i + 1] @ kk.transpose(2, 3)) * scale
        sc = sc - sc.amax(-1, keepdim=True)
        e = sc.exp()
        rows.append((e / e.sum(-1, keepdim=True)) @ vv)
    return torch.cat(rows, 2), k_all, v_all
