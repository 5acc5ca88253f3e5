"""Review round 6, chapters 10-11: RMSNorm's default eps in 16 bits (H1), the NoPE myth after a leading
condition (M1) and the lows fixed with them."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from selfattention.transformer import RMSNorm

D = 4096


# H1: eps=None is the epsilon of the computation dtype (fp32 for fp16/bf16), as torch.nn.RMSNorm. With the
# input dtype's epsilon (fp16 9.8e-4, bf16 7.8e-3) the output RMS at input RMS 0.05 was 0.87x / 0.55x torch's.
@pytest.mark.parametrize("rms", [0.03, 0.05, 0.1])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rmsnorm_default_eps_of_small_16_bit_inputs_equals_torch(dtype, rms):
    torch.manual_seed(0)
    x = (rms * torch.randn(8, D)).to(dtype)
    ours = RMSNorm(D).to(dtype)(x)
    ref = nn.RMSNorm(D).to(dtype)(x)
    assert ours.dtype == dtype
    torch.testing.assert_close(ours, ref, atol=0, rtol=0)
    torch.testing.assert_close(ours, F.rms_norm(x, (D,)), atol=0, rtol=0)
    out_rms = float(ours.detach().double().pow(2).mean().sqrt())
    assert abs(out_rms - 1.0) < 0.01  # normalised to RMS 1, not shrunk by a 16-bit eps


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rmsnorm_default_eps_of_tiny_inputs_equals_torch(dtype):
    # at RMS 1e-4 the eps itself is visible: fp32's eps for fp32, fp64's for fp64
    torch.manual_seed(0)
    x = 1e-4 * torch.randn(8, 64, dtype=dtype)
    torch.testing.assert_close(RMSNorm(64).to(dtype)(x), nn.RMSNorm(64, dtype=dtype)(x), atol=1e-6, rtol=1e-6)


# M1: the NoPE myth after a leading condition. "Without a mask / if there is no mask / in an encoder, a
# Transformer without positional encodings is a bag of words" is true and must pass; "even with a causal
# mask, …" is the myth and must stay caught (a negated qualifier "!!~mask" vetoes only "without/no mask").
from selfattention.interview.bank import load_cards  # noqa: E402
from selfattention.interview.matcher import parse_pattern  # noqa: E402

NOPE = "any-transformer-without-positional-encodings-bag"
NOPE_CORRECT = [
    "Without a mask on the scores, any Transformer without positional encodings is a bag of words.",
    "Without a mask, a Transformer without positional encodings is a bag of words; with a causal mask it is not, "
    "because each token sees a different prefix.",
    "If there is no mask, a Transformer without positional encodings is a bag of words.",
    "With full bidirectional attention, a Transformer without positional encodings is a bag of words.",
    "In an encoder, a Transformer without positional encodings is a bag of words.",
    "Without masking, a model without positional encodings is a bag of words.",
    "Without a causal mask, a Transformer without positional encodings is a bag of words.",
    "Without a mask, a Transformer without positional encodings is always a bag of words.",
    "没有掩码时，没有位置编码的 Transformer 就是词袋模型。",
    "没有掩码时，不带位置编码的 Transformer 是词袋模型；有因果掩码就不是，因为每个 token 看到的前缀不同。",
    "如果没有因果掩码，不加位置编码的 Transformer 就是词袋模型。",
    "在双向注意力中，没有位置编码的 Transformer 就是词袋模型。",
]
NOPE_MYTH = [
    "Even with a causal mask, a Transformer without positional encodings is a bag-of-words model.",
    "I think even with a causal mask, a Transformer without positional encodings is a bag-of-words model.",
    "With a causal mask, a Transformer without positional encodings is still a bag of words.",
    "即使有因果掩码，没有位置编码的 Transformer 也是词袋模型。",
    "Without positional encodings, a Transformer is a bag-of-words model.",
    "不加位置编码，Transformer 就是词袋模型。",
    "A GPT-style decoder without positional encodings is a bag-of-words model.",
    "Any Transformer without positional encodings is a bag-of-words model.",
    "任何没有位置编码的 Transformer 都是词袋模型。",
]


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in load_cards()}


def _nope_stated(card, text):
    r = card.check(text)
    i = next(k for k, t in enumerate(card.tells) if t.myth == NOPE)
    return i in r.stated


@pytest.mark.parametrize("text", NOPE_CORRECT)
def test_nope_myth_spares_a_leading_no_mask_condition(cards, text):
    assert not _nope_stated(cards["pos-nope"], text), text
    assert set(cards["pos-nope"].check(text).stated) == set()


@pytest.mark.parametrize("text", NOPE_MYTH)
def test_nope_myth_still_caught_bare_and_after_even_with_a_mask(cards, text):
    assert _nope_stated(cards["pos-nope"], text), text


def test_negated_qualifier_vetoes_only_a_negated_occurrence():
    p = parse_pattern("bag + !!~mask")
    assert p.neg_qualifier and not p.qualifier and not p.absent
    from selfattention.interview.matcher import Tell, check_answer
    tell = [Tell(patterns=("bag + word + !!~mask",), myth="m")]
    assert check_answer("Even with a mask, it is a bag of words.", [], tells=tell).stated
    assert not check_answer("Without a mask, it is a bag of words.", [], tells=tell).stated
    assert not check_answer("If there is no mask, it is a bag of words.", [], tells=tell).stated


# L5: yarn_correction_range at very short L is the reference code's clamped result (docstring note)
def test_yarn_correction_range_at_very_short_context_is_the_reference_clamp():
    from selfattention.positional import yarn_correction_range, yarn_ramp

    assert yarn_correction_range(8, 100.0, 5) == (0, 0)
    assert yarn_ramp(8, 100.0, 5).tolist() == [0.0, 1.0, 1.0, 1.0]  # pair 0 kept despite 0.8 turns
    assert yarn_correction_range(128, 10000.0, 5)[1] < 0  # L <= 2 pi base^(-2/d) = 5.44
    assert yarn_correction_range(128, 10000.0, 6)[1] == 0
    assert "Very short L" in yarn_correction_range.__doc__


# L4: EncoderDecoder.forward refuses src_lengths that are not a (B,) integer tensor in [1, m]
@pytest.mark.parametrize("bad", [
    torch.tensor([-1, 3]), torch.tensor([0, 3]), torch.tensor([8, 3]), torch.tensor([2.5, 3.0]),
    torch.tensor([3]), torch.tensor([[3, 3], [3, 3]]), torch.tensor([True, True]), [3, 3],
])
def test_encoder_decoder_refuses_bad_src_lengths(bad):
    from selfattention.transformer import EncoderDecoder

    torch.manual_seed(0)
    model = EncoderDecoder(30, d_model=16, num_heads=2, num_layers=1, d_ff=32, max_len=12).eval()
    src, tgt = torch.randint(0, 30, (2, 7)), torch.randint(0, 30, (2, 5))
    with pytest.raises(ValueError, match="src_lengths"):
        model(src, tgt, src_lengths=bad)
    with torch.no_grad():  # valid lengths still run, and padding past the length does not matter
        a = model(src, tgt, src_lengths=torch.tensor([4, 7]))
        src2 = src.clone()
        src2[0, 4:] = (src[0, 4:] + 1) % 30
        torch.testing.assert_close(model(src2, tgt, src_lengths=torch.tensor([4, 7])), a, atol=1e-5, rtol=0)
