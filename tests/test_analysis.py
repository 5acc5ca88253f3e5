"""Tests of selfattention.analysis: each helper against an independent computation or a known closed form."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention.analysis import (
    diagonal_argmax_rate,
    init_score_stats,
    logit_step_change,
    mha_param_count,
    random_scores,
    row_entropy,
    self_scores,
    softmax_jacobian,
)
from selfattention.multi_head import MultiHeadAttention


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_random_scores_variance_is_d_k_times_scale_squared(d_k: int) -> None:
    s = random_scores(2000, 8, d_k, seed=1)
    assert s.shape == (2000, 8)
    assert s.var().item() == pytest.approx(d_k, rel=0.05)
    scaled = random_scores(2000, 8, d_k, scale=1 / math.sqrt(d_k), seed=1)
    assert scaled.var().item() == pytest.approx(1.0, rel=0.05)
    torch.testing.assert_close(scaled, s / math.sqrt(d_k))


def test_random_scores_is_deterministic_and_rejects_bad_scale() -> None:
    torch.testing.assert_close(random_scores(3, 4, 5, seed=7), random_scores(3, 4, 5, seed=7), rtol=0, atol=0)
    with pytest.raises(ValueError, match="scale"):
        random_scores(3, 4, 5, scale=0.0)
    with pytest.raises(ValueError, match="d_k"):
        random_scores(3, 4, 0)


@pytest.mark.parametrize("rho", [0.25, 0.5, 1.0])
def test_random_scores_correlated_first_key_has_mean_rho_d_k(rho: float) -> None:
    d_k, rows = 256, 4000
    s = random_scores(rows, 8, d_k, seed=2, correlation=rho)
    # q . k_0 = sum_t q_t (rho q_t + sqrt(1 - rho^2) z_t): mean rho d_k, variance d_k (1 + rho^2)
    assert s[:, 0].mean().item() == pytest.approx(rho * d_k, rel=0.03)
    assert s[:, 0].var().item() == pytest.approx(d_k * (1 + rho**2), rel=0.08)
    independent = random_scores(rows, 8, d_k, seed=2)
    torch.testing.assert_close(s[:, 1:], independent[:, 1:], rtol=0, atol=0)  # other keys untouched
    assert abs(s[:, 1:].mean().item()) < 4 * math.sqrt(d_k / (rows * 7))


def test_random_scores_rejects_a_correlation_outside_minus_one_one() -> None:
    with pytest.raises(ValueError, match="correlation"):
        random_scores(3, 4, 5, correlation=1.5)


def test_row_entropy_known_values() -> None:
    p = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.0, 0.0]])
    torch.testing.assert_close(row_entropy(p), torch.tensor([0.0, math.log(4), math.log(2)]))


def test_row_entropy_matches_torch_distributions() -> None:
    p = torch.softmax(torch.randn(5, 7, generator=torch.Generator().manual_seed(0)), -1)
    expected = torch.distributions.Categorical(probs=p).entropy()
    torch.testing.assert_close(row_entropy(p), expected)


def test_softmax_jacobian_matches_autograd() -> None:
    s = torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    J = softmax_jacobian(torch.softmax(s, -1))
    assert J.shape == (3, 6, 6)
    for b in range(3):
        ref = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), s[b])
        torch.testing.assert_close(J[b], ref)
    torch.testing.assert_close(J.sum(-1), torch.zeros(3, 6, dtype=torch.float64))  # rows sum to 0


def test_softmax_jacobian_vanishes_for_one_hot() -> None:
    J = softmax_jacobian(torch.tensor([0.0, 1.0, 0.0]))
    torch.testing.assert_close(J, torch.zeros(3, 3))


def test_diagonal_argmax_rate() -> None:
    s = torch.tensor([[[3.0, 1.0], [0.0, 2.0]], [[0.0, 1.0], [5.0, 2.0]]])
    assert diagonal_argmax_rate(s) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="square"):
        diagonal_argmax_rate(torch.zeros(2, 3))


def test_self_scores_shared_is_symmetric_psd_and_matches_formula() -> None:
    s = self_scores(4, 6, 16, 8, shared=True, seed=3)
    assert s.shape == (4, 6, 6)
    torch.testing.assert_close(s, s.transpose(-2, -1))
    assert torch.linalg.eigvalsh(s).min().item() > -1e-9
    sep = self_scores(4, 6, 16, 8, shared=False, seed=3)
    assert (sep - sep.transpose(-2, -1)).abs().max().item() > 1e-3


def test_self_scores_diagonal_dominance_grows_with_d_k_only_when_shared() -> None:
    n = 16
    shared = [diagonal_argmax_rate(self_scores(100, n, 64, d, shared=True, seed=0)) for d in (1, 64)]
    separate = [diagonal_argmax_rate(self_scores(100, n, 64, d, shared=False, seed=0)) for d in (1, 64)]
    assert shared[0] < 0.3 and shared[1] > 0.99
    for r in separate:
        assert abs(r - 1 / n) < 0.03


@pytest.mark.parametrize("d_k", [16, 64])
def test_init_score_stats_match_kaiming_uniform_closed_form(d_k: int) -> None:
    # nn.Linear default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) has variance 1/(3 fan_in), so a component of W x
    # for LayerNorm-ed x (|x|^2 = d_model) has variance 1/3 and q.k has variance d_k / 9.
    stats = init_score_stats(64, d_k, num_layers=64, seed=0)
    assert stats["var_offdiag"] == pytest.approx(d_k / 9, rel=0.1)
    assert stats["mean_diag_shared"] == pytest.approx(d_k / 3, rel=0.1)
    assert abs(stats["mean_diag_separate"]) < 0.1 * d_k / 3


@pytest.mark.parametrize(("h", "g", "bias"), [(1, None, True), (4, None, True), (8, 2, True), (8, 1, False)])
def test_mha_param_count_matches_module(h: int, g: int | None, bias: bool) -> None:
    m = MultiHeadAttention(64, h, num_kv_heads=g, bias=bias)
    assert mha_param_count(64, h, g, bias) == sum(p.numel() for p in m.parameters())


def test_mha_param_count_rejects_bad_heads() -> None:
    with pytest.raises(ValueError, match="num_heads"):
        mha_param_count(64, 5)
    with pytest.raises(ValueError, match="num_kv_heads"):
        mha_param_count(64, 8, 3)


def test_init_score_stats_is_deterministic_and_leaves_global_rng_alone() -> None:
    torch.manual_seed(5)
    expected = torch.rand(2)
    torch.manual_seed(5)
    first = init_score_stats(16, 8, n=8, num_layers=2, seed=3)
    assert torch.equal(torch.rand(2), expected)
    assert init_score_stats(16, 8, n=8, num_layers=2, seed=3) == first


def _closed_form_step(d_k: int, optimizer: str, scale: str, lr: float, seed: int = 0) -> float:
    """The same set-up redrawn, the step written out: logits are linear in W_Q, so ds = X dW_Q K^T c."""
    d_model, n = 32, 16
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_model, generator=g, dtype=torch.float64)
    w_q = torch.randn(d_model, d_k, generator=g, dtype=torch.float64) / math.sqrt(d_model)
    k = x @ (torch.randn(d_model, d_k, generator=g, dtype=torch.float64) / math.sqrt(d_model))
    target = torch.randint(n, (n,), generator=g)
    c = d_k**-0.5 if scale == "sqrt_dk" else 1.0 / d_k
    s = (x @ w_q) @ k.T * c
    dl_ds = (torch.softmax(s, -1) - torch.nn.functional.one_hot(target, n)) / n  # mean cross-entropy
    grad = x.T @ dl_ds @ k * c  # dL/dW_Q (d_model, d_k)
    # Adam's first step: m_hat = g, v_hat = g^2, so the step is lr * g / (|g| + eps)
    step = lr * grad if optimizer == "sgd" else lr * grad / (grad.abs() + 1e-8)
    return (x @ step @ k.T * c).abs().mean().item()


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize("scale", ["sqrt_dk", "dk"])
def test_logit_step_change_matches_the_step_written_out(optimizer: str, scale: str) -> None:
    for d_k in (4, 64):
        got = logit_step_change(d_k, optimizer, scale, lr=1e-3)
        assert got == pytest.approx(_closed_form_step(d_k, optimizer, scale, 1e-3), rel=1e-6)


def test_logit_step_change_width_exponents_depend_on_what_is_held_fixed() -> None:
    """d_model = 32 and lr fixed: Adam ~sqrt(d_k) under 1/sqrt(d_k), flat under 1/d_k; SGD flat, then 1/d_k.

    With d_model = d_k (both grow), an SGD step grows the 1/sqrt(d_k) change too, and with muP's width-scaled
    SGD learning rate (lr proportional to d_k here) it grows about like d_k.
    """
    d_ks = [16, 64, 256, 1024]

    def slope(optimizer: str, scale: str, grow_d_model: bool = False, grow_lr: bool = False) -> float:
        ys = [
            sum(
                logit_step_change(
                    d, optimizer, scale, d_model=d if grow_d_model else 32,
                    lr=1e-3 * d / 64 if grow_lr else 1e-3, seed=s,
                )
                for s in range(3)
            )
            for d in d_ks
        ]
        return float(torch.tensor([math.log(y) for y in ys]).diff().mean() / math.log(4))

    assert 0.35 < slope("adam", "sqrt_dk") < 0.6
    assert abs(slope("adam", "dk")) < 0.15
    assert abs(slope("sgd", "sqrt_dk")) < 0.15  # flat only because d_model and lr stay fixed
    assert abs(slope("sgd", "dk") + 1) < 0.15
    assert 0.45 < slope("sgd", "sqrt_dk", grow_d_model=True) < 0.9  # measured +0.69
    assert 0.75 < slope("sgd", "sqrt_dk", grow_lr=True) < 1.15  # measured +0.93: ~d_k


def test_logit_step_change_rejects_bad_arguments() -> None:
    for kwargs, match in (
        ({"optimizer": "rmsprop"}, "optimizer"),
        ({"scale": "none"}, "scale"),
        ({"lr": 0.0}, "lr"),
        ({"d_model": 0}, "d_model"),
    ):
        with pytest.raises(ValueError, match=match):
            logit_step_change(8, **kwargs)
