"""Review round 10 of chapters 06-09 (reviews/2026-12-03/s9-r10-ch06-09.md): M1-M20, at pattern and claim level.

M1: a myth followed by an unrelated "but/though/only ..." clause is flagged again (plain `!!` qualifiers no
longer hold forward); the corrections the myth sets against its own claim are spared by narrow `!!>` groups.
M2: "It isn't a myth that X" / "说X并不是误解" affirm X; the myths' old `!not | 不是` exclusions are narrowed to the
negations of their own claim. M3: plain forms of registry myths. M4-M18: false alarms of pattern lines without a
subject or an exclusion. M19: reversed central contrasts must not tick the key point they contradict. M20: the
short answer's own statement of a key point ticks it.

FLAGGED: myth forms. NOT_FLAGGED: correct statements (the reviewer's and near misses, EN and 中文).
NOT_COVERED: (card, false sentence, key point) that must not tick. COVERED: correct statements that must tick.
"""

from __future__ import annotations

from checker_support import checker_tests, keypoint_tests

FLAGGED: list[tuple[str, str]] = []
NOT_FLAGGED: list[tuple[str, str]] = []
NOT_COVERED: list[tuple[str, str, int]] = []
COVERED: list[tuple[str, str, int]] = []


def _myth(card: str, *texts: str) -> None:
    FLAGGED.extend((card, t) for t in texts)


def _true(card: str, *texts: str) -> None:
    NOT_FLAGGED.extend((card, t) for t in texts)


def _wrong(card: str, kps: list[int], *texts: str) -> None:
    """False statements that must earn none of ``kps``."""
    for t in texts:
        NOT_COVERED.extend((card, t, k) for k in kps)


def _ticks(card: str, kp: int, *texts: str) -> None:
    COVERED.extend((card, t, kp) for t in texts)


# ---------------------------------------------------------------- M1 (the reviewer's fwd.py probes)
_myth(
    'cx-time-space',
    'Attention is always the most expensive part of a Transformer, but long sequences are rare in chat.',
    'Attention is always the most expensive part of a Transformer, but d_model is usually 4096.',
    'Attention is always the most expensive part of a Transformer, but beyond that it is elegant.',
    'Attention always dominates the cost, but a large n is common in practice.',
    '注意力永远是 Transformer 最贵的部分，但长上下文的应用越来越多。',
    '注意力永远是 Transformer 最贵的部分，但是 d_model 通常是 4096。',
    'Attention is always the most expensive part of a Transformer, though very long prompts are rare.',
    'FlashAttention reduces the O(n^2) compute, but causal models benefit most.',
    'FlashAttention reduces the O(n^2) compute, but it is only used for causal language models.',
    'FlashAttention 降低了 O(n²) 的计算量，但主要用于因果语言模型。',
    'Self-attention needs O(n^2) memory no matter what, but naive code is easy to write.',
)
_myth(
    'cx-flashattention',
    'FlashAttention reduces the O(n^2) compute, but causal masking also matters.',
    'FlashAttention is an approximation, but sparse attention is even rougher.',
    'FlashAttention is an approximation, but Performer and Linformer are worse.',
    'FlashAttention 是近似方法，但稀疏注意力更粗糙。',
    'FlashAttention reduces the O(n^2) compute, but it needs less HBM too.',
    'FlashAttention reduces the O(n^2) compute, but it also saves memory.',
    'FlashAttention 降低了 O(n²) 的计算量，但也省显存。',
)
_myth(
    'cx-online-softmax',
    'Blockwise softmax is an approximation because each block is normalised separately, but random inputs make the error small.',
    '分块 softmax 因为每块单独归一化所以是近似，但随机输入下误差很小。',
    'Online softmax is an approximation, only the error is random.',
)
_myth(
    'cx-kv-cache-memory',
    'The cache size depends on the number of query heads, but the keys are the same for every request.',
    'The cache size depends on the number of query heads, but MHA is still the default.',
    'The cache size depends on the number of query heads, but it can be shared across requests.',
    'The cache size depends on the number of query heads, but GQA helps.',
    'More query heads mean a bigger KV cache, but GQA is common now.',
    'cache 大小取决于 query 头数，但 GQA 很常用。',
    'query 头越多，KV cache 就越大，但多头注意力仍是默认做法。',
    'More query heads mean a bigger KV cache, though prefix caching can share it.',
)
_myth(
    'cx-sparse-linear',
    'Linear attention computes the same result as softmax attention, but the speedup grows with n.',
    'Performer computes exactly the same result as softmax attention, but it uses random features that grow the code size.',
    'Performer gives exactly the same output as softmax attention, but more features cost more memory.',
    'Performer 和 softmax 注意力的结果完全一样，但随机特征越多越慢。',
)
_myth(
    'dva-variants',
    'Scaled dot-product attention has no parameters, so it is less expressive than general attention, but Luong proposed general attention.',
    'Scaled dot-product attention is less expressive than general attention, but raw speed matters more.',
    '缩放点积注意力没有参数，所以表达能力比 general 注意力弱，但 Luong 的论文里 general 更好。',
)
_myth(
    'rnn-inference-cost',
    'Transformers are faster than RNNs at everything, but only if you have GPUs.',
    'Transformers are faster than RNNs at everything, only the memory is a problem.',
)
_myth(
    'rnn-why-attention',
    'Attention is cheaper than an RNN, but only slightly.',
    'Attention is cheaper than an RNN, but LSTMs are still used.',
)
_myth(
    'bias-alibi',
    'ALiBi slopes are learned, but later models dropped ALiBi.',
    'ALiBi slopes are learned, but they are fixed after training.',
)
_myth(
    'dva-dot-vs-additive',
    'Dot-product attention has a lower complexity than additive attention, but GPUs make the gap bigger in practice.',
    'Dot-product attention has a lower complexity than additive attention, and on hardware it is also faster.',
)
_myth(
    'cx-long-context-memory',
    'Long-context inference is limited by the n by n matrix, but training is limited too.',
    'Long-context inference is limited by the n by n matrix, but without a GPU nothing runs.',
)
_myth(
    'cx-dynamic-sparse',
    'MoBA computes the same result as full attention, but only the selected blocks are read.',
    'Learned sparse attention such as MoBA computes the same result as full attention, but it is only used in long-context models.',
)
_myth(
    'cx-long-inputs-encoder',
    'Sliding chunks give every token the whole document as context, but only BERT-sized models use them.',
    'Sliding chunks give every token the whole document as context, though each chunk is encoded on its own GPU.',
)
_myth(
    'rnn-positional-information',
    'Self-attention is permutation-invariant, but pooling is still common.',
    'Self-attention is permutation-invariant, but it becomes expensive for long inputs.',
)
_myth(
    'bias-t5-buckets',
    'T5 learns a separate bias for every pair of positions, but the buckets are shared across heads.',
)
_true(
    'cx-time-space',
    'Attention always dominates the cost, but only for long sequences.',
    'Attention is always the most expensive part, but only beyond 6 d_model.',
    'FlashAttention reduces the compute, but only by skipping the masked blocks in causal attention.',
)
_true(
    'cx-kv-cache-memory',
    'More query heads mean a bigger KV cache, but only in MHA, where each query head has its own KV head.',
    'More query heads mean a bigger KV cache, but not with GQA, where the KV heads stay unchanged.',
)
# corrections the myth sets against its own claim ("!!>" groups)
_true(
    'cx-time-space',
    "注意力永远是 Transformer 最贵的部分，但只在长上下文时如此。",
    "Attention always dominates the cost, but only when n is above 2 d_model.",
    "Attention is always the most expensive part, but only at long context.",
)
_true(
    'cx-kv-cache-memory',
    "More query heads mean a bigger KV cache, but only with MHA.",
    "More query heads mean a bigger KV cache, but not in GQA.",
)
_myth(
    'cx-time-space',
    "Attention is always the most expensive part of a Transformer, but only people who use GPUs care.",
    "Attention always dominates the cost, but only a few papers say so.",
)
_myth('cx-kv-cache-memory', "More query heads mean a bigger KV cache, but only a few models use many heads.")

# ---------------------------------------------------------------- M2
_myth(
    'cx-long-inputs-encoder',
    "It isn't a myth that sliding chunks give every token the whole document as context.",
    "It is not a myth that sliding chunks give every token the whole document as context.",
    "It isnt a myth that sliding chunks give every token the whole document as context.",
    "It's not wrong to say that sliding chunks give every token the whole document as context.",
    "说滑动块让每个 token 都看到整篇文档作为上下文并不是误解。",
)
_true(
    'cx-long-inputs-encoder',
    "Sliding chunks do not give every token the whole document as context.",
    "Sliding chunks don't let every token see the whole document.",
    "Not every token sees the whole document with sliding chunks.",
    "Each token does not see the whole document.",
    "With sliding chunks, each token's context is not the whole document.",
    "滑动块并不让每个 token 都看到整篇文档。",
    "不是每个 token 都能看到整篇文档。",
    "滑动块不是让每个 token 看到整篇文档，而是只看到所在块。",
    "It is a myth that sliding chunks give every token the whole document as context.",
)
_myth(
    'cx-dynamic-sparse',
    "It isn't a myth that learned sparse attention such as MoBA or DSA computes the same result as full attention, like FlashAttention.",
    "It is not a myth that learned sparse attention such as MoBA or DSA computes the same result as full attention, like FlashAttention.",
    "It isnt a myth that MoBA is exact.",
    "It's not wrong to say that learned sparse attention such as MoBA or DSA computes the same result as full attention, like FlashAttention.",
    "说MoBA、DSA 这类可学习的稀疏注意力和 FlashAttention 一样，结果与完整注意力相同并不是误解。",
)
_true(
    'cx-dynamic-sparse',
    "MoBA does not compute the same result as full attention.",
    "MoBA is not exact.",
    "MoBA's output is not the same as full attention's.",
    "DSA is not lossless: it can miss keys.",
    "MoBA 的结果和完整注意力不一样。",
    "MoBA 不是精确的。",
    "MoBA 的输出不等于完整注意力的输出。",
)
_myth(
    'rnn-seq2seq-bottleneck',
    "It isn't a myth that Bahdanau attention gives the decoder one context vector for the whole sentence, computed once.",
    "It is not a myth that Bahdanau attention gives the decoder one context vector for the whole sentence, computed once.",
    "It's not wrong to say that Bahdanau attention gives the decoder one context vector for the whole sentence, computed once.",
    "说Bahdanau 注意力给解码器整个句子一个只算一次的上下文向量并不是误解。",
)
_true(
    'rnn-seq2seq-bottleneck',
    "Bahdanau attention does not compute the context once.",
    "In Bahdanau attention the context is not computed once; it is recomputed at every step.",
    "Bahdanau attention does not use the same context vector at every step.",
    "Bahdanau attention never uses one context vector for the whole sentence.",
    "Bahdanau attention does not give one context for the whole sentence.",
    "Bahdanau 注意力不是只算一次上下文。",
    "Bahdanau 注意力的上下文不是同一个。",
)

# ---------------------------------------------------------------- M3
_myth(
    'rnn-seq2seq-bottleneck',
    "With Bahdanau attention the decoder sees one fixed context vector, computed once.",
    "Bahdanau attention computes one fixed context vector once.",
)
_true(
    'rnn-seq2seq-bottleneck',
    "In plain seq2seq the context is computed once, before decoding.",
    "Bahdanau attention computes the encoder annotations once, before decoding, and the context at every step.",
    "In seq2seq without attention, one fixed context vector is computed once.",
    "Bahdanau 注意力每一步都重新算一个上下文向量，而不是固定的一个。",
    "Bahdanau attention does not compute one fixed context vector.",
)
_myth('rnn-complexity', "Attention uses fewer FLOPs than a vanilla RNN.", "Attention needs fewer FLOPs than a plain RNN.")
_myth('rnn-why-attention', "Attention needs fewer FLOPs than a plain RNN.", "Attention uses fewer FLOPs than a vanilla RNN.")
_true(
    'rnn-complexity',
    "A vanilla RNN needs fewer FLOPs than attention.",
    "Attention uses fewer FLOPs than a vanilla RNN only when n < d.",
    "Attention is cheaper in wall-clock time than a plain RNN on a GPU.",
    "Attention does not use fewer FLOPs than a vanilla RNN at long context.",
    "普通 RNN 的计算量比注意力小。",
)
_myth(
    'rnn-positional-information',
    "Self-attention is invariant to the order of its inputs.",
    "自注意力对输入顺序是不变的。",
    "Shuffling the tokens does not change self-attention's outputs.",
    "Reordering the inputs leaves self-attention's outputs unchanged.",
    "打乱输入后自注意力的输出不变。",
)
_true(
    'rnn-positional-information',
    "Self-attention is not invariant to the order of its inputs; it is equivariant.",
    "Self-attention with pooling is invariant to the order of its inputs.",
    "For a single query, attention is invariant to the order of the keys.",
    "Shuffling the keys and values together does not change a query's output.",
    "Shuffling the keys and values leaves a query's attention output unchanged.",
    "Shuffling the tokens permutes self-attention's outputs in the same way.",
    "Shuffling the inputs does not change the set of self-attention's outputs.",
    "Reordering the inputs leaves the set of self-attention's outputs unchanged.",
    "With a causal mask, self-attention is no longer invariant to order.",
    "自注意力对输入顺序是等变的，不是不变的。",
    "打乱输入顺序，自注意力的输出也跟着同样打乱。",
    "Self-attention is permutation-equivariant: reordering the inputs reorders the outputs.",
)
_myth(
    'cx-flashattention',
    "FlashAttention is faster because it does less computation.",
    "FlashAttention trades a little accuracy for speed.",
    "FlashAttention 牺牲一点精度换速度。",
)
_true(
    'cx-flashattention',
    "FlashAttention is faster because it does less memory traffic.",
    "FlashAttention is faster because it reads less from HBM.",
    "FlashAttention does not trade accuracy for speed.",
    "FlashAttention with FP8 trades a little accuracy for speed.",
    "FlashAttention trades extra compute for less memory traffic.",
    "FlashAttention loses no accuracy.",
    "Unlike approximate methods, FlashAttention does not trade accuracy for speed.",
    "FlashAttention 没有牺牲精度。",
    "FlashAttention is faster, though it does more computation in the backward pass.",
)
_myth(
    'cx-time-space',
    "You cannot avoid O(n^2) memory in self-attention.",
    "You can't avoid quadratic memory in attention.",
    "注意力的 O(n²) 显存无法避免。",
)
_true(
    'cx-time-space',
    "You cannot avoid O(n^2) memory in a naive implementation.",
    "You cannot avoid O(n^2) compute in self-attention.",
    "Nobody said you cannot avoid O(n^2) memory.",
    "With tiling you can avoid the O(n^2) memory.",
    "O(n^2) memory is avoidable with FlashAttention.",
    "注意力的 O(n²) 显存是可以避免的。",
    "朴素实现的 O(n²) 显存无法避免。",
)
_myth(
    'rnn-drawbacks',
    "Attention wastes compute on short inputs.",
    "Self-attention is inefficient for short sequences.",
    "Attention is wasteful on short sequences.",
    "Attention is wasteful for short sequences.",
)
_true(
    'rnn-drawbacks',
    "Self-attention is inefficient for long sequences.",
    "Self-attention is not inefficient for short sequences.",
    "For short sequences, the FFN is where the compute goes, so attention is not wasteful.",
    "Attention wastes little compute on short inputs.",
    "Padding wastes compute for short sequences.",
    "Padding is wasteful for short sequences in a batch.",
    "短序列要填充到同样长度，会浪费计算。",
)
_myth('bias-mask-conventions', "In every PyTorch API True means the position is masked.", "所有接口里 True 都表示屏蔽。")
_true(
    'bias-mask-conventions',
    "In every PyTorch API a float mask is added to the scores.",
    "Not every PyTorch API uses True for masked.",
    "In nn.MultiheadAttention True means masked for both attn_mask and key_padding_mask.",
    "不是所有接口里 True 都表示屏蔽。",
    "In F.scaled_dot_product_attention True means the position may attend.",
)
_myth('bias-k-bias-redundant', "query 和 key 的偏置都会被 softmax 抵消。", "The query bias and the key bias both cancel.")
_true(
    'bias-k-bias-redundant',
    "只有 key 的偏置会被抵消，query 的偏置不会。",
    "query 和 key 的偏置并不都会被抵消。",
    "Only the key bias cancels; the query bias does not.",
    "The query bias and key bias do not both cancel.",
    "Both a constant row bias and b_K cancel in the softmax.",
)
_myth('bias-rope-alibi', "RoPE is an additive position embedding at the input.")
_true(
    'bias-rope-alibi',
    "RoPE is not an additive position embedding; it rotates q and k.",
    "Unlike sinusoidal additive position embeddings, RoPE rotates q and k.",
    "RoPE replaces additive position embeddings.",
    "RoPE 不是加性的位置编码。",
    "ALiBi is an additive bias on the scores, and RoPE is a rotation.",
)
_myth('dva-variants', "Scaled dot-product attention has no learned parameters, so general attention is more expressive.")
_true(
    'dva-variants',
    "General attention is more expressive than Luong's raw dot score.",
    "General attention is more expressive than a dot product without projections.",
    "General attention is not more expressive than scaled dot-product attention with per-head projections.",
    "General attention is more expressive than dot attention on raw encoder states.",
    "With per-head projections, general attention is not more expressive than scaled dot-product attention.",
)
_myth(
    'rnn-inference-cost',
    "Transformers beat RNNs in speed in every setting.",
    "A Transformer is faster than an RNN at both training and inference, at any length.",
)
_true(
    'rnn-inference-cost',
    "Transformers are not faster than RNNs in every setting.",
    "Transformers train faster than RNNs, but RNNs are cheaper per generated token at long context.",
    "A Transformer is not faster than an RNN at both training and inference.",
    "Transformers train faster than RNNs because training is parallel.",
    "Transformer 训练比 RNN 快，但长上下文时每步生成比 RNN 慢。",
)
_myth('bias-t5-buckets', "T5 learns one bias per relative position.", "T5 为每个相对位置学一个偏置。")
_true(
    'bias-t5-buckets',
    "T5 learns one bias per relative position bucket.",
    "T5 learns one bias per bucket, not per relative position.",
    "T5 does not learn one bias per relative position; nearby offsets get their own, far ones share.",
    "T5 每个头为每个相对距离桶学一个偏置。",
    "T5 learns one bias per head per distance class.",
)

# ---------------------------------------------------------------- M4-M18 (the reviewer's post.py sentences)
_true(
    'dva-additive-scaling',
    'Like dot-product attention, additive attention also scales as O(n^2 d).',
    'Additive attention also scales quadratically with the sequence length.',
    '加性注意力的开销也随序列长度平方缩放。',
)
_true(
    'dva-cost',
    'The projection cost is linear in length; the key pair work is quadratic.',
    'After the projection, each query-key pair only needs an add and a tanh.',
    'Projection is per vector, and each query-key pair then costs d_a additions.',
    '投影之后，每个 key 对只需要加法和 tanh。',
)
_true(
    'bias-alibi',
    'ALiBi replaces learned position embeddings with fixed slopes.',
    "Unlike T5's learned buckets, ALiBi's slopes are fixed.",
    'ALiBi 用固定斜率代替可学习的位置嵌入。',
)
_true(
    'cx-time-space',
    'For short sequences the FFN always dominates the cost.',
    'At chat-length prompts the feed-forward layers always dominate the FLOPs.',
    'For short inputs the FFN is always the most expensive part of the block.',
    '短序列时 FFN 总是占主导。',
    'Unfused attention must materialise O(n^2) memory.',
    'Eager PyTorch attention always uses O(n^2) memory.',
    'FlashAttention must still store the n by d output matrix and the softmax statistics.',
    'FlashAttention 仍然必须存输出矩阵和每行的统计量。',
    'The compute is always O(n^2); the memory need not be.',
    'FlashAttention lowers the runtime of the computation by keeping tiles on chip.',
    'FlashAttention cuts the time of the attention computation by 2 to 4 times.',
    'FlashAttention-2 reduces the non-matmul FLOPs by tweaking the online softmax.',
    'FlashAttention-2 减少了非矩阵乘法的 FLOPs。',
    'FlashAttention makes memory linear and leaves the compute time quadratic.',
    "FlashAttention's extra memory is linear in n and its compute time is quadratic.",
)
_true(
    'cx-flashattention',
    'FlashAttention-2 reduces the non-matmul FLOPs by tweaking the online softmax.',
    'FlashAttention cuts the time of the attention computation by 2 to 4 times.',
    'FlashAttention can be combined with sparse attention patterns.',
    'FlashAttention also has a block-sparse variant.',
    'Whereas sparse attention approximates, FlashAttention is exact.',
    'Sliding-window attention is an approximation of full attention; FlashAttention is not.',
    'Linear attention is an approximation of softmax attention; FlashAttention is not.',
    'FlashAttention makes memory linear and leaves the compute time quadratic.',
)
_true(
    'rnn-why-attention',
    '注意力比 RNN 更少出现梯度消失。',
    '注意力的最大路径长度比 RNN 小。',
    'RNN 的计算量比注意力小。',
    '一层普通 RNN 的计算量比注意力少。',
    'A vanilla RNN layer needs fewer FLOPs than an attention layer.',
    'An RNN is cheaper in FLOPs than attention.',
)
_true(
    'rnn-complexity',
    'RNN 的计算量比注意力小。',
    '一层普通 RNN 的计算量比注意力少。',
    "An RNN's memory at inference is O(d), and each step costs O(d^2).",
    'RNN 推理时显存 O(d)，每步计算 O(d²)。',
    'An RNN needs O(d^2) memory for its weights and O(d) for its state.',
)
_true(
    'rnn-drawbacks',
    'Padding is wasteful for short sequences in a batch.',
    'Padding wastes compute for short sequences.',
)
_true(
    'rnn-seq2seq-bottleneck',
    'Bahdanau attention computes the encoder annotations once, and the context at every step.',
    'With attention, the encoder runs once, and a new context is formed at each decoder step.',
    'In Bahdanau attention the context is computed once per decoder step.',
    'In Bahdanau attention each context vector has the same dimension as the encoder states.',
    'Bahdanau 注意力的上下文向量与编码器状态维度相同。',
)
_true(
    'cx-online-softmax',
    'In bf16 the result is only approximately equal to the fp32 softmax.',
    '用 bf16 时结果只是近似相等。',
    'Without the rescaling the result would only be an approximation.',
    'Blockwise softmax gives the exact softmax rather than an approximation.',
    '分块 softmax 得到的是精确结果而非近似。',
    'Blockwise softmax is exact, not an approximation.',
)
_true(
    'bias-mask-conventions',
    'key_padding_mask is True at all padded positions, which are masked.',
    'An all-True mask in SDPA masks nothing.',
    '在 MHA 的 attn_mask 和 key_padding_mask 里，True 都表示屏蔽。',
    'In nn.MultiheadAttention, True means masked for both attn_mask and key_padding_mask.',
    'Float masks have the same meaning in SDPA and nn.MultiheadAttention.',
    'A float mask means the same in every PyTorch API: it is added to the scores.',
)
_true(
    'cx-kv-cache-memory',
    'Attention FLOPs grow with the number of query heads.',
    'The number of query heads determines the compute, not the cache.',
    'For a fixed cache size, GQA lets you use more query heads.',
    'The size of the output projection depends on the number of query heads.',
)
_true(
    'dva-dot-vs-additive',
    'Dot-product attention has a lower memory complexity than vectorised additive attention.',
    'Asymptotically neither is cheaper.',
    'Dot-product attention is not asymptotically faster; it is faster in practice.',
)
_true(
    'cx-dynamic-sparse',
    'MoBA computes exact attention over the blocks it selects.',
    'DSA runs exact attention on the 2048 selected tokens.',
    'MoBA with k equal to the number of blocks is exact.',
)
_true(
    'cx-sparse-linear',
    "Linear attention isn't only faster, it also changes the model.",
    'Causal linear attention computes the same result as an RNN with a d by d state.',
    'Causal linear attention gives exactly the same output as its recurrent form.',
)
_true(
    'cx-long-context-memory',
    'At inference the KV cache, not the attention matrix, is the bottleneck.',
    'During decoding the attention matrix is a single row, so it does not limit the context.',
    'Generation is limited by the KV cache, and the attention matrix is tiny.',
)
_true(
    'bias-rope-alibi',
    'Unlike RoPE, ALiBi adds a bias to the scores, and neither adds a vector to the embeddings.',
    'RoPE adds no learned parameters and no vectors to the embeddings.',
)
_true(
    'dva-variants',
    'A dot product without learned projections is less expressive than general attention.',
)
_true(
    'bias-k-bias-redundant',
    'Only b_K cancels, not b_Q.',
    '只有 b_K 被抵消，b_Q 不会。',
    'Both a constant row bias and b_K cancel in the softmax.',
    "b_Q's term would cancel only if all keys were equal.",
)
_true(
    'bias-t5-buckets',
    'T5 每个头有单独的一组偏置，对各层共享。',
    'T5 的每个头学一组偏置标量，对应不同的相对距离。',
    'T5 learns one bias per head per distance class, and each query-key pair looks it up.',
)
_myth(
    'rnn-seq2seq-bottleneck',
    'With Bahdanau attention the decoder sees one fixed context vector, computed once.',
    'Bahdanau attention computes one fixed context vector once.',
)
_myth(
    'rnn-complexity',
    'Attention uses fewer FLOPs than a vanilla RNN.',
    'Attention needs fewer FLOPs than a plain RNN.',
)
_myth(
    'rnn-positional-information',
    'Self-attention is invariant to the order of its inputs.',
    "Reordering the inputs leaves self-attention's outputs unchanged.",
)

# ---------------------------------------------------------------- M19 (the reviewer's central.py contrasts, typed the wrong way round)
_wrong('cx-time-space', [3], 'The quadratic term overtakes the projections when n < 2 d_model.', '当 n < 2 d_model 时平方项超过投影。')
_wrong('cx-time-space', [4], 'FlashAttention removes the n^2 compute but not the n^2 memory.', 'FlashAttention 去掉 n² 计算量，去不掉 n² 显存。')
_wrong('cx-long-context-memory', [4], 'At inference the KV cache is constant in n.', '推理时 KV cache 不随 n 增长。')
_wrong('cx-kv-cache-memory', [0], 'KV cache bytes = 2 · layers · query heads · d_k · n · bytes per number.')
_wrong('cx-kv-cache-memory', [3], 'MQA and GQA reduce the number of query heads to shrink the cache.')
_wrong('cx-flashattention', [3], 'It saves compute (fewer FLOPs), not memory.')
_wrong('cx-flashattention', [0], 'Standard attention is compute-bound because of the n by n matrix.')
_wrong('cx-online-softmax', [1], 'When a new block raises the max, l and o are left unchanged.', '新块把最大值提高时，l 和 o 保持不变。')
_wrong('cx-online-softmax', [4], 'Memory per query grows with n.')
_wrong('cx-sparse-linear', [1], 'Sparse attention costs O(n^2 d) and never misses a distant token.')
_wrong('cx-sparse-linear', [3], 'Causal linear attention needs a KV cache that grows with every token.')
_wrong('cx-dynamic-sparse', [0], 'A fixed sparse pattern chooses keys from the content.', '固定的稀疏模式根据内容挑选 key。')
_wrong('cx-dynamic-sparse', [1], 'Learned sparse attention fixes its keys before seeing the input.')
_wrong('cx-long-inputs-encoder', [3], 'Without overlap every token still sees beyond its own chunk.')
_wrong('rnn-why-attention', [0], 'Attention needs n sequential steps per layer; an RNN processes all positions in parallel.', '注意力每层需要 n 个顺序步骤；RNN 并行处理所有位置。')
_wrong('rnn-why-attention', [1], 'The maximum path length is O(n) in attention and O(1) in an RNN.', '两个位置之间的最大路径长度，注意力是 O(n)，RNN 是 O(1)。')
_wrong('rnn-why-attention', [2], 'Attention gradients pass through a long product of Jacobians; RNNs connect positions directly.')
_wrong('rnn-complexity', [1], 'Sequential steps are O(1) for an RNN and O(n) for attention.', '顺序步数 RNN 为 O(1)，注意力为 O(n)。')
_wrong('rnn-drawbacks', [2], 'Generation needs a fixed-size state, like an RNN.')
_wrong('rnn-drawbacks', [4], 'It generalises well to sequences longer than those seen in training.')
_wrong('rnn-inference-cost', [0], 'With a KV cache, generating token t costs O(d) attention work, constant in t.')
_wrong('rnn-inference-cost', [2], 'An RNN step costs O(t d), growing with the context.', 'RNN 每步开销随上下文长度增长。')
_wrong('rnn-seq2seq-bottleneck', [1], 'The vector grows with the source length, so quality holds on long sentences.')
_wrong('bias-what-is-attention-bias', [0], 'An attention bias is added after the softmax and depends on the content.')
_wrong('bias-k-bias-redundant', [1], 'With RoPE, b_K cancels; without RoPE it does not.', '用 RoPE 时 b_K 被抵消，不用 RoPE 时不会。')
_wrong('bias-alibi', [3], 'Steep slopes make long-range heads and shallow slopes make local heads.', '斜率陡的头看远处，平缓的头看局部。')
_wrong('bias-t5-buckets', [3], 'Each layer has its own bias table.')
_wrong('bias-rope-alibi', [2], 'RoPE adds a bias to the scores; ALiBi rotates q and k.', 'RoPE 在分数上加偏置；ALiBi 旋转 q 和 k。')
_wrong('bias-rope-alibi', [1], 'The rotated dot product depends on the absolute positions m and n.')
_wrong('bias-mask-conventions', [3], 'In F.scaled_dot_product_attention True means masked out; in nn.MultiheadAttention True means may attend.', 'F.scaled_dot_product_attention 中 True 表示被屏蔽；nn.MultiheadAttention 中 True 表示可以关注。')
_wrong('dva-dot-vs-additive', [4], 'Unscaled dot products do better for large d_k.')
_wrong('dva-variants', [1], 'Dot is the bilinear score with W = 0.')
_wrong('dva-variants', [3], 'Only the dot score has a nonlinearity inside.')
_wrong('dva-cost', [3], 'Dot-product scores need n m d_k tanh evaluations.')
_wrong('dva-additive-scaling', [0], 'Dot products have a variance independent of d_k.', '点积的方差与 d_k 无关。')
_wrong('dva-additive-scaling', [2], 'The additive score grows with the input width, so it needs the sqrt(d) factor.')
_wrong('rnn-why-attention', [1], "The path length is O(n) in attention and O(1) in an RNN.")
# the points' own statements still tick (key-point text, EN and 中文, paraphrases); M20: the short answer's sentence
_ticks('rnn-why-attention', 0, 'An RNN needs n sequential steps per layer, while attention processes all positions in parallel.', 'RNN 每层要 n 个顺序步骤，注意力并行处理所有位置。', 'Attention computes all positions in parallel with matrix multiplications; an RNN needs n sequential steps.')
_ticks('rnn-why-attention', 1, 'The maximum path length is O(1) in attention and O(n) in an RNN.', 'In attention any two positions are one step apart.', '两个位置之间的最大路径长度，注意力是 O(1)，RNN 是 O(n)。', '注意力里任意两个位置只隔一步。')
_ticks('rnn-why-attention', 2, 'RNN gradients pass through a long product of Jacobians, which vanishes or explodes.', 'Attention connects distant positions directly, so gradients do not pass through a long product of Jacobians.', 'RNN 的梯度要经过一长串雅可比乘积，容易消失或爆炸。')
_ticks('rnn-complexity', 1, 'Sequential steps are O(n) for an RNN and O(1) for attention.', 'An RNN needs O(n) sequential steps, attention O(1).', '顺序步数 RNN 为 O(n)，注意力为 O(1)。')
_ticks('bias-mask-conventions', 3, 'In F.scaled_dot_product_attention True means may attend; in nn.MultiheadAttention True means masked out.', 'SDPA and nn.MultiheadAttention use opposite conventions for True.', 'F.scaled_dot_product_attention 中 True 表示可以关注；nn.MultiheadAttention 中 True 表示被屏蔽。')
_ticks('cx-long-context-memory', 4, 'At inference the KV cache grows linearly in n and is usually the serving limit.', 'During inference the KV cache, which grows linearly with n, is the limit.', '推理时 KV cache 随 n 线性增长，通常是瓶颈。')
_ticks('bias-k-bias-redundant', 1, 'Without RoPE, b_K cancels in the softmax; with RoPE it does not cancel.', 'Softmax ignores a constant added to a row, so b_K cancels and gets zero gradient.', '不用 RoPE 时 b_K 被抵消，用 RoPE 时不会抵消。')
_ticks('bias-alibi', 3, 'Steep slopes make local heads and shallow slopes make long-range heads.', 'Heads with steep slopes look locally; heads with shallow slopes reach far.', '斜率陡的头看局部，平缓的头看远处。')
_ticks('dva-additive-scaling', 0, 'Dot products sum d_k unbounded terms, so their variance grows with d_k.', 'The variance of a dot product grows with d_k.', '点积的方差随 d_k 增长。')
_ticks('cx-online-softmax', 1, "When a new block raises the max to m', rescale l and o by exp(m - m').", "If a new block raises the max, multiply l and o by exp(m - m').", '新块把最大值提高时，把 l 和 o 乘以 exp(m − m′)。')
_ticks('cx-time-space', 3, 'The quadratic term overtakes the projections when n > 2 d_model.', 'Once n exceeds 2 d_model the quadratic term dominates the projections.', '当 n > 2 d_model 时平方项超过投影。')
_ticks('cx-time-space', 4, 'Doubling n quadruples attention compute; FlashAttention removes the n^2 memory but not the n^2 compute.', 'FlashAttention removes the n^2 memory, not the n^2 compute.', 'FlashAttention 去掉 n² 显存，去不掉 n² 计算量。')
_ticks('bias-rope-alibi', 2, 'RoPE acts multiplicatively on q and k before caching keys; ALiBi adds a linear distance bias to the scores.', 'ALiBi adds a linear distance bias to the scores.', 'RoPE 对 q、k 是乘性的；ALiBi 在分数上加线性距离偏置。')
_ticks('bias-rope-alibi', 1, 'The rotated dot product depends on position only through the relative offset m - n.', 'So q_m · k_n depends on the positions only through m - n.', 'q_m · k_n 对位置的依赖只剩 m − n。', 'The score depends only on the relative offset.')
_ticks('cx-flashattention', 0, 'Standard attention is memory-bound because it writes and reads the n by n matrix in main memory.', 'Standard attention is bound by memory traffic on the n by n matrix.', '标准注意力受访存限制，因为要读写 n×n 矩阵。')
_ticks('dva-variants', 3, 'Only the additive score has a nonlinearity inside.', 'Only additive attention has a nonlinearity inside the score.', '只有加性打分内部有非线性。')
_ticks('dva-variants', 1, 'Dot is the bilinear score with W = I and needs equal widths.', 'Dot is the bilinear score with W = I.', 'dot 是 W = I 的双线性打分，要求宽度相同。')
_ticks('dva-dot-vs-additive', 4, 'Unscaled dot products do worse for large d_k, plausibly from softmax saturation.', 'For large d_k unscaled dot products do worse.', 'd_k 大时不缩放的点积效果更差。')
_ticks('rnn-drawbacks', 4, 'It often generalises poorly to sequences longer than those seen in training.', 'It generalises poorly to longer sequences than in training.', '往往难以泛化到比训练时更长的序列。')
_ticks('rnn-drawbacks', 2, "Generation needs a KV cache that grows with the context, unlike an RNN's fixed state.", 'At generation the KV cache grows with the context.', '生成时需要随上下文增长的 KV cache。')
_ticks('cx-sparse-linear', 1, 'Sparse attention costs O(n w d) and can miss a distant token that a fixed pattern does not cover.', 'A fixed sparse pattern can miss a distant token.', '稀疏注意力开销 O(n w d)，固定模式可能漏掉远处的关键 token。')
_ticks('cx-sparse-linear', 0, 'Sparse attention restricts each query to a subset of keys.', 'Sparse attention lets each query see only some keys.', '稀疏注意力让每个 query 只看一部分 key。')
_ticks('bias-what-is-attention-bias', 0, 'An attention bias B is added to the scores before the softmax and depends on positions, not content.', 'The bias is added to the scores before the softmax.', '注意力偏置在 softmax 之前加到分数上，取决于位置而不是内容。')
_ticks('rnn-seq2seq-bottleneck', 3, 'The context is recomputed at every decoder step as a softmax-weighted combination of all encoder states.', 'At each decoder step the context is a new weighted sum of all encoder states.', '上下文在每个解码步都重新计算，是所有编码器状态的加权和。')
_ticks('rnn-seq2seq-bottleneck', 1, 'The vector has the same size for any source length, so quality drops on long sentences.', 'Quality drops on long sentences because the vector has a fixed size.', '不管源句多长这个向量大小都一样，所以长句子上质量下降。')
_ticks('cx-kv-cache-memory', 3, 'Reduce kv_heads with MQA or GQA, or store the cache in lower precision.', 'MQA and GQA reduce the number of KV heads to shrink the cache.', '用 MQA 或 GQA 减少 kv 头数。')
_ticks('cx-kv-cache-memory', 0, 'KV cache bytes = 2 · layers · kv_heads · d_k · n · bytes per number, per sequence.', 'The cache takes 2 times layers times KV heads times d_k times n times bytes per number.', 'KV cache 字节数 = 2 · 层数 · kv 头数 · d_k · n · 每个数的字节数。')
_ticks('bias-t5-buckets', 3, 'The bias table is small and shared across layers.', 'All layers share one small bias table.', '偏置表很小，在各层之间共享。')
_ticks('bias-k-bias-redundant', 0, 'The key bias adds q_i · b_K, the same constant for every key in row i.', 'q_i · b_K is a constant for the whole row.', 'key 偏置加上 q_i · b_K，对第 i 行的所有 key 是同一个常数。')
_ticks('cx-long-inputs-encoder', 3, 'Without overlap the attention scores at most n times window pairs instead of n squared, but no token sees beyond its chunk.', 'No token sees beyond its own chunk.', '不重叠时 token 看不到块之外。')
_ticks('rnn-inference-cost', 2, 'An RNN step costs O(d^2) with a fixed O(d) state, independent of the context length.', 'Each RNN step costs O(d^2), independent of the context length.', 'RNN 每步 O(d²)，状态固定为 O(d)，与上下文长度无关。')

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, (), reason="none open")


test_false_statement_earns_no_key_point, test_correct_statement_still_ticks = keypoint_tests(
    [(c, k, t) for c, t, k in NOT_COVERED], [(c, k, t) for c, t, k in COVERED]
)
