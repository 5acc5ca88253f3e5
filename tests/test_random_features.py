"""Performer's FAVOR+ features: an unbiased estimate of exp(q.k), so the attention converges to softmax."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from selfattention.random_features import favor_features, performer_attention


def test_features_estimate_the_softmax_kernel_without_bias() -> None:
    g = torch.Generator().manual_seed(0)
    x = 0.3 * torch.randn(6, 8, dtype=torch.float64, generator=g)  # (n, d)
    y = 0.3 * torch.randn(5, 8, dtype=torch.float64, generator=g)
    omega = torch.randn(400_000, 8, dtype=torch.float64, generator=g)  # (m, d)
    estimate = favor_features(x, omega) @ favor_features(y, omega).T  # (6, 5)
    torch.testing.assert_close(estimate, torch.exp(x @ y.T), rtol=0.02, atol=0)
    assert (favor_features(x, omega) > 0).all()  # positive: the normaliser never changes sign


def test_performer_converges_to_softmax_attention_as_features_grow() -> None:
    g = torch.Generator().manual_seed(1)
    q, k, v = (0.5 * torch.randn(2, 32, 16, dtype=torch.float64, generator=g) for _ in range(3))
    ref = F.scaled_dot_product_attention(q, k, v)  # scale 1 / sqrt(16)
    err = {
        m: max(
            float((performer_attention(q, k, v, m, torch.Generator().manual_seed(s)) - ref).abs().mean())
            for s in range(3)
        )
        for m in (64, 16384)
    }
    assert err[16384] < 0.2 * err[64]
    assert err[16384] < 0.01


def test_performer_uses_the_one_over_sqrt_dk_scale() -> None:
    q, k, v = (0.5 * torch.randn(1, 8, 4, dtype=torch.float64) for _ in range(3))
    out = performer_attention(q, k, v, 100_000, torch.Generator().manual_seed(0))
    unscaled = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
    ref = F.scaled_dot_product_attention(q, k, v)
    assert (out - ref).abs().max() < 0.5 * (unscaled - ref).abs().max()
    assert math.isclose(float((out - ref).abs().max()), 0.0, abs_tol=0.02)


def test_performer_checks_its_inputs() -> None:
    q = torch.randn(1, 4, 8)
    with pytest.raises(ValueError, match="num_features"):
        performer_attention(q, q, q, 0)
    with pytest.raises(ValueError, match="omega"):
        favor_features(q, torch.randn(10, 7))


@pytest.mark.parametrize(
    ("dtype", "std"),
    [(torch.float16, 3), (torch.bfloat16, 8), (torch.bfloat16, 16), (torch.float32, 16), (torch.float32, 24)],
)
@pytest.mark.parametrize("seed", range(10))
def test_performer_is_finite_for_large_inputs(dtype: torch.dtype, std: float, seed: int) -> None:
    # Without the max-shift exp overflows to inf and inf / inf gives NaN; without the stabiliser a query row's
    # shifted features can all underflow to 0 and 0 / 0 gives NaN (float16 std 3: 5 of these 10 seeds).
    g = torch.Generator().manual_seed(seed)
    q, k, v = ((std * torch.randn(2, 64, 16, generator=g)).to(dtype) for _ in range(3))
    out = performer_attention(q, k, v, 256, torch.Generator().manual_seed(seed)).float()
    assert torch.isfinite(out).all()
    # Positive weights summing to 1: every output lies within the range of v's column.
    vf = v.float()
    tol = 0.02 * std
    assert (out >= vf.amin(dim=-2, keepdim=True) - tol).all()
    assert (out <= vf.amax(dim=-2, keepdim=True) + tol).all()


def _unshifted(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, m: int, seed: int) -> torch.Tensor:
    omega = torch.randn(m, q.shape[-1], dtype=q.dtype, generator=torch.Generator().manual_seed(seed))
    s = q.shape[-1] ** -0.25
    fq, fk = favor_features(q * s, omega), favor_features(k * s, omega)  # no shift, no stabiliser
    return (fq @ (fk.transpose(-2, -1) @ v)) / (fq @ fk.sum(dim=-2).unsqueeze(-1))


def test_max_shift_leaves_the_estimate_unchanged() -> None:
    # Exact only without the stabiliser: the shift cancels, the stabiliser does not.
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 32, 16, dtype=torch.float64, generator=g) for _ in range(3))
    out = performer_attention(q, k, v, 512, torch.Generator().manual_seed(5), stabilizer=0.0)
    torch.testing.assert_close(out, _unshifted(q, k, v, 512, 5), rtol=1e-12, atol=1e-12)


def test_stabiliser_bias_is_small_beside_the_monte_carlo_error() -> None:
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 32, 16, dtype=torch.float64, generator=g) for _ in range(3))
    plain = _unshifted(q, k, v, 512, 5)
    out = performer_attention(q, k, v, 512, torch.Generator().manual_seed(5))  # default stabilizer 1e-6
    bias = float((out - plain).abs().max())
    mc_error = float((plain - F.scaled_dot_product_attention(q, k, v)).abs().max())
    assert 0 < bias < 0.01 * mc_error  # not exact, but far below the estimator's own error


def _shifted_float64(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, m: int, seed: int) -> torch.Tensor:
    """performer_attention's estimate in float64 on the same inputs and the same float32 omega."""
    gen = torch.Generator().manual_seed(seed)
    omega = torch.randn(m, q.shape[-1], generator=gen).double()  # drawn in float32, as for 16-bit inputs
    q, k, v = q.double(), k.double(), v.double()
    s = q.shape[-1] ** -0.25
    lq = (q * s) @ omega.T - ((q * s) ** 2).sum(dim=-1, keepdim=True) / 2
    lk = (k * s) @ omega.T - ((k * s) ** 2).sum(dim=-1, keepdim=True) / 2
    fq = torch.exp(lq - lq.amax(dim=-1, keepdim=True)) + 1e-6
    fk = torch.exp(lk - lk.amax(dim=(-2, -1), keepdim=True)) + 1e-6
    return (fq @ (fk.transpose(-2, -1) @ v)) / (fq @ fk.sum(dim=-2).unsqueeze(-1))


@pytest.mark.parametrize("inputs", ["unit-norm", "zero"])
@pytest.mark.parametrize(("dtype", "tol"), [(torch.float16, 5e-3), (torch.bfloat16, 3e-2)])
def test_performer_16_bit_matches_float64(inputs: str, dtype: torch.dtype, tol: float) -> None:
    """Small-norm q, k: every shifted feature is near 1 and the normaliser nears m n_k (1e5 here, > 65504).

    Summed in fp16 it overflowed to inf and finite / inf gave exactly 0 (unit-norm: 3459 of 4096 rows;
    q = k = 0: every row), in bf16 the sums lost precision; a relative error per row catches the zeros
    (error 1).
    """
    n, d, m = 4096, 64, 256
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, d, generator=g) for _ in range(3))
    if inputs == "unit-norm":  # as in QK-normalised (cosine) attention
        q, k = q / q.norm(dim=-1, keepdim=True), k / k.norm(dim=-1, keepdim=True)
    else:
        q, k = torch.zeros_like(q), torch.zeros_like(k)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    out = performer_attention(q, k, v, m, torch.Generator().manual_seed(1))
    assert out.dtype == dtype
    ref = _shifted_float64(q, k, v, m, 1)  # (1, 1, n, d)
    assert int((out.abs().amax(dim=-1) == 0).sum()) == 0  # no row silently zero
    rel = (out.double() - ref).abs().amax(dim=-1) / ref.abs().amax(dim=-1)  # (1, 1, n) per row
    assert float(rel.max()) < tol
    if inputs == "zero":  # equal features: the exact mean of v, whatever omega
        mean_v = v.double().mean(dim=-2, keepdim=True).expand_as(ref)
        torch.testing.assert_close(ref, mean_v, rtol=1e-9, atol=1e-9)
