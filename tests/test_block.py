"""The rest of the block against PyTorch: norms (BatchNorm vs LayerNorm vs RMSNorm), the FFN family, MoE
routing."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from selfattention import FeedForward, SwiGLU
from selfattention.block import (
    MoE,
    load_balancing_loss,
    normalise_tokens,
    residual_gradient_norms,
    training_bytes,
)

f64 = torch.float64


def _x(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=f64, generator=torch.Generator().manual_seed(seed)) * 2 + 0.5


# --- normalisation -------------------------------------------------------------------------------------


def test_normalise_tokens_equals_torch_norms():
    x = _x(3, 5, 8)
    bn = nn.BatchNorm1d(8, affine=False).double().train()
    ref_bn = bn(x.transpose(1, 2)).transpose(1, 2)  # BatchNorm1d wants (B, d, n)
    assert torch.allclose(normalise_tokens(x, "batchnorm"), ref_bn, atol=1e-12)
    assert torch.allclose(normalise_tokens(x, "layernorm"), F.layer_norm(x, (8,)), atol=1e-12)
    assert torch.allclose(normalise_tokens(x, "rmsnorm"), F.rms_norm(x, (8,), eps=1e-5), atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rmsnorm_of_large_16_bit_tokens_equals_torch(dtype):
    # |x| >= 256: x² overflows fp16 (max 65504) unless the statistic is taken in float32, as F.rms_norm does
    x = (_x(2, 3, 8) * 200).to(dtype)
    x[0, 0] = 300.0
    assert float(x.abs().max()) >= 256
    out = normalise_tokens(x, "rmsnorm")
    assert out.dtype == dtype and bool(torch.isfinite(out).all())
    torch.testing.assert_close(out, F.rms_norm(x, (8,), eps=1e-5), atol=0, rtol=0)
    assert torch.allclose(out[0, 0].float(), torch.ones(8), atol=1e-2)  # a constant token -> 1, not 0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", ["65536 tokens of mean 1", "|x| about 300"])
def test_batchnorm_of_16_bit_tokens_equals_torch(dtype, case):
    # fp16: the sum over B·n tokens overflows once B·n·mean(x) > 65504 (32 × 2048 tokens of mean 1), and
    # (x - mean)² once |x - mean| >= 256; F.batch_norm accumulates in float32, so must we
    gen = torch.Generator().manual_seed(0)
    if case == "65536 tokens of mean 1":
        x = (torch.randn(32, 2048, 4, generator=gen) + 1.0).to(dtype)
    else:
        x = (torch.randn(2, 8, 4, generator=gen) * 300).to(dtype)
    out = normalise_tokens(x, "batchnorm")
    ref = F.batch_norm(x.transpose(1, 2), None, None, training=True, eps=1e-5).transpose(1, 2)
    assert out.dtype == dtype and bool(torch.isfinite(out).all()) and bool(torch.isfinite(ref).all())
    ulp = torch.finfo(dtype).eps
    torch.testing.assert_close(out, ref, atol=ulp, rtol=2 * ulp)  # a rounding apart, not 2.27
    exact = normalise_tokens(x.double(), "batchnorm")  # the same 16-bit values, normalised in float64
    # one rounding to nearest of the exact value: within half a unit in the last place (bf16 old: 0.07)
    assert bool(((out.double() - exact).abs() <= (ulp / 2 + 1e-5) * exact.abs() + 1e-6).all())
    assert float(out.float().std()) > 0.9  # not the all-zero output of an overflowed variance


def test_masked_batchnorm_uses_only_the_real_tokens():
    x = _x(3, 5, 8)
    lengths = torch.tensor([5, 2, 3])
    mask = torch.arange(5)[None] < lengths[:, None]  # (B, n)
    ref = nn.BatchNorm1d(8, affine=False).double().train()(x[mask])  # (real tokens, d)
    out = normalise_tokens(x, "batchnorm", mask=mask)
    assert torch.allclose(out[mask], ref, atol=1e-12)
    assert bool((out[~mask] == 0).all())


def test_batchnorm_output_depends_on_the_batch_and_padding_layernorm_rmsnorm_do_not():
    a, b, c = _x(1, 6, 8, seed=1), _x(1, 6, 8, seed=2), _x(1, 6, 8, seed=3)
    for kind in ("batchnorm", "layernorm", "rmsnorm"):
        with_b = normalise_tokens(torch.cat([a, b]), kind)[0]
        with_c = normalise_tokens(torch.cat([a, c]), kind)[0]
        alone = normalise_tokens(a, kind)[0]
        padded = normalise_tokens(torch.cat([a, torch.zeros(1, 4, 8, dtype=f64)], 1), kind)[0, :6]
        changed = max((with_b - with_c).abs().max(), (alone - padded).abs().max())
        if kind == "batchnorm":
            assert changed > 0.1, kind  # another sequence, or 4 zero pads, change sequence a's output
        else:
            assert changed < 1e-12, kind


def test_batchnorm_train_and_eval_statistics_differ():
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(8).double()
    x = _x(4, 8, 6)  # (B, d, n)
    for _ in range(3):  # a few training steps move the running statistics part of the way (momentum 0.1)
        bn.train()(x)
    train_out = bn.train()(x)
    eval_out = bn.eval()(x)
    assert (train_out - eval_out).abs().max() > 0.1
    # in eval mode a sequence's output no longer depends on the batch
    assert torch.allclose(bn.eval()(x[:1]), eval_out[:1], atol=1e-12)


def test_batchnorm_of_one_token_is_zero_whatever_the_token():
    for seed in range(3):
        one = _x(1, 1, 8, seed=seed)
        assert normalise_tokens(one, "batchnorm").abs().max() == 0
        assert normalise_tokens(one, "layernorm").abs().max() > 0.5


def test_normalise_tokens_errors():
    with pytest.raises(ValueError, match="kind"):
        normalise_tokens(_x(1, 2, 3), "groupnorm")
    with pytest.raises(ValueError, match="rank 3"):
        normalise_tokens(_x(2, 3), "layernorm")
    with pytest.raises(ValueError, match="mask"):
        normalise_tokens(_x(1, 2, 3), "batchnorm", mask=torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match="at least one"):
        normalise_tokens(_x(1, 2, 3), "batchnorm", mask=torch.zeros(1, 2, dtype=torch.bool))


# --- residual gradients --------------------------------------------------------------------------------


def test_residual_keeps_the_gradient_a_plain_stack_loses_or_explodes():
    plain_low = residual_gradient_norms(24, False, gain=0.8)
    plain_high = residual_gradient_norms(24, False, gain=1.25)
    res = residual_gradient_norms(24, True, gain=0.8)
    res_scaled = residual_gradient_norms(24, True, gain=1.25, branch_scale=24**-0.5)
    assert plain_low[0] / plain_low[-1] < 1e-3 and plain_high[0] / plain_high[-1] > 1e3
    # on this draw (d = 64, batch 32, seed 0) never below the output's gradient: not a bound, only an average
    # at initialisation (a narrow stack can dip on some seeds: chapter 13, cell 12)
    assert (res / res[-1]).min() >= 1 - 1e-12
    assert 1 <= res_scaled[0] / res_scaled[-1] < 10  # bounded when the branches are scaled 1/sqrt(L)


# --- the FFN family ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("activation", "reference"),
    [
        ("relu", F.relu),
        ("gelu", F.gelu),
        ("gelu_tanh", lambda h: F.gelu(h, approximate="tanh")),
        ("silu", F.silu),
    ],
)
def test_feed_forward_equals_functional_reference(activation, reference):
    torch.manual_seed(0)
    ffn = FeedForward(8, 32, activation).double()
    x = _x(2, 3, 8)
    ref = F.linear(reference(F.linear(x, ffn.linear1.weight, ffn.linear1.bias)), ffn.linear2.weight,
                   ffn.linear2.bias)
    assert torch.allclose(ffn(x), ref, atol=1e-12)


def test_gelu_exact_and_tanh_differ_and_silu_is_x_sigmoid_x():
    h = torch.linspace(-4, 4, 201, dtype=f64)
    gap = (F.gelu(h) - F.gelu(h, approximate="tanh")).abs().max()
    assert 1e-5 < gap < 1e-3  # close, not equal: "gelu" must not silently be the tanh form
    assert torch.allclose(F.silu(h), h * torch.sigmoid(h), atol=1e-15)


def test_swiglu_at_eight_thirds_d_has_the_ffn_parameter_count():
    d = 24
    dense = FeedForward(d, 4 * d, "gelu", bias=False)
    gated = SwiGLU(d, 8 * d // 3)
    n_dense, n_gated = (sum(p.numel() for p in m.parameters()) for m in (dense, gated))
    assert n_dense == n_gated == 8 * d * d
    x = _x(2, 3, d).float()
    ref = F.linear(F.silu(F.linear(x, gated.gate.weight)) * F.linear(x, gated.up.weight), gated.down.weight)
    assert torch.allclose(gated(x), ref, atol=1e-6)


def test_feed_forward_refuses_an_unknown_activation():
    with pytest.raises(ValueError, match="activation must be one of"):
        FeedForward(8, 16, "tanh")


# --- mixture of experts --------------------------------------------------------------------------------


def _loop_reference(moe: MoE, x2: torch.Tensor) -> tuple[torch.Tensor, int, int]:
    """Token by token: softmax router, top-k, gates, capacity counted in priority order.

    Returns the output (T, d), the dropped assignments and the tokens all of whose assignments were
    dropped."""
    T, E, k = x2.shape[0], moe.num_experts, moe.top_k
    probs = torch.softmax(x2 @ moe.router.weight.T, -1)
    cap = math.inf if moe.capacity_factor is None else math.ceil(moe.capacity_factor * k * T / E)
    chosen = [sorted(range(E), key=lambda e, t=t: -float(probs[t, e]))[:k] for t in range(T)]
    used, keep = [0] * E, {}
    for r in range(k):  # first choices of every token before any second choice
        for t in range(T):
            e = chosen[t][r]
            keep[t, r] = used[e] < cap
            used[e] += 1
    y = torch.zeros_like(x2)
    for t in range(T):
        total = sum(float(probs[t, e]) for e in chosen[t])
        for r, e in enumerate(chosen[t]):
            gate = probs[t, e] / total if k > 1 else probs[t, e]
            if keep[t, r]:
                y[t] += gate * moe.experts[e](x2[t])
        for s in moe.shared:
            y[t] += s(x2[t])
    lost = sum(all(not keep[t, r] for r in range(k)) for t in range(T))
    return y, sum(not v for v in keep.values()), lost


@pytest.mark.parametrize(
    ("top_k", "capacity_factor", "shared"),
    [(1, None, 0), (2, None, 0), (2, 1.0, 0), (1, 0.5, 1), (2, 0.75, 2), (2, 0.25, 0)],
)
def test_moe_equals_a_loop_over_tokens_and_experts(top_k, capacity_factor, shared):
    torch.manual_seed(0)
    moe = MoE(8, 12, 4, top_k, capacity_factor, shared_experts=shared).double()
    x = _x(2, 9, 8)
    with torch.no_grad():
        y = moe(x)
        stats = moe.last
        y_dense = moe.dense_forward(x)
        ref, dropped, lost = _loop_reference(moe, x.reshape(-1, 8))
    assert torch.allclose(y.reshape(-1, 8), ref, atol=1e-12)
    assert torch.allclose(y_dense, y, atol=1e-12)
    assert (stats.dropped_assignments, stats.dropped_tokens) == (dropped, lost)
    assert int(stats.kept.sum()) == 18 * top_k - dropped and int(stats.load.sum()) == 18 * top_k
    if capacity_factor is not None:
        assert int(stats.kept.max()) <= stats.capacity == math.ceil(capacity_factor * top_k * 18 / 4)
    if capacity_factor == 0.5:
        assert dropped > 0 and lost == dropped  # top-1: a dropped assignment is a dropped token
    if capacity_factor == 0.25:
        assert 0 < lost < dropped  # top-2: some tokens lose one of their two experts, some both


def test_dropped_tokens_pass_through_with_zero_expert_output():
    torch.manual_seed(0)
    moe = MoE(8, 12, 4, top_k=1, capacity_factor=0.25).double()
    x = _x(1, 16, 8)
    with torch.no_grad():
        y = moe(x)[0]
        _, experts, _, keep = moe.route(x[0])
    assert moe.last.capacity == 1 and moe.last.dropped_tokens == int((~keep[:, 0]).sum()) > 0
    assert bool((y[~keep[:, 0]] == 0).all()) and bool((y[keep[:, 0]].abs().sum(-1) > 0).all())


def test_switch_loss_equals_its_formula_and_is_one_under_balanced_routing():
    gen = torch.Generator().manual_seed(0)
    probs = torch.softmax(torch.randn(12, 4, dtype=f64, generator=gen), -1)
    top1 = probs.argmax(-1, keepdim=True)
    f = torch.tensor([(top1 == i).double().mean() for i in range(4)], dtype=f64)
    assert torch.allclose(load_balancing_loss(probs, top1), 4 * (f * probs.mean(0)).sum(), atol=1e-15)
    # confident router (P = f): E·Σ f_i² >= 1, equal to 1 only when balanced; collapse gives E
    eye = torch.eye(4, dtype=f64)
    balanced = eye[torch.arange(12) % 4]
    collapsed = eye[torch.zeros(12, dtype=torch.long)]
    assert float(load_balancing_loss(balanced, balanced.argmax(-1, keepdim=True))) == 1.0
    assert float(load_balancing_loss(collapsed, collapsed.argmax(-1, keepdim=True))) == 4.0
    for seed in range(20):
        idx = torch.randint(0, 4, (12,), generator=torch.Generator().manual_seed(seed))
        onehot = eye[idx]
        loss = float(load_balancing_loss(onehot, idx[:, None]))
        is_balanced = bool((torch.bincount(idx, minlength=4) == 3).all())
        assert loss >= 1 - 1e-12 and (abs(loss - 1) < 1e-12) == is_balanced
    # the condition matters: with soft probabilities an unbalanced routing can score below 1
    soft = torch.tensor([[0.5, 0.5], [0.5, 0.5], [0.0, 1.0]], dtype=f64)
    assert abs(float(load_balancing_loss(soft, torch.tensor([[0], [0], [1]]))) - 8 / 9) < 1e-12


def test_aux_loss_has_a_gradient_through_the_router_only_via_p():
    torch.manual_seed(0)
    moe = MoE(8, 12, 4, top_k=2).double()
    moe(_x(2, 5, 8))
    moe.last.aux_loss.backward()
    assert moe.router.weight.grad is not None and moe.router.weight.grad.abs().sum() > 0
    # only via P: d(E·Σ f_i P_i)/d probs[t, i] = E·f_i / T, with f the (constant) dispatch fractions
    probs = torch.rand(10, 4, dtype=f64).softmax(-1).requires_grad_(True)
    index = probs.detach().topk(2, dim=-1).indices
    load_balancing_loss(probs, index).backward()
    f = torch.bincount(index.flatten(), minlength=4).to(f64) / index.numel()
    assert torch.allclose(probs.grad, (4 * f / 10).expand(10, 4), atol=1e-12)


def _skewed_moe_spreads(rate: float, steps: int) -> tuple[MoE, torch.Tensor, list[int]]:
    """Loads' spread (max - min tokens per expert) at each of ``steps`` forward passes, each followed by a
    ``balance_step(rate)``, on a router skewed towards expert 0; ``rate=0`` is the do-nothing balancer."""
    torch.manual_seed(0)
    moe = MoE(8, 12, 4, top_k=1).double()
    with torch.no_grad():
        moe.router.weight[0] += 1.0  # a router skewed towards expert 0
    x = _x(1, 64, 8)
    spreads = []
    with torch.no_grad():
        for _ in range(steps):
            moe(x)
            spreads.append(int(moe.last.load.max()) - int(moe.last.load.min()))
            if rate:
                moe.balance_step(rate=rate)
    return moe, x, spreads


def test_selection_bias_balances_load_without_changing_gates():
    idle, x, still = _skewed_moe_spreads(0.0, 80)
    moe, _, spreads = _skewed_moe_spreads(0.01, 80)
    before = spreads[0]
    assert before > 20 and set(still) == {before}  # the do-nothing balancer keeps the skew
    assert max(spreads[-20:]) <= before / 2  # (max - min) halved and stays so over the last 20 steps
    with torch.no_grad():
        probs0 = idle.route(x[0])[0]
        probs1, experts1, gates1, _ = moe.route(x[0])
    assert torch.equal(probs0, probs1)  # the bias steers the choice, not the router's probabilities
    assert torch.allclose(gates1[:, 0], probs1.gather(-1, experts1)[:, 0])
    assert not torch.equal(experts1, idle.route(x[0])[1])  # ...and it did steer it


def test_a_too_large_balancing_rate_overshoots():
    # the condition on the rate: a fixed step of 0.05, of the order of the logit gaps, makes the loads
    # cycle instead of settling (the sign rule moves every bias by the full rate each step), at times
    # further from balance than no balancing at all
    _, _, spreads = _skewed_moe_spreads(0.05, 80)
    assert max(spreads[-40:]) > spreads[0] and min(spreads[-40:]) > 10


def test_moe_total_vs_active_parameters():
    d, d_ff, E, k = 16, 24, 8, 2
    moe = MoE(d, d_ff, E, k, shared_experts=1)
    total = sum(p.numel() for p in moe.parameters())
    assert total == (E + 1) * 3 * d * d_ff + d * E
    active = (sum(p.numel() for e in list(moe.experts)[:k] for p in e.parameters())
              + sum(p.numel() for p in moe.shared.parameters()) + moe.router.weight.numel())
    assert active == (k + 1) * 3 * d * d_ff + d * E < total / 2  # k routed + 1 shared + router


def test_moe_errors():
    with pytest.raises(ValueError, match="top_k"):
        MoE(8, 12, 4, top_k=5)
    with pytest.raises(ValueError, match="capacity_factor"):
        MoE(8, 12, 4, capacity_factor=0)
    with pytest.raises(ValueError, match="shared_experts"):
        MoE(8, 12, 4, shared_experts=-1)
    with pytest.raises(ValueError, match="last dim"):
        MoE(8, 12, 4)(torch.randn(2, 7))
    with pytest.raises(ValueError, match="forward pass first"):
        MoE(8, 12, 4).balance_step()
    with pytest.raises(ValueError, match="expert_index"):
        load_balancing_loss(torch.rand(3, 4), torch.zeros(2, 1, dtype=torch.long))


# --- training memory -----------------------------------------------------------------------------------


def test_adam_mixed_precision_keeps_16_bytes_per_parameter():
    model = nn.Sequential(nn.Linear(32, 64), nn.Linear(64, 8)).to(torch.bfloat16)
    master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.Adam(master)
    model(torch.randn(4, 32, dtype=torch.bfloat16)).float().pow(2).mean().backward()
    for m, p in zip(master, model.parameters(), strict=True):
        m.grad = p.grad.float()
    opt.step()
    n = sum(p.numel() for p in model.parameters())
    b = training_bytes(model, opt)
    assert (b["weights"], b["gradients"], b["master"], b["optimizer"]) == (2 * n, 2 * n, 4 * n, 8 * n)
    assert b["step"] == 4 * len(master)  # one float32 step counter per tensor
    plain = torch.optim.Adam(model.parameters())  # no master copy: the optimizer holds the model's params
    plain.step()
    assert training_bytes(model, plain)["master"] == 0


def test_training_bytes_files_a_0_dim_parameters_moments_under_optimizer():
    model = nn.Module()
    model.scale = nn.Parameter(torch.tensor(1.0))  # 0-dim: its exp_avg and exp_avg_sq are 0-dim too
    model.w = nn.Parameter(torch.ones(3))
    opt = torch.optim.Adam(model.parameters())
    (model.scale * model.w).sum().backward()
    opt.step()
    b = training_bytes(model, opt)
    assert (b["optimizer"], b["step"]) == (2 * 4 * (1 + 3), 2 * 4)  # two fp32 moments, two step counters


def test_batchnorm_builds_its_weights_on_the_input_device():
    x = torch.randn(2, 3, 4, device="meta")  # stands in for CUDA: a CPU-built tensor would not mix with it
    assert normalise_tokens(x, "batchnorm").device == x.device
