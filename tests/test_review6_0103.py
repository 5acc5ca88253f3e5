"""Review round 6 of chapters 01-03 (/work/reviews6/ch01-03.md): the framing rule (M1), the myths that flagged
correct answers (M2, M3), and the readable path in 16-bit floats (L1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from selfattention.core import scaled_dot_product_attention
from selfattention.interview.bank import get_card, load_cards, load_myths
from selfattention.interview.patterns import split_misconception

CARDS = load_cards()
ROOT = Path(__file__).resolve().parents[1]

# M1: "I think" / "我觉得" is the candidate's own claim; a frequency adverb, or 常 inside 常数 / 非常 /
# 正常, does not make the belief someone else's.
M1_STATED = [
    ("scaling-why-not-dk", "我觉得除以什么常数都行，模型会自己调整权重尺度。"),
    ("scaling-why-sqrt-dk", "I think we usually divide by d_k."),
    ("scaling-why-sqrt-dk", "我觉得通常是除以 d_k。"),
    ("scaling-why-sqrt-dk", "I think we often divide by d_k."),
    ("flow-softmax-axis", "我觉得注意力矩阵每一列和为 1，这很正常。"),
    ("scaling-qk-norm", "我觉得有了根号 d_k 缩放，logit 永远尺度合适，训练非常稳定。"),
    ("scaling-soft-capping", "I think soft-capping often changes which key gets the most attention."),
]
# ... while a belief that is someone else's still frames the myth (it is reported, not stated)
M1_FRAMED = [
    ("scaling-why-sqrt-dk", "People often think we divide by d_k."),
    ("scaling-why-sqrt-dk", "It is commonly believed that we divide by d_k."),
    ("scaling-why-sqrt-dk", "Many people believe we divide by d_k."),
    ("scaling-why-sqrt-dk", "A common misconception is that we divide by d_k."),
    ("scaling-why-sqrt-dk", "很多人以为是除以 d_k。"),
    ("scaling-why-sqrt-dk", "通常认为是除以 d_k。"),
    ("scaling-why-sqrt-dk", "经常有人说是除以 d_k。"),
    ("scaling-why-not-dk", "有人觉得除以什么常数都行。"),
]


@pytest.mark.parametrize(("cid", "answer"), M1_STATED)
def test_m1_a_first_person_hedge_with_a_frequency_word_still_states_the_myth(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), M1_FRAMED)
def test_m1_a_belief_reported_as_others_is_not_stated(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


_LEADS = {"en": ("I think ",), "zh": ("我觉得", "我认为")}


def _hedged_registry() -> list[tuple[str, str, str]]:
    registry = load_myths()
    return [
        (card.id, tell.myth, lead + split_misconception(registry[tell.myth][lang], lang)[0])
        for card in CARDS if card.chapter[:2] in {"01", "02", "03"}
        for tell in card.tells for lang in ("en", "zh") for lead in _LEADS[lang]
    ]


@pytest.mark.parametrize(("cid", "myth", "sentence"), _hedged_registry())
def test_m1_every_registry_sentence_of_01_03_after_i_think_is_caught(
    cid: str, myth: str, sentence: str
) -> None:
    card = get_card(CARDS, cid)
    assert myth in {card.tells[j].myth for j in card.check(sentence).stated}, (cid, myth, sentence)


# M2, M3: correct answers that the myth patterns flagged, with the key point the flagged myth took away
CORRECT = [
    ("qkv-why-three", "Q, K and V are three different projections of the same input X."),
    ("qkv-why-three", "Q、K、V 是同一个输入的三个不同投影。"),
    ("qkv-why-three", "Three different learned matrices map the same input to queries, keys and values."),
    ("qkv-why-three", "Q, K and V differ because they use different projections of the same input."),
    ("qkv-why-three", "They are different because each uses a different weight matrix on the same input."),
    ("qkv-why-three", "Q、K、V 不同是因为用了不同的投影矩阵，输入是同一个。"),
    ("qkv-shared-qk", "Attention becomes close to the identity when d_k is large, but not exactly."),
    ("qkv-shared-qk", "With a shared matrix, attention is nearly the identity for large d_k."),
    ("qkv-shared-qk", "The attention matrix is approximately the identity when the norms are similar."),
    ("qkv-shared-qk", "The attention is diagonally dominant but not exactly the identity."),
    ("qkv-shared-qk", "Attention is mostly diagonal with a shared matrix."),
    ("qkv-shared-qk", "The self-score is usually the largest, so attention is close to diagonal."),
    ("qkv-shared-qk", "共用 W_Q 和 W_K 时注意力接近单位矩阵，但不完全是。"),
    ("flow-softmax-axis", "Each column shows how much attention one token receives in total."),
    ("flow-softmax-axis", "Each column of A belongs to one token being attended to."),
    ("flow-softmax-axis", "Column j tells you how much attention token j receives."),
]
MYTHS = [
    ("qkv-why-three", "Q, K and V are different because the input is different."),
    ("qkv-why-three", "Q、K、V 不同是因为输入不同。"),
    ("qkv-why-three", "Q, K and V differ because their inputs are different."),
    ("qkv-why-three", "Q, K, V come from different inputs."),
    ("qkv-shared-qk", "Sharing W_Q and W_K makes attention exactly the identity."),
    ("qkv-shared-qk", "共用 W_Q 和 W_K 会让注意力完全变成单位矩阵。"),
    ("qkv-shared-qk", "With a shared matrix the attention is just the identity."),
    ("flow-softmax-axis", "Each column of the attention matrix sums to 1."),
    ("flow-softmax-axis", "The softmax is applied to each column."),
    ("flow-softmax-axis", "Each column is a probability distribution."),
    ("flow-softmax-axis", "The softmax runs over the queries (columns)."),
]


@pytest.mark.parametrize(("cid", "answer"), CORRECT)
def test_m2_m3_correct_descriptions_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated and not result.blocked, (cid, answer, result.stated, result.blocked)


def test_m2_the_textbook_answer_keeps_key_point_1() -> None:
    card = get_card(CARDS, "qkv-why-three")
    answer = (
        "Q, K and V are three different projections of the same input X; the score x_i W_Q W_K^T x_j is an "
        "asymmetric bilinear form, so i can attend to j without j attending to i."
    )
    result = card.check(answer)
    assert not result.stated and 1 not in result.blocked, (result.stated, result.blocked, result.covered)


@pytest.mark.parametrize(("cid", "answer"), MYTHS)
def test_m2_m3_the_myths_are_still_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


# L1: the readable path (return_weights=True) in float16 must not overflow where the fast path does not
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scale_up", [1.0, 25.0])
def test_l1_readable_path_in_16_bit_matches_the_fast_path(dtype: torch.dtype, scale_up: float) -> None:
    g = torch.Generator().manual_seed(0)
    q = scale_up * torch.randn(1, 1, 4, 128, generator=g)
    k = scale_up * torch.randn(1, 1, 4, 128, generator=g)
    k[..., 0, :] = q[..., 0, :]  # one raw score of about 128 * 625 = 80000 > 65504 when scale_up = 25
    v = torch.randn(1, 1, 4, 16, generator=g)
    fast = scaled_dot_product_attention(q.to(dtype), k.to(dtype), v.to(dtype))
    out, weights = scaled_dot_product_attention(q.to(dtype), k.to(dtype), v.to(dtype), return_weights=True)
    assert out.dtype == dtype and weights.dtype == dtype
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    ref = torch.softmax(q.double() @ k.double().transpose(-2, -1) / 128**0.5, dim=-1) @ v.double()
    tol = 2e-3 if dtype == torch.float16 else 1e-2
    assert (out.double() - ref).abs().max() < tol
    assert (out.double() - fast.double()).abs().max() < tol


def test_l5_ch02_asserts_the_proven_bound() -> None:
    cells = json.loads((ROOT / "chapters" / "02_qkv.ipynb").read_text())["cells"]
    source = "".join(next(c for c in cells if c.get("id") == "7d47bf84")["source"])
    assert "rate_shared[0] <= 2 / n_tokens" in source and "rate_shared[0] < 0.2" not in source


def test_l7_elhage_is_in_the_bibliography_and_cited() -> None:
    assert "@misc{elhage2021mathematical," in (ROOT / "references.bib").read_text()
    assert "{cite}`elhage2021mathematical`" in (ROOT / "chapters" / "02_qkv.ipynb").read_text()
