"""Multi-head latent attention: the cache size, the absorbed decode path, incremental decoding."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention import LatentKVCache, MultiHeadLatentAttention, set_seed
from selfattention.positional import rope_rotate


def _mla(d_q_latent=None, dtype=torch.float64):
    set_seed(0)
    return MultiHeadLatentAttention(32, 4, d_latent=12, d_rope=6, d_head=10, d_q_latent=d_q_latent).to(dtype)


def _paper_equations(m: MultiHeadLatentAttention, x: torch.Tensor) -> torch.Tensor:
    """DeepSeek-V2 eqs. (9)-(19) written head by head, token by token, with explicit weight matrices."""
    B, n, _ = x.shape
    h, dh, dr = m.num_heads, m.d_head, m.d_rope
    pos = torch.arange(n)
    c_kv = x @ m.w_dkv.weight.T  # (B, n, d_c)
    k_r = rope_rotate(x @ m.w_kr.weight.T, pos)  # (B, n, d_R), shared by heads
    c_q = x if m.w_dq is None else x @ m.w_dq.weight.T
    outs = []
    for i in range(h):
        rows = slice(i * dh, (i + 1) * dh)
        k_c = c_kv @ m.w_uk.weight[rows].T  # (B, n, d_h)
        v = c_kv @ m.w_uv.weight[rows].T  # (B, n, d_h)
        q_c = c_q @ m.w_uq.weight[rows].T  # (B, n, d_h)
        q_r = rope_rotate(c_q @ m.w_qr.weight[i * dr : (i + 1) * dr].T, pos)  # (B, n, d_R)
        s = (q_c @ k_c.transpose(1, 2) + q_r @ k_r.transpose(1, 2)) / math.sqrt(dh + dr)  # (B, n, n)
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        outs.append(torch.softmax(s, dim=-1) @ v)  # (B, n, d_h)
    return torch.cat(outs, dim=-1) @ m.w_o.weight.T  # (B, n, d_model)


@pytest.mark.parametrize("d_q_latent", [None, 8])
def test_forward_equals_the_paper_equations(d_q_latent) -> None:
    m = _mla(d_q_latent)
    x = torch.randn(2, 9, 32, dtype=torch.float64)
    torch.testing.assert_close(m(x), _paper_equations(m, x), atol=1e-10, rtol=0)


@pytest.mark.parametrize("d_q_latent", [None, 8])
def test_absorbed_path_equals_naive(d_q_latent) -> None:
    m = _mla(d_q_latent)
    x = torch.randn(2, 11, 32, dtype=torch.float64)
    naive, absorbed = m(x), m(x, absorbed=True)
    assert absorbed.shape == (2, 11, 32)
    torch.testing.assert_close(absorbed, naive, atol=1e-10, rtol=0)


@pytest.mark.parametrize("absorbed", [False, True])
def test_incremental_decoding_equals_full_causal(absorbed) -> None:
    m = _mla(8)
    x = torch.randn(2, 14, 32, dtype=torch.float64)
    full = m(x)
    cache = LatentKVCache()
    outs, start = [], 0
    for chunk in (5, 1, 1, 4, 1, 2):  # a prefill, then single tokens and small chunks
        outs.append(m(x[:, start : start + chunk], cache=cache, absorbed=absorbed))
        start += chunk
    torch.testing.assert_close(torch.cat(outs, dim=1), full, atol=1e-10, rtol=0)
    assert len(cache) == 14
    assert (m(x[:, :7]) - full[:, :7]).abs().max() < 1e-12  # causal: the future does not reach the past


def test_cache_holds_d_latent_plus_d_rope_numbers_per_token() -> None:
    m = _mla()
    cache = LatentKVCache()
    m(torch.randn(3, 10, 32, dtype=torch.float64), cache=cache)
    assert cache.c is not None and cache.k_rope is not None
    assert tuple(cache.c.shape) == (3, 10, 12) and tuple(cache.k_rope.shape) == (3, 10, 6)
    assert cache.numbers_per_token() == 12 + 6
    assert cache.nbytes() == 3 * 10 * 18 * 8
    mha_numbers = 2 * m.num_heads * m.d_head  # what an MHA with the same heads would cache: K and V per head
    assert mha_numbers == 80 and cache.numbers_per_token() < mha_numbers


def test_rope_key_carries_position() -> None:
    """Without the decoupled RoPE key the output changes: position information comes only from it."""
    m = _mla()
    x = torch.randn(1, 8, 32, dtype=torch.float64)
    out = m(x)
    with torch.no_grad():
        m.w_kr.weight.zero_()
    assert (m(x) - out).abs().max() > 1e-3


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="d_rope"):
        MultiHeadLatentAttention(32, 4, d_latent=8, d_rope=5)
    with pytest.raises(ValueError, match="d_model"):
        _mla()(torch.randn(1, 3, 31, dtype=torch.float64))
    with pytest.raises(ValueError, match="cache"):
        _mla()(torch.randn(1, 3, 32, dtype=torch.float64), cache=object())  # type: ignore[arg-type]
