"""A long typed answer costs time linear in its clauses (review 222 L3): a clause that cannot match a
pattern (its concept groups are not all in it) skips reading its sentence's context. Before, every clause
read every other clause of its sentence, so one 4,000-character sentence of comma-separated words took 36 s
per card, 10,000 characters over 130 s."""

from __future__ import annotations

from selfattention.interview import bank, matcher


def test_clauses_no_pattern_can_match_do_not_read_their_sentence(monkeypatch) -> None:
    card = next(c for c in bank.load_cards() if c.id == "flow-computation")
    calls = []
    only = matcher._only
    monkeypatch.setattr(matcher, "_only", lambda c: calls.append(c) or only(c))
    n = 200
    answer = ", but ".join(["the weather was nice that day"] * n) + "."
    r = card.check(answer, patterns_only=True)
    assert not r.covered and not r.stated
    assert len(calls) < 5 * n  # before (e69f0cc): 157,612 calls, every clause read the clauses after it
    # the same sentence with a myth in it is still read in context: the checker is not simply skipping
    r = card.check(answer[:-1] + ", and we divide the scores by d_k before the softmax.", patterns_only=True)
    assert 0 in r.stated


def test_a_long_clause_without_punctuation_is_checked_in_seconds() -> None:
    """One clause of 11,600 characters (no comma, no stop) took 62 s on scale-cheap-enough (review 223 L-c):
    for every occurrence of a phrase, every unit before it was scanned for a stop between it and the phrase,
    negation or not. Now only negations are (the same verdicts). The bound is 10x what it takes here."""
    import time

    card = next(c for c in bank.load_cards() if c.id == "scale-cheap-enough")
    card.check("warm up", patterns_only=True)
    answer = "the scores of attention cost memory and compute per token " * 200
    start = time.perf_counter()
    card.check(answer, patterns_only=True)
    assert time.perf_counter() - start < 15.0
