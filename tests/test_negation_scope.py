"""A negation does not reach past "and" when a new subject follows it ("and it …", "and they …", and since
session 20 "and its …" / "and their …"): "ALiBi has no position embedding and its slopes are learned" states
the learned-slope myth (review 228, in passing: it stated none). Without a new subject the negation may still
reach on ("… no position embedding and no learned slopes", "… and learned slopes" stay unflagged)."""

from __future__ import annotations

import pytest

from selfattention.interview import bank, similar


@pytest.fixture(scope="module")
def card() -> bank.Card:
    similar.auto_enable()
    return next(c for c in bank.load_cards() if c.id == "bias-alibi")


@pytest.mark.parametrize(("answer", "stated"), [
    ("ALiBi has no position embedding and its slopes are learned per head.", True),  # fails on 5a29c29
    ("ALiBi has no position embeddings and their slopes are learned per head.", True),
    ("ALiBi has no position embedding and no learned slopes.", False),
    ("ALiBi has no position embedding and learned slopes.", False),
])
def test_a_negation_stops_before_and_its(card, answer, stated) -> None:
    r = card.check(answer)
    assert (0 in r.stated) is stated
    # the point the negation belongs to ("no position embedding"): ticked where no myth shares its comma part
    # (where one does, the myth withholds it: review 224 M1, open)
    assert (0 in r.covered) is not stated


# the lemma goes to a fixed point (session 20): simplemma reads "embeddings" as "embedding" and "embedding" as
# "embed", so the plural and the singular got different units and "no position embeddings" ticked nothing.
# Both fail on 5a29c29
@pytest.mark.parametrize("words", [("embedding", "embeddings"), ("encoding", "encodings")])
def test_a_plural_has_the_units_of_its_singular(words) -> None:
    from selfattention.interview.language import units_of

    one, many = ([u.text for u in units_of(w)] for w in words)
    assert one == many


def test_no_position_embeddings_plural_ticks_the_point(card) -> None:
    assert 0 in card.check("ALiBi has no position embeddings.").covered
    assert 0 in card.check("ALiBi has no position embedding.").covered
