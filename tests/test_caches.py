"""Sliding-window masks and the rolling cache, attention sinks, and the paged KV cache."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from selfattention import (
    KVCache,
    MultiHeadAttention,
    PagedKVCache,
    RollingKVCache,
    SinkKVCache,
    causal_mask,
    scaled_dot_product_attention,
    set_seed,
    sink_positions,
    sliding_window_mask,
    streaming_mask,
)


def _attend(q, k, v, mask=None):
    return scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)[0]


# ---- sliding windows ----


def test_sliding_window_mask_values() -> None:
    expected = torch.tensor(
        [
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [1, 1, 1, 0, 0],
            [0, 1, 1, 1, 0],
            [0, 0, 1, 1, 1],
        ],
        dtype=torch.bool,
    )
    assert torch.equal(sliding_window_mask(5, 5, window=3), expected)
    assert torch.equal(sliding_window_mask(2, 5, window=3), expected[3:])  # end-aligned like causal_mask
    assert torch.equal(sliding_window_mask(1, 5, window=2), torch.tensor([[0, 0, 0, 1, 1]], dtype=torch.bool))
    assert torch.equal(sliding_window_mask(6, 6, window=6), causal_mask(6, 6))  # window >= n: causal
    assert torch.equal(sliding_window_mask(4, 4, window=1), torch.eye(4, dtype=torch.bool))
    with pytest.raises(ValueError, match="window"):
        sliding_window_mask(3, 3, window=0)


@pytest.mark.parametrize("window", [1, 3, 8, 40])
def test_rolling_cache_decoding_equals_windowed_attention(window) -> None:
    g = torch.Generator().manual_seed(window)
    n = 25
    q, k, v = (torch.randn(2, 3, n, 4, generator=g, dtype=torch.float64) for _ in range(3))
    ref = _attend(q, k, v, sliding_window_mask(n, n, window))
    cache = RollingKVCache(window)
    outs, sizes = [], []
    for t in range(n):
        keys, values = cache.append(k[:, :, t : t + 1], v[:, :, t : t + 1])
        assert keys.shape[2] == min(t + 1, window)  # the new token sees at most `window` positions
        outs.append(_attend(q[:, :, t : t + 1], keys, values))
        sizes.append(cache.nbytes())
    torch.testing.assert_close(torch.cat(outs, dim=2), ref, atol=1e-12, rtol=0)
    assert len(set(sizes)) == 1 and sizes[0] == 2 * 2 * 3 * window * 4 * 8  # fixed, bounded by the window
    assert len(cache) == min(n, window)
    if window < n:  # the window really cuts: full causal attention differs
        assert (ref - _attend(q, k, v, causal_mask(n, n))).abs().max() > 1e-3


def test_rolling_cache_chunked_prefill_then_decode() -> None:
    g = torch.Generator().manual_seed(7)
    n, w = 30, 6
    q, k, v = (torch.randn(1, 2, n, 4, generator=g, dtype=torch.float64) for _ in range(3))
    ref = _attend(q, k, v, sliding_window_mask(n, n, w))
    cache = RollingKVCache(w)
    outs, start = [], 0
    for chunk in (10, 1, 4, 15):  # chunks longer and shorter than the window
        keys, values = cache.append(k[:, :, start : start + chunk], v[:, :, start : start + chunk])
        mask = sliding_window_mask(chunk, keys.shape[2], w)
        outs.append(_attend(q[:, :, start : start + chunk], keys, values, mask))
        start += chunk
    torch.testing.assert_close(torch.cat(outs, dim=2), ref, atol=1e-12, rtol=0)


@pytest.mark.parametrize("layers,window", [(1, 4), (2, 4), (3, 3), (4, 5)])
def test_receptive_field_of_stacked_windows_by_intervention(layers, window) -> None:
    """Change token j, see whether the last output moves: exactly L * (w - 1) + 1 positions reach it."""
    set_seed(layers * 10 + window)
    n, d = 24, 8
    stack = [MultiHeadAttention(d, 2).double() for _ in range(layers)]
    mask = sliding_window_mask(n, n, window)

    def run(x):
        for layer in stack:
            x = x + layer(x, mask=mask)  # residual: a position keeps its own signal
        return x

    x = torch.randn(1, n, d, dtype=torch.float64)
    base = run(x)
    i = n - 1  # the last query
    reach = []
    for j in range(n):
        x2 = x.clone()
        x2[0, j] += 1.0
        if (run(x2)[0, i] - base[0, i]).abs().max() > 1e-9:
            reach.append(j)
    field = layers * (window - 1) + 1
    assert reach == list(range(i - field + 1, i + 1))


# ---- attention sinks ----


def test_sink_positions_values() -> None:
    assert sink_positions(5, num_sinks=2, window=3) == [0, 1, 2, 3, 4]
    assert sink_positions(10, num_sinks=2, window=3) == [0, 1, 7, 8, 9]
    assert sink_positions(10, num_sinks=0, window=3) == [7, 8, 9]
    assert sink_positions(3, num_sinks=4, window=2) == [0, 1, 2]
    expected_row = torch.zeros(10, dtype=torch.bool)
    expected_row[[0, 1, 7, 8, 9]] = True
    assert torch.equal(streaming_mask(10, 10, num_sinks=2, window=3)[-1], expected_row)


@pytest.mark.parametrize("num_sinks,window", [(4, 8), (1, 3), (0, 5)])
def test_sink_cache_equals_attention_over_exactly_the_kept_positions(num_sinks, window) -> None:
    g = torch.Generator().manual_seed(num_sinks + 10 * window)
    n = 30
    q, k, v = (torch.randn(2, 2, n, 4, generator=g, dtype=torch.float64) for _ in range(3))
    cache = SinkKVCache(num_sinks, window)
    outs = []
    for t in range(n):
        keys, values = cache.append(k[:, :, t : t + 1], v[:, :, t : t + 1])
        kept = sink_positions(t + 1, num_sinks, window)
        assert cache.positions == kept
        assert len(cache) <= num_sinks + window
        idx = torch.tensor(kept)
        expected = _attend(q[:, :, t : t + 1], k[:, :, idx], v[:, :, idx])
        out = _attend(q[:, :, t : t + 1], keys, values)
        torch.testing.assert_close(out, expected, atol=1e-12, rtol=0)
        outs.append(out)
    ref = _attend(q, k, v, streaming_mask(n, n, num_sinks, window))
    torch.testing.assert_close(torch.cat(outs, dim=2), ref, atol=1e-12, rtol=0)
    window_only = _attend(q, k, v, sliding_window_mask(n, n, window))
    if num_sinks > 0:  # the sinks change the answer compared to a plain window
        assert (ref - window_only).abs().max() > 1e-3
    else:
        torch.testing.assert_close(ref, window_only, atol=1e-12, rtol=0)


def test_sink_cache_takes_one_token() -> None:
    with pytest.raises(ValueError, match="one token"):
        SinkKVCache(2, 2).append(torch.randn(1, 1, 2, 4), torch.randn(1, 1, 2, 4))


# ---- paged cache ----


def test_paged_cache_equals_contiguous_cache_and_decoding() -> None:
    g = torch.Generator().manual_seed(0)
    h, d, bs = 2, 4, 4
    paged = PagedKVCache(block_size=bs, num_blocks=20, num_kv_heads=h, head_dim=d, dtype=torch.float64)
    contiguous = {s: KVCache() for s in "abc"}
    schedule = [("a", 5), ("b", 1), ("c", 9), ("a", 1), ("b", 7), ("a", 1), ("c", 1), ("b", 4), ("a", 3)]
    for seq, n_new in schedule:  # interleaved prefill and decode steps of three sequences
        k = torch.randn(h, n_new, d, generator=g, dtype=torch.float64)
        v = torch.randn(h, n_new, d, generator=g, dtype=torch.float64)
        paged.append(seq, k, v)
        ck, cv = contiguous[seq].append(k[None], v[None])
        pk, pv = paged.gather(seq)
        assert torch.equal(pk, ck[0]) and torch.equal(pv, cv[0])
        q = torch.randn(1, h, n_new, d, generator=g, dtype=torch.float64)
        mask = causal_mask(n_new, ck.shape[2])
        torch.testing.assert_close(_attend(q, pk[None], pv[None], mask), _attend(q, ck, cv, mask),
                                   atol=0, rtol=0)
    for s in "abc":
        assert len(paged.block_tables[s]) == math.ceil(paged.lengths[s] / bs)
    owned = [b for t in paged.block_tables.values() for b in t]
    assert len(owned) == len(set(owned))  # no block belongs to two sequences


def test_paged_cache_reuses_freed_blocks_and_runs_out_honestly() -> None:
    paged = PagedKVCache(block_size=4, num_blocks=5, num_kv_heads=1, head_dim=2)
    paged.append("a", torch.ones(1, 9, 2), torch.ones(1, 9, 2))  # 3 blocks
    paged.append("b", torch.ones(1, 8, 2), torch.ones(1, 8, 2))  # 2 blocks: pool full
    assert paged.num_free_blocks == 0
    with pytest.raises(RuntimeError, match="out of blocks"):
        paged.append("c", torch.ones(1, 1, 2), torch.ones(1, 1, 2))
    a_blocks = set(paged.block_tables["a"])
    paged.free("a")
    assert paged.num_free_blocks == 3
    paged.append("c", 2 * torch.ones(1, 12, 2), 3 * torch.ones(1, 12, 2))
    assert set(paged.block_tables["c"]) == a_blocks  # the freed blocks are reused
    k, v = paged.gather("c")
    assert torch.equal(k, 2 * torch.ones(1, 12, 2)) and torch.equal(v, 3 * torch.ones(1, 12, 2))
    assert torch.equal(paged.gather("b")[0], torch.ones(1, 8, 2))  # b untouched


def test_paged_waste_is_below_one_block_per_sequence() -> None:
    lengths = [5, 17, 32, 1, 63, 100, 16, 77]
    bs, max_len = 16, 128
    paged = PagedKVCache(block_size=bs, num_blocks=64, num_kv_heads=1, head_dim=2)
    for i, n in enumerate(lengths):
        paged.append(i, torch.zeros(1, n, 2), torch.zeros(1, n, 2))
    per_seq = [paged.wasted_slots(i) for i in range(len(lengths))]
    assert per_seq == [(-n) % bs for n in lengths]
    assert max(per_seq) <= bs - 1
    prealloc = sum(max_len - n for n in lengths)  # reserve max_len slots for every sequence
    assert paged.wasted_slots() == sum(per_seq) == 57
    assert prealloc == 713 and paged.wasted_slots() < prealloc / 10


def test_kv_cache_old_import_path_still_works() -> None:
    from selfattention.caches import KVCache as new
    from selfattention.decoding import KVCache as old

    assert old is new is KVCache


def test_full_window_causal_equals_torch() -> None:
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(1, 1, 9, 4, generator=g, dtype=torch.float64) for _ in range(3))
    out = _attend(q, k, v, sliding_window_mask(9, 9, 3))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=sliding_window_mask(9, 9, 3))
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=0)


@pytest.mark.parametrize("existing", [False, True])
def test_failed_paged_append_leaves_the_cache_exactly_as_before(existing) -> None:
    """Out of blocks: the append raises and changes nothing (before the fix a new id kept an empty block
    table with no length, so ``wasted_slots()`` raised KeyError and ``gather`` / ``free`` misreported)."""
    paged = PagedKVCache(block_size=4, num_blocks=3, num_kv_heads=1, head_dim=2)
    paged.append("a", torch.ones(1, 6, 2), torch.ones(1, 6, 2))  # 2 blocks, 1 free
    before = (
        {s: list(t) for s, t in paged.block_tables.items()}, dict(paged.lengths), list(paged._free),
        paged.k_pool.clone(), paged.v_pool.clone(),
    )
    seq = "a" if existing else "x"
    with pytest.raises(RuntimeError, match="out of blocks"):
        paged.append(seq, torch.full((1, 100, 2), 7.0), torch.full((1, 100, 2), 7.0))
    assert paged.block_tables == before[0] and paged.lengths == before[1] and paged._free == before[2]
    assert torch.equal(paged.k_pool, before[3]) and torch.equal(paged.v_pool, before[4])
    assert paged.wasted_slots() == 2  # usable: 8 slots for 6 tokens
    if not existing:
        with pytest.raises(ValueError, match="not in the cache"):
            paged.gather("x")
        with pytest.raises(ValueError, match="not in the cache"):
            paged.free("x")
    paged.append("x", torch.ones(1, 3, 2), torch.ones(1, 3, 2))  # the free block still serves a new sequence
    assert paged.num_free_blocks == 0


@pytest.mark.parametrize("heads", [2, 6])
def test_paged_attention_reads_blocks_in_place_and_equals_contiguous(heads) -> None:
    g = torch.Generator().manual_seed(3)
    paged = PagedKVCache(block_size=4, num_blocks=16, num_kv_heads=2, head_dim=8, dtype=torch.float64)
    ks = {s: torch.randn(2, n, 8, generator=g, dtype=torch.float64) for s, n in (("a", 11), ("b", 5))}
    vs = {s: torch.randn(2, t.shape[1], 8, generator=g, dtype=torch.float64) for s, t in ks.items()}
    for lo, hi in ((0, 3), (3, 4), (4, 11)):  # interleaved appends: the blocks of a and b alternate
        for s in ks:
            if lo < ks[s].shape[1]:
                paged.append(s, ks[s][:, lo:hi], vs[s][:, lo:hi])
    q = torch.randn(heads, 1, 8, generator=g, dtype=torch.float64)
    for s in ks:
        k_rep = ks[s].repeat_interleave(heads // 2, dim=0)  # (h, n, d): GQA's K/V head per query head
        v_rep = vs[s].repeat_interleave(heads // 2, dim=0)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k_rep, v_rep)
        torch.testing.assert_close(paged.attention(q, s), ref, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="multiple"):
        paged.attention(torch.randn(3, 1, 8, dtype=torch.float64), "a")


def test_paged_attention_on_an_empty_sequence_gives_zeros_and_unknown_ids_read_once() -> None:
    """A sequence created by an empty append has no key: zeros, as ``scaled_dot_product_attention`` gives a
    fully masked row (before the fix: merge's "outs and lses must be non-empty"); the error for an unknown id
    lists the ids by their repr once (before: ["'z'"])."""
    paged = PagedKVCache(block_size=4, num_blocks=4, num_kv_heads=2, head_dim=8, dtype=torch.float64)
    paged.append("z", torch.zeros(2, 0, 8, dtype=torch.float64), torch.zeros(2, 0, 8, dtype=torch.float64))
    assert paged.lengths == {"z": 0} and paged.block_tables == {"z": []}
    q = torch.randn(4, 1, 8, dtype=torch.float64)
    out = paged.attention(q, "z")
    assert out.shape == q.shape and torch.equal(out, torch.zeros_like(q))
    masked = scaled_dot_product_attention(q, q, q, mask=torch.zeros(1, 1, dtype=torch.bool))
    assert torch.equal(masked, out)  # the package's convention for a row with no key
    paged.append(3, torch.ones(2, 1, 8, dtype=torch.float64), torch.ones(2, 1, 8, dtype=torch.float64))
    for read in (paged.gather, lambda s: paged.attention(q, s)):
        with pytest.raises(ValueError) as err:
            read("y")
        assert str(err.value) == "seq_id 'y' is not in the cache: have ['z', 3]"


def test_cache_robustness_detached_pool_known_ids_one_dtype() -> None:
    """Review of chapter 12 (L3, L6): the paged pool stores values (before: appending a k that requires
    grad made k_pool.requires_grad True, chaining every append into one graph); its attention is inference
    only, for an empty sequence too (before: zeros detached from q); an unknown id in wasted_slots is the
    ValueError of gather (before: KeyError); SinkKVCache rejects a dtype change (before: float64 silently
    promoted the float32 cache); LatentKVCache checks k_rope against c and the cache (before: unchecked)."""
    from selfattention import LatentKVCache

    paged = PagedKVCache(block_size=4, num_blocks=4, num_kv_heads=1, head_dim=2, dtype=torch.float64)
    k = torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True)
    paged.append(0, k, k * 2)
    assert not paged.k_pool.requires_grad and not paged.v_pool.requires_grad
    torch.testing.assert_close(paged.gather(0)[1], (k * 2).detach())
    paged.append(1, torch.zeros(1, 0, 2, dtype=torch.float64), torch.zeros(1, 0, 2, dtype=torch.float64))
    q = torch.randn(1, 1, 2, dtype=torch.float64, requires_grad=True)
    for seq in (0, 1):  # a sequence with tokens and an empty one
        with pytest.raises(RuntimeError, match="inference only"):
            paged.attention(q, seq)
        with torch.no_grad():
            assert paged.attention(q, seq).shape == q.shape
    with pytest.raises(ValueError, match="not in the cache"):
        paged.wasted_slots("unknown")
    assert paged.wasted_slots(0) == 1 and paged.wasted_slots() == 1

    sink = SinkKVCache(2, 3)
    sink.append(torch.zeros(1, 1, 1, 2), torch.zeros(1, 1, 1, 2))
    with pytest.raises(ValueError, match="dtype"):
        wide = torch.zeros(1, 1, 1, 2, dtype=torch.float64)
        sink.append(wide, wide)
    assert sink.k is not None and sink.k.dtype == torch.float32 and len(sink) == 1

    latent = LatentKVCache()
    latent.append(torch.zeros(2, 3, 8), torch.zeros(2, 3, 4))
    bad_rope = [
        torch.zeros(2, 2, 4),  # n_new differs from c's
        torch.zeros(2, 3, 4, dtype=torch.float64),  # dtype differs from c's
        torch.zeros(2, 3, 5),  # d_rope differs from the cache's
        torch.zeros(2, 3),  # not (B, n_new, d_rope)
    ]
    for rope in bad_rope:
        with pytest.raises(ValueError):
            latent.append(torch.zeros(2, 3, 8), rope)
    with pytest.raises(ValueError, match="dtype"):
        latent.append(torch.zeros(2, 1, 8, dtype=torch.float64), torch.zeros(2, 1, 4, dtype=torch.float64))
    assert len(latent) == 3
    latent.append(torch.zeros(2, 1, 8), torch.zeros(2, 1, 4))
    assert len(latent) == 4


def test_wasted_slots_counts_a_shared_partial_block_once() -> None:
    """After a fork at a partly filled block both tables hold that block: the pool total counts it once
    (before the fix the per-sequence sum gave 4 for two physical blocks with 2 empty slots)."""
    paged = PagedKVCache(block_size=4, num_blocks=8, num_kv_heads=1, head_dim=2)
    paged.append("a", torch.ones(1, 6, 2), torch.ones(1, 6, 2))
    paged.fork("a", "b")
    assert paged.wasted_slots("a") == paged.wasted_slots("b") == 2
    assert paged.wasted_slots() == 2 == 2 * 4 - 6
    paged.append("b", torch.ones(1, 1, 2), torch.ones(1, 1, 2))  # copy-on-write: b gets its own last block
    assert paged.wasted_slots() == 2 + 1  # a's last block 2 empty, b's copy 1 empty
    paged.fork("a", "c", 5)  # c keeps 1 of the 2 tokens in a's last block: that block still holds 2
    assert paged.wasted_slots("c") == 3 and paged.wasted_slots() == 3


@pytest.mark.parametrize("make", ["kv", "rolling", "sink", "paged"])
def test_caches_reject_a_v_of_another_dtype(make) -> None:
    """A float64 v with a float32 k: before the fix SinkKVCache promoted its v cache to float64, PagedKVCache
    cast v silently and RollingKVCache failed inside torch."""
    k4, v4 = torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2, dtype=torch.float64)
    cache = {"kv": lambda: KVCache(), "rolling": lambda: RollingKVCache(window=3),
             "sink": lambda: SinkKVCache(num_sinks=1, window=2),
             "paged": lambda: PagedKVCache(block_size=4, num_blocks=2, num_kv_heads=1, head_dim=2)}[make]()
    with pytest.raises(ValueError, match="same dtype"):
        if make == "paged":
            cache.append("a", k4[0], v4[0])
        else:
            cache.append(k4, v4)
