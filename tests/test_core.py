"""scaled_dot_product_attention, softmax and attention_steps against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from selfattention import (
    MultiHeadAttention,
    attention_steps,
    causal_mask,
    grouped_query_attention,
    scaled_dot_product_attention,
    softmax,
)

ATOL = {torch.float32: 1e-5, torch.float64: 1e-10}

SHAPES = [  # (batch dims, n_q, n_k, d_k, d_v)
    ((), 4, 4, 8, 8),
    ((3,), 5, 7, 4, 6),
    ((2, 3), 6, 3, 8, 5),
    ((2, 4), 1, 9, 16, 2),
    ((1, 2), 7, 7, 1, 3),
]


def _qkv(batch: tuple[int, ...], n_q: int, n_k: int, d_k: int, d_v: int, dtype: torch.dtype, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*batch, n_q, d_k, generator=g, dtype=dtype)
    k = torch.randn(*batch, n_k, d_k, generator=g, dtype=dtype)
    v = torch.randn(*batch, n_k, d_v, generator=g, dtype=dtype)
    return q, k, v


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("return_weights", [False, True])
def test_matches_torch_sdpa_plain(shape, dtype, return_weights) -> None:
    q, k, v = _qkv(*shape, dtype)
    ref = F.scaled_dot_product_attention(q, k, v)
    res = scaled_dot_product_attention(q, k, v, return_weights=return_weights)
    out = res[0] if return_weights else res
    assert out.shape == ref.shape == (*shape[0], shape[1], shape[4])
    torch.testing.assert_close(out, ref, atol=ATOL[dtype], rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("return_weights", [False, True])
def test_matches_torch_sdpa_mask_and_bias(shape, dtype, return_weights) -> None:
    batch, n_q, n_k, d_k, d_v = shape
    q, k, v = _qkv(*shape, dtype, seed=1)
    g = torch.Generator().manual_seed(2)
    mask = torch.rand(n_q, n_k, generator=g) > 0.4  # (n_q, n_k), broadcast over batch dims
    mask[:, 0] = True  # every row sees a key (torch gives NaN for fully masked rows)
    bias = torch.randn(*batch, n_q, n_k, generator=g, dtype=dtype)
    for m, b in ((mask, None), (None, bias), (mask, bias)):
        ref_mask = b if m is None else (m if b is None else b.masked_fill(~m, float("-inf")))
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=ref_mask)
        res = scaled_dot_product_attention(q, k, v, mask=m, bias=b, return_weights=return_weights)
        out = res[0] if return_weights else res
        torch.testing.assert_close(out, ref, atol=ATOL[dtype], rtol=0)


def test_weights_rows_sum_to_one_and_masked_entries_are_zero() -> None:
    q, k, v = _qkv((2,), 5, 5, 4, 3, torch.float64)
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(5), return_weights=True)
    assert w.shape == (2, 5, 5)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 5, dtype=torch.float64), atol=1e-12, rtol=0)
    assert torch.all(w[:, ~causal_mask(5)] == 0)
    torch.testing.assert_close(out, w @ v, atol=1e-12, rtol=0)


def test_custom_scale_matches_torch() -> None:
    q, k, v = _qkv((2, 2), 4, 6, 8, 5, torch.float64)
    for return_weights in (False, True):
        res = scaled_dot_product_attention(q, k, v, scale=0.7, return_weights=return_weights)
        out = res[0] if return_weights else res
        ref = F.scaled_dot_product_attention(q, k, v, scale=0.7)
        torch.testing.assert_close(out, ref, atol=1e-10, rtol=0)
    # the default really is 1/sqrt(d_k): a different scale gives a different answer
    wrong = scaled_dot_product_attention(q, k, v, scale=1.0)
    assert (wrong - F.scaled_dot_product_attention(q, k, v)).abs().max() > 1e-3


@pytest.mark.parametrize("return_weights", [False, True])
def test_fully_masked_row_gives_zeros_not_nan(return_weights) -> None:
    q, k, v = _qkv((2, 3), 4, 5, 8, 6, torch.float32)
    mask = torch.ones(4, 5, dtype=torch.bool)
    mask[2] = False  # query 2 may attend to nothing
    q.requires_grad_(True)
    res = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=return_weights)
    out = res[0] if return_weights else res
    assert torch.isfinite(out).all()
    assert torch.all(out[..., 2, :] == 0)
    if return_weights:
        assert torch.all(res[1][..., 2, :] == 0)
        torch.testing.assert_close(res[1][..., [0, 1, 3], :].sum(-1), torch.ones(2, 3, 3), atol=1e-6, rtol=0)
    # the other rows are ordinary attention
    ref = F.scaled_dot_product_attention(q[..., [0, 1, 3], :], k, v)
    torch.testing.assert_close(out[..., [0, 1, 3], :], ref, atol=1e-5, rtol=0)
    out.sum().backward()
    assert torch.isfinite(q.grad).all()
    assert torch.all(q.grad[..., 2, :] == 0)


@pytest.mark.parametrize("return_weights", [False, True])
def test_large_scores_are_stable(return_weights) -> None:
    q = torch.tensor([[100.0], [-100.0]])  # (2, 1)
    k = torch.tensor([[100.0], [99.0]])  # (2, 1): scores 1e4 and 9.9e3 for query 0
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    res = scaled_dot_product_attention(q, k, v, scale=1.0, return_weights=return_weights)
    out = res[0] if return_weights else res
    assert torch.isfinite(out).all()
    # query 0: softmax([1e4, 9.9e3]) = [1, e^-100] -> v[0]; query 1: softmax([-1e4, -9.9e3]) -> v[1]
    torch.testing.assert_close(out, torch.tensor([[1.0, 2.0], [3.0, 4.0]]), atol=1e-6, rtol=0)


@pytest.mark.parametrize("return_weights", [False, True])
def test_gradients_flow(return_weights) -> None:
    q, k, v = (t.requires_grad_(True) for t in _qkv((2,), 4, 5, 3, 2, torch.float32))
    res = scaled_dot_product_attention(q, k, v, mask=causal_mask(4, 5), return_weights=return_weights)
    out = res[0] if return_weights else res
    (out**2).sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all() and t.grad.abs().sum() > 0


@pytest.mark.parametrize("return_weights", [False, True])
def test_gradcheck_float64(return_weights) -> None:
    q, k, v = (t.requires_grad_(True) for t in _qkv((2,), 3, 4, 3, 2, torch.float64, seed=5))
    bias = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    mask = causal_mask(3, 4)

    def f(q, k, v, bias):
        res = scaled_dot_product_attention(q, k, v, mask=mask, bias=bias, return_weights=return_weights)
        return res[0] if return_weights else res

    assert torch.autograd.gradcheck(f, (q, k, v, bias))


def test_softmax_matches_torch_and_numpy() -> None:
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    for dim in (-1, 0, 1):
        torch.testing.assert_close(softmax(x, dim=dim), torch.softmax(x, dim=dim), atol=1e-12, rtol=0)
        y = softmax(x.numpy(), dim=dim)
        assert isinstance(y, np.ndarray)
        np.testing.assert_allclose(y, torch.softmax(x, dim=dim).numpy(), atol=1e-12, rtol=0)


def test_softmax_stable_and_empty_rows() -> None:
    x = torch.tensor([[1e4, 1e4 - 1.0, -1e4], [float("-inf")] * 3, [0.0, float("-inf"), 0.0]])
    y = softmax(x)
    e = math.exp(-1.0)
    expected = torch.tensor([[1 / (1 + e), e / (1 + e), 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.5]])
    torch.testing.assert_close(y, expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose(softmax(x.double().numpy()), expected.double().numpy(), atol=1e-12)
    assert torch.isfinite(y).all()


def test_attention_steps_shapes_and_equals_torch() -> None:
    rng = np.random.default_rng(0)
    n, d_model, d_k, d_v = 5, 6, 4, 3
    X = rng.standard_normal((n, d_model))
    W_q, W_k = rng.standard_normal((d_model, d_k)), rng.standard_normal((d_model, d_k))
    W_v = rng.standard_normal((d_model, d_v))
    mask = causal_mask(n).numpy()
    st = attention_steps(X, W_q, W_k, W_v, mask=mask)
    assert st.Q.shape == st.K.shape == (n, d_k)
    assert st.V.shape == (n, d_v)
    assert st.S.shape == st.S_scaled.shape == st.A.shape == (n, n)
    assert st.O.shape == (n, d_v)
    assert np.all(st.S_scaled[~mask] == -np.inf)
    np.testing.assert_allclose(st.S_scaled[mask], (st.S / math.sqrt(d_k))[mask], atol=1e-12)
    np.testing.assert_allclose(st.A.sum(-1), np.ones(n), atol=1e-12)
    Xt = torch.from_numpy(X)
    ref = F.scaled_dot_product_attention(
        Xt @ torch.from_numpy(W_q),
        Xt @ torch.from_numpy(W_k),
        Xt @ torch.from_numpy(W_v),
        attn_mask=torch.from_numpy(mask),
    )
    np.testing.assert_allclose(st.O, ref.numpy(), atol=1e-10)
    ours = scaled_dot_product_attention(
        Xt @ torch.from_numpy(W_q),
        Xt @ torch.from_numpy(W_k),
        Xt @ torch.from_numpy(W_v),
        mask=torch.from_numpy(mask),
    )
    np.testing.assert_allclose(st.O, ours.numpy(), atol=1e-10)
    unmasked = attention_steps(X, W_q, W_k, W_v)
    assert not np.allclose(unmasked.O, st.O)  # the mask changes the answer


def test_broadcast_batch_dims() -> None:
    q, _, _ = _qkv((2, 3), 4, 5, 8, 6, torch.float64)
    _, k, v = _qkv((3,), 4, 5, 8, 6, torch.float64, seed=9)  # (3, 5, 8): broadcast over the leading 2
    ref = F.scaled_dot_product_attention(q, k.expand(2, 3, 5, 8), v.expand(2, 3, 5, 6))
    for rw in (False, True):
        res = scaled_dot_product_attention(q, k, v, return_weights=rw)
        torch.testing.assert_close(res[0] if rw else res, ref, atol=1e-10, rtol=0)


@pytest.mark.parametrize("n_q, n_k", [(1, 1), (7, 7), (65, 65), (3, 9), (9, 9)])
def test_fast_path_with_a_causal_mask_equals_the_manual_path(n_q: int, n_k: int) -> None:
    """A square causal mask takes PyTorch's is_causal shortcut; end-aligned rectangular masks must not."""
    g = torch.Generator().manual_seed(n_q * 100 + n_k)
    q = torch.randn(2, 3, n_q, 8, generator=g, dtype=torch.float64)
    k = torch.randn(2, 3, n_k, 8, generator=g, dtype=torch.float64)
    v = torch.randn(2, 3, n_k, 5, generator=g, dtype=torch.float64)
    for mask in (causal_mask(n_q, n_k), causal_mask(n_q, n_k)[None, None]):
        fast = scaled_dot_product_attention(q, k, v, mask=mask)
        manual, _ = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
        torch.testing.assert_close(fast, manual, atol=1e-10, rtol=0)
    if n_q == n_k > 1:  # a mask that is almost causal (one extra future key) must not be taken for causal
        mask = causal_mask(n_q).clone()
        mask[0, 1] = True
        fast = scaled_dot_product_attention(q, k, v, mask=mask)
        manual, _ = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
        torch.testing.assert_close(fast, manual, atol=1e-10, rtol=0)


def _broadcast_masks(n_q: int, n_k: int) -> dict[str, torch.Tensor]:
    """Boolean masks of every broadcast shape, all-True and causal (end-aligned), for (n_q, n_k)."""
    g = torch.Generator().manual_seed(7 * n_q + n_k)
    causal = causal_mask(n_q, n_k)  # (n_q, n_k)
    return {
        "(1,1) all": torch.ones(1, 1, dtype=torch.bool),
        "(1,1,1,1) all": torch.ones(1, 1, 1, 1, dtype=torch.bool),
        "(1,n_k) all": torch.ones(1, n_k, dtype=torch.bool),
        "(1,n_k) pad": torch.arange(n_k)[None] < max(n_k - 1, 1),  # last key padded
        "(n_q,1) all": torch.ones(n_q, 1, dtype=torch.bool),
        "(n_q,1) rows": (torch.rand(n_q, 1, generator=g) > 0.3) | (torch.arange(n_q)[:, None] == 0),
        "(n_q,n_k) all": torch.ones(n_q, n_k, dtype=torch.bool),
        "(n_q,n_k) causal": causal,
        "(1,1,n_q,n_k) causal": causal[None, None],
        "(2,1,n_q,n_k) causal": causal.expand(2, 1, n_q, n_k),
    }


@pytest.mark.parametrize("n_q, n_k", [(1, 1), (1, 5), (3, 5), (4, 4), (5, 3)])
def test_fast_path_equals_torch_for_every_broadcast_mask(n_q: int, n_k: int) -> None:
    """A broadcast (1, 1) all-True mask means 'attend everywhere', never is_causal (top-left) -- H1."""
    g = torch.Generator().manual_seed(n_q * 10 + n_k)
    q = torch.randn(2, 3, n_q, 8, generator=g, dtype=torch.float64)
    k = torch.randn(2, 3, n_k, 8, generator=g, dtype=torch.float64)
    v = torch.randn(2, 3, n_k, 5, generator=g, dtype=torch.float64)
    for name, mask in _broadcast_masks(n_q, n_k).items():
        row_ok = mask.expand(2, 3, n_q, n_k).any(-1, keepdim=True)
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask | ~row_ok) * row_ok
        fast = scaled_dot_product_attention(q, k, v, mask=mask)
        manual, _ = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
        torch.testing.assert_close(fast, ref, atol=1e-10, rtol=0, msg=name)
        torch.testing.assert_close(manual, ref, atol=1e-10, rtol=0, msg=name)
    if n_q == n_k:  # a real square causal mask still matches SDPA's is_causal
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        fast = scaled_dot_product_attention(q, k, v, mask=causal_mask(n_q))
        torch.testing.assert_close(fast, ref, atol=1e-10, rtol=0)


@pytest.mark.parametrize("return_weights", [False, True])
def test_an_empty_key_set_is_rejected_at_the_door(return_weights: bool) -> None:
    """n_k = 0: a ValueError on both paths (the readable path raised IndexError, the fast one gave zeros)."""
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 0, 4), torch.randn(2, 0, 5)
    with pytest.raises(ValueError, match="at least one key"):
        scaled_dot_product_attention(q, k, v, return_weights=return_weights)


def test_a_one_dimensional_key_mask_works_on_both_paths_and_in_the_layer() -> None:
    """A (n_k,) key mask, which `check_mask` and the docs accept, gives the same output on the fast path as on
    the readable one and as PyTorch with the mask broadcast to (1, n_k); the fast path raised
    IndexError (review s12-c-ch01-05 L-1)."""
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64)
    k = torch.randn(2, 3, 7, 4, generator=g, dtype=torch.float64)
    v = torch.randn(2, 3, 7, 6, generator=g, dtype=torch.float64)
    m = torch.tensor([1, 1, 1, 0, 0, 1, 0], dtype=torch.bool)
    fast = scaled_dot_product_attention(q, k, v, mask=m)
    readable, _ = scaled_dot_product_attention(q, k, v, mask=m, return_weights=True)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=m[None, :])
    assert torch.allclose(fast, ref, atol=1e-12) and torch.allclose(readable, ref, atol=1e-12)
    layer = MultiHeadAttention(8, 2).double()
    x = torch.randn(1, 7, 8, generator=g, dtype=torch.float64)
    assert torch.allclose(layer(x, mask=m), layer(x, mask=m[None, :]), atol=1e-12)
    # the grouped-query path too (review s12-v-ch01-05: it still raised after the first fix)
    gqa = MultiHeadAttention(8, 4, num_kv_heads=2).double()
    assert torch.allclose(gqa(x, mask=m), gqa(x, mask=m[None, :]), atol=1e-12)
    kg, vg = k[:, :1], v[:, :1]  # one K/V head for the three query heads
    got = grouped_query_attention(q, kg, vg, mask=m)
    ref = F.scaled_dot_product_attention(q, kg.expand_as(k), vg.expand_as(v), attn_mask=m[None, :])
    assert torch.allclose(got, ref, atol=1e-12)
    # a 0-D mask (all or nothing) too (review s12-f-ch01-09 L-N5: IndexError on every fast path)
    for flag in (True, False):
        m0 = torch.tensor(flag)
        want = F.scaled_dot_product_attention(q, k, v) if flag else torch.zeros_like(fast)
        assert torch.allclose(scaled_dot_product_attention(q, k, v, mask=m0), want, atol=1e-12)
        slow, _ = scaled_dot_product_attention(q, k, v, mask=m0, return_weights=True)
        assert torch.allclose(slow, want, atol=1e-12)
        assert torch.allclose(gqa(x, mask=m0), gqa(x, mask=m0.reshape(1, 1)), atol=1e-12)
