"""Review round 10 of chapters 06-09 (reviews/2026-12-02/s7-r9-ch06-09.md, round 9 of the withdrawn tuning; and the
round-8 L3 paraphrases of reviews/2026-12-02/s6-round8-ch06-09.md).

NOT_FLAGGED: every correct sentence the round-9 report quotes for chapters 06-09 (N1-N13 of the withdrawn patterns,
which no longer fire on main, kept as regression guards for the next tuning; P1-P3, N11, N12 and the 中文 L6, fixed
here in myths.yaml), then plain correct near misses of each changed pattern. FLAGGED: myth forms near each fix and
the L3 paraphrases now caught. OPEN: rejections the matcher does not read ("…，这是误解", "…, which is a myth", and
"It is a myth that X, Y" where the comma starts a new clause); they need a matcher change, not a pattern.
"""

from __future__ import annotations

from checker_support import checker_tests

NOT_FLAGGED = [
    # round-8 M1 (re-checked in round 9): one query, permutation invariant over the keys
    (
        "rnn-positional-information",
        "For a single query, attention over the keys is permutation invariant, but self-attention as a whole is equivariant.",
    ),
    ("rnn-positional-information", "For a single query, attention over the keys is permutation invariant."),
    (
        "rnn-positional-information",
        "Attention over the keys is permutation invariant for a single query, but self-attention as a whole is equivariant.",
    ),
    ("rnn-positional-information", "For a single query, attention is permutation invariant over the keys."),
    # N7: the same, with 'it' / 'the output' (round-9 patterns 2 and 6)
    (
        "rnn-positional-information",
        "For a single query, it is permutation invariant over the keys, so the whole layer is equivariant.",
    ),
    ("rnn-positional-information", "For one query it is permutation invariant over the keys."),
    (
        "rnn-positional-information",
        "For one query, the output is permutation invariant to the order of the input tokens.",
    ),
    # round-8 M2 (re-checked in round 9): project each query and key once, then per pair
    ("dva-cost", "Additive attention projects each query and key once, then per pair does d_a additions."),
    (
        "dva-cost",
        "Additive attention projects each query and key once, then per pair does d_a additions, d_a tanh and a dot with v.",
    ),
    (
        "dva-cost",
        "After projecting each query and key, additive attention needs n m d_a additions and n m d_a tanh for the pairs.",
    ),
    ("dva-cost", "加性注意力对每个查询和每个键只投影一次，然后每一对做加法、tanh 和与 v 的点积。"),
    ("dva-cost", "先对每个查询和键做投影，再对每一对做加法和 tanh。"),
    # N12: 'the queries and the keys once, then' / 先投影所有的查询和键 (fixed here)
    (
        "dva-cost",
        "Project the queries and the keys once, then for every pair add, apply tanh and dot with v.",
    ),
    ("dva-cost", "先投影所有的查询和键，再对每一对做加法、tanh 和点积。"),
    # verified correct in the round-9 report
    (
        "dva-cost",
        "Project every query and every key once, then for each pair add, apply tanh and take the dot with v.",
    ),
    # N1: the RNN is cheaper per generated token
    ("rnn-inference-cost", "Per generated token, the RNN is cheaper than attention at long context."),
    ("rnn-inference-cost", "At long context an RNN step is cheaper than attention per generated token."),
    ("rnn-inference-cost", "长上下文下生成每个 token 时，RNN 一步比注意力便宜。"),
    # N2: plain seq2seq's one context vector; Bahdanau reuses h_j
    ("rnn-seq2seq-bottleneck", "In seq2seq the decoder reuses the same context vector at every step."),
    ("rnn-seq2seq-bottleneck", "在 seq2seq 中，解码器每一步都复用同一个上下文向量。"),
    (
        "rnn-seq2seq-bottleneck",
        "In seq2seq the encoder compresses the source into one context vector before decoding.",
    ),
    ("rnn-seq2seq-bottleneck", "seq2seq 在解码开始前把源句压缩成一个上下文向量。"),
    ("rnn-seq2seq-bottleneck", "Plain seq2seq squeezes the source into one context vector up front."),
    (
        "rnn-seq2seq-bottleneck",
        "Without attention, the encoder produces a single context vector before decoding starts.",
    ),
    ("rnn-seq2seq-bottleneck", "Bahdanau attention reuses the encoder outputs at every decoder step."),
    ("rnn-seq2seq-bottleneck", "每一步都复用编码器的所有输出。"),
    (
        "rnn-seq2seq-bottleneck",
        "The encoder outputs are computed once and reused at every decoder step; only the weights change.",
    ),
    # N3: the associativity step of linear attention
    (
        "cx-sparse-linear",
        "Computing phi(K)^T V first gives exactly the same output as computing (phi(Q) phi(K)^T) V.",
    ),
    (
        "cx-sparse-linear",
        "By associativity, phi(Q)(phi(K)^T V) gives exactly the same result as (phi(Q) phi(K)^T) V, in linear time.",
    ),
    ("cx-sparse-linear", "先算 φ(K)ᵀV 和先算 φ(Q)φ(K)ᵀ 再乘 V，结果完全一样，只是顺序不同。"),
    (
        "cx-sparse-linear",
        "Reordering the matrix products gives exactly the same result, but it is not softmax attention.",
    ),
    # N4: same outputs, permuted (equivariance)
    ("rnn-positional-information", "Permuting the tokens gives the same outputs, just permuted."),
    ("rnn-positional-information", "Shuffle the tokens and you get the same outputs, shuffled."),
    ("rnn-positional-information", "Shuffling the input gives the same output rows, permuted."),
    ("rnn-positional-information", "Reorder the inputs and you get the same outputs in the new order."),
    ("rnn-positional-information", "If you permute the inputs, you get the same outputs permuted."),
    # N5: a materialised n x n matrix runs out of memory
    ("cx-long-context-memory", "Materialising the n by n matrix runs out of memory at long context."),
    (
        "cx-long-context-memory",
        "Standard attention runs out of memory on the attention matrix at long context.",
    ),
    ("cx-long-context-memory", "Unfused attention runs out of memory on the n by n matrix."),
    ("cx-long-context-memory", "In eager PyTorch the 32k attention matrix runs out of memory."),
    ("cx-long-context-memory", "在 eager 模式下，32k 的注意力矩阵会撑爆显存。"),
    # N6: full attention inside BERT's 512-token window
    (
        "cx-long-inputs-encoder",
        "In BERT each token sees the whole input sequence, which is why the limit is 512.",
    ),
    ("cx-long-inputs-encoder", "BERT 里每个 token 都能看到整个输入，所以长度上限是 512。"),
    (
        "cx-long-inputs-encoder",
        "In a plain BERT pass over 512 tokens, every token attends to the whole input.",
    ),
    ("cx-long-inputs-encoder", "Inside a 512-token window every token attends to the whole input."),
    ("cx-long-inputs-encoder", "Within one chunk every token attends to the whole input of that chunk."),
    # N8: sparse attention is a kind of approximation, FlashAttention is not
    ("cx-flashattention", "Sparse attention is a kind of approximation; FlashAttention is not."),
    ("cx-flashattention", "FlashAttention is exact, while sparse attention is a kind of approximation."),
    ("cx-flashattention", "稀疏注意力属于近似方法，FlashAttention 不是。"),
    # N9: up to tiny fp16/bf16 differences
    ("cx-flashattention", "The output matches standard attention up to tiny fp16 differences."),
    ("cx-flashattention", "The output matches standard attention up to tiny bf16 differences."),
    # N10: zero error against the full softmax
    ("cx-online-softmax", "The error against the full softmax is zero in exact arithmetic."),
    ("cx-online-softmax", "和完整 softmax 的误差为零。"),
    # N11: same FLOPs, less data (EN fixed here)
    ("cx-flashattention", "在 FLOPs 相同的情况下，FlashAttention 的访存比标准实现少。"),
    ("cx-flashattention", "With the same FLOPs, FlashAttention moves less data than standard attention."),
    ("cx-flashattention", "FlashAttention does the same arithmetic in fewer kernel launches."),
    ("cx-time-space", "在 FLOPs 相同的情况下，FlashAttention 的访存比标准实现少。"),
    ("cx-time-space", "With the same FLOPs, FlashAttention moves less data than standard attention."),
    ("cx-time-space", "FlashAttention does the same arithmetic in fewer kernel launches."),
    # N13: one per withdrawn pattern
    ("cx-time-space", "Tiled kernels avoid storing the n by n matrix no matter how long the sequence is."),
    ("rnn-why-attention", "On a GPU attention needs less compute time than an RNN."),
    ("rnn-why-attention", "Attention needs less compute time on a GPU."),
    ("rnn-why-attention", "注意力省去了循环计算。"),
    ("rnn-complexity", "On a GPU attention needs less compute time than an RNN."),
    ("rnn-complexity", "Attention needs less compute time on a GPU."),
    ("rnn-complexity", "注意力省去了循环计算。"),
    ("rnn-drawbacks", "Padding short sequences to a long length wastes compute."),
    ("rnn-drawbacks", "Padding short sequences in a batch is wasteful; packing avoids it."),
    ("bias-rope-alibi", "传统的位置编码和词嵌入相加，RoPE 则在每层里旋转 q 和 k。"),
    ("bias-mask-conventions", "不管 SDPA 还是 MHA，浮点掩码的含义都一样，都是加到分数上。"),
    ("bias-mask-conventions", "In every PyTorch attention API, a float mask is added to the scores."),
    # P1: 与 query 头数无关 (fixed here)
    ("cx-kv-cache-memory", "cache 大小只取决于 key/value 头数，与 query 头数无关。"),
    # P2: GPT-2 / 经典做法 adds a position vector, RoPE rotates (fixed here)
    (
        "bias-rope-alibi",
        "GPT-2 adds a position vector to the embeddings, while RoPE rotates queries and keys.",
    ),
    ("bias-rope-alibi", "经典做法是把位置向量和词嵌入相加，而 RoPE 旋转 query 和 key。"),
    # P3: 'always' under a long-context condition (fixed here)
    ("cx-time-space", "At long context, attention always dominates the cost."),
    ("cx-time-space", "For very long sequences attention always dominates the FLOPs of the block."),
    # L6: Luong's unprojected dot score is weaker than general (中文 fixed here)
    ("dva-variants", "Luong's dot score is weaker than general, which learns W."),
    ("dva-variants", "Luong 的 dot 打分表达能力不如 general。"),
    # L7: small n compared with d
    ("rnn-complexity", "The n^2 part of attention is cheap in compute when n is small compared with d."),
    # L5: rejections the matcher already reads
    ("cx-time-space", "说注意力永远是 Transformer 最贵的部分是一个误解。"),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer — that is wrong."),
    # verified correct in the round-9 report
    ("bias-alibi", "ALiBi's slopes are a hyperparameter rather than learned."),
    ("bias-alibi", "The slopes are predetermined instead of learned."),
    ("bias-alibi", "ALiBi 的斜率是超参数而非学习得到的。"),
    ("bias-t5-buckets", "T5 shares one bias table across layers instead of learning one per layer."),
    ("bias-k-bias-redundant", "b_Q is not redundant for the same reason b_K is."),
    ("bias-k-bias-redundant", "很多人以为 b_Q 也会被抵消，其实不会。"),
    (
        "bias-what-is-attention-bias",
        "In Hugging Face, attention_bias = True means the Q, K, V projections have biases.",
    ),
    ("bias-what-is-attention-bias", "在 Hugging Face 里，attention_bias = True 表示 Q、K、V 投影带偏置。"),
    ("dva-dot-vs-additive", "Additive attention costs O(n^2 d_a), not O(n^2 d^2)."),
    (
        "dva-dot-vs-additive",
        "If we projected per pair it would be O(n^2 d^2), but additive attention is O(n^2 d_a).",
    ),
    ("bias-rope-alibi", "RoPE adds nothing to the embeddings."),
    (
        "cx-sparse-linear",
        "Linear attention is mathematically equivalent to an RNN with a matrix state, unlike softmax attention.",
    ),
    # near misses, additive-attention-projects-every-query-key (N12)
    (
        "dva-cost",
        "Project all the queries and keys once, then for each pair add the two projections and apply tanh.",
    ),
    (
        "dva-cost",
        "Additive attention projects every query once and every key once, then for each pair it adds, applies tanh and dots with v.",
    ),
    ("dva-cost", "先把所有查询和键投影一次，然后对每一对做加法和 tanh。"),
    ("dva-cost", "所有的查询和键只投影一次，之后每一对只做加法、tanh 和点积。"),
    (
        "dva-cost",
        "The projections of all queries and all keys are done once, then each pair only needs an addition, a tanh and a dot with v.",
    ),
    ("dva-cost", "W_q and W_k are applied once per vector, then each pair costs d_a additions and d_a tanh."),
    ("dva-cost", "We project the keys once, then every pair reuses those projections."),
    ("dva-cost", "键和查询各投影一次，再对每一对做加法。"),
    # near misses, flashattention-reduces-o-n-2-compute (N11)
    ("cx-flashattention", "FlashAttention reads and writes fewer bytes of HBM; its FLOPs stay the same."),
    ("cx-flashattention", "FlashAttention does the same number of FLOPs but moves far less data."),
    ("cx-flashattention", "FlashAttention 的 FLOPs 不变，但读写的数据少得多。"),
    ("cx-flashattention", "FlashAttention needs fewer memory reads for the same FLOPs."),
    ("cx-flashattention", "FlashAttention moves less data for the same amount of computation."),
    ("cx-flashattention", "FlashAttention 在计算量相同的情况下读写更少的数据。"),
    ("cx-time-space", "FlashAttention moves less data for the same amount of computation."),
    ("cx-time-space", "FlashAttention 在计算量相同的情况下读写更少的数据。"),
    # near misses, cache-size-depends-on-number-query (P1)
    ("cx-kv-cache-memory", "KV cache 的大小跟 query 头数没关系，只看 KV 头数。"),
    ("cx-kv-cache-memory", "缓存大小与 query 头数没有关系。"),
    ("cx-kv-cache-memory", "query 头数与 cache 大小不相关，GQA 减少的是 KV 头。"),
    ("cx-kv-cache-memory", "cache 的大小不取决于 query 头数。"),
    ("cx-kv-cache-memory", "增加 query 头数，缓存大小不变。"),
    ("cx-kv-cache-memory", "The cache size is independent of the number of query heads."),
    # near misses, rope-adds-position-vector-embeddings (P2)
    (
        "bias-rope-alibi",
        "The original Transformer adds a position vector to the word embeddings; RoPE does not.",
    ),
    ("bias-rope-alibi", "BERT adds a learned position vector to each embedding, unlike RoPE."),
    ("bias-rope-alibi", "传统方法把位置向量加到嵌入上，RoPE 不这样做。"),
    (
        "bias-rope-alibi",
        "In the classic setup a position vector is added to the token embedding at the input.",
    ),
    ("bias-rope-alibi", "以前的模型把位置向量加到词嵌入上，RoPE 改为在注意力里旋转。"),
    ("bias-rope-alibi", "GPT-2 style models add a position vector to the embeddings before the first layer."),
    # near misses, attention-always-most-expensive-part-transformer (P3)
    ("cx-time-space", "对于超长序列，注意力的开销总是最大的。"),
    ("cx-time-space", "Once n is large, attention always dominates the cost of the block."),
    ("cx-time-space", "For long prompts the n^2 terms always dominate."),
    ("cx-time-space", "长序列时注意力总是最贵的部分。"),
    ("cx-time-space", "在长上下文下，注意力总是占大头。"),
    ("cx-time-space", "With very long inputs attention is always the biggest cost."),
    ("cx-time-space", "序列很长时，注意力的计算总是最大的一块。"),
    # near misses, scaled-dot-product-attention-less-expressive (L6)
    ("dva-variants", "The raw dot score without projections is less expressive than the general score."),
    ("dva-variants", "Luong 的 dot 打分没有参数，表达能力比 general 弱。"),
    ("dva-variants", "An unprojected dot product is less expressive than general attention, which learns W."),
    ("dva-variants", "原始向量上的点积打分表达能力比 general 弱，因为没有 W。"),
    ("dva-variants", "In Luong's paper the dot score, which has no W, is weaker than general."),
    (
        "dva-variants",
        "Luong's plain dot score is less expressive than general; scaled dot-product attention with projections is not.",
    ),
    # near misses, attention-wasteful-on-short-sequences (padding; N13 中文, also old)
    ("rnn-drawbacks", "把短序列 pad 到同一长度会浪费算力，打包可以避免。"),
    ("rnn-drawbacks", "一个 batch 里短序列补齐到最长会浪费显存。"),
    ("rnn-drawbacks", "批里的短序列填充后浪费计算。"),
    ("rnn-drawbacks", "用 packing 把短序列拼在一起，就不会浪费填充位置。"),
    ("rnn-drawbacks", "短序列填充到很长的长度会浪费计算。"),
    # near misses, attention-always-most-expensive-part-transformer (P3)
    ("cx-time-space", "For very long inputs attention is always the most expensive part of the block."),
    ("cx-time-space", "超长序列下注意力永远是 Transformer 最贵的部分。"),
    # near misses, new Performer pattern of linear-attention-computes-same-result-as (L3)
    ("cx-sparse-linear", "Performer estimates softmax attention; its output is not exactly the same."),
    (
        "cx-sparse-linear",
        "Performer's random features give an unbiased estimate of the softmax kernel, not the same result.",
    ),
    (
        "cx-sparse-linear",
        "Performer gives an output of the same shape as softmax attention, but only approximates its values.",
    ),
    (
        "cx-sparse-linear",
        "As the number of random features grows, Performer's output approaches the same result as softmax attention.",
    ),
    ("cx-sparse-linear", "Performer 的输出和 softmax 注意力并不完全一样，只是近似。"),
    ("cx-sparse-linear", "Performer 的结果只在期望意义上与 softmax 注意力相同。"),
    (
        "cx-sparse-linear",
        "Performer uses the same queries, keys and values as softmax attention, but replaces the exponential kernel with random features.",
    ),
    (
        "cx-sparse-linear",
        "FlashAttention gives exactly the same result as softmax attention; Performer does not.",
    ),
    # near misses, new 'more query heads, bigger cache' pattern (L3)
    ("cx-kv-cache-memory", "More KV heads mean a bigger KV cache; more query heads do not."),
    ("cx-kv-cache-memory", "With GQA you can add more query heads without a bigger KV cache."),
    ("cx-kv-cache-memory", "More query heads mean more compute, but not a bigger KV cache."),
    ("cx-kv-cache-memory", "In MHA, more query heads also mean more KV heads, so the cache grows."),
    ("cx-kv-cache-memory", "query 头更多并不会让 KV cache 变大。"),
    ("cx-kv-cache-memory", "增加 query 头而保持 KV 头不变，cache 不会变大。"),
    (
        "cx-kv-cache-memory",
        "In MHA each query head has its own key and value head, so more query heads do mean a bigger cache.",
    ),
    (
        "cx-kv-cache-memory",
        "Adding query heads while sharing the KV heads leaves the KV cache the same size.",
    ),
    # near misses, since-b-k-cancels-b-q pattern 2 widened with 'redundant' (L3)
    ("bias-k-bias-redundant", "The key bias is redundant, but the query bias is not."),
    ("bias-k-bias-redundant", "The query bias is not redundant, unlike the key bias, which also cancels."),
    (
        "bias-k-bias-redundant",
        "Only b_K is redundant; the query bias also matters because b_Q · k_j varies across keys.",
    ),
    ("bias-k-bias-redundant", "查询偏置也有作用，不像键偏置那样多余。"),
    ("bias-k-bias-redundant", "The query bias is not redundant too, it shifts each score by b_Q · k_j."),
    ("bias-k-bias-redundant", "键偏置是多余的，查询偏置却不是。"),
    ("bias-k-bias-redundant", "The value bias is also not redundant: it adds a constant to every output."),
    # near misses, 'always dominated by the n^2 terms' (L3, 主导 added)
    ("cx-time-space", "长序列时，注意力的开销总是由 n² 项主导。"),
    ("cx-time-space", "n 超过 6 d_model 以后，开销总是由 n² 项主导。"),
    ("cx-time-space", "注意力的开销并不总是由 n² 项主导。"),
    ("cx-time-space", "在超长上下文里，FLOPs 总是由 n² 项主导。"),
    ("cx-time-space", "只有 n 很大时，n² 项才总是主导。"),
    ("cx-time-space", "Beyond 6 d_model, attention always dominates the block."),
    ("cx-time-space", "Once n passes 6 d_model, the n^2 terms always dominate."),
    # L5 (fixed by the matcher's rejection clauses): a rejection in the following clause or across a comma
    ("cx-time-space", "说注意力永远是 Transformer 最贵的部分，这是误解。"),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, which is a myth."),
    ("cx-time-space", "说注意力永远是 Transformer 最贵的部分，这是错的。"),
    ("bias-k-bias-redundant", "It is a myth that since b_K cancels, b_Q must cancel too by symmetry."),
    (
        "dva-variants",
        "It is a myth that scaled dot-product attention has no parameters, so it is less expressive than general attention.",
    ),
    ("bias-k-bias-redundant", "It is wrong to say that since b_K cancels, b_Q must cancel too."),
]

FLAGGED = [
    # myth forms near the fix, additive-attention-projects-every-query-key (N12)
    ("dva-cost", "Additive attention projects every query-key pair."),
    ("dva-cost", "Additive attention projects each query-key pair once, then applies tanh."),
    ("dva-cost", "加性注意力要对每个 query-key 对做投影。"),
    ("dva-cost", "每一对都先投影，再做加法和 tanh。"),
    ("dva-cost", "For every pair it projects the query and the key, then adds them."),
    ("dva-cost", "加性注意力对所有的查询-键对都要做投影。"),
    # myth forms near the fix, flashattention-reduces-o-n-2-compute (N11)
    ("cx-flashattention", "FlashAttention reduces the O(n^2) compute."),
    ("cx-flashattention", "FlashAttention needs fewer FLOPs than standard attention."),
    ("cx-flashattention", "FlashAttention does less computation, so it is faster."),
    ("cx-flashattention", "FlashAttention 的计算量比标准实现更少。"),
    ("cx-time-space", "FlashAttention reduces the compute of attention."),
    ("cx-time-space", "FlashAttention 减少了计算量。"),
    # myth forms near the fix, cache-size-depends-on-number-query (P1)
    ("cx-kv-cache-memory", "cache 大小取决于 query 头数。"),
    ("cx-kv-cache-memory", "query 头数越多，cache 越大。"),
    ("cx-kv-cache-memory", "cache 大小由 query 头数决定。"),
    ("cx-kv-cache-memory", "The cache size depends on the number of query heads."),
    # myth forms near the fix, rope-adds-position-vector-embeddings (P2)
    ("bias-rope-alibi", "RoPE adds a position vector to the embeddings."),
    ("bias-rope-alibi", "It adds a position vector to the embeddings."),
    ("bias-rope-alibi", "RoPE 就是把位置向量加到嵌入上。"),
    ("bias-rope-alibi", "RoPE works by adding a position vector to each embedding before the first layer."),
    ("bias-rope-alibi", "RoPE 是给嵌入加一个位置向量。"),
    # myth forms near the fix, attention-always-most-expensive-part-transformer (P3)
    ("cx-time-space", "Attention is always the most expensive part of a Transformer."),
    ("cx-time-space", "Attention always dominates the cost, no matter how long the sequence is."),
    ("cx-time-space", "无论序列多长，注意力总是最贵。"),
    ("cx-time-space", "Attention always dominates the FLOPs of a block, even for short sequences."),
    ("cx-time-space", "注意力的开销总是最大的。"),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分。"),
    ("cx-time-space", "In a Transformer, attention always dominates the compute."),
    # myth forms near the fix, scaled-dot-product-attention-less-expressive (L6)
    (
        "dva-variants",
        "Scaled dot-product attention has no parameters, so it is less expressive than general attention.",
    ),
    ("dva-variants", "缩放点积注意力表达能力比 general 弱。"),
    ("dva-variants", "Dot-product attention is less expressive than general attention."),
    ("dva-variants", "点积注意力的表达能力不如 general 注意力。"),
    ("dva-variants", "缩放点积注意力没有参数，所以表达能力比 general 注意力弱。"),
    # myth forms near the fix, attention-wasteful-on-short-sequences (padding; N13 中文, also old)
    ("rnn-drawbacks", "注意力在短序列上是浪费。"),
    ("rnn-drawbacks", "短序列用注意力很浪费。"),
    ("rnn-drawbacks", "对短序列来说注意力是一种浪费。"),
    ("rnn-drawbacks", "Attention is wasteful on short sequences."),
    # L3: Performer 'exactly the same result' (new pattern)
    ("cx-sparse-linear", "Performer computes exactly the same result as softmax attention."),
    ("cx-sparse-linear", "Performer 和 softmax 注意力的结果完全一样。"),
    (
        "cx-sparse-linear",
        "Random features give exactly the same output as softmax attention, just in linear time.",
    ),
    # L3: more query heads, bigger KV cache (new pattern)
    ("cx-kv-cache-memory", "More query heads mean a bigger KV cache."),
    ("cx-kv-cache-memory", "query 头越多，KV cache 就越大。"),
    ("cx-kv-cache-memory", "Adding query heads makes the KV cache bigger."),
    # L3: the query bias is also redundant (pattern 2 widened)
    ("bias-k-bias-redundant", "The query bias is also redundant, by symmetry with the key bias."),
    ("bias-k-bias-redundant", "查询偏置也是多余的。"),
    ("bias-k-bias-redundant", "The query bias is redundant too."),
    # L3: 注意力的开销总是由 n² 项主导 (主导 added)
    ("cx-time-space", "注意力的开销总是由 n² 项主导。"),
    ("cx-time-space", "n² 项总是主导注意力的开销。"),
    ("cx-time-space", "无论序列多长，注意力的开销总是由 n² 项主导。"),
    # round-8 L3 paraphrases already caught
    ("dva-cost", "Additive attention applies W_q and W_k to every pair."),
    ("rnn-inference-cost", "Transformers are faster than RNNs in every respect."),
]

OPEN: list = []  # the L5 rejections were fixed in the matcher (fxM) and moved to NOT_FLAGGED

test_not_flagged, test_flagged, test_open = checker_tests(
    NOT_FLAGGED,
    FLAGGED,
    OPEN,
    reason="a rejection after the myth's clause, or across a comma, is not read (matcher change needed)",
)
