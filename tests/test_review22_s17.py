"""The third review of session 16's checker rules (helper-212 on f0b739e: 4 high, 3 medium, 4 low): nearby
wordings the re-review fixes (ddbdac8, 0d501a4) got wrong, and rows for rules that no test guarded (T1).

H1 a bare "It doesn't," cut off its own continuation ("It doesn't, however, change the outputs at all"); H2
any "not"/"no" after an authority's quote, even in the next sentence, read as a correction; H3 一种说法 framed
only right after 有; H4 "这个说法没错。" was no endorsement; M1 '"…" is true, for sure' read as limited; M2
"That's right for K." endorsed in full; M3 an appositive scored with the words, not the negation, of the
clause before it; L4 我同意 / 非常正确 were no endorsements. Rows marked (-) passed on f0b739e already.
"""
from __future__ import annotations

from checker_support import myth_index_tests

Q = '"the KV cache is an approximation that trades accuracy for speed"'
MYTH = [
    # H1: the reply's verb carries on past the aside: the myth before it stands
    ("cx-flashattention", 1, "FlashAttention reduces the O(n^2) compute. It doesn't, however, change the outputs at all."),
    ("cx-flashattention", 1, "FlashAttention reduces the O(n^2) compute. It doesn't, however, change its output."),
    ("cx-flashattention", 1, "FlashAttention reduces the O(n^2) compute. It doesn't, of course, change the results of "
     "attention."),
    ("mask-kv-cache", 1, "Queries are cached too. They aren't, though, as large as the keys and values."),
    ("mask-kv-cache", 1, "Queries are cached too. They aren't, however, used after their step."),
    # H2: no correction follows the authority's quote
    ("mask-kv-cache", 0, f"As the paper says, {Q}, and no one disputes that."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}, so it is not exact."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. There is no free lunch."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. You can't have both."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. Yet it is used everywhere."),
    # H4 and L4: short Chinese endorsements in the next sentence
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这个说法没错。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这种说法是对的。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这一点没错。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这个观点是正确的。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我同意。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这非常正确。"),
    # M1: an endorsement with no limit on it
    ("mask-kv-cache", 0, f"{Q} is true, for sure."),
    ("mask-kv-cache", 0, f"{Q[0].upper()}{Q[1:]} — that is right, in the sense that it is lossy."),
    ("mask-kv-cache", 0, "“KV cache 是一种用精度换速度的近似”，这是对的，同时也省显存。"),
    ("mask-kv-cache", 0, "“KV cache 是一种用精度换速度的近似”，没错，生成时就是这样。"),
]
CORRECT = [
    # H1: the continuation is a new claim: the reply rejects
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It doesn't, actually, just the memory traffic."),
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute. It doesn't, honestly, same FLOPs, less memory "
     "traffic."),
    ("mask-kv-cache", "Queries are cached too. They aren't, in fact, just keys and values."),  # (-)
    ("mask-kv-cache", "Queries are cached too. They aren't, though, the keys and values are."),  # (-)
    # H3: 一种说法 set up to be refuted, without 有 right before it
    ("mask-kv-cache", "一种说法是 query 也要缓存，但其实只缓存 K 和 V。"),
    ("mask-kv-cache", "我听过一种说法，query 也要缓存，但其实只缓存 K 和 V。"),
    ("mask-kv-cache", "还有另一种说法：query 也要缓存，其实不用，只缓存 K 和 V。"),
    ("mask-kv-cache", "网上有另一种说法，query 也要缓存，但其实只需要 K 和 V。"),
    ("mask-kv-cache", "有一种说法更常见：query 也要缓存，但其实只缓存 K 和 V。"),
    # H2: a correction right after the quote, or opening the next sentence
    ("mask-kv-cache", f"As the paper says, {Q}. That's not true, though: it is exact."),  # (-)
    ("mask-kv-cache", f"As the paper says, {Q}. I disagree: it computes exactly the same function."),  # (-)
    ("mask-kv-cache", f"As the paper says, {Q}, which is wrong: it is exact."),  # (-)
    # M2: an endorsement of something else than the claim
    ("mask-kv-cache", "Many people think queries are cached too. That's right for K."),
    ("mask-kv-cache", "Many people think queries are cached too. That is true of K and V."),
    # M3: the appositive keeps the negation of the clause it is set after
    ("mh-mqa-gqa", "MQA doesn't give an h-fold FLOP reduction, a common claim."),
    ("flow-why-softmax", "Softmax is not used mostly by convention, the usual story."),
    ("mh-mqa-gqa", "MQA is not, in my view, an h-fold FLOP reduction."),
    ("mh-mqa-gqa", "MQA does not reduce the attention FLOPs by h, the number of heads."),  # (-)
]

test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged = myth_index_tests(MYTH, CORRECT)
