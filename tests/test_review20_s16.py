"""The review of session 16's checker (helper-210 on 3d4012a): rows that a553a05..3d4012a got wrong.

On 3d4012a 30 of these 33 tests failed; the three that passed are marked (-). H1 quotes the speaker endorses (their answer, an
authority's words, '"…" is correct'), H2 "It doesn't, however, …" read as a bare rejection, H3 没错 / 不假 /
"not wrong" that could never endorse, H4 "有一种说法 …，但其实 …" no frame, H5 a short next sentence that
endorses something else, M1 the bool-mask myth lost to a regex, M2 the swapped MHA/SDPA convention flagged on
its correction, M3 a real condition that holds a generic word, M4 "I really don't think", M5 a setting named
for a comparison, M6 misconceptions whose correction was empty (";" joined it to the claim).
"""
from __future__ import annotations

import pytest
from checker_support import card_map, myth_index_tests

from selfattention.interview import similar
from selfattention.interview.language import split_misconception

MYTH = [
    # H1
    ("mask-kv-cache", 0, 'As the paper says, "the KV cache is an approximation that trades accuracy for speed".'),
    ("mask-kv-cache", 0, "我的回答是“KV cache 是一种用精度换速度的近似”。"),
    ("mask-kv-cache", 0, '"The KV cache is an approximation that trades accuracy for speed" is correct.'),
    ("mask-kv-cache", 0, '"The KV cache is an approximation that trades accuracy for speed" is true.'),
    ("mask-kv-cache", 1, 'I\'d put it as "queries are cached too, alongside keys and values".'),
    ("mask-kv-cache", 0, "论文里说得很清楚：“KV cache 是一种用精度换速度的近似”。"),
    # H2
    ("cx-flashattention", 1, "FlashAttention reduces the O(n^2) compute. It doesn't, however, change the output."),
    ("mask-kv-cache", 1, "Queries are cached too. They aren't, though, the biggest part of the cache."),
    # H3
    ("mask-kv-cache", 0, "人们常说 KV cache 是一种用精度换速度的近似，没错。"),
    ("mask-kv-cache", 0, "很多人认为 KV cache 是一种用精度换速度的近似。没错。"),
    ("mask-kv-cache", 0, "“KV cache 是一种用精度换速度的近似”，没错。"),
    ("mask-kv-cache", 0,
     "Many people think the KV cache is an approximation that trades accuracy for speed, and they're not wrong."),
    # M4 (hidden before a553a05 too)
    ("mask-kv-cache", 1, "I really don't think it's hard: queries are cached too."),
    # M1
    ("bias-mask-conventions", 0, "True in bool mask = masked, always, every library do it same way"),
    # s15 H4: the appositive is no claim, the clause before it still is (-)
    ("flow-computation", 0, "We divide the scores by d_k, the head dimension, before the softmax."),
    # M5
    ("mask-self-masked-cross", 0, "In cross-attention the queries come from the decoder, and because it sits in "
     "the decoder it needs a causal mask just like masked self-attention."),
]
CORRECT = [
    # H4, H5
    ("mask-kv-cache", "有一种说法是查询也要缓存，但其实只缓存 K 和 V。"),
    ("mask-kv-cache", "很多人认为 KV cache 是一种用精度换速度的近似。确实很多人这么想，但它算的是同一个函数。"),
    ("mask-kv-cache", "Many people think the KV cache is an approximation. That's fair to ask, but it is exact."),
    ("mask-kv-cache", "People often say queries are cached too. That's true of keys and values only."),
    # the quote rules still hold (-)
    ("mask-kv-cache", '"The KV cache is an approximation that trades accuracy for speed" is wrong.'),
    ("mask-kv-cache", 'I\'d push back on "the KV cache is an approximation that trades accuracy for speed".'),
    # M3
    ("mask-kv-cache", "不用常规 KV cache 的情况下，每出一个新token都要把整句重新跑一遍。"),
    ("mh-head-dim", "按标准设定 d_k = d_model/h 的情况下，模型维度必须是头数的整数倍。"),
    ("parallel-kinds", "用常规的 ZeRO 分片的情况下，每张卡显存就降下来了。"),
    ("scale-prefill-decode", "在大多数请求都是长 prompt 的 prefill 时，瓶颈是算力。"),
    ("pos-word-order", "加上常规的平均池化的情况下，它是置换不变的。"),
    # M2
    ("mask-torch-mha-masks", "SDPA 里布尔 True 表示可以关注。"),
    ("mask-torch-mha-masks", "In scaled_dot_product_attention a boolean True means the position may be attended; "
     "in nn.MultiheadAttention it means blocked."),
    ("flow-computation", "We divide the scores by sqrt(d_k), the head dimension, before the softmax."),
    # M6
    ("pos-families", "分数仍然依赖绝对位置，线性关系只让偏移变得可学习。"),
]


@pytest.fixture(scope="module")
def cards():
    return card_map()


test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged = myth_index_tests(MYTH, CORRECT)


def test_every_misconception_has_a_correction_in_both_languages(cards):
    empty = [(c.id, j, lang) for c in cards.values() for j, m in enumerate(c.misconceptions)
             for lang in ("en", "zh") if not split_misconception(m[lang], lang)[1].strip()]
    assert not empty


# per swapped myth, its correction in the claim's own words: the roles swapped
SWAPS = {
    "cross-attention-queries-from-encoder":
        "In cross-attention the queries come from the decoder and the keys and values come from the encoder output.",
    "tp-qkv-row-parallel-w-o-column": "In tensor-parallel attention Q, K and V are column-parallel and W_O is row-parallel.",
    "attention-dominates-short-contexts-ffn-long":
        "The FFN dominates the compute at short contexts and attention at long ones.",
    "in-nn-multiheadattention-boolean-true-means":
        "In SDPA a boolean True means the position may be attended; in nn.MultiheadAttention it means blocked.",
}


def test_the_swapped_myths_are_role_swaps(cards):
    """Each `SWAPPED` myth is stated by nearly the same bag of words as its correction with the roles swapped
    (geo similarity >= 0.9), which is why the fallback cannot tell them apart; a myth whose correct statement
    shares less ("we divide by d_k" vs "by the square root of d_k": 0.78; the bool-mask myth vs "In SDPA a
    boolean True means the position may be attended": 0.52) is no swap."""
    idx = similar.index()
    claims = similar._myth_claims(list(cards.values()))

    def sim(a: str, b: str) -> float:
        fa = frozenset().union(*(similar.features(c) for c in similar.clauses(a)))
        fb = frozenset().union(*(similar.features(c) for c in similar.clauses(b)))
        return similar._sim_w(fa, fb, idx.idf, idx.default_idf, "geo")

    assert set(SWAPS) == set(similar.SWAPPED)
    for mid, swap in SWAPS.items():
        assert sim(claims[mid][0], swap) >= 0.9, mid
    assert sim(claims["we-divide-d-k"][0], "We divide by the square root of d_k.") < 0.9
    assert sim(claims["boolean-true-always-means-masked"][0],
               "In SDPA a boolean True means the position may be attended.") < 0.9
