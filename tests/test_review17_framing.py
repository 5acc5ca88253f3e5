"""Reported beliefs that the speaker then rejects state no myth (session 14, from the hard negatives of corpus6's
dev part): "you'll hear …", "ppl say …", "one sometimes hears that …", "someone will suggest …", "one might
reason that …", "you may hear …", "a common slip is to …", "有一种误解认为 …", "也别以为 …", "一种流行的解释是 …".
Each framed row was flagged before the frames were added to `language` (commit 28165f9: all ten); the same
claim stated bare is still flagged."""

from __future__ import annotations

import pytest

from selfattention.interview import bank

ROWS = [  # (card, the myth reported as others' and rejected, the myth stated bare)
 ("mh-head-dim", 'you\'ll hear "d_model must be divisible by h", and, well, that\'s only a thing if you define d_k as d_model / h.', 'd_model must be divisible by h.'),
 ("scaling-softmax-gradient", 'ppl say a sharp softmax gives strong grads bc it "changes quickly" -- backwards.', 'a sharp softmax gives strong grads bc it changes quickly.'),
 ("tf-params-flops", "One sometimes hears that attention dominates at short context and the FFN at long context; it's the other way round.", "Attention dominates at short context and the FFN at long context."),
 ("pos-rope-details", "Someone will suggest rotating the cached keys by the current position when you read them out of the kv_cache. Dont.", "You rotate the cached keys by the current position when you read them out of the kv_cache."),
 ("dva-additive-scaling", "One might reason that since the additive scorer also consumes d-dimensional inputs it needs a 1/sqrt(d) too, but that doesn't follow.", "Since the additive scorer also consumes d-dimensional inputs it needs a 1/sqrt(d) too."),
 ("parallel-ring-backward", "You may hear autograd can just differentiate through the sends and receives. It can't.", "Autograd can just differentiate through the sends and receives."),
 ("rnn-positional-information", "A common slip is to call self-attention permutation-invariant.", "Self-attention is permutation-invariant."),
 ("tf-mlm-mask-vs-attention-mask", "有一种误解认为 BERT 的 [MASK] 与注意力掩码作用相同，致使其他位置不再关注被遮盖的 token；事实并非如此。", "BERT 的 [MASK] 与注意力掩码作用相同，致使其他位置不再关注被遮盖的 token。"),
 ("cx-time-space", "不过也别以为 FlashAttention 降低了计算量，n² 的 FLOPs 还在。", "FlashAttention 降低了计算量。"),
 ("dva-dot-vs-additive", "一种流行的解释是，点积注意力之所以快，是因为它所需的 FLOPs 更少；然而这一解释并不准确。", "点积注意力之所以快，是因为它所需的 FLOPs 更少。"),
]


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in bank.load_cards()}


@pytest.mark.parametrize("card, text, bare", ROWS)
def test_reported_and_rejected_is_not_flagged(cards, card, text, bare):
    assert cards[card].check(text).stated == {}, text


@pytest.mark.parametrize("card, text, bare", ROWS)
def test_the_bare_claim_is_still_flagged(cards, card, text, bare):
    assert cards[card].check(bare).stated, bare
