"""The typed-answer check never raises on what a candidate types: answers are often typed without a final full
stop, and a framed belief in the last, unpunctuated sentence ("Many people think X") once raised IndexError in
`language.clauses` (session 18; `_endorses_next` read the sentence after the last one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from selfattention.interview import bank
from selfattention.interview.language import clauses

DATA = Path(__file__).parent / "data"


def _texts() -> list[str]:
    out = []
    for d in ("dev", "heldout"):
        for f in sorted((DATA / "answer_corpus" / d).glob("*.yaml")):
            out += [e["text"] for e in yaml.safe_load(f.read_text(encoding="utf-8")) or []]
    for e in yaml.safe_load((DATA / "paraphrases.yaml").read_text(encoding="utf-8")):
        for k in ("myth_en", "myth_zh", "correct_en", "correct_zh"):
            out += e[k]
    return out


_END = re.compile(r"[\s.!?;。！？；…]+$")


def test_every_corpus_text_without_its_final_stop_is_cut_into_clauses() -> None:
    texts = _texts()
    assert len(texts) > 5000
    stripped = [_END.sub("", t) for t in texts]
    assert sum(a != b for a, b in zip(texts, stripped, strict=True)) > 4000  # most of them ended with a stop
    for t in stripped:
        clauses(t)  # raises on the bug


@pytest.mark.parametrize(("frame", "claim"), [
    ("Many people think ", "the mask is applied after the softmax"),
    ("People say ", "the mask is applied after the softmax"),
    ("很多人认为", "掩码是在 softmax 之后把权重乘以 0"),
    ("有人说", "掩码是在 softmax 之后把权重乘以 0"),
])
def test_a_framed_last_sentence_without_a_stop_is_checked(frame: str, claim: str) -> None:
    card = next(c for c in bank.load_cards() if c.id == "mask-masked-attention")
    assert 0 in card.check(claim).stated  # the claim alone states the myth: the frame is what sets it up
    r = card.check(frame + claim)
    assert not r.stated  # a belief set up by others, and nothing after it endorses it: no myth stated
    zh = bool(re.search(r"[\u4e00-\u9fff]", claim))
    stop = "。" if zh else "."
    assert card.check(frame + claim + stop).stated == r.stated
    # ... and endorsed right after, the speaker states it
    assert 0 in card.check(frame + claim + stop + ("这是对的。" if zh else " That is right.")).stated
