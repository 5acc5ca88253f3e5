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

from checker_support import checker_tests, keypoint_tests

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
def _wrong(card: str, kps: list[int], *texts: str) -> None:
    """False statements (no myth need fire): none of ``kps`` covered."""
    for t in texts:
        NOT_COVERED.extend((card, t, k) for k in kps)


# new or newly attached myths
_false("flow-computation", [3], "The mask sets forbidden weights to zero after the softmax.")
_ticks("flow-computation", 3, "A mask, if any, sets forbidden scores to minus infinity before the softmax.", "Masked scores become -inf before the softmax.", "如有掩码，在 softmax 之前把不允许的位置设为负无穷。")
_false("flow-attention-sink", [3], "Evicting the sink tokens from the cache is harmless.", "从滑动窗口 KV cache 里丢掉 sink token 不会有影响。", "Dropping the first tokens from the cache does not matter.")
_true(
    "flow-attention-sink",
    "Evicting the sink tokens from the cache is not harmless: generation breaks.", "Evicting sink tokens from a sliding-window KV cache breaks streaming generation.",
    "丢掉 sink token 会让流式生成崩溃。", "Keeping the sink tokens in the cache is cheap and harmless.", "丢掉 sink token 不是没有影响的。",
)
_ticks(
    "flow-attention-sink", 3, "Evicting sink tokens from a sliding-window KV cache breaks streaming generation; keeping them fixes it.",
    "Evicting the sink tokens from a sliding-window cache breaks streaming generation.", "从滑动窗口 KV cache 里丢掉 sink token 会破坏流式生成，保留它们即可修复。",
)
_false("flow-pre-post-ln", [4], "Most modern LLMs use post-LN.", "现代大多数大模型用的是 post-LN。")
_true(
    "flow-pre-post-ln",
    "Most modern LLMs use pre-LN rather than post-LN.", "Most modern LLMs use pre-LN, often with RMSNorm.", "现代大模型大多用 pre-LN，而不是 post-LN。",
    "The original Transformer used post-LN.", "Post-LN needs a careful warm-up, so modern models moved to pre-LN.",
)
_ticks("flow-pre-post-ln", 4, "Most modern LLMs use pre-LN, often with RMSNorm.", "现代 LLM 大多用 pre-LN，常配合 RMSNorm。", "Modern LLMs mostly use pre-LN with RMSNorm.")
_false(
    "flow-what-is-transformer", [3],
    "Attention alone already knows the order of the tokens, so no positions are needed.", "注意力本身就感知顺序，不需要位置信息。",
    "Attention by itself captures the order of the sequence.",
)
_true(
    "flow-what-is-transformer",
    "Attention alone does not know the order of the tokens.", "注意力本身不感知顺序，所以要加位置信息。", "Attention by itself ignores order.",
    "Without positions, attention cannot know the order.", "Attention itself is permutation-equivariant, so it does not know the order.",
)
_ticks(
    "flow-what-is-transformer", 3,
    "Positional information is added (or, with RoPE, applied to queries and keys) because attention alone (without a causal mask) ignores order.",
    "Attention alone ignores the order of the tokens, so positions are added.", "注意力本身不感知顺序，所以要加入位置信息。",
)
_false(
    "mask-cross-attention", [3],
    "Cross-attention keys and values must be recomputed at every step.", "交叉注意力的 key 和 value 每一步都要重新计算。",
)
_true(
    "mask-cross-attention",
    "Cross-attention keys and values need not be recomputed at every step.", "Self-attention computes a new key and value at every step; cross-attention does not.",
    "交叉注意力的 key 和 value 不用每一步重新计算。", "Only the new token's self-attention keys are computed at each step.",
    "Nothing in cross-attention is recomputed at each step except the query.",
)
_ticks(
    "mask-cross-attention", 3,
    "The encoder output is fixed, so cross-attention keys and values are computed once and cached for all steps.",
    "Cross-attention keys and values are computed once from the fixed encoder output and cached.", "编码器输出固定，交叉注意力的 K、V 只算一次，所有步骤共用缓存。",
)
_false("scaling-why-sqrt-dk", [3], "A saturated softmax has large gradients.", "饱和的 softmax 梯度很大。")
_true(
    "scaling-why-sqrt-dk",
    "A saturated softmax has near-zero gradients, so training stalls.", "饱和的 softmax 梯度接近零，训练停滞。",
    "Large logits push the softmax towards a one-hot distribution whose gradients almost vanish.",
    "Large logits give a near one-hot softmax with tiny gradients.", "饱和的 softmax 梯度很小。",
)
_ticks("scaling-why-sqrt-dk", 3, "A saturated softmax has near-zero gradients, so training stalls.", "饱和的 softmax 梯度接近 0，训练停滞。", "Once the softmax saturates its gradients are near zero and training stalls.")
_false("scaling-softmax-gradient", [1], "For a nearly one-hot p the Jacobian entries are large.", "p 接近 one-hot 时雅可比矩阵的元素很大。")
_true(
    "scaling-softmax-gradient",
    "For a nearly one-hot p every entry of the Jacobian is close to zero.", "For a one-hot p the Jacobian entries are small.",
    "p 接近 one-hot 时雅可比的每个元素都接近 0。", "A saturated softmax has a Jacobian near zero.", "The Jacobian entries are large only for a flat p, not a one-hot one.",
)
_ticks("scaling-softmax-gradient", 1, "For a nearly one-hot p every entry of the Jacobian is close to zero.", "For a near one-hot p all Jacobian entries are close to zero.")
_false(
    "scaling-soft-capping", [2],
    "Dividing by √d_k bounds the logits throughout training, while the cap only acts at initialisation.",
)
_ticks(
    "scaling-soft-capping", 2, "Dividing by √d_k fixes the scale at initialisation, while the cap bounds the logits throughout training.",
    "除以 √d_k 只在初始化时固定尺度，soft-cap 在整个训练中限制 logit。", "The cap bounds the logits throughout training; √d_k only fixes the scale at initialisation.",
)
_false("mask-kv-cache", [0, 1], "The new token recomputes the keys and values of all past tokens.", "每一步新 token 都要重新计算所有过去 token 的 key 和 value。")
_true(
    "mask-kv-cache",
    "Without a KV cache, the new token recomputes the keys and values of all past tokens.", "The new token does not recompute the keys and values of past tokens.",
    "新 token 不用重新计算过去 token 的 key 和 value。", "The new token computes only its own keys and values.",
    "没有缓存时，新 token 要重新计算所有过去 token 的 key 和 value。",
)
_ticks("mask-kv-cache", 0, "Under a causal mask the keys and values of past tokens never change.", "因果掩码下过去 token 的 key 和 value 不会改变。")
_ticks("mask-kv-cache", 1, "Each layer caches past keys and values; the new token computes only its own q, k, v and appends k and v.")
_false("mask-kv-alignment", [1], "New query i may see key j iff j <= i.")
_true(
    "mask-kv-alignment",
    "New query i may see key j iff j <= i + p.", "New query i is at absolute position p + i and may see key j iff j <= i + p.",
    "With a top-left mask, new query i would see key j iff j <= i, which is the bug.", "In training, query i may see key j iff j <= i.",
    "新 query i 在绝对位置 p + i，只能看 j <= i + p 的 key。",
)
_ticks("mask-kv-alignment", 1, "New query i is at absolute position p + i and may see key j iff j <= i + p.", "New query i sits at absolute position p + i.")
_false("qkv-attention-vs-fc", [2], "注意力的权重是固定参数，对每个输入都一样。", "Attention weights are fixed parameters learned once.")
_true(
    "qkv-attention-vs-fc",
    "A fully connected layer's weights are fixed parameters.", "注意力的权重不是固定参数，而是由输入计算出来的。", "Attention weights are not fixed parameters; they are computed from the input.",
    "全连接层的权重是固定参数。", "The projections W_Q, W_K, W_V are fixed parameters after training, but the attention weights are not.",
)
_ticks("qkv-attention-vs-fc", 2, "Attention computes its weights from the input on every call, so they follow the content.", "注意力每次都根据输入计算权重，权重随内容变化。")

# exclusions in the contradicted key point's claims
_wrong("flow-stable-softmax", [3], "A fully masked row is fine and gives a uniform distribution.", "全被屏蔽的行没问题，会得到均匀分布。")
_ticks("flow-stable-softmax", 3, "A fully masked row has max minus infinity and gives NaN without special handling.", "A fully masked row gives NaN unless handled specially.", "整行都被屏蔽时最大值是负无穷，不特殊处理会得到 NaN。")
_wrong("flow-why-softmax", [0], "The weights can be negative and need not sum to 1.", "权重可以为负，也不必和为 1。")
_ticks("flow-why-softmax", 0, "The weights are non-negative and sum to 1, so the output is a weighted average.", "权重非负且和为 1，输出是加权平均。", "Softmax weights are positive and sum to one.")
_wrong("qkv-shared-qk", [0], "With W_Q = W_K the score matrix is asymmetric and can encode direction.", "W_Q = W_K 时分数矩阵不对称，可以表达方向。")
_ticks("qkv-shared-qk", 0, "With W_Q = W_K the score matrix is symmetric, so scores cannot encode direction.", "Sharing W_Q and W_K makes the score matrix symmetric.", "W_Q = W_K 时分数矩阵是对称的，无法表达方向。")
_wrong("scaling-why-sqrt-dk", [1], "The standard deviation grows like d_k.", "The standard deviation grows linearly in d_k.")
_ticks("scaling-why-sqrt-dk", 1, "The standard deviation grows like sqrt(d_k), so scores get large for wide heads.", "The standard deviation grows like √d_k.", "For wide heads the standard deviation of the scores gets large.")
_wrong("scaling-why-sqrt-dk", [2], "Large logits make the softmax more uniform.", "logit 很大时 softmax 变得更均匀。")
_ticks("scaling-why-sqrt-dk", 2, "Large logits saturate the softmax into a near one-hot distribution.", "Large logits make the softmax nearly one-hot.", "logit 很大时 softmax 饱和，接近 one-hot。")
_wrong("scaling-why-not-dk", [2], "Dividing by d_k gives a standard deviation of 1 and sharp attention.")
_ticks(
    "scaling-why-not-dk", 2,
    "For independent q and k, dividing by d_k overcorrects to a standard deviation of 1/sqrt(d_k), giving near-uniform attention and weak gradients.",
    "Dividing by d_k overcorrects: the attention becomes nearly uniform and the gradients weak.",
)
_wrong("scaling-learnable-temperature", [4], "With QK-norm no temperature is needed.", "用了 QK-norm 就不需要温度了。")
_ticks(
    "scaling-learnable-temperature", 4,
    "It is necessary when q and k are normalised (QK-norm, cosine attention) because bounded logits need a scale.",
    "With QK-norm a learnable temperature is necessary, because the logits are bounded.", "QK-norm 之后 logit 有界，必须有温度来放大尺度。",
)
_wrong("mh-mqa-gqa", [1], "MQA shares one query head among all key heads.")
_ticks("mh-mqa-gqa", 1, "MQA shares one key head and one value head among all query heads, shrinking the cache by a factor h.", "In MQA all query heads share a single key head and value head.", "MQA 让所有 query 头共享一个 key 头和一个 value 头。")
_wrong("mh-mqa-gqa", [2], "g = 1 is MHA and g = h is MQA.")
_ticks("mh-mqa-gqa", 2, "GQA uses g key-value heads, each shared by h/g query heads; g = h is MHA and g = 1 is MQA.", "g = h is MHA and g = 1 is MQA.", "g = 1 就是 MQA，g = h 就是 MHA。")
_wrong("mask-cross-attention", [0], "Queries come from the encoder output and keys from the decoder.")
_ticks("mask-cross-attention", 0, "Queries come from the decoder states; keys and values are projections of the encoder output.", "The queries come from the decoder, the keys and values from the encoder output.", "Q 来自解码器，K、V 来自编码器输出。")
_wrong("mask-torch-mha-masks", [4], "A key is hidden only if both masks hide it.")
_ticks("mask-torch-mha-masks", 4, "Both become additive masks and are added, so a key is hidden if either mask hides it.", "A key is hidden if either mask hides it.")
_wrong("mask-target-attention", [0], "The user's behaviours are the queries and the candidate item is the key.")
_ticks("mask-target-attention", 0, "The candidate item is the single query and the user's behaviours are the keys and values.", "The candidate item is the query; the behaviours are keys and values.", "候选物品是唯一的 query，用户行为是 key 和 value。")
_wrong("mask-cross-attention-multimodal", [3], "The tanh gates start at 1.", "tanh 门初始为 1。")
_ticks("mask-cross-attention-multimodal", 3, "The tanh gates start at 0, so at initialisation the model equals the frozen language model.", "The tanh gates are initialised at zero.", "tanh 门初始为 0，所以初始化时模型等于冻结的语言模型。")

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, (), reason="none open")


test_false_statement_earns_no_key_point, test_correct_statement_still_ticks = keypoint_tests(
    [(c, k, t) for c, t, k in NOT_COVERED], [(c, k, t) for c, t, k in COVERED]
)
