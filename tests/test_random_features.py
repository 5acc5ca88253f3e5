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
