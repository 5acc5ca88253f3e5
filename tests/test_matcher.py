"""The typed-answer checker: keywords matched after simple normalisation (words, not understanding)."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards
from selfattention.interview.matcher import check_answer, keyword_pattern, normalise

KEYWORDS = [
    ["projection", "project", "w_q"],
    ["q k^t", "qk^t", "dot product"],
    ["sqrt", "√", "root"],
    ["mask", "-inf", "minus infinity"],
    ["av", "weighted average"],
]


def test_normalise_unifies_case_sqrt_transpose_and_punctuation() -> None:
    assert normalise("Softmax(QKᵀ/√d_k)") == "softmax qkt sqrt d_k"
    assert normalise("QK^T") == normalise("qkᵀ") == "qkt"
    assert normalise("  Minus-Infinity!! ") == "minus infinity"
    assert normalise("每行和为 1。") == "每行和为 1"


def test_covered_and_missed_key_points() -> None:
    r = check_answer("We PROJECT X, take QK^T, divide by √d_k; masked scores.", KEYWORDS)
    assert r.covered == [0, 1, 2, 3]
    assert r.missed == [4]
    assert r.hits[2] == "sqrt"  # √ is read as sqrt, so the first alternative already matches
    assert r.total == 5 and r.fraction == pytest.approx(0.8)


def test_word_boundaries_and_english_endings() -> None:
    # "av" must not be found inside "average" or "have"; "mask" is found in "masked"/"masking"
    assert check_answer("I have an average", [["av"]]).missed == [0]
    assert check_answer("after masking", [["mask"]]).covered == [0]
    assert check_answer("unmasked", [["mask"]]).missed == [0]  # must start at a word boundary
    assert check_answer("the rows", [["row"]]).covered == [0]
    assert check_answer("the root of d_k", [["sqrt", "root"]]).hits[0] == "root"


def test_multiword_alternative_tolerates_spacing_and_punctuation() -> None:
    assert check_answer("a weighted-average of values", [["weighted average"]]).covered == [0]
    assert check_answer("Q K^T", [["q k^t"]]).covered == [0]
    assert check_answer("a weighted sum", [["weighted average"]]).missed == [0]


def test_chinese_alternative_is_a_substring_match() -> None:
    assert check_answer("先做缩放再softmax", [["缩放"]]).covered == [0]


def test_it_matches_words_not_understanding() -> None:
    """Documented limitation: a negated statement still 'covers' the point; a paraphrase does not."""
    assert check_answer("we do NOT divide by sqrt(d_k)", [["sqrt"]]).covered == [0]
    assert check_answer("shrink the logits by the square of the width", [["sqrt", "√"]]).missed == [0]


def test_empty_inputs() -> None:
    assert keyword_pattern("  ?! ") is None
    r = check_answer("", KEYWORDS)
    assert r.covered == [] and r.missed == [0, 1, 2, 3, 4] and r.fraction == 0.0
    assert check_answer("anything", []).fraction == 1.0


def test_real_bank_spoken_answers_cover_their_own_key_points() -> None:
    """Smoke test over the real bank: each card's English spoken answer mentions most of its key points."""
    cards = load_cards()
    assert cards
    fractions = {c.id: check_answer(c.spoken["en"], c.keywords).fraction for c in cards}
    weak = {cid: f for cid, f in fractions.items() if f < 0.5}
    assert not weak, f"spoken answers missing most of their own keywords: {weak}"
