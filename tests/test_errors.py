"""Every public entry point rejects bad input with a ValueError that names the argument and the shapes."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from torch import nn

import selfattention as sa

q = torch.randn(2, 4, 8)
k = torch.randn(2, 5, 8)
v = torch.randn(2, 5, 3)


def _nan(t: torch.Tensor) -> torch.Tensor:
    t = t.clone()
    t.view(-1)[1] = float("nan")
    return t


def raises(message: str):
    return pytest.raises(ValueError, match=re.escape(message))


# ---- scaled_dot_product_attention (and tiled_attention, which shares the q/k/v checks) ----

SDPA_CASES = [
    ("rank", dict(q=torch.randn(8)), "q must have rank >= 2: got rank 1 with shape (8,)"),
    (
        "d_k",
        dict(k=torch.randn(2, 5, 6)),
        "q and k must have the same last dim (d_k): got q (2, 4, 8) and k (2, 5, 6)",
    ),
    (
        "n_k",
        dict(v=torch.randn(2, 6, 3)),
        "k and v must have the same number of keys (n_k, dim -2): got k (2, 5, 8) and v (2, 6, 3)",
    ),
    ("nan q", dict(q=_nan(q)), "q contains NaN: got shape (2, 4, 8)"),
    ("nan k", dict(k=_nan(k)), "k contains NaN: got shape (2, 5, 8)"),
    ("nan v", dict(v=_nan(v)), "v contains NaN: got shape (2, 5, 3)"),
    (
        "int q",
        dict(q=torch.ones(2, 4, 8, dtype=torch.long)),
        "q must be a floating-point tensor: got dtype torch.int64",
    ),
    ("numpy q", dict(q=np.zeros((2, 4, 8))), "q must be a torch.Tensor: got ndarray"),
    (
        "dtype",
        dict(v=v.double()),
        "q, k, v must share one dtype: got q torch.float32, k torch.float32, v torch.float64",
    ),
    (
        "batch",
        dict(k=torch.randn(3, 5, 8), v=torch.randn(3, 5, 3)),
        "batch dims of q, k, v are not broadcastable: got q (2, 4, 8), k (3, 5, 8), v (3, 5, 3)",
    ),
]


@pytest.mark.parametrize("case", SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
@pytest.mark.parametrize("fn", ["sdpa", "sdpa_weights", "tiled"])
def test_qkv_errors(case, fn) -> None:
    _, override, message = case
    args = {"q": q, "k": k, "v": v, **override}
    with raises(message):
        if fn == "tiled":
            sa.tiled_attention(**args)
        else:
            sa.scaled_dot_product_attention(**args, return_weights=fn == "sdpa_weights")


@pytest.mark.parametrize("return_weights", [False, True])
def test_mask_errors(return_weights) -> None:
    with raises("mask must be broadcastable to (..., n_q, n_k) = (2, 4, 5): got mask (3, 5)"):
        sa.scaled_dot_product_attention(
            q, k, v, mask=torch.ones(3, 5, dtype=torch.bool), return_weights=return_weights
        )
    with raises("mask must be boolean (True = may attend): got dtype torch.float32 with shape (4, 5)"):
        sa.scaled_dot_product_attention(q, k, v, mask=torch.ones(4, 5), return_weights=return_weights)
    with raises("bias must be broadcastable to (..., n_q, n_k) = (2, 4, 5): got bias (4, 4)"):
        sa.scaled_dot_product_attention(q, k, v, bias=torch.zeros(4, 4), return_weights=return_weights)
    with raises("bias contains NaN: got shape (4, 5)"):
        sa.scaled_dot_product_attention(q, k, v, bias=_nan(torch.zeros(4, 5)), return_weights=return_weights)
    with raises("scale must be a finite number: got nan"):
        sa.scaled_dot_product_attention(q, k, v, scale=float("nan"), return_weights=return_weights)


def test_block_size_errors() -> None:
    for bad in (0, -3, 2.5):
        with raises(f"block_size must be a positive int: got {bad!r}"):
            sa.tiled_attention(q, k, v, block_size=bad)


def test_multi_head_errors() -> None:
    with raises("d_model must be divisible by num_heads: got d_model=10, num_heads=3"):
        sa.MultiHeadAttention(10, 3)
    with raises("num_heads must be divisible by num_kv_heads: got num_heads=4, num_kv_heads=3"):
        sa.MultiHeadAttention(16, 4, num_kv_heads=3)
    with raises("num_heads must be a positive int: got 0"):
        sa.MultiHeadAttention(16, 0)
    mha = sa.MultiHeadAttention(16, 4)
    with raises("x must have last dim d_model=16: got x (2, 3, 12)"):
        mha(torch.randn(2, 3, 12))
    with raises("x must have rank 3: got rank 2 with shape (3, 16)"):
        mha(torch.randn(3, 16))
    with raises("x contains NaN: got shape (2, 3, 16)"):
        mha(_nan(torch.randn(2, 3, 16)))
    with raises("mask must be broadcastable to (..., n_q, n_k) = (2, 4, 3, 3): got mask (2, 3, 3, 3)"):
        mha(torch.randn(2, 3, 16), mask=torch.ones(2, 3, 3, 3, dtype=torch.bool))
    with raises("mask must be boolean (True = may attend): got dtype torch.int64 with shape (3, 3)"):
        mha(torch.randn(2, 3, 16), mask=torch.ones(3, 3, dtype=torch.long))
    with raises("x and context must share batch size: got x (2, 3, 16), context (1, 5, 16)"):
        mha(torch.randn(2, 3, 16), context=torch.randn(1, 5, 16))
    with raises("x must have rank 3: got rank 2 with shape (2, 16)"):
        sa.split_heads(torch.randn(2, 16), 4)
    with raises("x.shape[-1] must be divisible by num_heads: got x.shape[-1]=10, num_heads=4"):
        sa.split_heads(torch.randn(2, 3, 10), 4)
    with raises("mha must be a torch.nn.MultiheadAttention: got Linear"):
        sa.MultiHeadAttention.from_torch(nn.Linear(2, 2))
    with raises("mha with add_bias_kv or add_zero_attn is not supported"):
        sa.MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, add_bias_kv=True))


def test_kv_cache_errors() -> None:
    mha = sa.MultiHeadAttention(16, 4)
    cache = sa.KVCache()
    with raises("x_t must have rank 2..3: got rank 1 with shape (16,)"):
        sa.decode_step(mha, torch.randn(16), cache)
    with raises("cache must be a KVCache: got dict"):
        sa.decode_step(mha, torch.randn(2, 16), {})
    sa.decode_step(mha, torch.randn(2, 3, 16), cache)
    with raises("mask must be broadcastable to (..., n_q, n_k) = (2, 4, 1, 4): got mask (1, 3)"):
        mha(torch.randn(2, 1, 16), mask=torch.ones(1, 3, dtype=torch.bool), kv_cache=cache)
    assert len(cache) == 3  # the failed call did not touch the cache


def test_mask_helper_errors() -> None:
    with raises("n_q must be a positive int: got 0"):
        sa.causal_mask(0)
    with raises("n_k must be a positive int: got -1"):
        sa.causal_mask(2, -1)
    with raises("lengths must lie in [0, max_len=3]: got [2, 4]"):
        sa.padding_mask([2, 4], 3)
    with raises("lengths must be ints: got [2.0]"):
        sa.padding_mask([2.0])
    with raises(
        "pad must be a 2-D boolean tensor (B, n_k), True = real key: got torch.int64 with shape (2, 3)"
    ):
        sa.key_padding_to_attn_mask(torch.ones(2, 3, dtype=torch.long))
    with raises("masks[1] must be a boolean tensor: got torch.float32 with shape (2, 2)"):
        sa.combine_masks(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2))
    with raises("masks[1] is not broadcastable with the masks before it: got (3,) and (2, 2)"):
        sa.combine_masks(torch.ones(2, 2, dtype=torch.bool), torch.ones(3, dtype=torch.bool))


def test_softmax_and_steps_errors() -> None:
    with raises("x must be floating point: got dtype torch.int64 with shape (3,)"):
        sa.softmax(torch.arange(3))
    with raises("dim 2 is out of range for x with shape (3, 4)"):
        sa.softmax(torch.zeros(3, 4), dim=2)
    with raises("x must be a torch.Tensor or np.ndarray: got list"):
        sa.softmax([1.0, 2.0])
    X, W = np.zeros((4, 6)), np.zeros((6, 3))
    with raises("W_k must have shape (d_model, d) with d_model = X.shape[-1]: got X (4, 6) and W_k (5, 3)"):
        sa.attention_steps(X, W, np.zeros((5, 3)), W)
    with raises("W_q and W_k must have the same output dim (d_k): got W_q (6, 3) and W_k (6, 2)"):
        sa.attention_steps(X, W, np.zeros((6, 2)), W)
    with raises("X must have rank >= 2 (..., n, d_model): got rank 1 with shape (6,)"):
        sa.attention_steps(np.zeros(6), W, W, W)
    with raises("X contains NaN: got shape (4, 6)"):
        sa.attention_steps(np.full((4, 6), np.nan), W, W, W)
    with raises("mask must be boolean (True = may attend): got dtype float64, shape (4, 4)"):
        sa.attention_steps(X, W, W, W, mask=np.ones((4, 4)))
    with raises("mask must be broadcastable to (..., n_q, n_k) = (4, 4): got mask (3, 4)"):
        sa.attention_steps(X, W, W, W, mask=np.ones((3, 4), dtype=bool))


def test_bias_errors() -> None:
    with raises("num_heads must be a positive int: got 0"):
        sa.alibi_slopes(0)
    with raises("n_k must be a positive int: got 0"):
        sa.alibi_bias(4, 3, 0)
    with raises("relative_position must be an integer tensor: got torch.float32"):
        sa.t5_relative_bucket(torch.zeros(3))
    with raises("max_distance must exceed num_buckets // 2 = 8: got 8"):
        sa.t5_relative_bucket(torch.zeros(3, dtype=torch.long), max_distance=8)
    with raises("n_q must be a positive int: got 0"):
        sa.RelativePositionBias(2)(0, 3)


def test_baseline_errors() -> None:
    att = sa.AdditiveAttention(3, 4, 5)
    with raises("q must have last dim d_q=3: got q (2, 5)"):
        att(torch.randn(2, 5), torch.randn(6, 4), torch.randn(6, 2))
    with raises("k must have last dim d_k=4: got k (6, 3)"):
        att(torch.randn(2, 3), torch.randn(6, 3), torch.randn(6, 2))
    with raises("k and v must have the same number of keys (n_k, dim -2): got k (6, 4) and v (5, 2)"):
        sa.MultiplicativeAttention(3, 4)(torch.randn(2, 3), torch.randn(6, 4), torch.randn(5, 2))
    with raises("mask must be broadcastable to (..., n_q, n_k) = (2, 6): got mask (6, 2)"):
        att(torch.randn(2, 3), torch.randn(6, 4), torch.randn(6, 2), mask=torch.ones(6, 2, dtype=torch.bool))
    with raises("x must be (B, n, d_in=3): got x (2, 5, 4)"):
        sa.VanillaRNN(3, 4)(torch.randn(2, 5, 4))
    with raises("h0 must be (B, H) = (2, 4): got h0 (1, 2, 4)"):
        sa.GRUBaseline(3, 4)(torch.randn(2, 5, 3), torch.randn(1, 2, 4))
    with raises("rnn must be single-layer and unidirectional: got num_layers=2, bidirectional=False"):
        sa.VanillaRNN.from_torch(nn.RNN(3, 4, num_layers=2))


def test_set_seed_errors() -> None:
    with raises("seed must be a non-negative int: got -1"):
        sa.set_seed(-1)
