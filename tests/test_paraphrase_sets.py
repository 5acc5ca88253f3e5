"""The two blind paraphrase sets that `bench --paraphrases` measures are well-formed and blind: every myth a
card cites has 6 myth and 3 correct sentences per language in each, and no sentence of either set is an
exemplar of the similarity index (the packaged dev corpus and probes, the registry's ``also:`` examples, a
packaged paraphrase file)."""

from __future__ import annotations

import re

import pytest
import yaml

from selfattention.interview import bank, bench, similar

CJK = re.compile(r"[\u4e00-\u9fff]")


def _load(path):
    return {e["myth"]: e for e in yaml.safe_load(path.read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def sets():
    return [_load(p) for p in bench.PARAPHRASE_SETS]


def test_each_set_covers_every_cited_myth(sets) -> None:
    cited = {t.myth for c in bank.load_cards() for t in c.tells if t.myth}
    assert len(cited) > 100
    for s in sets:
        assert set(s) == cited
        for e in s.values():
            assert [len(e[k]) for k in ("myth_en", "myth_zh", "correct_en", "correct_zh")] == [6, 6, 3, 3]
            assert not any(CJK.search(x) for x in e["myth_en"] + e["correct_en"])
            assert all(CJK.search(x) for x in e["myth_zh"] + e["correct_zh"])


def test_no_sentence_is_an_exemplar(sets) -> None:
    keys = ("myth_en", "myth_zh", "correct_en", "correct_zh")
    a, b = ({x for e in s.values() for k in keys for x in e[k]} for s in sets)
    assert len(a) > 2500 and len(b) > 2500
    assert not a & b  # two sets by different writers
    entries, probes = similar.load_exemplars()
    used = {e["text"] for e in entries} | {t for ts in probes.values() for t in ts}
    used |= {t for ts in similar._also().values() for t in ts}
    assert used and not (a | b) & used
    assert similar.PARAPHRASES not in bench.PARAPHRASE_SETS
    assert not similar.PARAPHRASES.is_file()  # no packaged paraphrase file is loaded as exemplars
