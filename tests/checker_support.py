"""Shared pieces of the typed-answer checker's review tests (tests/test_review*_*.py).

A review test lists sentences per card, each a (card id, sentence) pair:

- NOT_FLAGGED: plain correct sentences a reviewer wrote; the card's check must state no myth on them;
- FLAGGED: myth forms near a fix that must still be caught;
- OPEN: correct sentences still flagged for a known reason (strict xfail, so fixing one shows up as XPASS).

`checker_tests(NOT_FLAGGED, FLAGGED, OPEN, reason=...)` returns the three parametrised test functions, and
`keypoint_tests(NOT_TICKING, TICKING)` two over (card, key point, sentence) rows, and `myth_index_tests(MYTH,
CORRECT)` two over (card, myth index, sentence) and (card, sentence) rows; a test module binds them to names
that start with ``test_``:

    test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, OPEN, reason="...")
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from selfattention.interview.bank import load_cards


@lru_cache(maxsize=1)
def card_map() -> dict:
    """Every card of the bank by id (loaded once per test process)."""
    return {c.id: c for c in load_cards()}


def stated(card: str, text: str) -> list:
    """The myths the card's check says `text` states (an empty list: none)."""
    cards = card_map()
    assert card in cards, f"no card {card!r} in the bank"
    return list(cards[card].check(text).stated)


def checker_tests(not_flagged, flagged=(), open_=(), reason: str = "known false alarm, not fixed yet"):
    """Three parametrised tests over the lists (an empty list gives a test that pytest reports as skipped)."""

    @pytest.mark.parametrize("card, text", list(not_flagged))
    def test_correct_statement_is_not_flagged(card, text):
        found = stated(card, text)
        assert not found, f"{text!r} flagged as {found}"

    @pytest.mark.parametrize("card, text", list(flagged))
    def test_myth_is_flagged(card, text):
        assert stated(card, text), f"{text!r} not flagged"

    @pytest.mark.xfail(strict=True, reason=reason)
    @pytest.mark.parametrize("card, text", list(open_))
    def test_open_correct_statement_is_not_flagged(card, text):
        assert not stated(card, text)

    return (
        test_correct_statement_is_not_flagged,
        test_myth_is_flagged,
        test_open_correct_statement_is_not_flagged,
    )


def keypoint_tests(not_ticking, ticking, clean: bool = False):
    """Two parametrised tests over (card id, key point index, sentence) rows: a false statement (a key point
    typed the wrong way round) must not tick that point; a correct one must still tick it (``clean``: and
    state no myth)."""

    @pytest.mark.parametrize("card, point, text", list(not_ticking))
    def test_false_statement_does_not_tick_its_point(card, point, text):
        result = card_map()[card].check(text)
        assert point not in result.covered, f"{text!r} ticks key point {point} ({result.hits.get(point)!r})"

    @pytest.mark.parametrize("card, point, text", list(ticking))
    def test_correct_statement_still_ticks_its_point(card, point, text):
        result = card_map()[card].check(text)
        stated = list(result.stated.values())
        assert point in result.covered, f"{text!r} misses key point {point} (stated {stated})"
        assert not (clean and stated), f"{text!r} states {stated}"

    return test_false_statement_does_not_tick_its_point, test_correct_statement_still_ticks_its_point


def myth_index_tests(myth, correct):
    """Two parametrised tests: each (card id, misconception index, sentence) row of ``myth`` states that very
    misconception; each (card id, sentence) row of ``correct`` states none."""

    @pytest.mark.parametrize(("cid", "j", "text"), list(myth))
    def test_the_myth_is_flagged(cid, j, text):
        assert j in card_map()[cid].check(text).stated

    @pytest.mark.parametrize(("cid", "text"), list(correct))
    def test_the_correct_answer_is_not_flagged(cid, text):
        assert not card_map()[cid].check(text).stated

    return test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged
