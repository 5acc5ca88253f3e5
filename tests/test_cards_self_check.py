"""Every card checked against its own words: the model answer must not look like a wrong one.

A candidate who repeats a card's short or spoken answer (EN or 中文) must not be told they stated one of
that card's misconceptions, and each key point, typed on its own, must earn that point and state no myth.
(The fifth reviews found model answers flagged as myths on cards of nine chapters; each chapter's fixes
tested its own cards, this test holds every card to it.)
"""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards

CARDS = load_cards()


@pytest.mark.parametrize("card", CARDS, ids=[c.id for c in CARDS])
def test_a_card_s_own_answers_state_none_of_its_myths(card) -> None:
    for field in ("short", "spoken"):
        for lang in ("en", "zh"):
            text = getattr(card, field)[lang]
            stated = card.check(text).stated
            assert not stated, (card.id, field, lang, stated)


@pytest.mark.parametrize("card", CARDS, ids=[c.id for c in CARDS])
def test_each_key_point_earns_itself_and_states_no_myth(card) -> None:
    for lang in ("en", "zh"):
        for i, point in enumerate(card.key_points[lang]):
            result = card.check(point)
            assert i in result.covered, (card.id, lang, i, point)
            assert not result.stated, (card.id, lang, i, result.stated)


def _myth_sentences() -> list[tuple[str, str, str]]:
    from selfattention.interview.bank import load_myths
    from selfattention.interview.patterns import split_misconception

    registry = load_myths()
    out = []
    for card in CARDS:
        for tell in card.tells:
            for lang in ("en", "zh"):
                out.append((card.id, tell.myth, split_misconception(registry[tell.myth][lang], lang)[0]))
    return out


@pytest.mark.parametrize(("cid", "myth", "sentence"), _myth_sentences())
def test_each_myth_s_own_statement_is_caught_by_every_card_that_uses_it(
    cid: str, myth: str, sentence: str
) -> None:
    card = next(c for c in CARDS if c.id == cid)
    assert myth in {card.tells[j].myth for j in card.check(sentence).stated}, (cid, myth, sentence)


_LEAD_IN = {"en": "I'm not sure, but I think ", "zh": "我不太确定，但我觉得"}


def _hedged_myth_sentences() -> list[tuple[str, str, str]]:
    """Each myth's registry sentence behind a harmless lead-in (a hedge with a negation and a "but")."""
    from selfattention.interview.bank import load_myths
    from selfattention.interview.patterns import split_misconception

    registry = load_myths()
    return [
        (card.id, tell.myth, _LEAD_IN[lang] + split_misconception(registry[tell.myth][lang], lang)[0])
        for card in CARDS for tell in card.tells for lang in ("en", "zh")
    ]


@pytest.mark.parametrize(("cid", "myth", "sentence"), _hedged_myth_sentences())
def test_a_myth_behind_a_hedge_is_still_caught_by_every_card_that_uses_it(
    cid: str, myth: str, sentence: str
) -> None:
    # the third review of chapters 10-11 (M1): a myth pattern's exclusions that reached back over the
    # earlier clauses of the sentence let "not" or "不" in a hedge hide the plain myth after it
    card = next(c for c in CARDS if c.id == cid)
    assert myth in {card.tells[j].myth for j in card.check(sentence).stated}, (cid, myth, sentence)
