"""Serving: the prefix cache on PagedKVCache, decode_cost vs chapter 12's formulas, batching."""

from __future__ import annotations

import pytest
import torch

from selfattention import PagedKVCache, attention_intensity, kv_numbers_per_token
from selfattention.serving import (
    H100_SXM,
    LLAMA3_8B,
    LLAMA3_70B,
    decode_cost,
    kv_capacity,
    model_params,
    simulate_batching,
)


def _kv(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(2, n, 4, generator=g), torch.randn(2, n, 4, generator=g)


def test_forked_sequences_share_the_prompt_and_copy_on_the_first_divergent_token() -> None:
    shared = PagedKVCache(block_size=4, num_blocks=12, num_kv_heads=2, head_dim=4)
    prompt = _kv(10, 0)  # 2 full blocks + 2 tokens in a third
    shared.append("a", *prompt)
    shared.fork("a", "b")
    assert shared.shared_blocks("a", "b") == 3 and shared.num_free_blocks == 12 - 3
    a_new, b_new = _kv(3, 1), _kv(5, 2)
    shared.append("b", *b_new)  # b writes into the shared half-full block: copied first
    assert shared.copies == 1 and shared.shared_blocks("a", "b") == 2
    shared.append("a", *a_new)  # a's third block is now its own: no copy
    assert shared.copies == 1
    separate = PagedKVCache(block_size=4, num_blocks=12, num_kv_heads=2, head_dim=4)
    for seq, new in (("a", a_new), ("b", b_new)):
        separate.append(seq, *prompt)
        separate.append(seq, *new)
        for got, want in zip(shared.gather(seq), separate.gather(seq), strict=True):
            assert torch.equal(got, want)
        q = torch.randn(4, 1, 4, generator=torch.Generator().manual_seed(3))
        torch.testing.assert_close(shared.attention(q, seq), separate.attention(q, seq))
    assert shared.num_free_blocks == 12 - (2 + 2 + 2)  # 2 shared + a's 2 + b's 2
    want_b = [t.clone() for t in shared.gather("b")]
    shared.free("a")  # the shared blocks stay with b
    assert shared.num_free_blocks == 12 - 4
    assert all(torch.equal(x, y) for x, y in zip(shared.gather("b"), want_b, strict=True))
    shared.free("b")
    assert shared.num_free_blocks == 12 and shared.refs == [0] * 12


def test_fork_at_a_block_boundary_copies_nothing_and_a_partial_prefix_works() -> None:
    cache = PagedKVCache(block_size=4, num_blocks=8, num_kv_heads=2, head_dim=4)
    k, v = _kv(9, 4)
    cache.append("a", k, v)
    cache.fork("a", "b", length=8)  # exactly two blocks
    cache.append("b", *_kv(1, 5))
    assert cache.copies == 0 and cache.shared_blocks("a", "b") == 2
    cache.fork("a", "c", length=6)  # mid-block: c's next token copies the block
    new = _kv(2, 6)
    cache.append("c", *new)
    assert cache.copies == 1
    assert torch.equal(cache.gather("c")[0], torch.cat([k[:, :6], new[0]], 1))
    assert torch.equal(cache.gather("a")[0], k)  # a untouched by c's write
    with pytest.raises(ValueError, match="length"):
        cache.fork("a", "d", length=10)
    with pytest.raises(ValueError, match="already"):
        cache.fork("a", "b")


def test_out_of_blocks_counts_the_copy_and_changes_nothing() -> None:
    cache = PagedKVCache(block_size=4, num_blocks=2, num_kv_heads=2, head_dim=4)
    cache.append("a", *_kv(6, 7))
    cache.fork("a", "b")
    with pytest.raises(RuntimeError, match="out of blocks"):
        cache.append("b", *_kv(3, 8))  # needs a copy and a new block, 0 free
    assert cache.lengths["b"] == 6 and cache.copies == 0 and cache.refs == [2, 2]


def test_llama3_parameter_counts() -> None:
    assert model_params(LLAMA3_70B)["total"] == 70_553_706_496  # "70B": 70.6e9 in the model card
    assert model_params(LLAMA3_8B)["total"] == 8_030_261_248  # "8B": 8.03e9


@pytest.mark.parametrize("batch,context", [(1, 1), (1, 8192), (64, 4096), (256, 128)])
def test_decode_cost_equals_the_chapter_12_formulas(batch: int, context: int) -> None:
    c = decode_cost(LLAMA3_70B, H100_SXM, batch, context, devices=8)
    cfg = LLAMA3_70B
    kv_tok = kv_numbers_per_token(cfg["layers"], cfg["num_kv_heads"], cfg["d_head"]) * 2
    assert c["kv_bytes_per_token"] == kv_tok == 2 * 80 * 8 * 128 * 2
    assert c["kv_bytes"] == batch * context * kv_tok
    attn = attention_intensity("decode", context, 64, 128, 8, batch=batch, bytes_per_element=2)
    qo = batch * 2 * 64 * 128 * 2  # q and o of every query head, 2 bytes
    assert c["kv_bytes"] == cfg["layers"] * (attn["bytes"] - qo)
    params = model_params(cfg)
    assert c["weight_bytes"] == 2 * (params["total"] - params["embedding"])
    assert c["flops"] == 2 * (params["total"] - params["embedding"]) * batch + 80 * attn["flops"]
    assert c["bytes"] == c["weight_bytes"] + c["kv_bytes"]
    assert c["t_step"] == max(c["bytes"] / (8 * 3.35e12), c["flops"] / (8 * 989e12))
    assert c["tokens_per_s"] == batch / c["t_step"]


def test_decode_is_memory_bound_until_a_large_batch() -> None:
    one = decode_cost(LLAMA3_70B, H100_SXM, 1, 1024, devices=8)
    many = decode_cost(LLAMA3_70B, H100_SXM, 32, 1024, devices=8)
    assert one["t_memory"] > 100 * one["t_compute"]
    assert many["t_step"] < 1.2 * one["t_step"]  # 32 sequences, barely slower per step
    assert many["tokens_per_s"] > 25 * one["tokens_per_s"]
    huge = decode_cost(LLAMA3_70B, H100_SXM, 4096, 1, devices=8)  # tiny context: compute-bound
    assert huge["t_compute"] > huge["t_memory"]
    tied = dict(LLAMA3_8B, tied=True)  # a tied head reads the embedding table as a matmul
    assert decode_cost(tied, H100_SXM, 1, 1)["weight_bytes"] == 2 * (model_params(tied)["total"])


def test_kv_capacity_is_the_memory_left_after_the_weights() -> None:
    cap = kv_capacity(LLAMA3_70B, H100_SXM, 8, utilisation=0.9)
    assert cap["weights"] == 2 * 70_553_706_496
    assert cap["pool"] == 8 * 80e9 * 0.9 - cap["weights"]
    assert cap["tokens"] == cap["pool"] // (2 * 80 * 8 * 128 * 2)
    fp8 = kv_capacity(LLAMA3_70B, H100_SXM, 8, weight_bytes=1, kv_bytes=1)
    assert fp8["tokens"] > 2 * cap["tokens"]  # half the bytes per token and a larger pool
    assert kv_capacity(LLAMA3_70B, H100_SXM, 1)["tokens"] == 0  # 141 GB of weights do not fit 80 GB


def test_static_and_continuous_batching_by_hand() -> None:
    lengths = [10, 2, 2, 2, 10, 2, 2, 2]
    static = simulate_batching(lengths, 4, "static")
    cont = simulate_batching(lengths, 4, "continuous")
    assert static["steps"] == 20  # two batches, each waits for its 10-token request
    assert cont["steps"] == 12  # slot 0: 10; slot 1: 2 + 10; slots 2, 3: 2 + 2 + 2, 2 + 2
    assert static["utilisation"] == 32 / 80 and cont["utilisation"] == 32 / 48
    equal = [5] * 8  # equal lengths: nothing to gain
    assert simulate_batching(equal, 4, "static") == simulate_batching(equal, 4, "continuous")
