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


@pytest.mark.parametrize("answer", [
    "Many people think the mask is applied after the softmax",
    "People say the mask is applied after the softmax",
    "很多人认为掩码加在 softmax 之后",
    "有人说掩码是在 softmax 之后乘上去的",
])
def test_a_framed_last_sentence_without_a_stop_is_checked(answer: str) -> None:
    card = next(c for c in bank.load_cards() if c.id == "mask-masked-attention")
    r = card.check(answer)
    assert not r.stated  # a belief set up by others, and nothing after it endorses it: no myth stated
    stop = "。" if re.search(r"[\u4e00-\u9fff]", answer) else "."
    assert card.check(answer + stop).stated == r.stated
