# drill: online_softmax
"""Online softmax attention with matmul and an explicit while loop."""

import math

import torch


def online_attention(q, k, v, block_size):
    """Returns softmax(q k^T / sqrt(d)) v without materialising the n_q x n_k scores."""
    n_k = k.size(-2)
    inv = math.sqrt(q.size(-1))
    run_max = None
    run_sum = None
    acc = None
    pos = 0
    while pos < n_k:
        end = min(pos + block_size, n_k)
        blk = torch.matmul(q, k[..., pos:end, :].transpose(-2, -1)) / inv
        bmax = blk.max(dim=-1, keepdim=True).values
        if run_max is None:
            new_max = bmax
            p = (blk - new_max).exp()
            run_sum = p.sum(-1, keepdim=True)
            acc = torch.matmul(p, v[..., pos:end, :])
        else:
            new_max = torch.maximum(run_max, bmax)
            corr = (run_max - new_max).exp()
            p = (blk - new_max).exp()
            run_sum = run_sum * corr + p.sum(-1, keepdim=True)
            acc = acc * corr + torch.matmul(p, v[..., pos:end, :])
        run_max = new_max
        pos = end
    return acc / run_sum
