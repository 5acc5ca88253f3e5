"""MultiHeadAttention against torch.nn.MultiheadAttention; MQA / GQA; split / merge heads."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from selfattention import (
    MultiHeadAttention,
    causal_mask,
    combine_masks,
    key_padding_to_attn_mask,
    merge_heads,
    padding_mask,
    split_heads,
)

E, H, B, N = 16, 4, 3, 6


def _torch_mha(batch_first: bool = True, bias: bool = True, seed: int = 0) -> nn.MultiheadAttention:
    torch.manual_seed(seed)
    mha = nn.MultiheadAttention(E, H, batch_first=batch_first, bias=bias)
    if bias:  # torch initialises the biases to 0: make them matter
        with torch.no_grad():
            mha.in_proj_bias.normal_()
            mha.out_proj.bias.normal_()
    return mha.eval()


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_matches_torch_with_causal_and_key_padding(batch_first, bias) -> None:
    tmha = _torch_mha(batch_first, bias)
    ours = MultiHeadAttention.from_torch(tmha)
    x = torch.randn(B, N, E)
    pad = padding_mask([6, 4, 2], N)  # (B, N), True = real token
    causal = causal_mask(N)  # (N, N), True = may attend
    xt = x if batch_first else x.transpose(0, 1)  # torch wants (N, B, E) when batch_first=False
    # torch's boolean masks mean True = NOT allowed: the opposite polarity
    ref_out, ref_w = tmha(
        xt, xt, xt, attn_mask=~causal, key_padding_mask=~pad, need_weights=True, average_attn_weights=False
    )
    if not batch_first:
        ref_out = ref_out.transpose(0, 1)
    mask = combine_masks(causal, key_padding_to_attn_mask(pad))  # (B, 1, N, N)
    out, w = ours(x, mask=mask, return_weights=True)
    assert out.shape == (B, N, E) and w.shape == (B, H, N, N)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=1e-5, rtol=0)
    # polarity: key 5 of sequence 1 is padding, so nobody attends to it; query 0 only sees key 0
    assert torch.all(w[1, :, :, 4:] == 0)
    assert torch.all(w[:, :, 0, 0] == 1)
    # and the fast path (no weights) agrees
    torch.testing.assert_close(ours(x, mask=mask), ref_out, atol=1e-5, rtol=0)


def test_mask_polarity_matters() -> None:
    """Passing torch's polarity (True = blocked) to ours must NOT reproduce torch: the conversion is real."""
    tmha = _torch_mha()
    ours = MultiHeadAttention.from_torch(tmha)
    x = torch.randn(B, N, E)
    causal = causal_mask(N)
    ref, _ = tmha(x, x, x, attn_mask=~causal, need_weights=False)
    wrong = ours(x, mask=~causal | torch.eye(N, dtype=torch.bool))  # eye keeps every row non-empty
    assert (wrong - ref).abs().max() > 1e-2
    torch.testing.assert_close(ours(x, mask=causal), ref, atol=1e-5, rtol=0)


def test_cross_attention_matches_torch() -> None:
    tmha = _torch_mha()
    ours = MultiHeadAttention.from_torch(tmha)
    x, ctx = torch.randn(B, 4, E), torch.randn(B, 7, E)
    pad = padding_mask([7, 5, 1], 7)
    ref_out, ref_w = tmha(x, ctx, ctx, key_padding_mask=~pad, average_attn_weights=False)
    out, w = ours(x, context=ctx, mask=key_padding_to_attn_mask(pad), return_weights=True)
    assert out.shape == (B, 4, E) and w.shape == (B, H, 4, 7)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=1e-5, rtol=0)


def test_num_kv_heads_equal_num_heads_is_plain_mha() -> None:
    tmha = _torch_mha()
    plain = MultiHeadAttention.from_torch(tmha)
    explicit = MultiHeadAttention(E, H, num_kv_heads=H)
    explicit.load_state_dict(plain.state_dict())  # same parameter names and shapes
    assert explicit.k_proj.weight.shape == (E, E)
    x = torch.randn(B, N, E)
    ref, _ = tmha(x, x, x, attn_mask=~causal_mask(N), need_weights=False)
    torch.testing.assert_close(explicit(x, mask=causal_mask(N)), ref, atol=1e-5, rtol=0)


@pytest.mark.parametrize("num_kv_heads", [1, 2])
def test_gqa_equals_mha_with_repeated_kv_weights(num_kv_heads) -> None:
    torch.manual_seed(1)
    gqa = MultiHeadAttention(E, H, num_kv_heads=num_kv_heads)
    d_k = E // H
    assert gqa.k_proj.weight.shape == (num_kv_heads * d_k, E)
    assert gqa.v_proj.weight.shape == (num_kv_heads * d_k, E)
    rep = H // num_kv_heads
    mha = MultiHeadAttention(E, H)
    with torch.no_grad():
        for name in ("q_proj", "out_proj"):
            getattr(mha, name).load_state_dict(getattr(gqa, name).state_dict())
        for name in ("k_proj", "v_proj"):
            src, dst = getattr(gqa, name), getattr(mha, name)
            w = src.weight.view(num_kv_heads, d_k, E)  # (h_kv, d_k, E)
            dst.weight.copy_(w.repeat_interleave(rep, dim=0).reshape(H * d_k, E))  # (h*d_k, E)
            b = src.bias.view(num_kv_heads, d_k)  # (h_kv, d_k)
            dst.bias.copy_(b.repeat_interleave(rep, dim=0).reshape(H * d_k))  # (h*d_k,)
    x = torch.randn(B, N, E)
    o1, w1 = gqa(x, mask=causal_mask(N), return_weights=True)
    o2, w2 = mha(x, mask=causal_mask(N), return_weights=True)
    torch.testing.assert_close(o1, o2, atol=1e-5, rtol=0)
    torch.testing.assert_close(w1, w2, atol=1e-5, rtol=0)
    # query heads in one group read the same keys but have different queries: weights differ across heads
    assert (w1[:, 0] - w1[:, 1]).abs().max() > 1e-3


def test_split_and_merge_heads() -> None:
    x = torch.arange(2 * 3 * 8, dtype=torch.float32).view(2, 3, 8)  # (B=2, n=3, h*d=8)
    s = split_heads(x, 2)
    assert s.shape == (2, 2, 3, 4)
    assert torch.equal(s[1, 1, 2], x[1, 2, 4:8])  # head 1 = the second slice of the feature dim
    assert torch.equal(s[0, 0, 1], x[0, 1, 0:4])
    assert torch.equal(merge_heads(s), x)


@pytest.mark.parametrize("num_kv_heads", [1, 2])
def test_grouped_query_attention_equals_repeated_kv(num_kv_heads: int) -> None:
    from selfattention import grouped_query_attention, repeat_kv, scaled_dot_product_attention
    from selfattention.complexity import peak_memory

    torch.manual_seed(0)
    B, h, n, d = 2, 8, 6, 4
    q = torch.randn(B, h, n, d)
    k, v = torch.randn(B, num_kv_heads, n, d), torch.randn(B, num_kv_heads, n, d)
    mask = torch.ones(B, 1, n, n, dtype=torch.bool).tril()
    mask[1, 0, 2] = False  # a fully masked row: output 0, like the library's attention
    rep = h // num_kv_heads
    want = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask=mask)
    got = grouped_query_attention(q, k, v, mask=mask)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    assert torch.equal(got[1, :, 2], torch.zeros(h, d))
    # no copy of K and V per query head: the repeat_kv path allocates h/h_kv times the cache
    copy_bytes = peak_memory(repeat_kv, k, rep).largest
    assert copy_bytes == B * h * n * d * 4
    out_bytes = B * h * n * d * 4
    copied = peak_memory(lambda: scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep)))
    assert copied.peak >= 3 * out_bytes  # two copies of size h plus the output
    assert peak_memory(grouped_query_attention, q, k, v).peak < 2 * out_bytes  # the output (+ scratch)
    layer = MultiHeadAttention(32, 8, num_kv_heads=num_kv_heads)
    x = torch.randn(2, 5, 32)
    with torch.no_grad():
        fast, (slow, _) = layer(x), layer(x, return_weights=True)
    torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-6)


def test_grouped_query_attention_rejects_bad_groups() -> None:
    from selfattention import grouped_query_attention

    with pytest.raises(ValueError, match="heads"):
        grouped_query_attention(torch.randn(1, 6, 3, 4), torch.randn(1, 4, 3, 4), torch.randn(1, 4, 3, 4))
    with pytest.raises(ValueError, match="q, k, v"):
        grouped_query_attention(torch.randn(1, 4, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(1, 1, 3, 4))


def test_mean_pool_kv_heads_is_the_identity_with_one_head_per_group():
    from selfattention import mean_pool_kv_heads

    torch.manual_seed(0)
    mha = MultiHeadAttention(32, 8).double()
    x = torch.randn(2, 7, 32, dtype=torch.float64)
    same = mean_pool_kv_heads(mha, 8)
    assert same.num_kv_heads == 8
    assert torch.allclose(same(x), mha(x), rtol=0, atol=1e-12)


def test_mean_pool_kv_heads_pools_contiguous_groups():
    """Groups are contiguous (heads 0-3 -> K/V head 0), the grouping the forward pass repeats with."""
    from selfattention import mean_pool_kv_heads

    torch.manual_seed(1)
    mha = MultiHeadAttention(32, 8).double()
    d_k = mha.d_k
    with torch.no_grad():  # make the 4 K/V heads of each group identical: pooling must then change nothing
        for proj in (mha.k_proj, mha.v_proj):
            w = proj.weight.view(2, 4, d_k, 32)
            w.copy_(w[:, :1].expand_as(w).clone())
            b = proj.bias.view(2, 4, d_k)
            b.copy_(b[:, :1].expand_as(b).clone())
    gqa = mean_pool_kv_heads(mha, 2)
    x = torch.randn(2, 9, 32, dtype=torch.float64)
    assert gqa.k_proj.weight.shape == (2 * d_k, 32)
    assert torch.allclose(gqa(x), mha(x), rtol=0, atol=1e-12)
    torch.manual_seed(2)
    other = MultiHeadAttention(32, 8).double()
    pooled = mean_pool_kv_heads(other, 2)
    expected = other.k_proj.weight[d_k * 4 : d_k * 8].view(4, d_k, 32).mean(0)  # heads 4-7
    assert torch.allclose(pooled.k_proj.weight[d_k:], expected, rtol=0, atol=0)
    assert (pooled(x) - other(x)).abs().max() > 1e-3  # distinct heads: a different function


def test_mean_pool_kv_heads_checks_its_inputs():
    from selfattention import mean_pool_kv_heads

    with pytest.raises(ValueError, match="mha.num_kv_heads"):
        mean_pool_kv_heads(MultiHeadAttention(32, 8), 3)
    with pytest.raises(ValueError, match="mha must be a MultiHeadAttention"):
        mean_pool_kv_heads(torch.nn.Linear(2, 2), 1)


@pytest.mark.parametrize(("layers", "window"), [(1, 4), (2, 4), (3, 4), (2, 3)])
def test_windowed_receptive_field_is_layers_times_window_minus_one_plus_one(layers, window):
    from selfattention import windowed_receptive_field

    moved = windowed_receptive_field(layers, window, n=24)
    span = layers * (window - 1) + 1
    assert moved == list(range(24 - span, 24))


def test_windowed_receptive_field_without_a_binding_window_sees_everything():
    from selfattention import windowed_receptive_field

    assert windowed_receptive_field(1, 30, n=12) == list(range(12))
    with pytest.raises(ValueError, match="window"):
        windowed_receptive_field(2, 0)


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_sink_window_relays_evicted_tokens_within_the_stack_reach(layers):
    """StreamingLLM's mask: the sinks and, after L layers, the last L(w-1)+1 positions move the last output.
    One layer sees only the kept positions; with two or more, evicted tokens in reach still matter (relayed
    through later tokens' states), and beyond it they do not."""
    from selfattention import windowed_receptive_field

    n, sinks, w = 30, 4, 8
    moved = windowed_receptive_field(layers, w, n=n, num_sinks=sinks)
    span = layers * (w - 1) + 1
    assert moved == list(range(sinks)) + list(range(n - span, n))
    with pytest.raises(ValueError, match="num_sinks"):
        windowed_receptive_field(1, w, num_sinks=-1)


@pytest.mark.parametrize("n_q, n_k", [(1, 1), (1, 5), (3, 5), (4, 4)])
def test_broadcast_masks_fast_path_equals_readable_path(n_q: int, n_k: int) -> None:
    """Cross-attention, masks (1, 1), (1, n_k), (n_q, 1), (1, 1, 1, 1): fast == readable == full (H1)."""
    torch.manual_seed(n_q * 10 + n_k)
    mha = MultiHeadAttention(E, H).double()
    x, ctx = torch.randn(2, n_q, E, dtype=torch.float64), torch.randn(2, n_k, E, dtype=torch.float64)
    masks = [
        torch.ones(1, 1, dtype=torch.bool),
        torch.ones(1, 1, 1, 1, dtype=torch.bool),
        torch.ones(1, n_k, dtype=torch.bool),
        torch.ones(n_q, 1, dtype=torch.bool),
        causal_mask(n_q, n_k),
    ]
    with torch.no_grad():
        for mask in masks:
            full = mask.expand(2, H, n_q, n_k).clone()  # the same mask, no broadcasting left
            ref, _ = mha(x, context=ctx, mask=full, return_weights=True)
            fast = mha(x, context=ctx, mask=mask)
            torch.testing.assert_close(fast, ref, atol=1e-10, rtol=0, msg=str(tuple(mask.shape)))


def test_decode_step_with_an_all_true_broadcast_mask_reads_every_cached_key() -> None:
    """One decode step with an explicit (1, 1, 1, 1) all-True mask equals the default causal step (H1)."""
    from selfattention import KVCache

    torch.manual_seed(0)
    mha = MultiHeadAttention(E, H).double()
    x = torch.randn(1, 5, E, dtype=torch.float64)
    with torch.no_grad():
        full = mha(x, mask=causal_mask(5))[:, -1:]  # (1, 1, E): last position, no cache
        for mask in (None, torch.ones(1, 1, 1, 1, dtype=torch.bool), torch.ones(1, 1, dtype=torch.bool)):
            cache = KVCache()
            mha(x[:, :4], kv_cache=cache)
            step = mha(x[:, 4:], kv_cache=cache, mask=mask)
            torch.testing.assert_close(step, full, atol=1e-10, rtol=0)
