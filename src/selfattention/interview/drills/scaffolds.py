"""Scaffold files for the coding drills (written by ``attention-rehearse drill NAME``)."""

from __future__ import annotations

__all__ = ["SCAFFOLDS"]

_SDPA = '''\
# drill: sdpa
"""Scaled dot-product attention with a mask, written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
Use only torch tensor operations (torch.softmax is fine; F.scaled_dot_product_attention is not the point).
"""

import math

import torch


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (out, weights).

    q: (B, h, n_q, d_k)   k: (B, h, n_k, d_k)   v: (B, h, n_k, d_v)
    mask: None, or bool broadcastable to (B, h, n_q, n_k); True = may attend, False = hidden.
          Every row of the mask allows at least one key.
    out: (B, h, n_q, d_v)   weights: (B, h, n_q, n_k), each row sums to 1, 0 where the mask is False.
    out has the dtype of q (float16 in, float16 out).
    """
    raise NotImplementedError
'''

_CAUSAL = '''\
# drill: causal
"""Causal mask + numerically stable softmax + causal attention, written from scratch.

Fill in the three functions, then run:  attention-rehearse grade THIS_FILE
Do not call torch.softmax / F.softmax in stable_softmax: write it with exp, max and sum.
"""

import math

import torch


def causal_mask(n: int) -> torch.Tensor:
    """(n, n) bool: True where key j <= query i (a token sees itself and the past)."""
    raise NotImplementedError


def stable_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last dim of scores (..., n_q, n_k), numerically stable (scores of 1e4 must work).

    mask: None, or bool broadcastable to scores; False positions get weight exactly 0.
    A row where the mask is all False returns all zeros (not NaN).
    """
    raise NotImplementedError


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """q, k: (B, h, n, d_k), v: (B, h, n, d_v) -> (B, h, n, d_v); query i attends to keys 0..i only."""
    raise NotImplementedError
'''

_MHA = '''\
# drill: mha
"""Multi-head self-attention as an nn.Module, written from scratch.

Fill in the class, then run:  attention-rehearse grade THIS_FILE
The grader copies your q_proj/k_proj/v_proj/out_proj weights into selfattention.MultiHeadAttention and
compares the outputs, so keep those four names. Do not use nn.MultiheadAttention or
F.scaled_dot_product_attention: write the head split, the attention and the merge yourself.
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """x (B, n, d_model) -> (B, n, d_model) with num_heads heads of width d_k = d_model // num_heads."""

    def __init__(self, d_model: int, num_heads: int) -> None:
        """Raise ValueError if d_model is not divisible by num_heads.

        Create q_proj, k_proj, v_proj, out_proj = nn.Linear(d_model, d_model) (with bias).
        """
        super().__init__()
        raise NotImplementedError

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, n, d_model); mask None or bool (n, n), True = may attend -> (B, n, d_model)."""
        raise NotImplementedError
'''

_KV = '''\
# drill: kv_cache
"""One decoding step with a KV cache, written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
"""

import math

import torch


def decode_step(
    q_t: torch.Tensor, k_t: torch.Tensor, v_t: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Attend from the newest token to every token so far, and grow the cache.

    q_t, k_t: (B, h, 1, d_k) and v_t: (B, h, 1, d_v), the projections of the new token.
    k_cache: (B, h, t, d_k) and v_cache: (B, h, t, d_v), the t earlier tokens (t may be 0).
    Returns (out, k_cache_new, v_cache_new):
        out (B, h, 1, d_v), k_cache_new (B, h, t + 1, d_k), v_cache_new (B, h, t + 1, d_v),
    with the new token appended at the END of the caches.
    """
    raise NotImplementedError
'''

_ALIBI = '''\
# drill: alibi
"""ALiBi (Press et al., 2022): a per-head linear distance penalty added to the attention scores.

Fill in the three functions, then run:  attention-rehearse grade THIS_FILE
"""

import math

import torch


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """(h,) float slopes m_1..m_h.

    For h a power of 2: the geometric sequence 2^(-8/h), 2^(-16/h), ..., 2^(-8) (h = 8 gives 1/2 ... 1/256).
    Otherwise (the paper's recipe): with c the largest power of 2 below h, the c slopes for c heads,
    followed by the first h - c of every other slope (indices 0, 2, 4, ...) of the 2c-head slopes.
    """
    raise NotImplementedError


def alibi_bias(num_heads: int, n: int) -> torch.Tensor:
    """(h, n, n) bias added to the scores: bias[h, i, j] = -m_h * (i - j) for keys j <= i.

    Entries with j > i are hidden by the causal mask; any finite value is fine there.
    """
    raise NotImplementedError


def alibi_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """q, k: (B, h, n, d_k), v: (B, h, n, d_v) -> (B, h, n, d_v): causal attention with the ALiBi bias.

    scores = q k^T / sqrt(d_k) + alibi_bias(h, n), causal mask, softmax over the keys, times v.
    """
    raise NotImplementedError
'''

_GQA = '''\
# drill: gqa
"""Grouped-query attention (GQA): h query heads share g key/value heads, written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
Do not use F.scaled_dot_product_attention (enable_gqa) or the selfattention package.
"""

import math

import torch


def gqa_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """q: (B, h, n_q, d_k)   k: (B, g, n_k, d_k)   v: (B, g, n_k, d_v)  ->  (B, h, n_q, d_v).

    h must be a multiple of g (else raise ValueError). Query heads are grouped in order: heads
    0 .. h/g - 1 use key/value head 0, the next h/g use head 1, and so on. g = h is multi-head
    attention, g = 1 is multi-query attention (MQA).
    mask: None or bool broadcastable to (B, h, n_q, n_k), True = may attend.
    The output has the dtype of q (float16 in, float16 out).
    """
    raise NotImplementedError
'''

_KV_CHUNK = '''\
# drill: kv_chunk
"""A multi-token KV-cache step (chunked prefill / speculative decoding), written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
"""

import math

import torch


def decode_chunk(
    q_new: torch.Tensor,
    k_new: torch.Tensor,
    v_new: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Attend from m new tokens to everything so far, causally, and grow the cache.

    q_new, k_new, v_new: (B, h, m, d)   k_cache, v_cache: (B, h, p, d) with p >= 0 past tokens.
    New token i sits at absolute position p + i: it may attend to keys 0 .. p + i (the cache, the earlier
    new tokens and itself), never to a later new token.
    Return (out (B, h, m, d), k_cache_new (B, h, p + m, d), v_cache_new (B, h, p + m, d)).
    """
    raise NotImplementedError
'''

_ROPE = '''\
# drill: rope
"""Rotary position embedding (RoPE), written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
"""

import torch


def rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """x (..., n, d) with d even, positions (n,) -> same shape and dtype as x.

    Rotate each pair (x[..., 2i], x[..., 2i+1]) (interleaved pairs, as in RoFormer) of row t by the angle
    positions[t] * theta_i with theta_i = base ** (-2i / d), i = 0 .. d/2 - 1:
        out[2i]   = x[2i] cos - x[2i+1] sin
        out[2i+1] = x[2i] sin + x[2i+1] cos
    Then rope(q, m) . rope(k, n) depends on m - n only.
    """
    raise NotImplementedError
'''

_ONLINE = '''\
# drill: online_softmax
"""Tiled attention with an online softmax (the core of FlashAttention), written from scratch.

Fill in the function, then run:  attention-rehearse grade THIS_FILE
Do not call a softmax (torch.softmax, F.softmax, ...) in online_attention, and never build the full
(n_q, n_k) score matrix: keep a running max, a running sum and an unnormalised output per query.
"""

import math

import torch


def online_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int) -> torch.Tensor:
    """q (..., n_q, d), k (..., n_k, d), v (..., n_k, d_v) -> (..., n_q, d_v) = softmax(q k^T / sqrt(d)) v.

    Visit the keys in blocks of block_size (the last block may be shorter). For each block:
    s = q k_blk^T / sqrt(d); m_new = max(m, rowmax(s)); rescale l and o by exp(m - m_new);
    l += rowsum(exp(s - m_new)); o += exp(s - m_new) v_blk. At the end return o / l.
    """
    raise NotImplementedError
'''

_NOT_ALLOWED = """\
Not allowed (the grader refuses it, under any name it is reached by):
- the selfattention package (the grader compares against it);
- F.scaled_dot_product_attention, nn.MultiheadAttention or any library attention kernel
  (torch._C._nn..., torch.ops.aten._scaled_dot_product_*, flash / efficient attention);
- reaching into torch's or Python's internals (torch._C, torch.ops, torch.library, torch._anything,
  gc, sys, inspect, ast, builtins, frames), exec / eval / compile / __import__ / importlib, getattr with
  a name built at run time, and writing files (your code runs in a read-only sandbox);
- threads and processes (threading, concurrent.futures, os, subprocess, multiprocessing, socket);
- numpy, scipy, jax or any array library other than torch (import math and torch only).
"""
_SOFTMAXES = (
    "torch.softmax, F.softmax, torch._softmax,\n  log_softmax, logsumexp, logcumsumexp, logaddexp, "
    "torch.special,\n  torch.distributions"
)
_EXTRA = {
    "causal": f"- a library softmax in stable_softmax ({_SOFTMAXES}): write it with exp, max and sum\n"
    "  (causal_attention may use torch.softmax).\n",
    "online_softmax": f"- a library softmax in online_attention ({_SOFTMAXES}),\n"
    "  any tensor as large as half the full (n_q, n_k) score matrix, and any tensor\n"
    "  other than k and v (or a view of them) with all n_k keys along an axis: compute the\n"
    "  scores of one block of at most block_size keys at a time.\n",
}


def _with_rules(name: str, text: str) -> str:
    """The scaffold with what is not allowed at the end of its module docstring."""
    head, sep, rest = text.partition('"""\n\n')
    return f"{head}\n{_NOT_ALLOWED}{_EXTRA.get(name, '')}{sep}{rest}"


SCAFFOLDS: dict[str, str] = {
    name: _with_rules(name, text)
    for name, text in {
        "sdpa": _SDPA, "causal": _CAUSAL, "mha": _MHA, "kv_cache": _KV, "alibi": _ALIBI, "gqa": _GQA,
        "kv_chunk": _KV_CHUNK, "rope": _ROPE, "online_softmax": _ONLINE,
    }.items()
}
