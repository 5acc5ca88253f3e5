"""Hypothesis property tests over shapes and dtypes: ours vs torch SDPA, tiled vs full."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattention import causal_mask, scaled_dot_product_attention, tiled_attention

ATOL = {torch.float32: 1e-5, torch.float64: 1e-10}
SETTINGS = settings(max_examples=40, deadline=None, database=None)

shapes = st.fixed_dictionaries(
    {
        "B": st.integers(1, 3),
        "h": st.integers(1, 3),
        "n_q": st.integers(1, 9),
        "n_k": st.integers(1, 9),
        "d_k": st.integers(1, 8),
        "d_v": st.integers(1, 8),
        "dtype": st.sampled_from([torch.float32, torch.float64]),
        "seed": st.integers(0, 2**31 - 1),
    }
)


def _make(s: dict):
    g = torch.Generator().manual_seed(s["seed"])
    B, h, n_q, n_k, dt = s["B"], s["h"], s["n_q"], s["n_k"], s["dtype"]
    q = torch.randn(B, h, n_q, s["d_k"], generator=g, dtype=dt)
    k = torch.randn(B, h, n_k, s["d_k"], generator=g, dtype=dt)
    v = torch.randn(B, h, n_k, s["d_v"], generator=g, dtype=dt)
    return g, q, k, v


@SETTINGS
@given(s=shapes, use_mask=st.booleans(), use_bias=st.booleans(), return_weights=st.booleans())
def test_matches_torch_sdpa(s, use_mask, use_bias, return_weights) -> None:
    g, q, k, v = _make(s)
    B, h, n_q, n_k = s["B"], s["h"], s["n_q"], s["n_k"]
    mask = torch.rand(B, 1, n_q, n_k, generator=g) > 0.3 if use_mask else None  # may have empty rows
    bias = torch.randn(1, h, n_q, n_k, generator=g, dtype=s["dtype"]) if use_bias else None
    res = scaled_dot_product_attention(q, k, v, mask=mask, bias=bias, return_weights=return_weights)
    out = res[0] if return_weights else res
    assert out.shape == (B, h, n_q, s["d_v"])
    assert torch.isfinite(out).all()
    if mask is None:
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        torch.testing.assert_close(out, ref, atol=ATOL[s["dtype"]], rtol=0)
        return
    empty = ~mask.any(-1)  # (B, 1, n_q): queries that may attend to nothing
    assert torch.all(out[empty.expand(B, h, n_q)] == 0)
    if return_weights:
        assert torch.all(res[1][~mask.expand(B, h, n_q, n_k)] == 0)
    # rows with at least one allowed key: compare with torch (empty rows given all keys so torch stays finite;
    # that cannot change any other row)
    safe = mask | empty[..., None]  # (B, 1, n_q, n_k)
    ref_mask = safe if bias is None else bias.masked_fill(~safe, float("-inf"))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=ref_mask)
    keep = ~empty.expand(B, h, n_q)  # (B, h, n_q)
    torch.testing.assert_close(out[keep], ref[keep], atol=ATOL[s["dtype"]], rtol=0)


@SETTINGS
@given(s=shapes, block_size=st.integers(1, 10), causal=st.booleans())
def test_tiled_equals_full(s, block_size, causal) -> None:
    _, q, k, v = _make(s)
    mask = causal_mask(s["n_q"], s["n_k"]) if causal else None
    full = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)[0]
    out = tiled_attention(q, k, v, block_size=block_size, causal=causal)
    assert out.shape == full.shape
    torch.testing.assert_close(out, full, atol=ATOL[s["dtype"]], rtol=0)
    if not causal:
        torch.testing.assert_close(
            out, F.scaled_dot_product_attention(q, k, v), atol=ATOL[s["dtype"]], rtol=0
        )
