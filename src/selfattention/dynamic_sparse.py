"""Learned (dynamic) block-sparse attention in the style of MoBA (Lu et al. 2025).

The keys are cut into contiguous blocks of ``block_size``; each query scores every block by its dot product
with the block's mean key, keeps the ``top_k`` best blocks and attends, with an ordinary softmax, only to the
keys inside them. Under ``causal=True`` (self-attention, n_q = n_k) a query never selects a block that starts
after it, always selects its own block, and inside its own block sees only keys at or before it.
Unlike FlashAttention this is an approximation: a key whose block mean scores low is never read.
"""

from __future__ import annotations

import torch

from ._checks import _shape, check_positive_int, check_qkv
from .core import _attend

__all__ = ["block_topk_mask", "block_topk_attention"]


def block_topk_mask(
    q: torch.Tensor, k: torch.Tensor, block_size: int, top_k: int, causal: bool = False
) -> torch.Tensor:
    """q (..., n_q, d_k), k (..., n_k, d_k) -> bool (..., n_q, n_k), True = the query reads this key."""
    block_size = check_positive_int(block_size, "block_size")
    top_k = check_positive_int(top_k, "top_k")
    n_q, n_k = q.shape[-2], k.shape[-2]
    if causal and n_q != n_k:
        raise ValueError(f"causal=True needs n_q == n_k (self-attention): got q {_shape(q)}, k {_shape(k)}")
    n_blocks = -(-n_k // block_size)  # ceil: the last block may be shorter
    pad = n_blocks * block_size - n_k
    # the gate in at least float32, as MoBA's reference does: a bf16 gate ranks some blocks differently
    g_dtype = torch.promote_types(torch.promote_types(q.dtype, k.dtype), torch.float32)
    k_pad = torch.nn.functional.pad(k.to(g_dtype), (0, 0, 0, pad))  # (..., n_blocks * block_size, d_k)
    sums = k_pad.unflatten(-2, (n_blocks, block_size)).sum(-2)  # (..., n_blocks, d_k)
    counts = torch.full((n_blocks,), float(block_size), dtype=g_dtype, device=k.device)
    counts[-1] = block_size - pad
    means = sums / counts[:, None]  # (..., n_blocks, d_k): each block's mean key
    gate = q.to(g_dtype) @ means.transpose(-2, -1)  # (..., n_q, n_blocks): the parameter-free gate
    key_block = torch.arange(n_k, device=k.device) // block_size  # (n_k,)
    if causal:
        q_block = torch.arange(n_q, device=q.device) // block_size  # (n_q,)
        blk = torch.arange(n_blocks, device=q.device)
        allowed = blk[None, :] <= q_block[:, None]  # (n_q, n_blocks): no future block
        gate = gate.masked_fill(~allowed, float("-inf"))
        gate = gate.masked_fill(blk[None, :] == q_block[:, None], float("inf"))  # own block always
    chosen = gate.topk(min(top_k, n_blocks), dim=-1).indices  # (..., n_q, k')
    selected = torch.zeros_like(gate, dtype=torch.bool).scatter(-1, chosen, True)
    if causal:
        selected &= allowed  # a query near the start has fewer than top_k blocks to choose from
    mask = selected[..., key_block]  # (..., n_q, n_k): every key of a selected block
    if causal:
        mask &= torch.ones(n_q, n_k, dtype=torch.bool, device=q.device).tril()
    return mask


def block_topk_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    block_size: int,
    top_k: int,
    causal: bool = False,
    return_mask: bool = False,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """(..., n_q, d_k) x (..., n_k, d_k) x (..., n_k, d_v) -> (..., n_q, d_v) [, mask (..., n_q, n_k)].

    Softmax attention restricted to each query's ``top_k`` blocks (scored by q · mean(K_block)).
    """
    check_qkv(q, k, v)
    if k.shape[-2] == 0:
        raise ValueError(f"k and v must hold at least one key (n_k >= 1): got k {_shape(k)}")
    mask = block_topk_mask(q, k, block_size, top_k, causal=causal)
    out = _attend(q, k, v, mask=mask)
    assert isinstance(out, torch.Tensor)
    return (out, mask) if return_mask else out
