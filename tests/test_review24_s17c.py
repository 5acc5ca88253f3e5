"""The review of 815a5af (helper-214: 2 high, 5 medium, 2 low): wordings its rules got wrong.

H1 a do-reply with a plural object ("It doesn't, however, support older GPUs") rejected the myth before it; H2
"…, which is not quite right" no correction; M1 "the keys and values stay in the cache" carried the reply
on; M2 "true, in my view" / 在任何时候 / 对于所有 read as limits; M3 没有误差 no correction, 没有问题 one; M4
"Nothing could be further from the truth" no correction, "No doubt about that" one; M5 "not just a
convention, the only sensible choice" flagged; L1 我也完全同意 / 我同意这一点; L2 我有另外一种看法 framed.
Rows marked (-) passed on 815a5af already.
"""
from __future__ import annotations

from checker_support import myth_index_tests

Q = '"the KV cache is an approximation that trades accuracy for speed"'
QZ = "“KV cache 是一种用精度换速度的近似”"
FA = "FlashAttention reduces the O(n^2) compute."
MYTH = [
    ("cx-flashattention", 1, f"{FA} It doesn't, however, support older GPUs."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, support variable-length batches."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, handle arbitrary masks."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, shrink activations much."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, materialize attention matrices."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, make memory go up."),
    ("cx-flashattention", 1, f"{FA} It doesn't, however, require extra kernels."),  # (-)
    ("mask-kv-cache", 0, f"{Q} is true, in my view."),
    ("mask-kv-cache", 0, f"{Q} is correct, in my opinion."),
    ("mask-kv-cache", 0, f"{QZ}，在任何时候都是对的。"),
    ("mask-kv-cache", 0, f"{QZ}，对于所有模型都是对的。"),
    ("mask-kv-cache", 0, f"{QZ}，这在实际使用时是对的。"),
    ("mask-kv-cache", 0, f"正如论文所说，{QZ}，这个说法没有问题。"),
    ("mask-kv-cache", 0, f"正如论文所说，{QZ}，这没有问题。"),
    ("mask-kv-cache", 0, f"正如论文所说，{QZ}。有问题吗？没有。"),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. No doubt about that."),
    ("mask-kv-cache", 0, f"As the paper says, {Q}. No wonder decoding is fast."),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我也完全同意。"),
    ("mask-kv-cache", 1, "很多人认为 query 也要缓存。我同意这一点。"),
    ("mask-kv-cache", 1, "我有另外一种看法：query 也要缓存，但只在训练时。"),
]
CORRECT = [
    ("mask-kv-cache", f"As the paper says, {Q}, which is not quite right."),
    ("mask-kv-cache", f"As the paper says, {Q}, which isn't quite right."),
    ("mask-kv-cache", f"As the paper says, {Q}, which is not exactly true."),
    ("mask-kv-cache", "Queries are cached too. They aren't, actually, the keys and values stay in the cache."),
    ("mask-kv-cache", "Queries are cached too. They aren't, actually, keys and values remain cached."),
    ("mask-kv-cache", "Queries are cached too. They aren't, actually, the model recomputes them every step."),
    ("cx-flashattention", f"{FA} It doesn't, actually, compute remains quadratic."),
    ("mask-kv-cache", f"正如论文所说，{QZ}，结果其实没有任何误差。"),
    ("mask-kv-cache", f"正如论文所说，{QZ}，输出和不用缓存时完全一样，没有误差。"),
    ("mask-kv-cache", f"As the paper says, {Q}. Nothing could be further from the truth."),
    ("mask-kv-cache", f"As the paper says, {Q}. None of that is true: the outputs match."),
    ("flow-why-softmax", "Softmax is not just a convention, the only sensible choice."),
    ("flow-why-softmax", "Softmax is not merely a convention, the only principled choice."),
]

test_the_myth_is_flagged, test_the_correct_answer_is_not_flagged = myth_index_tests(MYTH, CORRECT)
