"""Fronted openers (review of 451c5e2, M1): a bare connective before the claim ("Actually, X", "其实，X") and a
fronted phrase that names the ordinary case ("With a standard Transformer, X", "Given the usual setup, X",
"Under the hood, X", "一般情况下，X") vetoed the similarity fallback's catch as if they were a limitation or a
condition: of 57 clauses the fallback alone flags in dev and corpus7 F+G, "Given the usual setup, " left
0 of 22 English ones flagged, "一般情况下，" 1 of 35 Chinese ones, "实际上，" 3 of 35. A real condition still
vetoes ("When the sequence is short, X", "如果序列很短，X").
"""
from __future__ import annotations

import pytest
from checker_support import card_map

# clauses the fallback flags (the patterns miss them), from dev myth answers
EN = [("flow-why-softmax", 0, "softmax is used mostly by convention."),
      ("scaling-qk-norm", 0, "dividing by √d_k keeps attention logits at unit variance all through training.")]
ZH = [("cx-kv-cache-memory", 0, "头越多 cache 越大。"), ("block-rmsnorm-placement", 0, "RMSNorm 就是把 LayerNorm 的 gamma 去掉了。")]
GENERIC_EN = ["Actually, ", "Given the usual setup, ", "Under the hood, ", "With a standard Transformer, ",
              "In fact, ", "However, "]
GENERIC_ZH = ["实际上，", "其实，", "一般情况下，", "通常情况下，", "不过，"]
CONDITION_EN = ["When the sequence is short, ", "Given a causal mask, ", "With a single head, ",
                "Only for short inputs, "]
CONDITION_ZH = ["序列很短的时候，", "在没有掩码的情况下，", "如果只有一个头，"]


@pytest.fixture(scope="module")
def cards():
    return card_map()


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


@pytest.mark.parametrize(("cid", "j", "text"), EN + ZH)
def test_the_bare_clause_is_flagged(cards, cid, j, text):
    # by the fallback (the patterns miss it): so the condition tests below test the fallback's veto
    assert j in cards[cid].check(_cap(text)).similar


@pytest.mark.parametrize("opener", GENERIC_EN)
@pytest.mark.parametrize(("cid", "j", "text"), EN)
def test_a_generic_english_opener_does_not_hide_it(cards, cid, j, text, opener):
    assert j in cards[cid].check(opener + text).stated


@pytest.mark.parametrize("opener", GENERIC_ZH)
@pytest.mark.parametrize(("cid", "j", "text"), ZH)
def test_a_generic_chinese_opener_does_not_hide_it(cards, cid, j, text, opener):
    assert j in cards[cid].check(opener + text).stated


@pytest.mark.parametrize("opener", CONDITION_EN)
@pytest.mark.parametrize(("cid", "j", "text"), EN)
def test_a_real_english_condition_still_vetoes(cards, cid, j, text, opener):
    assert j not in cards[cid].check(opener + text).stated


@pytest.mark.parametrize("opener", CONDITION_ZH)
@pytest.mark.parametrize(("cid", "j", "text"), ZH)
def test_a_real_chinese_condition_still_vetoes(cards, cid, j, text, opener):
    assert j not in cards[cid].check(opener + text).stated
