"""Session 15 (review s15 of 451c5e2, and the blind corpus7's hard negatives): a quoted claim is mentioned, not
stated; a bare "It doesn't." rejects the sentence before; a reported belief the speaker endorses is the
speaker's own (H1); "I don't think it's hard: X" is the speaker's X (H2). The mention and rejection rows were
flagged at 451c5e2 (all five), the endorsed ones were not (all four), which is what these tests guard."""

from __future__ import annotations

import pytest

from selfattention.interview import bank

MENTIONED = [  # (card, the myth quoted or reported and rejected, the myth stated bare)
 ("scaling-softmax-gradient", 'One intuition I think is wrong: "a sharp softmax gives strong gradients because its output changes quickly". When one logit dominates, the output barely moves.', "A sharp softmax gives strong gradients because its output changes quickly."),
 ("rnn-positional-information", 'Careful with "self-attention is permutation-invariant": it is equivariant, the outputs move with the inputs.', "Self-attention is permutation-invariant."),
 ("tf-why-decoder-only", 'I\'d push back on "decoder-only was proven to be the best architecture". Nothing of the kind is proven.', "Decoder-only was proven to be the best architecture."),
 ("qkv-no-projection", '这里有个说法是"有前馈层就不需要投影了"，我觉得应该不对。', "有前馈层就不需要投影了。"),
 ("bias-k-bias-redundant", "Tempting argument: b_K cancels, hence by symmetry b_Q must cancel as well. It doesn't.", "b_K cancels, hence by symmetry b_Q must cancel as well."),
]
ENDORSED = [  # (card, a reported belief the speaker endorses: it states the myth)
 ("flow-computation", "People insist we divide the scores by d_k, and they are correct."),
 ("flow-computation", "人们常说是除以 d_k，这是对的。"),
 ("flow-computation", "Some argue we divide the scores by d_k; they are right."),
 ("flow-computation", "I don't think it's complicated: we divide the scores by d_k."),
]


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in bank.load_cards()}


@pytest.mark.parametrize("card, text, bare", MENTIONED)
def test_a_mentioned_claim_is_not_flagged(cards, card, text, bare):
    assert cards[card].check(text).stated == {}, text


@pytest.mark.parametrize("card, text, bare", MENTIONED)
def test_the_bare_claim_is_still_flagged(cards, card, text, bare):
    assert cards[card].check(bare).stated, bare


@pytest.mark.parametrize("card, text", ENDORSED)
def test_an_endorsed_belief_is_flagged(cards, card, text):
    assert cards[card].check(text).stated, text
