"""The similarity fallback for misconceptions (`interview.similar`): opt-in, polarity-aware, leave-one-out."""

from __future__ import annotations

import pytest

from selfattention.interview import bank, similar
from selfattention.interview.language import clauses, split_misconception
from selfattention.interview.matcher import check_answer


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in bank.load_cards()}


@pytest.fixture()
def enabled():
    was = similar.enabled()
    similar.enable()
    yield
    similar.enable(was)


PARAPHRASE = "The normalising factor is d_k, not its root."  # flow-computation#0, "we divide by d_k"


def test_paraphrase_the_patterns_miss_is_caught(cards, enabled):
    card = cards["flow-computation"]
    assert card.tells[0].myth == "we-divide-d-k"
    r = card.check(PARAPHRASE)
    assert 0 in r.similar and 0 in r.stated
    similar.enable(False)
    assert 0 not in card.check(PARAPHRASE).stated  # the patterns alone miss it


def test_negation_and_correction_are_not_caught(cards, enabled):
    card = cards["flow-computation"]
    for text in ("The normalising factor is not d_k.", "We never divide the scores by d_k itself."):
        assert 0 not in card.check(text).similar, text
    for j, m in enumerate(card.misconceptions):
        for lang in ("en", "zh"):
            correction = split_misconception(m[lang], lang)[1]
            assert j not in card.check(correction).similar, (j, lang, correction)


def test_framed_and_conditional_clauses_are_not_compared(cards, enabled):
    card = cards["flow-computation"]
    for text in ("Many people think the normalising factor is d_k, but it is sqrt(d_k).",
                 "If the normalising factor were d_k, the softmax would be too flat?"):
        assert 0 not in card.check(text).similar, text


def test_leave_one_out(cards):
    idx = similar.index()
    entries = similar.load_corpus(similar.CORPUS_DEV)
    e = next(x for x in entries if x["kind"] == "myth" and x["card"] in cards
             and any(lab.startswith(x["card"] + "#") for lab in x["myths"]))
    card = cards[e["card"]]
    j = int(next(lab for lab in e["myths"] if lab.startswith(card.id + "#")).partition("#")[2])
    own = [x for x in idx.myth[card.tells[j].myth] if x.source == e["text"]]
    assert own  # its clause is an exemplar of the myth ...
    # ... which a check of that very answer never sees: scoring with `exclude` equals scoring with an index
    # that lacks every exemplar of that entry
    pruned = similar.Index(
        idx.idf, idx.default_idf,
        {k: [x for x in v if x.source != e["text"]] for k, v in idx.myth.items()},
        {k: [x for x in v if x.source != e["text"]] for k, v in idx.correct.items()},
        idx.correction,
    )
    cls = clauses(e["text"])
    assert similar.scores(cls, card, idx, exclude=e["text"]) == similar.scores(cls, card, pruned)
    # and the own exemplar would have matched perfectly
    full = similar.scores(cls, card, idx)
    assert max(sm for sm, _, _ in full[j]) == pytest.approx(1.0)


def test_default_off_leaves_check_answer_unchanged(cards):
    assert not similar.enabled() and bank.FALLBACK is None
    entries = similar.load_corpus(similar.CORPUS_DEV)[:60]
    for e in entries:
        card = cards.get(e["card"])
        if card is None:
            continue
        r = card.check(e["text"])
        assert r == check_answer(e["text"], card.point_claims, card.tells, card.point_texts)
        assert r.similar == {}
    card = cards["flow-computation"]
    assert card.check(PARAPHRASE).stated == {}


def test_enable_takes_effect_every_call():
    # `enable` once carried a stray lru_cache: enable() after an outside reset of the hook did nothing
    was = similar.enabled()
    try:
        similar.enable()
        bank.FALLBACK = None
        similar.enable()
        assert similar.enabled()
        similar.enable(False)
        assert not similar.enabled()
    finally:
        similar.enable(was)


def test_stop_words_are_computed_once():
    # `features` runs for every clause of the index (tens of thousands): its stop-word set must be cached
    assert similar._en_stop() is similar._en_stop()
