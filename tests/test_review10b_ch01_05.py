"""Review round 10 of chapters 01-05 (reviews/2026-12-02/s8-r10-ch01-05.md): M1, M3, M4, M5 at pattern level.

NOT_FLAGGED: the reviewer's correct sentences (M4, M5 a-e). FLAGGED: the registry myths followed by an unrelated
"but …" clause that the forward scope of generic qualifiers had spared (M1). M2 (a negated rejection,
"It isn't a myth that …", cancelled the myth) is fixed in language.py and its rows are in FLAGGED. OPEN: the padding myth followed by a counterfactual "but without a mask it would …" (M1, a `!!!` condition read forward).
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests

NOT_FLAGGED = [
    # M4: the registry's correction without the word "transpose"
    ("mh-split-heads", "A reshape straight to (B, h, n, d_k) has the right shape but mixes positions and features."),
    ("mh-split-heads", "A plain reshape to (B, h, n, d_k) gives the right shape but the wrong content."),
    ("mh-split-heads", "A plain reshape gives the right shape but the wrong content."),
    ("mh-split-heads", "The reshape gives the right shape but scrambles the data."),
    ("mh-split-heads", "直接 reshape 形状对了，但内容错了。"),
    # M5 a-e
    ("scaling-variance-derivation", "Gaussian components are not required."),
    ("scaling-variance-derivation", "Gaussian components aren't needed; independence is enough."),
    ("flow-computation", "缩放放在 softmax 之后就不一样了，因为它决定分布有多尖锐。"),
    ("flow-computation", "缩放放在 softmax 之后就不对了。"),
    ("flow-computation", "Scaling after the softmax is not the same thing."),
    ("mh-why-multi-head", "Each head gets its own slice of the projected input."),
    ("mh-why-multi-head", "Each head works on a slice of the projected input, not of the raw input."),
    ("mh-why-multi-head", "More heads means more separate matmuls, but each one is narrower, so the total is the same."),
    ("mh-why-multi-head", "More heads means more matmuls, but smaller ones."),
    ("mask-padding-variable-length", "不加 padding 掩码的话，padding 会改变真实 token 的输出。"),
    ("mask-padding-variable-length", "不加 padding 掩码，padding 会改变真实 token 的输出。"),
    # near misses of the narrowed qualifiers (M1)
    ("mh-head-dim", "d_model must be divisible by h only when d_k is defined as d_model / h."),
    ("mh-head-dim", "When d_k = d_model / h, d_model must be divisible by h."),
    ("mh-head-dim", "只有把 d_k 定义成 d_model / h 时，d_model 才必须能被 h 整除。"),
    ("mh-split-heads", "Without the transpose, the reshape has the right shape and the wrong content."),
]

FLAGGED = [
    # M1: an unrelated "but …" clause no longer spares the myth before it
    ("mh-head-dim", "d_model must be divisible by h, but d_k is usually 64."),
    ("mh-head-dim", "d_model must be divisible by h, but most models choose d_k = 64 anyway."),
    ("mh-head-dim", "d_model must be divisible by h, but in general people pick d_k = 64."),
    ("mh-head-dim", "d_model must be divisible by h, only then does the split work."),
    ("mh-head-dim", "d_model 必须能被 h 整除，但一般 d_k 取 64。"),
    ("mh-head-dim", "d_model 必须能被 h 整除，不过 d_k 通常是 64。"),
    ("mh-split-heads", "The reshape is right as long as the shapes are right, but remember to transpose K for the scores."),
    ("mh-split-heads", "形状对了 reshape 就对了，不过算分数时 K 要转置。"),
    ("mh-split-heads", "The reshape is right as long as the shapes are right, but I may be wrong."),
    ("mh-split-heads", "形状对了内容就对了。"),
    # M5: the myths near each exclusion
    ("scaling-variance-derivation", "The derivation needs Gaussian components."),
    ("flow-computation", "The scaling can be applied after the softmax."),
    ("mh-why-multi-head", "Each head sees a different slice of the input."),
    ("mh-why-multi-head", "More heads means more computation."),
    ("mask-padding-variable-length", "padding 会稍微改变真实 token 的输出。"),
]

# M2 (and 10-12 M-3): a negated rejection affirms; the negation and the rejection word cancel (language.py)
FLAGGED += [
    ("mask-kv-cache", "It isn't a myth that queries are cached too."),
    ("mask-kv-cache", "It is not wrong to say that queries are cached too."),
    ("mask-kv-cache", "It's no mistake to think that queries are cached too."),
    ("mask-kv-cache", "Queries are cached too, which is not wrong."),
    ("mask-kv-cache", "认为 query 也被缓存并不是误解。"),
]
NOT_FLAGGED += [
    ("mask-kv-cache", "It is a myth that queries are cached too."),
    ("mask-kv-cache", "说 query 也会被缓存，这是误解。"),
    ("mask-kv-cache", "Queries are not cached, which is not obvious to everyone."),
    ("mask-kv-cache", "It is not a myth that only keys and values are cached."),
]

OPEN = [
    (
        "mask-padding-variable-length",
        "Padding changes the outputs of the real tokens a little, but without a mask it would change them a lot.",
    ),
]


test_not_flagged, test_flagged, _unused = checker_tests(NOT_FLAGGED, FLAGGED, ())


def _flagged_open(card, text):  # OPEN rows here are myths that should be flagged and are not
    return bool(card_map()[card].check(text).stated)





@pytest.mark.xfail(strict=True, reason="M1-padding: a myth cancelled by a forward !!! condition in a counterfactual 'but' clause")
@pytest.mark.parametrize("card, text", OPEN)
def test_open_myth_is_flagged(card, text):
    assert _flagged_open(card, text)


# M3: the reversed false statement earns no point 0 of mh-mqa-cost; the true two-part one still does
@pytest.mark.parametrize(
    "text, earns",
    [
        ("The KV projections stay the same while the Q projection gets cheaper.", False),
        ("The K and V projections stay the same, only the Q projection shrinks.", False),
        ("The Q and output projections are unchanged and the K and V projections shrink by h/g.", True),
        ("The Q projection stays the same while the KV projections get cheaper.", True),
    ],
)
def test_mqa_projection_claim_order(text, earns):
    assert (0 in card_map()["mh-mqa-cost"].check(text).covered) is earns
