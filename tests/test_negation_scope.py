"""English lemmas (session 20): simplemma reads "embeddings" as "embedding" and "embedding" as "embed", so the
plural and the singular got different units and "ALiBi has no position embeddings" ticked no point. The
lemmatiser now applies simplemma twice when the first pass changed the word. (A negation stop before "and
its/their" was tried and taken out: "FlashAttention does not rely on sparse attention and its approximations"
then stated the approximation myth, review 230 H1; the row below keeps it unflagged. So "ALiBi has no
position embedding and its slopes are learned" states no myth again: open, review 231 M2.)"""

from __future__ import annotations

import pytest

from selfattention.interview import bank, similar


@pytest.fixture(scope="module")
def card() -> bank.Card:
    similar.auto_enable()
    return next(c for c in bank.load_cards() if c.id == "bias-alibi")


# "embeddings" fails on 99a1b28; "encodings" is a control (the stem already joined them)
@pytest.mark.parametrize("words", [("embedding", "embeddings"), ("encoding", "encodings")])
def test_a_plural_has_the_units_of_its_singular(words) -> None:
    from selfattention.interview.language import units_of

    one, many = ([u.text for u in units_of(w)] for w in words)
    assert one == many


def test_no_position_embeddings_plural_ticks_the_point(card) -> None:  # fails on 99a1b28
    assert 0 in card.check("ALiBi has no position embeddings.").covered
    assert 0 in card.check("ALiBi has no position embedding.").covered


def test_a_denial_of_a_method_and_its_approximations_states_no_myth() -> None:
    similar.auto_enable()
    flash = next(c for c in bank.load_cards() if c.id == "cx-flashattention")
    assert not flash.check("FlashAttention does not rely on sparse attention and its approximations.").stated
