"""The re-review of session 16's fixes (helper-211 on 66604e4): nearby wordings the fixes got wrong.

H-A a bare "It doesn't," joined by a comma to its reason stopped rejecting; H-B a third party's quote ("As the
interviewer said, "…", but I disagree") became the speaker's; M-A 一种看法 framed the speaker's own claims;
M-B 未必没错 endorsed; M-C real endorsements lost ("They are right, of course.") and loose Chinese ones kept
("这确实常见。"); M-D common generic openers vetoed again; M-E an appositive that carries the myth ("…, an
h-fold FLOP reduction") was dropped; M-F '"…" is true only for …' endorsed; L-A a setting set aside vetoed.
Rows marked (-) passed on 66604e4 already.
"""
from __future__ import annotations

import pytest
from checker_support import card_map, myth_index_tests

MYTH = [
    # H-A
    ("cx-flashattention", 1, "FlashAttention reduces the O(n^2) compute. It doesn't, however, change the output."),  # (-)
    ("mask-kv-cache", 1, "Queries are cached too. They aren't, though, the biggest part of the cache."),  # (-)
    # H-B
    ("mask-kv-cache", 0, 'As the paper says, "the KV cache is an approximation that trades accuracy for speed".'),  # (-)
    # M-A
    ("mask-kv-cache", 1, "我有一种看法：query 也要缓存，但这部分显存不大。"),
    ("mask-kv-cache", 1, "有一种说法更准确：query 也要缓存，但只在第一层。"),
    ("mask-kv-cache", 1, "用另一种说法，query 也要缓存，但它占得少。"),
    ("mask-kv-cache", 0, "我支持一种观点：KV cache 是一种用精度换速度的近似，但误差很小。"),
    # M-C
    ("mask-kv-cache", 1, "Many people think queries are cached too. They are right, of course."),
    ("mask-kv-cache", 1, "Many people think queries are cached too. I agree with them."),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我觉得他们是对的。"),
    # M-E
    ("mh-mqa-gqa", 0, "MQA shares one K and V across heads, an h-fold FLOP reduction."),
    ("mh-mqa-gqa", 0, "MQA gives one main benefit, an h-fold reduction in compute."),
]
CORRECT = [
    # H-A
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It doesn't, the FLOPs are the same or higher."),
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It doesn't, really."),
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It does not, it saves memory and IO."),
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It doesn't, actually, the FLOPs are the same."),
    ("mask-kv-cache", "Queries are cached too. They aren't, only keys and values are."),
    ("mask-kv-cache", "Queries are cached too. They aren't, because past queries are never needed again."),
    ("mask-kv-cache", "The KV cache is an approximation. It isn't, it computes exactly the same function."),
    # H-B
    ("mask-kv-cache", 'As the interviewer said, "the KV cache is an approximation that trades accuracy for speed", '
     "but I disagree: it is exact."),
    ("mask-kv-cache", "正如有些博客所说，“KV cache 是一种用精度换速度的近似”，其实不然，它是精确的。"),
    ("mask-kv-cache", "正如网上所说的“query 也要和 key、value 一起缓存”，但其实只缓存 K 和 V。"),
    ("mask-kv-cache", 'As the paper says, "the KV cache is an approximation that trades accuracy for speed" doesn\'t hold.'),
    # M-B
    ("mask-kv-cache", "“KV cache 是一种用精度换速度的近似”，未必没错。"),
    ("mask-kv-cache", "很多人认为 KV cache 是一种用精度换速度的近似，未必没错。"),
    # M-C
    ("mask-kv-cache", "很多人认为 query 也要缓存。这确实常见。"),
    ("mask-kv-cache", "很多人认为 query 也要缓存。有道理吗？"),
    # M-F
    ("mask-kv-cache", '"The KV cache is an approximation that trades accuracy for speed" is true only for quantised caches.'),
    ("mask-kv-cache", '"The KV cache is an approximation that trades accuracy for speed" is right for int8 caches, in the '
     "plain case it is exact."),
]
# M-D: generic openers before clauses that only the fallback flags (tests/test_review19_openers.py)
OPENERS_EN = ["With a standard decoder-only Transformer, ", "With the standard Transformer architecture, ",
              "With a vanilla GPT, ", "With standard multi-head attention, ", "Under normal conditions, ",
              "When using a standard Transformer, "]
OPENERS_ZH = ["在一般情况下，", "默认情况下，", "标准情况下，", "大部分情况下，", "在大多数情况下，", "绝大多数情况下，"]
CLAUSE_EN = ("flow-why-softmax", 0, "softmax is used mostly by convention.")
CLAUSE_ZH = ("cx-kv-cache-memory", 0, "头越多 cache 越大。")


@pytest.fixture(scope="module")
def cards():
    return card_map()


test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged = myth_index_tests(MYTH, CORRECT)


@pytest.mark.parametrize("opener", OPENERS_EN)
def test_a_generic_english_opener(cards, opener):
    cid, j, text = CLAUSE_EN
    assert j in cards[cid].check(opener + text).stated


@pytest.mark.parametrize("opener", OPENERS_ZH)
def test_a_generic_chinese_opener(cards, opener):
    cid, j, text = CLAUSE_ZH
    assert j in cards[cid].check(opener + text).stated
