"""Arithmetic intensity: formulas against FLOPs counted by FlopCounterMode and bytes of the real tensors."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention import (
    KVCache,
    LatentKVCache,
    MultiHeadAttention,
    MultiHeadLatentAttention,
    attention_intensity,
    count_flops,
    kv_numbers_per_token,
    set_seed,
)


def _gqa_core(q, k, v):
    """q (B, h, n_q, d), k, v (B, h_kv, n, d): grouped attention without copying K/V per query head."""
    B, h, n_q, d = q.shape
    h_kv = k.shape[1]
    qg = q.reshape(B, h_kv, (h // h_kv) * n_q, d)  # (B, h_kv, g*n_q, d): the query heads of one group
    a = torch.softmax(qg @ k.transpose(-2, -1) / d**0.5, dim=-1)  # (B, h_kv, g*n_q, n)
    return (a @ v).reshape(B, h, n_q, d)  # (B, h, n_q, d)


def _nbytes(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


@pytest.mark.parametrize("phase", ["prefill", "decode"])
@pytest.mark.parametrize("h,h_kv", [(8, 8), (8, 2), (8, 1)])
def test_mha_gqa_formula_equals_counted_flops_and_tensor_bytes(phase, h, h_kv) -> None:
    B, n, d = 2, 24, 16
    n_q = n if phase == "prefill" else 1
    q = torch.randn(B, h, n_q, d, dtype=torch.float16)
    k = torch.randn(B, h_kv, n, d, dtype=torch.float16)
    v = torch.randn(B, h_kv, n, d, dtype=torch.float16)
    flops, _ = count_flops(_gqa_core, q.float(), k.float(), v.float())
    out = _gqa_core(q.float(), k.float(), v.float()).half()
    got = attention_intensity(phase, n, h, d, num_kv_heads=h_kv, batch=B, bytes_per_element=2)
    assert got["flops"] == flops
    assert got["bytes"] == _nbytes(q, k, v, out)


@pytest.mark.parametrize("phase", ["prefill", "decode"])
def test_mla_formula_equals_counted_flops_and_tensor_bytes(phase) -> None:
    B, h, n, c, r = 2, 4, 20, 12, 6
    n_q = n if phase == "prefill" else 1
    q = torch.randn(B, h, n_q, c + r)  # absorbed queries [q_C W_UK, q_R]
    cache = torch.randn(B, 1, n, c + r)  # [latent, RoPE key]: the whole per-layer cache

    def core(q, cache):
        a = torch.softmax(q @ cache.transpose(-2, -1), dim=-1)  # (B, h, n_q, n)
        return a @ cache[..., :c]  # (B, h, n_q, c): the values are the latents themselves

    flops, _ = count_flops(core, q, cache)
    out = core(q, cache)
    got = attention_intensity(phase, n, h, batch=B, bytes_per_element=4, d_latent=c, d_rope=r)
    assert got["flops"] == flops
    assert got["bytes"] == _nbytes(q, cache, out)


def test_decode_intensity_is_about_one_for_mha_fp16_and_h_over_hkv_for_gqa() -> None:
    n, h, d = 4096, 32, 128
    mha = attention_intensity("decode", n, h, d, bytes_per_element=2)["intensity"]
    assert 0.99 < mha < 1.0
    for h_kv in (8, 4, 1):
        gqa = attention_intensity("decode", n, h, d, num_kv_heads=h_kv, bytes_per_element=2)["intensity"]
        assert abs(gqa / (h / h_kv) - 1) < 0.01
    prefill = attention_intensity("prefill", n, h, d, bytes_per_element=2)["intensity"]
    assert prefill > 500  # prefill: n queries reuse every key, intensity ~ n / 2 for MHA (here 1024)


def test_batch_does_not_change_attention_intensity_in_decode() -> None:
    one = attention_intensity("decode", 2048, 32, 128, num_kv_heads=8, batch=1)
    many = attention_intensity("decode", 2048, 32, 128, num_kv_heads=8, batch=64)
    assert many["flops"] == 64 * one["flops"] and many["bytes"] == 64 * one["bytes"]
    assert many["intensity"] == one["intensity"]  # every sequence reads its own cache


def test_kv_numbers_per_token_match_the_cached_tensors() -> None:
    set_seed(0)
    B, n = 2, 7
    mha = MultiHeadAttention(48, 6, num_kv_heads=2).double()
    cache = KVCache()
    mha(torch.randn(B, n, 48, dtype=torch.float64), kv_cache=cache)
    assert cache.k is not None and cache.v is not None
    per_token = (cache.k.numel() + cache.v.numel()) // (B * n)
    assert per_token == kv_numbers_per_token(1, num_kv_heads=2, d_head=8) == 32
    mla = MultiHeadLatentAttention(48, 6, d_latent=10, d_rope=4).double()
    lcache = LatentKVCache()
    mla(torch.randn(B, n, 48, dtype=torch.float64), cache=lcache)
    assert lcache.numbers_per_token() == kv_numbers_per_token(1, d_latent=10, d_rope=4) == 14
    assert kv_numbers_per_token(60, d_latent=512, d_rope=64) == 34560  # DeepSeek-V2: 60 layers


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="phase"):
        attention_intensity("train", 8, 4, 8)
    with pytest.raises(ValueError, match="num_heads"):
        attention_intensity("decode", 8, 6, 8, num_kv_heads=4)
    with pytest.raises(ValueError, match="d_latent"):
        attention_intensity("decode", 8, 4, d_rope=4)


def test_streamed_prefill_intensity_counts_k_v_once_per_query_block() -> None:
    from selfattention.intensity import streamed_prefill_intensity

    n, d, b_r = 4096, 128, 128
    flops = 4 * n * n * d  # QK^T and PV of one head
    numbers = 2 * n * d + (n // b_r) * 2 * n * d  # Q, O once; K, V once per query block
    assert streamed_prefill_intensity(n, b_r) == flops / (2 * numbers)  # 2-byte numbers
    assert 120 < streamed_prefill_intensity(n, b_r) < 128  # ~ B_r, below an H100's ridge (~295)
    ideal = attention_intensity("prefill", n, 1, d)["intensity"]
    assert streamed_prefill_intensity(n, n) == ideal == n / 2  # one query block: the read-once ideal


def test_streamed_prefill_intensity_bytes_and_kv_heads() -> None:
    """d cancels whatever the bytes: b bytes per number give 2 n / (b (1 + ceil(n / B_r))); GQA's query heads
    share each K/V read; one query block equals attention_intensity's read-once ideal for every setting."""
    from selfattention.intensity import streamed_prefill_intensity

    n, d, b_r = 1000, 64, 128  # 8 query blocks, the last one partial
    for e in (1, 2, 4):
        flops = 4 * n * n * d
        numbers = 2 * n * d + 8 * 2 * n * d
        assert math.isclose(streamed_prefill_intensity(n, b_r, bytes_per_element=e), flops / (e * numbers))
    h, h_kv = 32, 8
    flops = 4 * h * n * n * d
    numbers = 2 * h * n * d + 8 * 2 * h_kv * n * d  # K, V per K/V head per query block
    got = streamed_prefill_intensity(n, b_r, num_heads=h, num_kv_heads=h_kv, bytes_per_element=4)
    assert math.isclose(got, flops / (4 * numbers))
    for e, kv in ((1, None), (4, 8), (2, 1)):
        ideal = attention_intensity("prefill", n, h, d, num_kv_heads=kv, bytes_per_element=e)["intensity"]
        got = streamed_prefill_intensity(n, n, num_heads=h, num_kv_heads=kv, bytes_per_element=e)
        assert math.isclose(got, ideal)
    with pytest.raises(ValueError, match="num_kv_heads"):
        streamed_prefill_intensity(n, b_r, num_heads=6, num_kv_heads=4)
