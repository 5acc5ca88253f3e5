"""A denial of a myth's correction under a stated condition is true, not the myth (review s12-chk-review17, HIGH-1).

Commit ce58627 added patterns that catch a myth stated as the denial of its correction ("Ring attention is not
exact."). Their conditions (a plain average, a relaxed acceptance rule, the same d_ff, a large batch, …) were written
as `!` / `!!` groups, which do not look into an "if …" clause before the claim, so "If the merge drops the lse
weights, ring attention is not exact." was flagged, and appended to a card's own complete spoken answer it blocked a
key point on 9 cards (17 of 18 answers; 0 of 18 before ce58627). Now those groups are `!!!` conditions, and a
stated "if / unless / as long as / when / 如果 / 除非 / 只要 / 只有 / 的话" condition before the claim vetoes the
denial, unless it is a speaker's hedge ("If you ask me", "如果我没记错") or a concession ("even if", "即使")
(review s12-chk-verify). Left: a myth put in conditional form ("If you split the keys, the merge is not exact.")
is now missed (20 of 49 probes of that review).
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests

CONDITIONED = [  # the reviewer's rows (EN, 中文), then fresh ones with other condition words
    ("scale-prefill-decode", "If the batch holds hundreds of short sequences, decoding is not memory-bound any more."),
    ("scale-prefill-decode", "如果批量很大、上下文很短，解码就不是带宽受限的。"),
    ("decoding-temperature", "如果 T 是负数，除以 T 就不会保持顺序。"),
    ("pos-word-order", "If you add positions or a causal mask, self-attention is not permutation-equivariant any more."),
    ("pos-word-order", "如果加了位置编码或因果掩码，自注意力就不是置换等变的。"),
    ("block-moe-routing", "If the router is dropless, overflow tokens are not dropped."),
    ("block-moe-routing", "如果容量足够大，超出容量的 token 不会被丢弃。"),
    ("decoding-speculative", "If the acceptance rule is relaxed, speculative decoding is not exact."),
    ("decoding-speculative", "如果接受规则放宽了，投机解码就不再精确。"),
    ("scale-flash-decoding", "If you merge the chunks with a plain average, splitting the keys is not exact."),
    ("scale-flash-decoding", "如果直接平均各块的输出，切分 key 就不精确。"),
    ("block-ffn-activations", "If the d_ff is kept the same, SwiGLU does not keep the parameter count the same."),
    ("block-ffn-activations", "如果 d_ff 相同，SwiGLU 就不保持参数量。"),
    ("decoding-batching", "If the kernel runs in bf16 with a different shape, chunked prefill is not exact."),
    ("decoding-batching", "如果 kernel 形状不同且用低精度，分块 prefill 不精确。"),
    ("parallel-split-attention", "If the merge drops the lse weights, ring attention is not exact."),
    ("parallel-split-attention", "如果合并时去掉 log-sum-exp 权重，环形注意力就不精确。"),
    # fresh: other condition words, other wording
    ("parallel-split-attention", "Unless the blocks are merged with their log-sum-exp weights, ring attention is not exact."),
    ("parallel-split-attention", "只要合并时不按 log-sum-exp 加权，环形注意力就不精确。"),
    ("decoding-speculative", "As long as the verifier accepts near misses, speculative decoding is not exact."),
    ("block-ffn-activations", "If you keep d_ff at 4d, SwiGLU does not keep the parameter count."),
    ("scale-flash-decoding", "除非按 log-sum-exp 加权合并，否则切分 key 就不精确。"),
    ("scale-prefill-decode", "If hundreds of short requests share each weight read, decoding is no longer memory-bound."),
    # when / 的话 / 只有…才 conditions (review s12-chk-verify, the rest of HIGH-1)
    ("parallel-split-attention", "When the merge ignores the running maximum, ring attention is not exact."),
    ("decoding-speculative", "只有放宽接受规则的话，投机解码才不精确。"),
    ("scale-flash-decoding", "When the chunks are averaged without their log-sum-exp weights, split-K decoding is not exact."),
    ("block-ffn-activations", "When d_ff stays at 4d, SwiGLU does not keep the parameter count."),
]

DENIED = [  # the same denials with no condition, or after a speaker's hedge or a concession, still state the myth
    ("parallel-split-attention", "If you ask me, ring attention is not exact."),
    ("parallel-split-attention", "如果我没记错，环形注意力不精确。"),
    ("parallel-split-attention", "Even if it scales to long contexts, ring attention is not exact."),
    ("decoding-speculative", "Unless I am mistaken, speculative decoding is not exact."),
    ("scale-prefill-decode", "即使上下文很长，解码也不是带宽受限的。"),
    ("parallel-split-attention", "Ring attention is not exact."),
    ("parallel-split-attention", "环形注意力不精确。"),
    ("decoding-speculative", "Speculative decoding is not exact."),
    ("decoding-speculative", "投机解码不精确。"),
    ("scale-flash-decoding", "Splitting the keys across chunks is not exact."),
    ("scale-prefill-decode", "Decoding is not memory-bound."),
    ("scale-prefill-decode", "解码不是带宽受限的。"),
]

test_conditioned_is_not_flagged, test_denial_is_flagged, _ = checker_tests(CONDITIONED, DENIED)


@pytest.mark.parametrize("card, text", CONDITIONED)
def test_own_complete_answer_plus_a_conditioned_denial_keeps_every_point(card, text):
    """The card's own spoken answer (in the sentence's language) covers every key point and states no myth; with the
    conditioned sentence appended it still does."""
    c = card_map()[card]
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    base = c.check(c.spoken[lang])
    assert not base.stated and len(base.covered) == len(c.key_points[lang])
    after = c.check(c.spoken[lang] + " " + text)
    assert not after.stated, f"{text!r} flagged as {after.stated}"
    assert after.covered == base.covered
