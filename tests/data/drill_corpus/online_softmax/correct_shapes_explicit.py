# drill: online_softmax
import math
import torch


def online_attention(q, k, v, block_size):
    """Running max and sum; never the (n_q, n_k) matrix (unlike a softmax over all scores)."""
    *lead, n_q, d = q.shape
    n_k = k.shape[-2]
    run_max = q.new_full((*lead, n_q), -math.inf)
    run_sum = q.new_zeros((*lead, n_q))
    acc = q.new_zeros((*lead, n_q, v.shape[-1]))
    for b in range(0, n_k, block_size):
        e = min(b + block_size, n_k)
        s = torch.einsum("...qd,...kd->...qk", q, k[..., b:e, :]) / math.sqrt(d)
        new_max = torch.max(run_max, s.max(dim=-1).values)
        alpha = (run_max - new_max).exp()
        pexp = (s - new_max.unsqueeze(-1)).exp()
        run_sum = run_sum * alpha + pexp.sum(-1)
        acc = acc * alpha.unsqueeze(-1) + torch.einsum("...qk,...kd->...qd", pexp, v[..., b:e, :])
        run_max = new_max
    return acc / run_sum.unsqueeze(-1)
