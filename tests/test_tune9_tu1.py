# ruff: noqa: E501
"""Tuner tu1 (chapters 01-03): myth patterns generalised on dev corpus5; own paraphrases must be flagged,
near-miss corrections must not."""

import pytest

from selfattention.interview import bank

CARDS = {c.id: c for c in bank.load_cards()}


def _stated(card_id: str, myth: str, text: str) -> bool:
    card = CARDS[card_id]
    j = next(i for i, t in enumerate(card.tells) if t.myth == myth)
    return j in card.check(text).stated


MYTH = [
    ("flow-computation", "we-divide-d-k", "We normalise the scores by d_k so their variance is one."),
    ("flow-computation", "we-divide-d-k", "The logits are rescaled by the head dimension itself."),
    ("scaling-why-sqrt-dk", "we-divide-d-k", "So the scores are normalised by d_k itself."),
    ("flow-softmax-axis", "each-column-attention-matrix-sums-1", "A 的每行每列和都是 1。"),
    ("flow-softmax-axis", "each-column-attention-matrix-sums-1", "The attention matrix is doubly stochastic."),
    ("flow-computation", "each-column-attention-matrix-sums-1", "就是每个 key 那一列被归一化了。"),
    ("flow-computation", "scaling-can-be-applied-after-softmax", "scale 放 softmax 前面还是后面都行。"),
    ("flow-computation", "scaling-can-be-applied-after-softmax", "You can scale either before or after the softmax, it is the same."),
    pytest.param(*("flow-what-is-transformer", "transformer-only-attention", "Every layer is purely attention."), marks=pytest.mark.xfail(reason="paraphrase still missed", strict=True)),
    ("flow-what-is-transformer", "transformer-only-attention", "All the parameters are in attention."),
    ("flow-stable-softmax", "subtracting-maximum-changes-attention-weights-slightly", "The weights are only approximately the original ones."),
    ("flow-stable-softmax", "subtracting-maximum-changes-attention-weights-slightly", "权重会稍微变一下。"),
    ("flow-stable-softmax", "subtracting-maximum-changes-attention-weights-slightly", "减去最大值会带来误差。"),
    ("flow-why-softmax", "any-normalisation-that-makes-rows-sum", "Dividing by the row sum would work just as well."),
    ("flow-why-softmax", "any-normalisation-that-makes-rows-sum", "Softmax is only the popular choice."),
    ("flow-why-softmax", "any-normalisation-that-makes-rows-sum", "其实别的归一化只要行和为 1 就行。"),
    ("flow-attention-sink", "attention-sinks-tokens-with-important-content", "sink token 是句子里的关键词。"),
    ("flow-attention-sink", "attention-sinks-tokens-with-important-content", "The sink is the most informative token."),
    ("flow-attention-sink", "attention-sinks-tokens-with-important-content", "那个 token 信息量特别大。"),
    ("flow-pre-post-ln", "layernorm-placement-cosmetic", "Pre-LN and post-LN are mathematically equivalent."),
    ("flow-pre-post-ln", "layernorm-placement-cosmetic", "LayerNorm 放前面放后面都一样。"),
    ("flow-pre-post-ln", "layernorm-placement-cosmetic", "LN 放哪里只是实现习惯。"),
    ("flow-attention-dropout", "attention-dropout-applied-scores-before-softmax", "dropout 加在 pre-softmax logits 上。"),
    ("flow-attention-dropout", "attention-dropout-applied-scores-before-softmax", "Attention dropout acts on the logits."),
    ("qkv-why-three", "q-k-v-different-because-input", "Q and K differ because they come from other inputs."),
    ("qkv-why-three", "one-matrix-for-everything-loses-nothing", "训练够久的话对称性也能被学掉。"),
    pytest.param(*("qkv-why-three", "one-matrix-for-everything-loses-nothing", "Training will learn away the symmetry."), marks=pytest.mark.xfail(reason="paraphrase still missed", strict=True)),
    ("qkv-no-projection", "feed-forward-layers-make-projections-unnecessary", "The FFN learns the needed transforms anyway."),
    ("qkv-no-projection", "feed-forward-layers-make-projections-unnecessary", "So the projections are redundant."),
    ("qkv-no-projection", "feed-forward-layers-make-projections-unnecessary", "投影没那么必要。"),
    ("qkv-shapes", "q-k-v-must-always-have", "Q K V 都是 n×d_k。"),
    ("qkv-shapes", "q-k-v-must-always-have", "形状必须一样。"),
    ("qkv-remove-wv", "w-v-can-always-be-folded", "去掉 W_V 完全无损。"),
    ("qkv-remove-wv", "w-v-can-always-be-folded", "So W_V is redundant and we could drop it everywhere."),
    ("qkv-attention-vs-fc", "self-attention-just-fully-connected-layer", "attention 只是多了个 softmax。"),
    ("scaling-variance-derivation", "var-q-i-k-i-e", "Var(q_i k_i) equals E[q_i k_i] squared."),
    ("scaling-variance-derivation", "var-q-i-k-i-e", "单项的方差就是乘积期望的平方。"),
    ("scaling-why-sqrt-dk", "scaling-just-make-numbers-smaller", "It is purely a numerical trick."),
    ("scaling-why-sqrt-dk", "scaling-just-make-numbers-smaller", "There is nothing deeper going on."),
    ("scaling-why-sqrt-dk", "scaling-just-make-numbers-smaller", "没有别的作用。"),
    ("scaling-why-not-dk", "any-constant-works-because-model-rescales", "模型会自己把尺度调整过来。"),
    ("scaling-why-not-dk", "any-constant-works-because-model-rescales", "除以 √d_k 还是 d_k 都可以。"),
    ("scaling-softmax-gradient", "sharp-softmax-gives-strong-gradients-because", "A spiky softmax has large gradients."),
    ("scaling-softmax-gradient", "sharp-softmax-gives-strong-gradients-because", "梯度反而更大。"),
    ("scaling-learnable-temperature", "learnable-temperature-lets-model-express-attention", "It adds extra expressivity."),
    ("scaling-learnable-temperature", "learnable-temperature-lets-model-express-attention", "attention 能学出新的模式。"),
    ("scaling-qk-norm", "with-d-k-scaling-logits-stay", "The logits stay at unit scale for the whole of training."),
    ("scaling-qk-norm", "with-d-k-scaling-logits-stay", "logit 在整个训练过程中都会保持合适的尺度。"),
]

CORRECT = [
    ("flow-computation", "we-divide-d-k", "We normalise the scores by the square root of d_k."),
    ("flow-computation", "we-divide-d-k", "Under muP, when q and k align, we normalise by d_k."),
    ("flow-softmax-axis", "each-column-attention-matrix-sums-1", "The attention matrix is not doubly stochastic."),
    ("flow-softmax-axis", "each-column-attention-matrix-sums-1", "每行和为 1，每列不一定。"),
    ("flow-computation", "scaling-can-be-applied-after-softmax", "The scaling must come before the softmax."),
    ("flow-what-is-transformer", "transformer-only-attention", "Each layer has attention and a feed-forward network."),
    ("flow-what-is-transformer", "transformer-only-attention", "For long inputs, most of the compute is in attention."),
    ("flow-stable-softmax", "subtracting-maximum-changes-attention-weights-slightly", "Only the floating-point rounding differs slightly."),
    ("flow-stable-softmax", "subtracting-maximum-changes-attention-weights-slightly", "减去最大值只影响浮点舍入误差。"),
    ("flow-why-softmax", "any-normalisation-that-makes-rows-sum", "Dividing by the sum fails with negative scores."),
    ("flow-attention-sink", "attention-sinks-tokens-with-important-content", "The sink token is not a keyword; it is often meaningless."),
    ("flow-pre-post-ln", "layernorm-placement-cosmetic", "Pre-LN and post-LN are not equivalent."),
    ("flow-pre-post-ln", "layernorm-placement-cosmetic", "LayerNorm 放前面放后面训练不一样。"),
    ("flow-attention-dropout", "attention-dropout-applied-scores-before-softmax", "Dropout is applied to the weights after the softmax."),
    ("qkv-why-three", "q-k-v-different-because-input", "In self-attention the same input gives Q, K and V; only the projections differ."),
    ("qkv-why-three", "one-matrix-for-everything-loses-nothing", "No amount of training can undo the symmetry."),
    ("qkv-no-projection", "feed-forward-layers-make-projections-unnecessary", "The FFN acts on each token separately and cannot decide what matches."),
    ("qkv-shapes", "q-k-v-must-always-have", "Only Q and K must have the same width."),
    ("qkv-remove-wv", "w-v-can-always-be-folded", "For a single head W_V is redundant and we could drop it."),
    ("qkv-attention-vs-fc", "self-attention-just-fully-connected-layer", "Attention computes its mixing weights from the input."),
    ("scaling-variance-derivation", "var-q-i-k-i-e", "Var(q_i k_i) = E[(q_i k_i)^2] minus E[q_i k_i]^2."),
    ("scaling-why-sqrt-dk", "scaling-just-make-numbers-smaller", "It is not just a numerical trick: it keeps the softmax responsive."),
    ("scaling-why-not-dk", "any-constant-works-because-model-rescales", "模型最终能调整尺度，但初始尺度决定训练快慢。"),
    ("scaling-softmax-gradient", "sharp-softmax-gives-strong-gradients-because", "A sharp softmax has vanishing gradients."),
    ("scaling-learnable-temperature", "learnable-temperature-lets-model-express-attention", "It adds no expressivity; the projections already rescale."),
    ("scaling-qk-norm", "with-d-k-scaling-logits-stay", "The logits stay at unit scale only at initialisation."),
]


@pytest.mark.parametrize("card_id, myth, text", MYTH)
def test_myth_flagged(card_id, myth, text):
    assert _stated(card_id, myth, text)


@pytest.mark.parametrize("card_id, myth, text", CORRECT)
def test_correct_spared(card_id, myth, text):
    assert not _stated(card_id, myth, text)
