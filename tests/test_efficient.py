"""Tiled (online-softmax) attention: same answer as full attention, never an n x n tensor."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from selfattention import causal_mask, scaled_dot_product_attention, tiled_attention


@pytest.mark.parametrize("n_q,n_k", [(1, 1), (31, 31), (32, 32), (33, 33), (70, 70), (37, 60), (60, 37)])
@pytest.mark.parametrize("block_size", [16, 32])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_equals_full(n_q, n_k, block_size, causal) -> None:
    g = torch.Generator().manual_seed(n_q * 1000 + n_k)
    q = torch.randn(2, 3, n_q, 8, generator=g)
    k = torch.randn(2, 3, n_k, 8, generator=g)
    v = torch.randn(2, 3, n_k, 5, generator=g)
    mask = causal_mask(n_q, n_k) if causal else None
    ref = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)[0]
    out = tiled_attention(q, k, v, block_size=block_size, causal=causal)
    assert out.shape == (2, 3, n_q, 5)
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=0)
    if causal and n_q == n_k:  # torch's is_causal is top-left aligned, which coincides for square masks
        ref_torch = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.testing.assert_close(out, ref_torch, atol=1e-5, rtol=0)


def test_tiled_scale_and_gradients() -> None:
    g = torch.Generator().manual_seed(3)
    q, k, v = (
        torch.randn(1, 2, 20, 4, generator=g, dtype=torch.float64, requires_grad=True) for _ in range(3)
    )
    out = tiled_attention(q, k, v, block_size=7, causal=True, scale=0.3)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)
    torch.testing.assert_close(out, ref, atol=1e-10, rtol=0)
    grads = torch.autograd.grad(out.sum(), (q, k, v))
    ref_grads = torch.autograd.grad(ref.sum(), (q, k, v))
    for a, b in zip(grads, ref_grads, strict=True):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)


class LargestTensor(TorchDispatchMode):
    """Records the largest numel among all tensors produced by any aten op."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.largest = max(self.largest, t.numel())
        return out


def test_no_n_by_n_tensor_is_allocated() -> None:
    n, d = 128, 8
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, d, generator=g) for _ in range(3))
    mask = causal_mask(n)  # built outside the probe: only what the attention itself allocates counts
    with LargestTensor() as naive:
        full = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)[0]
    assert naive.largest >= n * n  # the naive path builds the (n, n) score matrix: the probe can fail
    with LargestTensor() as naive_unmasked:
        scaled_dot_product_attention(q, k, v, return_weights=True)
    assert naive_unmasked.largest >= n * n
    with LargestTensor() as tiled:
        out = tiled_attention(q, k, v, block_size=32, causal=True)
    assert tiled.largest < n * n
    assert tiled.largest <= max(32 * 32, n * d)  # one score block, or the (n, d) output
    torch.testing.assert_close(out, full, atol=1e-5, rtol=0)


def _linear_reference(q, k, v, causal):
    """Quadratic form of linear attention, written independently: weights phi(q) phi(k)^T, rows normalised."""
    w = (F.elu(q) + 1) @ (F.elu(k) + 1).transpose(-2, -1)  # (..., n_q, n_k)
    if causal:
        w = w * torch.ones(q.shape[-2], k.shape[-2], dtype=q.dtype).tril()
    return (w / w.sum(-1, keepdim=True)) @ v, w


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_equals_its_quadratic_form(causal) -> None:
    from selfattention import linear_attention

    g = torch.Generator().manual_seed(7)
    q, k = (torch.randn(2, 3, 9, 4, generator=g, dtype=torch.float64) for _ in range(2))
    v = torch.randn(2, 3, 9, 5, generator=g, dtype=torch.float64)
    out = linear_attention(q, k, v, causal=causal)
    ref, w = _linear_reference(q, k, v, causal)
    assert out.shape == (2, 3, 9, 5)
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-12)
    # the normaliser matters: without it the output is off by the row sums of phi(q) phi(k)^T
    assert float((w @ v - out).abs().max()) > 1.0
    # a different model from softmax attention, not an approximation of it
    mask = causal_mask(9) if causal else None
    soft = scaled_dot_product_attention(q, k, v, mask=mask)
    assert float((soft - out).abs().max()) > 0.05
    if causal:  # token 0 reads only itself
        torch.testing.assert_close(out[..., 0, :], v[..., 0, :], rtol=0, atol=1e-12)


def test_linear_attention_checks_its_inputs() -> None:
    from selfattention import linear_attention

    q = torch.randn(1, 1, 4, 8)
    with pytest.raises(ValueError, match="n_q == n_k"):
        linear_attention(q, torch.randn(1, 1, 6, 8), torch.randn(1, 1, 6, 8), causal=True)
    with pytest.raises(ValueError):
        linear_attention(q, torch.randn(1, 1, 4, 7), torch.randn(1, 1, 4, 8))
    assert linear_attention(q, torch.randn(1, 1, 6, 8), torch.randn(1, 1, 6, 3)).shape == (1, 1, 4, 3)


@pytest.mark.parametrize("n", [1024, 4096])
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 5e-3), (torch.bfloat16, 3e-2)])
@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_16_bit_matches_float64(n, dtype, tol, causal) -> None:
    """The normaliser is ~n_k d_k (> fp16's 65504 at n = 1024, d_k = 64): the sums must not run in fp16.

    finite / inf = 0, so the fp16 output used to be exactly 0 (all rows non-causal, the later rows causal);
    a relative error per row catches those zeros (error 1) and any loss of range or precision.
    """
    from selfattention import linear_attention

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, 64, generator=g) for _ in range(3))
    ref = linear_attention(q.double(), k.double(), v.double(), causal=causal)  # (1, 1, n, 64)
    out = linear_attention(q.to(dtype), k.to(dtype), v.to(dtype), causal=causal)
    assert out.dtype == dtype
    assert int((out.abs().amax(dim=-1) == 0).sum()) == 0  # no row silently zero
    rel = (out.double() - ref).abs().amax(dim=-1) / ref.abs().amax(dim=-1)  # (1, 1, n) per row
    assert float(rel.max()) < tol


def test_attention_functions_agree_on_empty_keys_and_queries() -> None:
    """n_k = 0: the same ValueError everywhere (no zeros, no NaN); n_q = 0: an empty (..., 0, d_v) output."""
    from selfattention import linear_attention
    from selfattention.random_features import performer_attention

    def performer(q, k, v):
        return performer_attention(q, k, v, 16, torch.Generator().manual_seed(0))

    funcs = (scaled_dot_product_attention, tiled_attention, linear_attention, performer)
    q, k0, v0 = torch.randn(2, 3, 8), torch.randn(2, 0, 8), torch.randn(2, 0, 4)
    for f in funcs:
        with pytest.raises(ValueError, match="at least one key"):
            f(q, k0, v0)
    q0, k, v = torch.randn(2, 0, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 4)
    for f in funcs:
        assert f(q0, k, v).shape == (2, 0, 4)
    assert tiled_attention(q0, k, v, causal=True).shape == (2, 0, 4)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("which", ["query", "keys", "both"])
def test_linear_attention_is_finite_for_far_negative_inputs(which, causal) -> None:
    """elu(x) + 1 = expm1(x) + 1 cancels to exactly 0 below about -17 in fp32 (about -37 in fp64): a query
    with every entry there, or every key there, had normaliser exactly 0 and output 0 / 0 = NaN.
    The reference forms phi = exp(x) (x <= 0), 1 + x (x > 0) directly in float64: finite at x = -120.
    """
    from selfattention import linear_attention

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 8, 4, generator=g) for _ in range(3))
    if which in ("query", "both"):
        q[:, 3] = -120.0 + torch.randn(2, 4, generator=g)  # one query row far negative
    if which in ("keys", "both"):
        k = -120.0 + torch.randn(2, 8, 4, generator=g)  # every key far negative
    qd, kd = q.double(), k.double()
    fq = torch.where(qd > 0, 1 + qd, torch.exp(qd.clamp_max(0)))  # elu + 1 without the cancellation
    fk = torch.where(kd > 0, 1 + kd, torch.exp(kd.clamp_max(0)))
    w = fq @ fk.transpose(-2, -1)  # (2, 8, 8): phi(q_i) . phi(k_j), formed only in this test
    if causal:
        w = w.tril()
    ref = (w @ v.double()) / w.sum(dim=-1, keepdim=True)
    out = linear_attention(q, k, v, causal=causal)
    assert torch.isfinite(ref).all()
    assert torch.isfinite(out).all()
    torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-5)
