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
