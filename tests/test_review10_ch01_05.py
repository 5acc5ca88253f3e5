# ruff: noqa: E501
"""Review round 10 fixes for chapters 01-05, from reviews/2026-12-02/s7-r9-ch01-05.md (its N2-N6 were fixed in
tests/test_review9b_ch01_05.py; this file re-checks them and handles the LOW items).

NOT_FLAGGED: every correct sentence the report quotes for cards 01-05 (N1-N6, "Verified correct", L5, L6a/b), as
regression guards, then my near-miss correct sentences around each pattern I widened or narrowed (L5 variance ÷ d_k,
scaling-why-not-dk "can rescale", L6a "each column is free", L6b "split only after the projection").
FLAGGED: myth forms near each of those fixes, which must still be caught.
OPEN: correct sentences still flagged because the correction sits in a later clause ("X, but Y"); a myth's exclusions
do not look forward, so these need a matcher change (also OPEN in test_review9b_ch01_05.py).
MISSED: myth paraphrases that clause cutting / framing in language.py hides from every pattern (L2, L3); strict xfail.
L4: card mh-mqa-cost's key point 0 no longer credits a reduction of the Q or output projections."""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests, stated

REPORT_CORRECT = [
    # N1
    ("scaling-qk-norm", "For random q and k, dividing by sqrt(d_k) keeps the logits well scaled."),
    # "Verified correct" (two DIN sentences are quoted with an ellipsis; completed here)
    ("mh-mqa-cost", "MQA does not make attention linear in n."),
    ("flow-attention-sink", "Attention sinks are not tokens with important content."),
    ("flow-pre-post-ln", "Pre-LN 和 post-LN 不只是写法不同。"),
    ("qkv-shared-qk", "The symmetry cannot be learned away."),
    ("qkv-remove-wv", "Removing W_V is lossless only with a single head."),
    ("mask-torch-mha-masks", "A float mask of zeros masks no position."),
    ("mask-torch-mha-masks", "In a float mask, positions with 0 are kept and positions with -inf are masked."),
    ("mask-target-attention", "DIN's activation unit scores each behaviour against the target ad, without a softmax."),
    ("mask-target-attention", "DIN's activation unit weights the past behaviours without a softmax."),
    ("mask-cross-attention-multimodal", "LLaVA has no cross-attention layers."),
    ("mask-cross-attention-multimodal", "In the U-Net, the text tokens act as keys and values."),
    ("mask-torch-mha-masks", "In MHA, False means the position may be attended, and True blocks it."),
    ("mask-cross-attention", "Decoder layer 3 reads the final encoder output, not encoder layer 3."),
    ("mask-masked-attention", "At inference with a KV cache, the one-token steps do not need the mask, but the prompt does."),
    ("mask-kv-cache", "At inference with a KV cache, the one-token steps do not need the mask, but the prompt does."),
    ("mh-mqa-cost", "MQA 减少了 K、V 投影的计算量。"),
    ("mh-mqa-cost", "MQA 里 Q 投影和输出投影不变，K、V 投影降为 1/h。"),
    # N2
    ("scaling-variance-derivation", "The variance is E[(q_i k_i)^2] - (E[q_i k_i])^2; the second term is zero and the first factors into E[q_i^2] E[k_i^2] = 1."),
    ("scaling-variance-derivation", "Var(q_i k_i) = E[(q_i k_i)^2] - E[q_i k_i]^2 = 1."),
    ("scaling-variance-derivation", "Var(q_i k_i) = E[q_i^2 k_i^2] - (E[q_i k_i])^2 = 1 - 0 = 1."),
    ("scaling-variance-derivation", "Because the mean of q_i k_i is zero, its variance equals E[(q_i k_i)^2] = E[q_i^2]E[k_i^2] = 1."),
    ("scaling-variance-derivation", "Since the mean is zero, the variance of q_i k_i is just E[(q_i k_i)^2]."),
    ("scaling-variance-derivation", "The variance of the product is the expectation of its square, because its mean is zero."),
    ("scaling-variance-derivation", "乘积的期望为 0，所以方差就是乘积平方的期望。"),
    # N3
    ("scaling-qk-norm", "With QK-norm the logits stay well scaled throughout training."),
    ("scaling-qk-norm", "With QK-norm, the logits remain well scaled during the whole of training."),
    ("scaling-qk-norm", "QK-norm 让 logit 在整个训练过程中都保持合适的尺度。"),
    ("scaling-qk-norm", "QK-norm ensures the logits never blow up during training."),
    ("scaling-qk-norm", "QK-norm 保证训练中 logit 不会爆炸。"),
    # N4
    ("flow-why-softmax", "Dividing by the sum gives rows that sum to one just as well, but it fails with negative scores."),
    ("flow-why-softmax", "Dividing by the sum would work just as well only if all scores were positive."),
    ("flow-why-softmax", "直接除以总和和 softmax 一样能让每行和为 1，但分数为负时就不行了。"),
    ("flow-why-softmax", "Dividing by the sum also makes the rows sum to 1, but it fails with negative scores."),
    # N5 (the mh-why-multi-head pair is in OPEN)
    ("scaling-softmax-gradient", "In fact the gradient is larger when the softmax is soft, not when it is sharp."),
    ("scaling-softmax-gradient", "梯度反而在 softmax 平缓时更大。"),
    ("mask-kv-cache", "The new token's query needs all past keys, which is why we store them."),
    ("mh-differential-attention", "A1 and A2 are each still a probability distribution, but A1 − λA2 is not."),
    ("mh-differential-attention", "Each softmax map is still a distribution over the keys; the difference is not."),
    ("mask-fully-masked-row", "With the zeros fix, a fully masked row is fine."),
    ("mask-fully-masked-row", "全 mask 的行输出 0 就没问题了。"),
    ("mask-kv-alignment", "For chunked prefill, just use an explicit bottom-right mask."),
    ("flow-attention-dropout", "Unlike dropout on pre-softmax logits, attention dropout zeroes weights after the softmax."),
    # N6 (the first scaling-why-not-dk sentence was OPEN in review 9b; fixed here)
    ("qkv-shared-qk", "Off-diagonal weights can still be large when W_Q equals W_K."),
    ("qkv-shared-qk", "When W_Q equals W_K, off-diagonal weights can still be large."),
    ("scaling-why-not-dk", "The model can rescale its weights, but the starting scale decides how fast it trains."),
    ("scaling-why-not-dk", "The model can adjust the scale eventually, but it trains slowly from a bad start."),
    ("qkv-shapes", "In standard self-attention, Q, K and V all have the same shape, n × d_k."),
    ("qkv-shapes", "In self-attention with d_v = d_k, Q, K and V all have the same shape."),
    ("flow-computation", "缩放和加掩码的顺序无所谓，只要都在 softmax 之前。"),
    ("mh-split-heads", "形状对了不一定内容就对，必须先转置。"),
    ("mh-split-heads", "形状对了不代表内容对，必须转置。"),
    # L5
    ("scaling-why-sqrt-dk", "The variance gets divided by d_k, so it is 1 again."),
    ("scaling-why-sqrt-dk", "方差除以 d_k 之后变成 1。"),
    # L6a, L6b (the second quoted with an ellipsis; completed here)
    ("flow-softmax-axis", "Each row sums to one and each column is free."),
    ("mh-why-multi-head", "The input is split into h parts only after the projection; each head gets its own projected slice."),
]

NEAR_MISSES = [
    # L5, we-divide-d-k: the variance (not the scores) is what gets divided by d_k
    ("scaling-why-sqrt-dk", "Dividing the variance by d_k gives 1."),
    ("scaling-why-sqrt-dk", "The variance is divided by d_k, which brings it back to 1."),
    ("scaling-why-sqrt-dk", "The variance of the scores gets divided by d_k, so it becomes 1."),
    ("scaling-why-sqrt-dk", "The variance of the dot product is divided by d_k, so it is back to 1."),
    ("scaling-why-sqrt-dk", "把方差除以 d_k 就回到 1。"),
    ("scaling-why-sqrt-dk", "方差被除以 d_k，变回 1。"),
    ("flow-computation", "The variance of the logits is divided by d_k, so it is 1."),
    ("flow-computation", "方差除以 d_k 以后就是 1。"),
    # scaling-why-not-dk: "can rescale" is the correction's concession ("It can, eventually, but …")
    ("scaling-why-not-dk", "The model could rescale its weights, but that takes many steps."),
    ("scaling-why-not-dk", "The network can adjust the scale of W_Q and W_K, but a bad initial scale slows training."),
    ("scaling-why-not-dk", "Yes, the model can rescale W_Q and W_K, but the start of training matters."),
    ("scaling-why-not-dk", "In principle the model can learn to rescale, yet it starts from a bad place with d_k."),
    ("scaling-why-not-dk", "模型可以重新缩放权重，但起点的尺度决定训练快慢。"),
    ("scaling-why-not-dk", "模型可以调整 W_Q、W_K 的尺度，但一开始尺度不对就训练得慢。"),
    ("scaling-why-not-dk", "模型能够调整权重的尺度，不过起点决定了训练的好坏。"),
    # ... and around the new "just / will / anyway / 会 / 自己 rescale" line
    ("scaling-why-not-dk", "The model does not simply rescale its weights to fix a bad constant."),
    ("scaling-why-not-dk", "The model will eventually rescale its weights, but the starting scale decides how fast it trains."),
    ("scaling-why-not-dk", "It is a myth that the model just rescales its weights."),
    ("scaling-why-not-dk", "The model cannot just rescale its way out of a bad initial scale."),
    ("scaling-why-not-dk", "模型最终会自己调整尺度，但起点决定训练快慢。"),
    ("scaling-why-not-dk", "模型不会自己把尺度调整过来，至少一开始不会。"),
    ("scaling-why-not-dk", "模型并不能简单地自己调整权重尺度来弥补错误的常数。"),
    # L6a, each-column-attention-matrix-sums-1: rows sum to 1, columns are unconstrained
    ("flow-softmax-axis", "Each row sums to one and the columns are unconstrained."),
    ("flow-softmax-axis", "Each row sums to 1 and each column sum is arbitrary."),
    ("flow-softmax-axis", "Rows sum to one and columns are free."),
    ("flow-softmax-axis", "每一行和为 1，每一列的和是任意的。"),
    ("flow-softmax-axis", "每行之和为 1 而列和不受约束。"),
    ("flow-softmax-axis", "每一行和为 1 而每一列的和是任意的。"),
    # L6b, each-head-sees-different-slice-input: the projected input is split, not the input
    ("mh-why-multi-head", "The input is split into h parts only after the projection."),
    ("mh-why-multi-head", "The projected input is split into h parts, one per head."),
    ("mh-why-multi-head", "Each head gets a part of the projected input."),
    ("mh-why-multi-head", "The projection of the input is split into h parts."),
    ("mh-why-multi-head", "输入投影之后才切成 h 个部分。"),
    ("mh-why-multi-head", "输入经过投影后再被切成 h 份，每个头一份。"),
    ("mh-why-multi-head", "每个头拿到的是投影后输入的一部分。"),
]

NOT_FLAGGED = REPORT_CORRECT + NEAR_MISSES

FLAGGED = [
    # we-divide-d-k
    ("scaling-why-sqrt-dk", "We divide by d_k to make the variance 1."),
    ("scaling-why-sqrt-dk", "We divide the scores by d_k so the variance is 1."),
    ("scaling-why-sqrt-dk", "We divide the logits by d_k so that their variance is 1."),
    ("scaling-why-sqrt-dk", "Since the variance is d_k, we divide the scores by d_k."),
    ("scaling-why-sqrt-dk", "The scores get divided by d_k."),
    ("scaling-why-sqrt-dk", "为了让方差为 1，要除以 d_k。"),
    ("scaling-why-sqrt-dk", "方差是 d_k，所以除以 d_k。"),
    ("scaling-why-sqrt-dk", "分数除以 d_k，让方差变成 1。"),
    ("flow-computation", "We divide QK^T by d_k."),
    # any-constant-works-because-model-rescales
    ("scaling-why-not-dk", "The model will just rescale its weights, so any constant is fine."),
    ("scaling-why-not-dk", "The model just rescales its weights."),
    ("scaling-why-not-dk", "The network rescales W_Q and W_K anyway."),
    ("scaling-why-not-dk", "The model rescales its weights to compensate."),
    ("scaling-why-not-dk", "It doesn't matter, the model can just rescale its weights."),
    ("scaling-why-not-dk", "模型会自己调整权重尺度。"),
    ("scaling-why-not-dk", "模型反正会重新缩放权重。"),
    ("scaling-why-not-dk", "模型自己会把尺度调整过来。"),
    # each-column-attention-matrix-sums-1
    ("flow-softmax-axis", "Each row and each column sums to 1."),
    ("flow-softmax-axis", "Each column sums to one."),
    ("flow-softmax-axis", "每一行和每一列的和都是 1。"),
    # each-head-sees-different-slice-input
    ("mh-why-multi-head", "The input is split into h parts before the projection."),
    ("mh-why-multi-head", "The input is split into h parts and then projected."),
    ("mh-why-multi-head", "Each head gets a part of the input."),
    ("mh-why-multi-head", "The input embedding is split into h slices."),
    ("mh-why-multi-head", "输入被切成 h 份，每个头只看一部分输入。"),
    ("mh-why-multi-head", "每个头只看到输入的一部分。"),
]

# the N5 pair ("X, but Y"), OPEN here at first, is fixed by the matcher's contrastive scope (review 10)
NOT_FLAGGED += [
    ("mh-why-multi-head", "Each extra head adds its own matmul, but since d_k shrinks the total stays the same."),
    ("mh-why-multi-head", "每多一个头就多一次矩阵乘法，但每个头更窄，总量不变。"),
]
# near misses of the two language.py fixes (L2 "as you would expect", L3b "…的话，")
NOT_FLAGGED += [
    ("scaling-why-sqrt-dk", "As you would expect, we divide by the square root of d_k."),
    ("scaling-why-sqrt-dk", "As one would expect, the variance of q · k grows like d_k."),
    ("flow-computation", "As you would expect, the scores are divided by sqrt(d_k) before the softmax."),
    ("scaling-why-not-dk", "As you might expect, dividing by d_k makes the scores too small."),
    ("mh-why-multi-head", "多头的话，计算量不会变大。"),
    ("mh-why-multi-head", "多头的话，每个头的维度是 d_model/h，总计算量和单头差不多。"),
    ("mh-why-multi-head", "我觉得多头的话，每个头可以关注不同的子空间。"),
    ("cx-time-space", "长序列的话，注意力的 n² 项会主导开销。"),
]
OPEN: list = []

# Myth paraphrases no pattern can see, because of language.py (not edited here):
# - L2: "As you/one would expect, …" matches _EN_HOLDS ("you would expect"), so the clause is framed as someone
#   else's belief. On scaling-why-not-dk (the card the report names) "We divide by d_k." is not a tracked myth even
#   bare; the cards that track we-divide-d-k are used here.
# - L3a: "In X, as in Y, Z": only the first comma part after a fronted phrase is joined to it, so "True means …"
#   is cut off from "nn.MultiheadAttention" (and an "!!sdpa" qualifier would also spare it).
# - L3b: "多头的话，…": "的话" is not a fronted ending (_ZH_FRONT), so the head count is in another clause.
# L2 and L3b were then fixed in language.py ("as you would expect" is not a belief holder; 的话 ends a fronted
# topic): those rows are in FLAGGED (below). L3a stays missed.
FLAGGED += [
    ("scaling-why-sqrt-dk", "As you would expect, we divide by d_k."),
    ("flow-computation", "As one would expect, we divide by d_k."),
    ("scaling-why-not-dk", "As one would expect, any constant works because the model rescales its weights."),
    ("mh-why-multi-head", "我觉得多头的话，计算量会更大。"),
]
MISSED = [
    ("mask-torch-mha-masks", "In nn.MultiheadAttention, as in SDPA, True means the position may be attended."),
]

test_correct_statement_is_not_flagged, test_myth_is_flagged, test_open_correct_statement_is_not_flagged = checker_tests(
    NOT_FLAGGED, FLAGGED, OPEN, reason="correction in a later clause; needs a forward exclusion in the matcher"
)


@pytest.mark.xfail(strict=True, reason="hidden by clause cutting or framing in language.py (L2, L3)")
@pytest.mark.parametrize("card, text", MISSED)
def test_missed_myth_is_flagged(card, text):
    assert stated(card, text), f"{text!r} not flagged"


# L4: MQA leaves the Q and output projections unchanged; a claim that they shrink must tick nothing.
L4_FALSE = [
    "MQA 减少了 Q 投影和输出投影的计算量。",
    "MQA reduces the FLOPs of the Q projection and the output projection.",
    "MQA shrinks the Q and output projections.",
    "MQA 降低了输出投影的计算量。",
    "MQA 缩小了 Q 投影和输出投影。",
    "The output projection gets cheaper with MQA.",
    "MQA 让 Q 投影的计算量减少了。",
    "MQA 减少了 Q、K、V 投影的计算量。",
    "The K and V projections are unchanged.",
]

# ... while the correct halves of key point 0 still earn it
L4_TRUE = [
    "The Q projection and the output projection don't change.",
    "With h query heads and g key-value heads, the Q and output projections are unchanged.",
    "Q 投影和输出投影完全不变。",
    "The K and V projections shrink by h/g.",
    "Only the K and V projections get h/g times cheaper.",
    "MQA reduces the FLOPs of the K and V projections by a factor of h.",
    "The key and value projections get h times smaller.",
    "MQA 减少了 K、V 投影的计算量。",
    "K/V 投影的参数量降低为原来的 1/h。",
    "The Q and output projections are unchanged and the K and V projections shrink by h/g.",
    "MQA 只减少了 K、V 投影的计算量，Q 投影和输出投影不变。",
]


@pytest.mark.parametrize("text", L4_FALSE)
def test_false_projection_claim_ticks_nothing(text):
    r = card_map()["mh-mqa-cost"].check(text)
    assert not r.covered and 0 not in r.hits, (r.covered, r.hits)


@pytest.mark.parametrize("text", L4_TRUE)
def test_correct_projection_claim_earns_point_0(text):
    r = card_map()["mh-mqa-cost"].check(text)
    assert 0 in r.covered and not r.stated, (r.covered, r.stated)
