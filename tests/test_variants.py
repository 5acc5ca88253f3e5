"""Logit soft-capping and differential attention on small inputs."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention import differential_attention, scaled_dot_product_attention, soft_cap


def test_soft_cap_bounds_is_near_identity_for_small_scores_and_keeps_the_order() -> None:
    s = torch.linspace(-100, 100, 2001, dtype=torch.float64)
    c = soft_cap(s, 50.0)
    assert float(c.abs().max()) < 50.0 and bool((c[1:] > c[:-1]).all())  # bounded, strictly increasing
    assert float(soft_cap(torch.tensor([1e4], dtype=torch.float64), 50.0)) <= 50.0  # saturates at the cap
    small = torch.linspace(-5, 5, 101, dtype=torch.float64)
    err = (soft_cap(small, 50.0) - small).abs()
    assert float(err.max()) <= 5**3 / (3 * 50**2) + 1e-12  # tanh(x) ≥ x − x³/3: 0.017 at |s| = 5
    g = torch.Generator().manual_seed(0)
    rows = 30 * torch.randn(50, 17, generator=g, dtype=torch.float64)
    assert torch.equal(soft_cap(rows, 50.0).argmax(-1), rows.argmax(-1))


def test_soft_cap_bounds_the_softmax_and_its_gradient_fades_past_the_cap() -> None:
    n, cap = 8, 5.0
    s = torch.tensor([[1e3] + [-1e3] * (n - 1)], dtype=torch.float64)
    w_raw, w_cap = torch.softmax(s, -1), torch.softmax(soft_cap(s, cap), -1)
    assert float(w_raw[0, 0]) == 1.0  # raw: one-hot
    bound = 1 / (1 + (n - 1) * math.exp(-2 * cap))  # capped logits differ by < 2c
    assert float(w_cap[0, 0]) <= bound + 1e-12 and float(w_cap[0, 1]) > 0
    x = torch.tensor([0.0, 3 * cap], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(soft_cap(x, cap).sum(), x)
    assert float(grad[0]) == pytest.approx(1.0, abs=1e-12)
    assert float(grad[1]) == pytest.approx(1 - math.tanh(3) ** 2, rel=1e-9) and float(grad[1]) < 0.01


def test_soft_cap_refuses_bad_input() -> None:
    for cap in (0, -1.0, float("inf"), True):
        with pytest.raises(ValueError, match="cap"):
            soft_cap(torch.zeros(2), cap)
    with pytest.raises(ValueError, match="floating"):
        soft_cap(torch.zeros(2, dtype=torch.long), 5.0)


def test_differential_attention_rows_sum_to_one_minus_lambda_and_equal_the_definition() -> None:
    g = torch.Generator().manual_seed(0)
    q1, q2 = (torch.randn(2, 3, 5, 8, generator=g, dtype=torch.float64) for _ in range(2))
    k1, k2 = (torch.randn(2, 3, 7, 8, generator=g, dtype=torch.float64) for _ in range(2))
    v = torch.randn(2, 3, 7, 4, generator=g, dtype=torch.float64)
    out, w = differential_attention(q1, k1, q2, k2, v, 0.8, return_weights=True)
    torch.testing.assert_close(w.sum(-1), torch.full((2, 3, 5), 0.2, dtype=torch.float64), rtol=0, atol=1e-12)
    want = scaled_dot_product_attention(q1, k1, v) - 0.8 * scaled_dot_product_attention(q2, k2, v)
    torch.testing.assert_close(out, want, rtol=0, atol=1e-12)
    assert float(w.min()) < 0  # weights may be negative
    same = differential_attention(q1, k1, q1, k1, v, 0.0)
    torch.testing.assert_close(same, scaled_dot_product_attention(q1, k1, v), rtol=0, atol=1e-12)


def test_differential_attention_cancels_what_both_maps_share() -> None:
    # keys: one relevant key (index 0) and 15 distractors; both maps see the same distractor scores,
    # only map 1 sees the relevant key's extra match
    g = torch.Generator().manual_seed(1)
    d, n = 16, 16
    q = torch.randn(1, 1, d, generator=g, dtype=torch.float64)
    k_common = torch.randn(1, n, d, generator=g, dtype=torch.float64)
    k1 = k_common.clone()
    k1[0, 0] += 1.5 * q[0, 0]  # the relevant key matches the query in map 1 only
    v = torch.eye(n, dtype=torch.float64)[None]  # output = the weights
    w1 = scaled_dot_product_attention(q, k1, v)[0, 0]
    w2 = scaled_dot_product_attention(q, k_common, v)[0, 0]

    def snr(w: torch.Tensor) -> float:
        return float(w[0] / w[1:].abs().sum())

    wd = differential_attention(q, k1, q, k_common, v, 0.8)[0, 0]
    assert snr(wd) > 1.5 * snr(w1)  # a fixed λ = 0.8 already cancels part of the shared distractor weight
    lam = float((1 - w1[0]) / (1 - w2[0]))  # the λ that matches the two maps' distractor weights
    wd_star = differential_attention(q, k1, q, k_common, v, lam)[0, 0]
    assert float(wd_star[1:].abs().max()) < 1e-12 and float(wd_star[0]) > 0.1  # cancelled exactly


def test_differential_attention_refuses_mismatched_maps() -> None:
    q, k, v = torch.randn(1, 3, 4), torch.randn(1, 5, 4), torch.randn(1, 5, 2)
    with pytest.raises(ValueError, match="matching shapes"):
        differential_attention(q, k, q[:, :2], k, v, 0.5)
    with pytest.raises(ValueError, match="q1 must be"):
        differential_attention(None, k, q, k, v, 0.5)  # type: ignore[arg-type]
