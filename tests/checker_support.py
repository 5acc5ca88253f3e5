"""Shared pieces of the typed-answer checker's review tests (tests/test_review*_*.py).

A review test lists sentences per card, each a (card id, sentence) pair:

- NOT_FLAGGED: plain correct sentences a reviewer wrote; the card's check must state no myth on them;
- FLAGGED: myth forms near a fix that must still be caught;
- OPEN: correct sentences still flagged for a known reason (strict xfail, so fixing one shows up as XPASS).

`checker_tests(NOT_FLAGGED, FLAGGED, OPEN, reason=...)` returns the three parametrised test functions; a
test module binds them to names that start with ``test_``:

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
