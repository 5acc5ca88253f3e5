"""The review of the s17 fixes (helper-213 on 8e22265: 3 high, 5 medium, 3 low, test honesty): nearby wordings
that 8e22265 got wrong, and rows for the rules no test guarded.

H1 a continuation with a subject of its own ("FLOPs go up", "FlashAttention saves memory") no longer
rejected; H2 "just save memory" / "…, which stays exact" rejected the sentence before; H3 "Now"/"Nobody"/
"Notably" opening the next sentence read as a correction of a quote; M4 "I don't buy it" / 可这并不对 were no
corrections; M5 误差 / 不错 / "so … not exactly" read as corrections; M6 "true in practice" read as a limit,
"true, with a quantised cache" / 对于… / 在…时 not; M7 "not just …, an h-fold FLOP reduction too" given the
head's negation; M8 "as far as I know" / "to be honest" no asides before an appositive; L9 我完全同意 /
我同意这个说法; L10 我有另一种看法 framed; T the 非(?!常) and "true for X" rules. Rows marked (-) passed on
8e22265 already.
"""
from __future__ import annotations

from checker_support import myth_index_tests

Q = '"the KV cache is an approximation that trades accuracy for speed"'
QZ = "“KV cache 是一种用精度换速度的近似”"
FA = "FlashAttention reduces the O(n^2) compute."
MYTH = [
    # H2: the reply's verb carries on
    ("cx-flashattention", 1, f"{FA} It doesn't, however, just save memory; it is also faster."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, alter the softmax, which stays exact."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, change what the output is."),  # (-)
    ("cx-flashattention", 1, f"{FA} It doesn't, however, affect the results."),
    # H3: no correction opens the next sentence
    ("mask-kv-cache", 0, f"As the paper says, {Q}. Now, the cache also grows with context."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. Nobody disputes that."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. Notably, that is why decoding is fast."),
    # M5: no correction in the rest of the sentence either
    ("mask-kv-cache", 0, f"As the paper says, {Q}, so the outputs are not exactly the same."),
    ("mask-kv-cache", 0, f"正如论文所说，{QZ}，所以会有一点误差。"),
    ("mask-kv-cache", 0, f"正如论文所说，{QZ}，这个总结很不错。"),
    # M6: a comment on the endorsement, not a limit
    ("mask-kv-cache", 0, f"{Q} is true in practice."),
    ("mask-kv-cache", 0, f"{Q} is true in my experience."),
    # M7: the appositive adds to the claim
    ("mh-mqa-gqa", 0, "MQA is not just a memory trick, an h-fold FLOP reduction too."),
    ("flow-why-softmax", 0, "Softmax is not the only choice, a mere convention."),
    # L9: endorsements in the next sentence
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我完全同意。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我同意这个说法。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我同意他们。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。这个说法非常有道理。"),  # T: 非常 is no negation
    # L10: the speaker's own view
    ("mask-kv-cache", 1, "我有另一种看法：query 也要缓存，但只在训练时。"),
]
CORRECT = [
    # H1: a subject with a verb of its own: the reply rejects
    ("cx-flashattention", f"{FA} It doesn't, actually, FLOPs go up slightly because of recomputation."),
    ("cx-flashattention", f"{FA} It doesn't, actually, FlashAttention saves memory traffic."),
    ("cx-flashattention", f"{FA} It doesn't, in fact, recomputation adds FLOPs."),
    ("cx-flashattention", f"{FA} It doesn't, honestly, compute goes up a little."),
    ("mh-mqa-gqa", "MQA reduces the attention FLOPs by h. It doesn't, actually, cache memory shrinks by h."),
    ("mask-kv-cache", "Queries are cached too. They aren't, actually, each step computes a fresh query."),
    # M4: corrections opening the next sentence
    ("mask-kv-cache", f"As the paper says, {Q}. I don't buy it: the outputs match."),
    ("mask-kv-cache", f"正如论文所说，{QZ}。可这并不对，它是精确的。"),
    ("mask-kv-cache", f"正如论文所说，{QZ}。我不同意，输出完全一样。"),  # (-)
    # M6: a limit on the endorsement
    ("mask-kv-cache", f"{Q} is true, with a quantised cache."),
    ("mask-kv-cache", f"{QZ}，对于量化过的缓存是对的。"),
    ("mask-kv-cache", f"{QZ}，在量化缓存时是对的。"),
    ("mask-kv-cache", f"{Q} is right for int8 caches."),  # T: "true for X" limits
    # M8: an aside between the negated clause and its appositive
    ("mh-mqa-gqa", "MQA is not, as far as I know, an h-fold FLOP reduction."),
    ("mh-mqa-gqa", "MQA is not, to be honest, an h-fold FLOP reduction."),
    ("mh-mqa-gqa", "MQA is not, I would argue, an h-fold FLOP reduction."),
]

test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged = myth_index_tests(MYTH, CORRECT)
