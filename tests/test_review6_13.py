"""Review round 6, chapter 13: RMSNorm's default eps for 16-bit inputs, MoE's bias in bf16, and the checker
sentences of the SwiGLU, GELU and residual myths."""

from pathlib import Path

import pytest
import torch
import yaml

import selfattention.interview
from selfattention.block import MoE
from selfattention.interview.bank import load_cards
from selfattention.transformer import RMSNorm

CARDS = {c.id: c for c in load_cards()}
MYTHS = {m["id"]: m for m in yaml.safe_load(
    (Path(selfattention.interview.__file__).parent / "myths.yaml").read_text(encoding="utf-8"))}


def states(card_id: str, myth_id: str, text: str) -> bool:
    """Does ``text``, typed for card ``card_id``, state myth ``myth_id`` (stated is keyed by the card's index)?"""
    card = CARDS[card_id]
    index = [m["en"] for m in card.misconceptions].index(MYTHS[myth_id]["en"])
    return index in card.check(text).stated


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_rmsnorm_default_eps_matches_torch_at_small_rms(dtype):
    # eps=None: torch uses the epsilon of the dtype it computes in (fp32 for 16-bit inputs); fp16's 9.8e-4 or
    # bf16's 7.8e-3 would swamp mean(x²) = 1e-4 here and shrink the output 3-9x
    torch.manual_seed(0)
    x = (torch.randn(4, 64, dtype=torch.float64) * 1e-2).to(dtype)
    ours, ref = RMSNorm(64).to(dtype), torch.nn.RMSNorm(64).to(dtype)
    a, b = ours(x), ref(x)
    assert a.dtype == b.dtype == dtype
    assert torch.equal(a, b) or (a - b).detach().double().abs().max() <= 2 * torch.finfo(dtype).eps * 4
    assert float(a.detach().double().pow(2).mean(-1).sqrt().min()) > 0.99  # normalised to RMS 1, not shrunk


def test_moe_selection_bias_keeps_moving_in_bf16():
    torch.manual_seed(0)
    moe = MoE(8, 16, num_experts=4, top_k=1).to(torch.bfloat16)
    assert moe.selection_bias.dtype == torch.float32
    assert MoE(8, 16, num_experts=4).double().selection_bias.dtype == torch.float64
    x = torch.randn(32, 8, dtype=torch.bfloat16)
    with torch.no_grad():
        moe(x)
        moe.last.load[:] = torch.tensor([32, 0, 0, 0])  # expert 0 overloaded on every step
        for _ in range(2000):
            moe.balance_step(rate=1e-3)
    assert abs(float(moe.selection_bias[0]) + 2.0) < 1e-3  # 2000 steps of -1e-3 (bf16 stalled at -0.5)
    assert abs(float(moe.selection_bias[1]) - 2.0) < 1e-3
    moe(x)  # routing still works with an fp32 bias on bf16 scores


SWIGLU_CORRECT = [
    "At d_ff = 4d SwiGLU has 50% more weights.",
    "SwiGLU uses three matrices, so at d_ff = 4d it has 50% more weights; Llama shrinks d_ff to 8/3 d.",
    "SwiGLU at d_ff = 4d has 50% more parameters than the ReLU FFN, so d_ff is shrunk to 8/3 d.",
    "SwiGLU has more parameters at d_ff = 4d; at 8/3 d the count is the same.",
    "With three matrices SwiGLU adds parameters, so Llama uses d_ff = 8/3 d to keep the count equal.",
    "At 8/3 d the count is the same, but SwiGLU has 50% more weights at 4d.",
    "Llama-3 uses d_ff = 3.5 d, so its SwiGLU FFN has more parameters than a 4d FFN.",
    "SwiGLU 在 d_ff = 4d 时参数多 50%，所以 Llama 把 d_ff 缩到 8/3 d。",
]
SWIGLU_MYTH = ["SwiGLU adds parameters to the FFN.", "I think SwiGLU adds parameters to the FFN.",
               "SwiGLU increases the parameter count of the FFN.", "SwiGLU 让 FFN 的参数变多了。"]


@pytest.mark.parametrize("text", SWIGLU_CORRECT)
def test_swiglu_myth_spares_conditioned_answers(text):
    assert not states("block-ffn-activations", "swiglu-adds-parameters-ffn", text)


@pytest.mark.parametrize("text", SWIGLU_MYTH)
def test_swiglu_myth_still_caught(text):
    assert states("block-ffn-activations", "swiglu-adds-parameters-ffn", text)


@pytest.mark.parametrize("text", [
    "The tanh approximation gives the same output as GELU up to about 5e-4.",
    "tanh GELU and exact GELU give the same results to about 1e-3.",
    "The tanh formula and the erf formula of GELU give the same curve to three decimals but are different functions.",
])
def test_gelu_myth_spares_tolerances(text):
    assert not states("block-ffn-activations", "gelu-s-tanh-form-same-function", text)


@pytest.mark.parametrize("text", ["The tanh GELU is identical to the exact GELU.",
                                  "GELU's tanh form is the same function as exact GELU."])
def test_gelu_myth_still_caught(text):
    assert states("block-ffn-activations", "gelu-s-tanh-form-same-function", text)


@pytest.mark.parametrize("text", ["RMSNorm 没有可学习的缩放参数。", "RMSNorm has no learned parameters.",
                                  "RMSNorm is just LayerNorm without gamma.",
                                  "RMSNorm is LayerNorm without the learned scale.", "RMSNorm 是去掉可学习缩放的 LayerNorm。"])
def test_rmsnorm_myth_paraphrases_caught(text):  # review L10
    assert states("block-rmsnorm-placement", "rmsnorm-layernorm-without-learned-scale", text)


@pytest.mark.parametrize("text", ["RMSNorm has no bias and no mean subtraction; its learned gain stays.",
                                  "RMSNorm 不减均值，也没有偏置，可学习的增益还在。",
                                  "RMSNorm has no learned bias, only a learned gain.",
                                  "RMSNorm is LayerNorm without beta; it keeps gamma."])
def test_rmsnorm_myth_spares_correct_answers(text):
    assert not states("block-rmsnorm-placement", "rmsnorm-layernorm-without-learned-scale", text)
