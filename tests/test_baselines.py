"""Additive / multiplicative attention and the step-loop RNN baselines."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from selfattention import (
    AdditiveAttention,
    GRUBaseline,
    MultiplicativeAttention,
    VanillaRNN,
    causal_mask,
    scaled_dot_product_attention,
)


@pytest.mark.parametrize("cls", ["additive", "multiplicative"])
def test_weights_sum_to_one_and_mask_respected(cls) -> None:
    torch.manual_seed(0)
    att = AdditiveAttention(3, 5, 7) if cls == "additive" else MultiplicativeAttention(3, 5)
    q, k, v = torch.randn(2, 4, 3), torch.randn(2, 6, 5), torch.randn(2, 6, 2)
    mask = causal_mask(4, 6)
    out, w = att(q, k, v, mask=mask, return_weights=True)
    assert out.shape == (2, 4, 2) and w.shape == (2, 4, 6)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 4), atol=1e-6, rtol=0)
    assert torch.all(w[:, ~mask] == 0)
    assert torch.all(w[:, mask] > 0)
    torch.testing.assert_close(out, w @ v, atol=1e-6, rtol=0)
    torch.testing.assert_close(att(q, k, v, mask=mask), out, atol=0, rtol=0)


def test_additive_hand_example() -> None:
    att = AdditiveAttention(1, 1, 1)
    with torch.no_grad():
        for lin in (att.W_q, att.W_k, att.w_v):
            lin.weight.fill_(1.0)
    q = torch.tensor([[0.0]])  # (1, 1)
    k = torch.tensor([[0.0], [1.0]])  # (2, 1)
    v = torch.tensor([[10.0], [20.0]])
    # scores: tanh(0 + 0) = 0 and tanh(0 + 1) = tanh(1)
    e = math.exp(math.tanh(1.0))
    w_expected = [1 / (1 + e), e / (1 + e)]
    out, w = att(q, k, v, return_weights=True)
    torch.testing.assert_close(w, torch.tensor([w_expected]), atol=1e-6, rtol=0)
    out_expected = 10 * w_expected[0] + 20 * w_expected[1]
    torch.testing.assert_close(out, torch.tensor([[out_expected]]), atol=1e-5, rtol=0)


def test_multiplicative_hand_example_and_sdpa() -> None:
    att = MultiplicativeAttention(1, 1)
    with torch.no_grad():
        att.W.weight.fill_(2.0)
    q, k, v = torch.tensor([[1.0]]), torch.tensor([[1.0], [0.0]]), torch.tensor([[1.0], [0.0]])
    # scores q * 2 * k = [2, 0] -> weights [e^2, 1] / (e^2 + 1)
    out, w = att(q, k, v, return_weights=True)
    e2 = math.exp(2.0)
    torch.testing.assert_close(w, torch.tensor([[e2 / (e2 + 1), 1 / (e2 + 1)]]), atol=1e-6, rtol=0)
    # with W = I, Luong "general" is unscaled dot-product attention
    att4 = MultiplicativeAttention(4, 4)
    with torch.no_grad():
        att4.W.weight.copy_(torch.eye(4))
    q, k, v = torch.randn(3, 4), torch.randn(5, 4), torch.randn(5, 2)
    ref = scaled_dot_product_attention(q, k, v, scale=1.0)
    torch.testing.assert_close(att4(q, k, v), ref, atol=1e-5, rtol=0)


@pytest.mark.parametrize("kind", ["rnn", "gru"])
@pytest.mark.parametrize("bias", [True, False])
def test_step_loop_equals_torch(kind, bias) -> None:
    torch.manual_seed(0)
    ref = (nn.RNN if kind == "rnn" else nn.GRU)(3, 6, batch_first=True, bias=bias)
    ours = (VanillaRNN if kind == "rnn" else GRUBaseline).from_torch(ref)
    x, h0 = torch.randn(2, 7, 3), torch.randn(2, 6)
    states, last = ours(x)
    assert states.shape == (2, 7, 6) and last.shape == (2, 6)
    ref_states, ref_last = ref(x)
    torch.testing.assert_close(states, ref_states, atol=1e-5, rtol=0)
    torch.testing.assert_close(last, ref_last[0], atol=1e-5, rtol=0)
    torch.testing.assert_close(ours(x, h0)[0], ref(x, h0[None])[0], atol=1e-5, rtol=0)


def test_rnn_shapes_and_from_torch_type_check() -> None:
    states, last = VanillaRNN(4, 5)(torch.randn(3, 2, 4))
    assert states.shape == (3, 2, 5) and last.shape == (3, 5)
    torch.testing.assert_close(states[:, -1], last, atol=0, rtol=0)
    with pytest.raises(ValueError, match="rnn must be a torch.nn.GRU: got RNN"):
        GRUBaseline.from_torch(nn.RNN(2, 3))
