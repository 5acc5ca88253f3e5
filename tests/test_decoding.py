"""KV-cache decoding equals full causal attention."""

from __future__ import annotations

import pytest
import torch

from selfattention import KVCache, MultiHeadAttention, causal_mask, decode_step

E, H, B, N = 16, 4, 2, 7


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
def test_token_by_token_equals_full_causal(num_kv_heads) -> None:
    torch.manual_seed(0)
    mha = MultiHeadAttention(E, H, num_kv_heads=num_kv_heads)
    x = torch.randn(B, N, E)
    full = mha(x, mask=causal_mask(N))  # (B, N, E)
    cache = KVCache()
    steps = [decode_step(mha, x[:, t, :], cache) for t in range(N)]  # each (B, E)
    assert steps[0].shape == (B, E)
    torch.testing.assert_close(torch.stack(steps, dim=1), full, atol=1e-5, rtol=0)
    assert len(cache) == N
    # without the cache (each token alone) the answers differ: the cache is doing the work
    alone = mha(x[:, -1:, :])
    assert (alone[:, 0] - full[:, -1]).abs().max() > 1e-3


@pytest.mark.parametrize("num_kv_heads", [4, 2])
def test_prompt_chunk_then_single_tokens(num_kv_heads) -> None:
    torch.manual_seed(1)
    mha = MultiHeadAttention(E, H, num_kv_heads=num_kv_heads)
    x = torch.randn(B, N, E)
    full = mha(x, mask=causal_mask(N))
    cache = KVCache()
    prompt = decode_step(mha, x[:, :4, :], cache)  # (B, 4, E): end-aligned causal mask inside the chunk
    rest = [mha(x[:, t : t + 1, :], kv_cache=cache) for t in range(4, N)]  # each (B, 1, E)
    torch.testing.assert_close(torch.cat([prompt, *rest], dim=1), full, atol=1e-5, rtol=0)
    # two chunks of 3 + 4 work as well
    cache2 = KVCache()
    out = torch.cat([decode_step(mha, x[:, :3], cache2), decode_step(mha, x[:, 3:], cache2)], dim=1)
    torch.testing.assert_close(out, full, atol=1e-5, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("num_kv_heads", [4, 1])
def test_nbytes(dtype, num_kv_heads) -> None:
    mha = MultiHeadAttention(E, H, num_kv_heads=num_kv_heads).to(dtype)
    cache = KVCache()
    assert cache.nbytes() == 0 and len(cache) == 0
    x = torch.randn(B, 5, E, dtype=dtype)
    decode_step(mha, x, cache)
    d_k, itemsize = E // H, (4 if dtype == torch.float32 else 8)
    assert cache.k.shape == (B, num_kv_heads, 5, d_k)
    assert cache.nbytes() == 2 * num_kv_heads * d_k * 5 * itemsize * B


def test_cache_rejects_mismatched_append() -> None:
    cache = KVCache()
    cache.append(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match=r"new k must match the cache in \(B, h_kv, d\)"):
        cache.append(torch.zeros(1, 3, 1, 4), torch.zeros(1, 3, 1, 4))
    with pytest.raises(ValueError, match="k and v must have the same shape"):
        cache.append(torch.zeros(1, 2, 1, 4), torch.zeros(1, 2, 2, 4))
    assert len(cache) == 3
    cache.reset()
    assert len(cache) == 0


def test_kv_cache_with_context_is_rejected() -> None:
    mha = MultiHeadAttention(E, H)
    with pytest.raises(ValueError, match="got both context and kv_cache"):
        mha(torch.randn(B, 1, E), context=torch.randn(B, 3, E), kv_cache=KVCache())
