"""Review round 10 of chapters 01-05 (reviews/2026-12-02/s8-r10-ch01-05.md): M6 and M7, at pattern level.

M6: false statements of myths the cards already track were missed and earned the key point the myth blocks; each
form is now a pattern of its myth. M7: false statements no tracked myth covered earned the key point they
contradict; the plausible interview mistakes are new registry myths (or existing ones attached to more cards) with
`blocks`, the rest `!` exclusions in the key point's claims.

FLAGGED: the reviewer's sentences and a second form of each. NOT_FLAGGED: correct statements near each new pattern
(EN and 中文). NOT_COVERED: (card, false sentence, key point) that must not tick. COVERED: the key point's own
correct statements (key-point text, paraphrases) that must still tick.
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests

FLAGGED: list[tuple[str, str]] = []
NOT_FLAGGED: list[tuple[str, str]] = []
NOT_COVERED: list[tuple[str, str, int]] = []
COVERED: list[tuple[str, str, int]] = []


def _false(card: str, kps: list[int], *texts: str) -> None:
    """Myth forms: flagged, and none of ``kps`` covered."""
    for t in texts:
        FLAGGED.append((card, t))
        NOT_COVERED.extend((card, t, k) for k in kps)


def _true(card: str, *texts: str) -> None:
    NOT_FLAGGED.extend((card, t) for t in texts)


def _ticks(card: str, kp: int, *texts: str) -> None:
    COVERED.extend((card, t, kp) for t in texts)


# ---------------------------------------------------------------- M6
_false("flow-computation", [2], "先 softmax 再除以 √d_k 也是一样的。", "先 softmax 后缩放也一样。", "先做 softmax 再除以 √d_k 也没区别。")
_true(
    "flow-computation",
    "先 softmax 再除以 √d_k 是不一样的。", "先除以 √d_k 再做 softmax，顺序不能反。", "先 softmax 再缩放，结果就错了。",
    "必须先除以 √d_k 再做 softmax，先 softmax 后缩放是错的。", "Taking the softmax first and then dividing by √d_k is not the same.", "先 softmax 再缩放会破坏分布的尖锐程度。",
    "Divide by √d_k first, then take the softmax.",
)
_false("flow-softmax-axis", [1, 3], "列的和也必须为 1。", "每一列的和也是 1。", "The columns must sum to 1 as well.")
_true(
    "flow-softmax-axis",
    "行的和为 1，列的和不一定为 1。", "列的和不必为 1。", "列的和也不受约束。", "Columns need not sum to 1 too.",
    "只有行和为 1，列和可以是任意值。", "列的和也可以大于 1。",
)
_ticks("flow-softmax-axis", 1, "每一行是和为 1 的概率分布。", "Each row is a probability distribution that sums to 1.", "每行的和为 1。")
_false("flow-attention-dropout", [2], "训练时每行和仍然严格为 1。", "训练时每行的和还是 1。", "During training every row still sums to exactly 1.")
_true(
    "flow-attention-dropout",
    "训练时每行和不再是 1，只是期望为 1。", "推理时每行和仍然为 1。", "In training the rows still sum to 1 on average.",
    "训练时每行和在期望上仍为 1。", "During training the rows no longer sum to exactly 1, only in expectation.", "训练时每行和不一定还是 1。",
)
_false(
    "scaling-qk-norm", [1, 3],
    "The sqrt(d_k) scaling controls the logits throughout training.", "Dividing by √d_k keeps the logits bounded throughout training.",
)
_false("scaling-qk-norm", [1], "√d_k 缩放在整个训练中都能控制 logit。", "√d_k 缩放始终能控制住 logit。")
_true(
    "scaling-qk-norm",
    "The sqrt(d_k) scaling controls the logits only at initialisation.", "√d_k 缩放只在初始化时控制 logit，训练中权重会变大。",
    "The √d_k scaling does not control the logits throughout training.", "√d_k 缩放并不能在整个训练中控制 logit。",
    "With QK-norm on top of the √d_k scaling, the logits stay bounded throughout training.",
    "The sqrt(d_k) factor controls the logits at the start, not throughout training.", "√d_k 只管初始化，QK-norm 才在整个训练中控制 logit。",
)
_ticks("scaling-qk-norm", 1, "The sqrt(d_k) scaling only controls the logits at initialisation; weights can grow during training.")
_false("scaling-soft-capping", [3], "It is not monotone, so the arg-max can change.", "tanh is not monotonic, so the top key can change.", "tanh 不是单调的，所以 arg-max 会变。")
_true(
    "scaling-soft-capping",
    "It is monotone, so the order and arg-max are kept.", "Hard clipping is monotone too, but not smooth.",
    "Soft-capping never breaks monotonicity.", "It does not change the order because tanh is monotone.", "tanh 是单调的，不会改变顺序。",
    "It is not only monotone but also smooth.", "tanh 不仅单调，而且光滑。",
)
_false("mh-why-multi-head", [3], "d_k = d_model / h multiplies the FLOPs by h.", "Using h heads multiplies the compute by h.", "多头把计算量乘以 h 倍。")
_true(
    "mh-why-multi-head",
    "h heads multiply the softmax cost by h.", "Without shrinking d_k, h heads would multiply the FLOPs by h.",
    "d_k = d_model / h does not multiply the FLOPs by h.", "With d_k = d_model / h, more heads do not multiply the matmul FLOPs by h.",
    "逐元素的 softmax 计算量乘以 h 倍，矩阵乘法不变。", "d_k = d_model / h 不会让计算量变成 h 倍。",
)
_ticks("mh-why-multi-head", 3, "d_k = d_model / h keeps parameters and matmul FLOPs equal to one head of width d_model.")
_false("mh-mqa-cost", [1], "The score and weighted-sum FLOPs shrink by h/g.", "MQA cuts the score FLOPs by a factor h.")
_false("mh-mqa-cost", [1, 2], "分数和加权求和的计算量缩小 h/g 倍。", "GQA 让分数计算量减少了 h/g 倍。")
_true(
    "mh-mqa-cost",
    "The score and weighted-sum FLOPs, 2 n^2 h d_k each, are unchanged.", "分数和加权求和的计算量各为 2 n² h d_k，不变。",
    "The score FLOPs do not shrink; only the KV cache shrinks by h/g.", "分数的计算量没有减少，缩小的是 KV cache。",
    "MQA shrinks the KV cache by h/g, not the score FLOPs.", "KV cache 缩小 h/g 倍，分数计算量不变。",
)
_ticks("mh-mqa-cost", 2, "The KV cache shrinks by a factor h/g.", "KV cache 缩小 h/g 倍。", "MQA shrinks the KV cache by h/g, not the score FLOPs.")
_false(
    "mh-split-heads", [3],
    "Reshaping directly to (B, h, n, d_k) without the transpose is fine.", "不转置直接 reshape 成 (B, h, n, d_k) 也没问题。",
    "A reshape with no transpose works fine.", "不转置直接 reshape 也可以。",
)
_true(
    "mh-split-heads",
    "不转置直接 reshape 是不可以的。", "不转置直接 reshape 会有问题。", "Reshaping without the transpose is not fine.",
    "不转置的 reshape 是错的。", "Reshape to (B, n, h, d_k), then transpose; that is correct.",
    "Without the transpose the reshape is never correct.", "不转置就 reshape 是不对的。",
    "Without the transpose, reshaping to (B, h, n, d_k) does not work.",
)
_ticks("mh-split-heads", 3, "Reshaping directly to (B, h, n, d_k) without the transpose silently mixes positions.", "不转置直接 reshape 成 (B, h, n, d_k) 会悄悄混淆位置。")
_false(
    "mh-differential-attention", [1],
    "The weights are still a distribution and each row sums to 1.", "差分注意力的每行仍然和为 1。", "Each row still sums to 1.", "每行加起来还是 1。",
)
_true(
    "mh-differential-attention",
    "The weights are no longer a distribution, rows sum to 1 minus lambda and weights can be negative.",
    "Each of the two maps still has rows that sum to 1, but their difference does not.",
    "Each softmax map still sums to 1 per row; the difference sums to 1 minus lambda.",
    "Rows no longer sum to 1; they sum to 1 minus lambda.", "每行和不再是 1，而是 1 减 λ。", "两个 softmax 图各自的每行和仍为 1，相减之后就不是了。",
)
_false(
    "mask-masked-attention", [1, 4],
    "It can be applied after the softmax by zeroing the weights.", "You can implement the mask after the softmax by zeroing the future weights.",
    "掩码也可以在 softmax 之后通过把权重置零来实现。",
)
_true(
    "mask-masked-attention",
    "After the softmax, the masked weights are exactly zero.",
    "The mask is applied before the softmax, so the weights of future positions are zero after it.",
    "Zeroing the weights after the softmax would leave rows that no longer sum to 1.",
    "掩码在 softmax 之前加，softmax 之后被屏蔽的权重恰好为 0。", "It cannot be applied after the softmax by zeroing weights.",
    "Applying it after the softmax by zeroing weights is wrong.",
)
_false(
    "mask-kv-cache", [3],
    "The output differs from full causal attention.", "KV cache 的输出和完整的因果注意力不一样。",
    "KV caching gives different outputs from full causal attention.", "用了 KV cache，结果和完整因果注意力不同。",
)
_true(
    "mask-kv-cache",
    "The output matches full causal attention up to rounding.", "The output differs from full causal attention only by floating-point rounding.",
    "KV cache 的输出和完整的因果注意力只差浮点舍入误差。", "输出和完整的因果注意力没有区别。", "The output does not differ from full causal attention.",
    "The outputs differ from full causal attention only in the summation order's rounding.",
)
_ticks("mask-kv-cache", 3, "The output equals full causal attention up to floating-point rounding.", "输出和完整的因果注意力在浮点舍入误差范围内相同。")
_false(
    "mask-cross-attention-multimodal", [1, 4],
    "In Stable Diffusion the text tokens query the image latents.", "In diffusion models the text queries the image.",
    "Stable Diffusion 里文本 token 去查询图像潜变量。",
)
_true(
    "mask-cross-attention-multimodal",
    "The image latents query the text tokens.", "In Stable Diffusion the image latents query the text tokens.",
    "In Flamingo the text queries the image features.", "图像潜变量去查询文本 token。",
    "Flamingo inserts gated cross-attention layers into a frozen language model, text querying visual tokens.",
)
_ticks("mask-cross-attention-multimodal", 4, "LLaVA uses no cross-attention, concatenating projected image tokens with the text for self-attention.", "LLaVA 不用交叉注意力，而是把投影后的图像 token 与文本拼接做自注意力。")
_false(
    "mask-target-attention", [2, 4],
    "DIN uses a softmax over the behaviours so the weights sum to 1.", "DIN 对行为用 softmax，权重和为 1。",
)
_false("mask-target-attention", [4], "DIN applies a softmax to the activation-unit scores.")
_true(
    "mask-target-attention",
    "Unlike a Transformer, DIN uses no softmax.", "DIN uses the raw scores without a softmax.", "DIN does not use a softmax.",
    "DIN 不用 softmax，直接用原始分数加权。", "DIN uses a small network instead of a softmax over dot products.",
    "DIN's released code uses a softmax in one variant, but the paper drops it.",
)
_ticks("mask-target-attention", 2, "Self-attention lets every behaviour attend to the others, with one query per behaviour.", "自注意力里每个行为都关注其他行为，每个行为一个 query。")
_false(
    "mask-fully-masked-row", [4],
    "Just fill with -1e9 instead of -inf and the NaN problem is solved.", "用 -1e9 代替 -inf 就能解决 NaN 问题。", "Using -1e9 fixes the NaN problem.",
)
_true(
    "mask-fully-masked-row",
    "-1e9 solves the NaN problem, but the row averages over forbidden keys.", "用 -1e9 能解决 NaN，但这一行变成了对被禁止 key 的均匀平均。",
    "-1e9 removes the NaN but the row now averages over keys it was forbidden to see.",
    "-1e9 instead of -inf fixes the NaN, but the row then averages uniformly over forbidden keys.",
    "-1e9 代替 -inf 只是让 NaN 没了，结果变成对被禁止 key 的平均。",
)
_ticks("mask-fully-masked-row", 4, "A large finite negative value avoids NaN but gives a uniform average over forbidden keys.")

# ---------------------------------------------------------------- M7
# (filled below)

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, (), reason="none open")


@pytest.mark.parametrize("card, text, kp", NOT_COVERED)
def test_false_statement_earns_no_key_point(card, text, kp):
    result = card_map()[card].check(text)
    assert kp not in result.covered, f"{text!r} earns key point {kp} ({result.hits.get(kp)!r})"


@pytest.mark.parametrize("card, text, kp", COVERED)
def test_correct_statement_still_ticks(card, text, kp):
    result = card_map()[card].check(text)
    assert kp in result.covered, f"{text!r} misses key point {kp} (stated {list(result.stated.values())})"
