"""Round-7 reviews, language level: a fronted phrase is part of its clause for "!" exclusions, a speaker's
lead-in does not stop a fronted phrase from opening its clause, "unless X" negates X, and "我们通常认为" is the
speaker's own belief (not someone else's)."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import get_card, load_cards
from selfattention.interview.language import clauses
from selfattention.interview.matcher import Tell, check_answer

CARDS = load_cards()


def test_a_plain_exclusion_sees_the_fronted_phrase_of_its_clause() -> None:
    tell = [Tell(("@token + attend + onli + !layer",), myth="m")]
    assert not check_answer("In each layer, a token only attends to w neighbours.", [], tell).stated
    assert check_answer("A token only attends to w neighbours.", [], tell).stated
    assert check_answer("Layers aside, a token only attends to w neighbours.", [], tell).stated  # own clause


@pytest.mark.parametrize("lead", ["I think", "Well", "Yes", "I believe", "If I remember right"])
def test_a_lead_in_before_the_fronted_phrase_keeps_it_with_its_clause(lead: str) -> None:
    parts = [c.text for c in clauses(f"{lead}, after the softmax, the mask multiplies the weights by 0.")]
    assert parts[-1].startswith("after the softmax, the mask"), parts
    assert get_card(CARDS, "mask-masked-attention").check(
        f"{lead}, after the softmax, the mask multiplies the weights by 0.").stated


def test_a_chinese_lead_in_before_the_fronted_phrase() -> None:
    parts = [c.text for c in clauses("我认为，在 softmax 之后，把未来位置的权重乘以 0。")]
    assert len(parts) == 2 and parts[1].startswith("在 softmax 之后"), parts


@pytest.mark.parametrize("text", [
    "A Transformer without positional encodings is a bag of words, unless it has a causal mask.",
    "Unless there is a causal mask, a Transformer without positional encodings is a bag of words.",
])
def test_unless_negates_its_condition(text: str) -> None:
    assert not get_card(CARDS, "pos-nope").check(text).stated, text


@pytest.mark.parametrize("text", [
    "A Transformer without positional encodings is a bag of words.",
    "A Transformer without positional encodings is a bag of words, even with a causal mask.",
    "Even with a causal mask, a Transformer without positional encodings is a bag of words.",
])
def test_the_nope_myth_is_still_caught(text: str) -> None:
    assert get_card(CARDS, "pos-nope").check(text).stated, text


def test_our_own_usual_belief_is_the_speakers() -> None:
    card = get_card(CARDS, "scaling-why-not-dk")
    assert card.check("我们通常认为除以什么常数都行，模型会自己调整权重尺度。").stated
    assert card.check("我们一般认为除以什么常数都行，模型会自己调整权重尺度。").stated
    assert not card.check("通常认为除以什么常数都行，但其实不行，模型不会自己调整。").stated  # others' belief, refuted


@pytest.mark.parametrize("text", [
    "A common belief is that temperature changes which token is most likely, but it does not.",
    "A common mistake is to divide by d_k.",
    "It's tempting to call RoPE an added position vector, but it rotates q and k.",
    "常见的误解是除以 d_k。",
])
def test_a_named_mistake_frames_what_it_sets_up(text: str) -> None:
    (first, *_) = clauses(text)
    assert first.framed, text


def test_a_plain_claim_is_not_framed() -> None:
    assert not any(c.framed for c in clauses("Temperature changes which token is most likely."))
    assert not any(c.framed for c in clauses("We divide by d_k."))
