"""A self-correction that opens with a filler takes back the sentence before it: "X. Oh wait, no, Y",
"X. Wait, actually Y", "X。等一下，不对，Y" (review 222 L1: "Oh wait" was read as the clause the "no"
rejected, so X stayed stated)."""

from __future__ import annotations

import pytest

from selfattention.interview import bank, similar

MYTH = {"en": "ALiBi slopes are learned per head.", "zh": "ALiBi 的斜率是每个头学出来的。"}


@pytest.fixture(scope="module")
def card() -> bank.Card:
    similar.auto_enable()
    return next(c for c in bank.load_cards() if c.id == "bias-alibi")


@pytest.mark.parametrize(("lang", "correction"), [
    ("en", " Oh wait, no, they are a fixed geometric sequence."),
    ("en", " Wait, actually they are a fixed geometric sequence."),
    ("en", " Sorry, no: they are a fixed geometric sequence."),
    ("zh", "等一下，不对，斜率是固定的几何序列。"),
    ("zh", "哦不，不对，斜率是固定的几何序列。"),
])
def test_a_filler_before_a_correction_still_takes_the_myth_back(card, lang, correction) -> None:
    assert 0 in card.check(MYTH[lang]).stated  # the myth alone is stated
    # a bare contradiction, with no word that takes the myth back, leaves it stated
    assert 0 in card.check(MYTH[lang] + (" They are fixed." if lang == "en" else "它们是固定的。")).stated
    assert 0 not in card.check(MYTH[lang] + correction).stated


# ... but a sentence that merely opens with such a word takes nothing back (review 223 M-c)
@pytest.mark.parametrize(("lang", "after"), [
    ("en", " Wait until you see the init: geometric, from 1/2 to 1/256 for 8 heads."),
    ("en", " Sorry to say, the slopes are geometric, from 1/2 to 1/256 for 8 heads."),
    ("zh", "等一下再说初始化：斜率是几何序列，8 个头从 1/2 到 1/256。"),
])
def test_a_word_that_only_opens_a_sentence_takes_nothing_back(card, lang, after) -> None:
    assert 0 in card.check(MYTH[lang] + after).stated


# a correcting word standing alone before a comma is the correction's opener, not a filler to skip
# (review 224 H1: "Actually, …", "其实，…" were skipped and the myth stayed stated); "Sorry, I misspoke: …"
FLASH = {"en": "FlashAttention is an approximation.", "zh": "FlashAttention 是一种近似。"}


@pytest.mark.parametrize(("lang", "correction"), [
    ("en", " Actually, it computes exact attention."),
    ("en", " Well, it computes exact attention."),
    ("en", " Wait, actually, it computes exact attention."),
    ("en", " Sorry, I misspoke: it computes exact attention."),
    ("zh", "其实，它计算的是精确的注意力。"),
    ("zh", "等一下，不对，它计算的是精确的注意力。"),
])
def test_a_correcting_word_before_a_comma_takes_the_myth_back(lang, correction) -> None:
    similar.auto_enable()
    card = next(c for c in bank.load_cards() if c.id == "cx-flashattention")
    assert 0 in card.check(FLASH[lang]).stated
    assert 0 in card.check(FLASH[lang] + (" It is fast." if lang == "en" else "它很快。")).stated
    assert 0 not in card.check(FLASH[lang] + correction).stated


# ... and it keeps its force when a comma follows it: a key point the myth contradicts, stated after it,
# takes the myth back (review 225: "其实，斜率是固定的几何序列" left it stated; without the comma it did not)
@pytest.mark.parametrize(("lang", "correction"), [
    ("en", " Actually, the slopes go from 1/2 to 1/256 for 8 heads, set before training."),
    ("en", " So, actually, the slopes go from 1/2 to 1/256 for 8 heads, set before training."),
    ("zh", "其实，斜率是固定的几何序列，8 个头从 1/2 到 1/256。"),
    ("zh", "抱歉，我说错了，斜率是固定的几何序列，8 个头从 1/2 到 1/256。"),
])
def test_a_correcting_word_and_a_comma_keep_their_force(card, lang, correction) -> None:
    plain = correction.replace("Actually, ", "").replace("So, actually, ", "").replace("其实，", "")
    plain = plain.replace("抱歉，我说错了，", "")
    assert 0 in card.check(MYTH[lang] + plain).stated  # the point alone, no correcting word: no retraction
    assert 0 not in card.check(MYTH[lang] + correction).stated


# "no wonder" / "no doubt" open no correction, with a filler before them or not (review 226 L1); a
# bare "No," does
@pytest.mark.parametrize(("opener", "takes_back"), [
    (" So, no wonder", False), (" No wonder", False), (" No doubt", False),
    (" No,", True), (" So, no,", True), (" Well, no wonder", False),
    # ... and standing alone before a correction they do not hide it (review 227)
    (" No doubt, actually", True), (" No question, I misspoke:", True),
])
def test_no_wonder_is_no_correction(card, opener, takes_back) -> None:
    answer = MYTH["en"] + opener + " the slopes go from 1/2 to 1/256 for 8 heads, set before training."
    assert (0 not in card.check(answer).stated) is takes_back


# session 20 (review 227 lows, then review 229): an announced self-correction ("I misspoke", "let me
# correct myself", "scratch that", "Correction:", 我说错了, 更正一下) takes the myth back when it stands
# alone (a short tail allowed: "I misspoke there, …"): after a comma in the same sentence, or as a sentence of
# its own before the correction;
# "So actually" with no comma opens one in the next sentence; "No  doubt" / "No-doubt" / "No—doubt" are "no
# doubt", however typed. Not: the announcement about something else ("I misspoke about RoPE earlier, …"),
# "So no one …", "So no matter …", "So in fact …" (an inference), "I was wrong: I once thought …" (an old
# belief reported: review 230 M1). Every row but the controls fails on 99a1b28, on 180890b or on 7973e0c.
@pytest.mark.parametrize(("answer", "takes_back"), [
    ("ALiBi slopes are learned per head, I misspoke, they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head, let me correct myself, they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head, scratch that, they are a fixed geometric sequence.", True),
    ("ALiBi 的斜率是每个头学出来的，我说错了，它们是固定的等比数列。", True),
    ("ALiBi slopes are learned per head. So actually they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. No  doubt, actually they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. No-doubt, actually they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. I misspoke. They are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. Sorry, I misspoke. They are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. Let me correct myself. They are a fixed geometric sequence.", True),
    ("ALiBi 的斜率是每个头学出来的。我说错了。它们是固定的等比数列。", True),
    ("ALiBi slopes are learned per head, I  misspoke, they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. Correction: they are a fixed geometric sequence.", True),
    ("ALiBi 的斜率是每个头学出来的。更正一下，它们是固定的等比数列。", True),
    # the other side: no correcting word, or one that corrects something else
    ("ALiBi slopes are learned per head, I misspoke earlier about RoPE.", False),
    ("ALiBi slopes are learned per head, I misspoke about RoPE earlier, the slopes go from 1/2 to 1/256 for "
     "8 heads.", False),
    ("ALiBi 的斜率是每个头学出来的，我说错了 RoPE 的部分，8 个头的斜率从 1/2 到 1/256。", False),
    ("ALiBi slopes are learned per head. I was wrong about RoPE, the slopes go from 1/2 to 1/256 for 8 "
     "heads.", False),
    ("ALiBi slopes are learned per head. I misspoke. The model is trained end to end.", False),
    ("ALiBi slopes are learned per head. So they are a fixed set of numbers per model.", False),
    ("ALiBi slopes are learned per head. So no one has to set the slopes by hand: for 8 heads they end up "
     "from 1/2 to 1/256.", False),
    ("ALiBi slopes are learned per head. So no matter the head count, the slopes go from 1/2 to 1/256 for 8 "
     "heads.", False),
    ("ALiBi slopes are learned per head. So in fact each of the 8 heads gets its own slope, from 1/2 to "
     "1/256.", False),
    ("ALiBi slopes are learned per head. No doubt they are learned with the model.", False),
    ("ALiBi slopes are learned per head. No questions asked: they are learned with the model.", False),
    ("ALiBi slopes are learned per head. No  doubt the slopes go from 1/2 to 1/256 for 8 heads.", False),
    ("ALiBi slopes are learned per head. No-doubt the slopes go from 1/2 to 1/256 for 8 heads.", False),
    ("ALiBi slopes are learned per head. No—doubt the slopes go from 1/2 to 1/256 for 8 heads.", False),
    # review 230 (fail on 7973e0c): a short tail; "Oops," before it; "I was wrong" reporting an old belief;
    # "wrong-footed"; a spaced dash
    ("ALiBi slopes are learned per head. I misspoke there, they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. I misspoke just now, they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. Let me correct myself here: they are a fixed geometric sequence.",
     True),
    ("ALiBi slopes are learned per head. Oops, I misspoke. They are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. I was wrong: I once thought they were a fixed geometric sequence.",
     False),
    ("ALiBi slopes are learned per head. I was wrong-footed by papers saying they are a fixed geometric "
     "sequence.", False),
    ("ALiBi slopes are learned per head. No – doubt the slopes go from 1/2 to 1/256 for 8 heads.", False),
    # review 231 M1 (fail on 8d97639): a free-standing ASCII dash after the announcement
    ("ALiBi slopes are learned per head. I misspoke - they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head, scratch that - they are a fixed geometric sequence.", True),
    ("ALiBi slopes are learned per head. Correction-wise they are a fixed geometric sequence.", False),
])
def test_openers_in_one_sentence_and_after_so(card, answer, takes_back) -> None:
    assert (0 not in card.check(answer).stated) is takes_back


# review 229 M5: "So no <noun>" is no rejection of the sentence before (fails on 180890b)
def test_so_no_recomputation_is_no_correction() -> None:
    similar.auto_enable()
    card = next(c for c in bank.load_cards() if c.id == "mask-kv-cache")
    answer = ("The KV cache is an approximation that trades accuracy for speed. So no recomputation of past "
              "keys is needed, and the output matches full causal attention up to floating-point rounding.")
    assert 0 in card.check(answer).stated
