"""Round-11 review of chapters 01-05 (reviews/2026-12-03/s9-r11-ch01-05.md), MEDIUM findings N1-N5.

- N1: the new myths (post-LN, cross-attention recompute, token order, sink eviction) and the attached
  "mask after the softmax" myth flagged correct sentences: quantifiers (few / rarely / 很少), a recompute line
  with no key/value, the causal mask / RoPE / positions, middle-token eviction, "the masked weights are zero".
- N2 (ii): "myth, but only <its correction>" (only at initialisation / by rounding / in the softmax / the
  starting scale / prefill) spared by `!!>` groups of correction phrases.
- N3: single generic words (narrow, smaller, no transpose, 只有, 定义) moved from `!!>` to plain `!!`, so an
  unrelated or reinforcing "because / but / only" clause no longer spares the myth.
- N4: reversed central contrasts: new myths for the Q vs K/V source swap and Flamingo's gates at 1, and
  sink-eviction paraphrases ("keeps working", "照样正常"), blocking the points they contradict.
- N5 (language.py): a "call" frame frames its sentence before a correction only when it names nothing and
  is not endorsed: "…, in what people call the KV cache", "The KV cache, as it is often called, is …",
  "有人把它叫作 KV cache，…", "People call FlashAttention an approximation, and rightly so" are the speaker's.
"""

from __future__ import annotations

from checker_support import checker_tests, keypoint_tests

NOT_FLAGGED = [
    # N1 a: post-LN quantifiers (reviewer) and near misses
    ("flow-pre-post-ln", "Few modern LLMs use post-LN."),
    ("flow-pre-post-ln", "Modern LLMs rarely use post-LN."),
    ("flow-pre-post-ln", "Hardly any modern LLM uses post-LN."),
    ("flow-pre-post-ln", "如今很少有大模型用 post-LN。"),
    ("flow-pre-post-ln", "Some modern models such as OLMo 2 use a post-norm variant inside the residual branch."),
    ("flow-pre-post-ln", "Modern LLMs seldom use post-LN any more."),
    ("flow-pre-post-ln", "Most modern models moved away from post-LN."),
    ("flow-pre-post-ln", "现代大模型很少采用 post-LN。"),
    ("flow-pre-post-ln", "如今的大模型不再使用 post-LN。"),
    # N1 b: cross-attention recompute without keys/values
    ("mask-cross-attention", "The cross-attention queries are recomputed at every step, since they come from the decoder."),
    ("mask-cross-attention", "The query is recomputed at every step; the keys and values are cached."),
    ("mask-cross-attention", "每一步都要重新计算的是 query，不是 key 和 value。"),
    ("mask-cross-attention", "At each step the decoder recomputes its hidden state and its cross-attention query."),
    ("mask-cross-attention", "A naive implementation recomputes the cross-attention keys and values at every step, which wastes work."),
    ("mask-cross-attention", "Only the new query is recomputed at each step."),
    ("mask-cross-attention", "解码器每一步重新计算的是隐藏状态和 query。"),
    ("mask-cross-attention", "朴素实现每步都重新计算 key 和 value，浪费算力。"),
    # N1 c: order with a causal mask / RoPE / positions
    ("flow-what-is-transformer", "Causal attention by itself can already encode some order, which is why NoPE decoders work."),
    ("flow-what-is-transformer", "With RoPE, attention already knows the relative order of the tokens."),
    ("flow-what-is-transformer", "Attention with positional encodings already knows the order."),
    ("flow-what-is-transformer", "带因果掩码的注意力本身就能感知一些顺序。"),
    ("flow-what-is-transformer", "加了位置编码以后，注意力已经知道 token 的顺序。"),
    ("flow-what-is-transformer", "A causal decoder already captures order through its mask."),
    # N1 d: middle-token eviction
    ("flow-attention-sink", "Evicting the middle tokens is fine as long as the sink tokens stay."),
    ("flow-attention-sink", "Dropping tokens other than the sinks is fine."),
    ("flow-attention-sink", "丢掉中间的 token 没问题，只要保留 sink token。"),
    ("flow-attention-sink", "Evicting everything except the sink tokens and the recent window is safe."),
    ("flow-attention-sink", "删掉中间 token 无所谓，开头的 token 要留着。"),
    # N1 e: the masked weights are zero after the softmax (a result)
    ("flow-computation", "After the softmax the masked weights are zero."),
    ("flow-computation", "Once the softmax is applied the masked weights are zero."),
    ("flow-computation", "The masked positions end up with weight zero after the softmax."),
    ("flow-computation", "After the softmax, the masked entries become zero."),
    ("flow-computation", "softmax 之后被掩码的权重为 0。"),
    # N2 (ii): myth, but only <its correction>
    ("scaling-qk-norm", "With √d_k scaling the logits stay well scaled, but only at initialisation."),
    ("scaling-soft-capping", "√d_k scaling keeps the logits well scaled, but only at initialisation, while the cap works throughout training."),
    ("scaling-qk-norm", "√d_k 缩放让 logit 一直保持合适的尺度，但只在初始化时成立。"),
    ("mask-padding-variable-length", "Padding changes the outputs a little, but only by floating-point rounding."),
    ("mask-padding-variable-length", "Padding changes the real outputs a little, but only by floating-point rounding."),
    ("flow-stable-softmax", "Subtracting the maximum changes the weights slightly, but only by rounding error."),
    ("flow-stable-softmax", "Subtracting the maximum changes the weights slightly, but only through rounding."),
    ("flow-stable-softmax", "减去最大值会稍微改变权重，但只是舍入误差。"),
    ("mh-why-multi-head", "More heads means more computation, but only in the softmax; the matmul FLOPs stay the same."),
    ("scaling-why-not-dk", "Any constant works in the end because the model rescales, but the starting scale decides how fast it trains."),
    ("scaling-why-not-dk", "Any constant works eventually because the model rescales, but the starting scale decides how fast it trains."),
    ("mask-masked-attention", "The causal mask is only needed in training and prefill, but not in single-token decoding steps."),
    ("mask-masked-attention", "The causal mask only matters in training and prefill."),
    # N3: corrections in the forward lists still spare
    ("mh-why-multi-head", "More heads means more matmuls, but smaller ones."),
    ("mh-why-multi-head", "More heads means more separate matmuls, but each one is narrower, so the total is the same."),
    ("mh-why-multi-head", "每多一个头就多一次矩阵乘法，但每个头更窄，总量不变。"),
    ("mh-split-heads", "The reshape gives the right shapes, but only if you transpose first."),
    ("mh-split-heads", "Without the transpose, the reshape has the right shape and the wrong content."),
    ("mh-head-dim", "d_model must be divisible by h, but only when d_k is defined as d_model / h."),
    ("mh-head-dim", "d_model 必须能被 h 整除，但只有在 d_k = d_model / h 时才如此。"),
    # N4: correct forms near the new myths
    ("mask-cross-attention", "Queries come from the decoder states; keys and values are projections of the encoder output."),
    ("mask-cross-attention", "query 来自解码器状态，key 和 value 是编码器输出的投影。"),
    ("mask-cross-attention", "The queries do not come from the encoder output; they come from the decoder."),
    ("mask-cross-attention", "In the decoder's self-attention the keys and values come from the decoder too."),
    ("mask-cross-attention", "Queries attend over keys and values from the encoder output."),
    ("mask-cross-attention", "The queries come from the decoder, rather than from the encoder output."),
    ("mask-cross-attention", "交叉注意力的 query 来自解码器，不是来自编码器。"),
    ("mask-cross-attention", "In cross-attention, the decoder provides the queries and the encoder output provides the keys and values."),
    ("mask-cross-attention", "在自注意力里 key 和 value 来自解码器本身。"),
    ("mask-cross-attention-multimodal", "The tanh gates start at 0, so at initialisation the model equals the frozen language model."),
    ("mask-cross-attention-multimodal", "The gates start closed and open up during training."),
    ("mask-cross-attention-multimodal", "门初始化为 0，tanh(0) = 0。"),
    ("mask-cross-attention-multimodal", "The gates are not initialised to 1; they start at 0."),
    ("mask-cross-attention-multimodal", "门一开始是关闭的，训练后才打开。"),
    ("flow-attention-sink", "Streaming generation keeps working as long as the sink tokens stay in the cache."),
    ("flow-attention-sink", "丢掉中间的 token 照样正常，只要保留 sink token。"),
    ("flow-attention-sink", "Evicting middle tokens changes nothing as long as the sinks stay."),
    ("flow-attention-sink", "Dropping the first tokens is not fine: generation collapses."),
    # N5: a call frame before a correction still frames
    ("mask-kv-cache", "People call the KV cache an approximation, but it is exact."),
    ("mask-kv-cache", "The KV cache is often called an approximation, but it is exact."),
    ("mask-kv-cache", "有人把 KV cache 叫作用精度换速度的近似方法，其实它是精确的。"),
    ("mask-kv-cache", "People call it an approximation, but the KV cache is exact."),
    ("mask-kv-cache", "有人把它叫作近似方法，其实 KV cache 是精确的。"),
    ("scale-cheap-enough", "Some people call FlashAttention an approximation, but it is exact."),
    ("scale-cheap-enough", "FlashAttention is sometimes called an approximation, but it is exact."),
    ("scale-cheap-enough", "有人把 FlashAttention 叫作近似方法，但它是精确的。"),
    ("scale-cheap-enough", "People call FlashAttention an approximation, which is not true."),
    ("scale-cheap-enough", "Some people call FlashAttention an approximation."),
]

FLAGGED = [
    # N1: the myth forms
    ("flow-pre-post-ln", "Most modern LLMs use post-LN."),
    ("flow-pre-post-ln", "主流大模型都采用 post-LN。"),
    ("flow-pre-post-ln", "Modern models mostly use post-LN."),
    ("mask-cross-attention", "Cross-attention keys and values must be recomputed at every decoding step."),
    ("mask-cross-attention", "交叉注意力的 key 和 value 每步都要重算，因为解码器状态变了。"),
    ("mask-cross-attention", "The decoder recomputes the cross-attention keys and values at each step."),
    ("flow-what-is-transformer", "Attention alone already knows the order of the tokens, so no positional information is needed."),
    ("flow-what-is-transformer", "注意力本身就能区分 token 的顺序，所以不需要位置编码。"),
    ("flow-what-is-transformer", "Self-attention already knows the order of the tokens."),
    ("flow-attention-sink", "You can safely drop the sink tokens from a sliding-window cache."),
    ("flow-attention-sink", "从滑动窗口 KV cache 里丢掉 sink token 不会有影响。"),
    ("flow-attention-sink", "Evicting the sink tokens is harmless."),
    ("flow-computation", "The mask is applied after the softmax."),
    ("flow-computation", "The mask multiplies the attention weights by 0 after the softmax."),
    # N2: a plain "but/only" clause still flags
    ("scaling-qk-norm", "With √d_k scaling the logits stay well scaled, but QK-norm is popular too."),
    ("flow-stable-softmax", "Subtracting the maximum changes the weights slightly, but it prevents overflow."),
    ("mask-padding-variable-length", "Padding changes the outputs a little, but only for long sequences."),
    ("mh-why-multi-head", "More heads means more computation, but only a little."),
    ("scaling-why-not-dk", "Any constant works because the model rescales, but sqrt(d_k) is the convention."),
    ("mask-masked-attention", "The causal mask is only needed in training."),
    # N3: unrelated or reinforcing clauses with a generic word no longer spare
    ("mh-why-multi-head", "More heads means more computation because each head adds a smaller matmul."),
    ("mh-why-multi-head", "More heads means more computation, because the narrower heads are less efficient on GPUs."),
    ("mh-why-multi-head", "More heads means more computation, only the narrow heads are faster."),
    ("mh-split-heads", "The reshape is right as long as the shapes are right, because no transpose is needed."),
    ("mh-split-heads", "The reshape is right as long as the shapes are right, but without a transpose it is slower."),
    ("mh-head-dim", "d_model must be divisible by h, because d_k is defined by the config."),
    ("mh-head-dim", "d_model 必须能被 h 整除，因为只有这样才能均匀切分。"),
    # N4: reversed contrasts
    ("mask-cross-attention", "The decoder provides the keys and values, and the encoder output provides the queries."),
    ("mask-cross-attention", "Keys and values come from the decoder states; queries are projections of the encoder output."),
    ("mask-cross-attention", "query 来自编码器输出，key 和 value 来自解码器。"),
    ("mask-cross-attention", "Cross-attention queries are projections of the encoder output."),
    ("mask-cross-attention", "Cross-attention keys come from the decoder and queries from the encoder output."),
    ("mask-cross-attention-multimodal", "The tanh gates are initialised to 1, so the visual signal passes from the start."),
    ("mask-cross-attention-multimodal", "The gates start open, at tanh(1)."),
    ("mask-cross-attention-multimodal", "Flamingo 的 tanh 门初始化为 1，视觉信号一开始就能通过。"),
    ("flow-attention-sink", "Streaming generation keeps working after the sink tokens are evicted."),
    ("flow-attention-sink", "丢掉 sink token 后流式生成照样正常。"),
    ("flow-attention-sink", "Evicting sink tokens from a sliding-window cache keeps streaming generation working."),
    ("flow-attention-sink", "The sink tokens can be evicted without any harm."),
    ("flow-attention-sink", "Evicting sink tokens changes nothing."),
    ("flow-attention-sink", "丢掉 sink token 没关系。"),
    # N5: naming asides and endorsements are the speaker's own claim
    ("mask-kv-cache", "Queries are cached too, in what people call the KV cache."),
    ("mask-kv-cache", "The KV cache, as it is often called, is an approximation that trades accuracy for speed."),
    ("mask-kv-cache", "What is often called the KV cache is an approximation that trades accuracy for speed."),
    ("mask-kv-cache", "有人把它叫作 KV cache，它是用精度换速度的近似方法。"),
    ("mask-fully-masked-row", "Using -1e9 instead of -inf, which people call the finite-mask trick, solves the problem."),
    ("mh-why-multi-head", "More heads means more computation, which is what people call the cost of multi-head attention."),
    ("mask-kv-cache", "People call the KV cache an approximation that trades accuracy for speed, and rightly so."),
    ("mask-kv-cache", "有人把 KV cache 叫作用精度换速度的近似方法，这没错。"),
    ("scale-cheap-enough", "People call FlashAttention an approximation, and rightly so."),
    ("scale-cheap-enough", "People call FlashAttention an approximation, and they are right."),
    ("scale-cheap-enough", "有人把 FlashAttention 叫作近似方法，这没错。"),
    ("scale-cheap-enough", "有人把 FlashAttention 叫作近似方法，说得没错。"),
    ("scale-cheap-enough", "FlashAttention is often called an approximation, and it is one."),
]

test_not_flagged, test_flagged, _unused = checker_tests(NOT_FLAGGED, FLAGGED)

# N4: a reversed contrast earns nothing; the true forms still tick
NO_TICK = [
    ("mask-cross-attention", 0, "Cross-attention keys come from the decoder and queries from the encoder output."),
    ("mask-cross-attention", 0, "The decoder provides the keys and values, and the encoder output provides the queries."),
    ("mask-cross-attention", 0, "query 来自编码器输出，key 和 value 来自解码器。"),
    ("mask-cross-attention-multimodal", 3, "The tanh gates are initialised to 1, so the visual signal passes from the start."),
    ("mask-cross-attention-multimodal", 3, "The gates start open, at tanh(1)."),
    ("flow-attention-sink", 3, "Streaming generation keeps working after the sink tokens are evicted."),
    ("flow-attention-sink", 3, "丢掉 sink token 后流式生成照样正常。"),
]
TICK = [
    ("mask-cross-attention", 0, "Queries come from the decoder states; keys and values are projections of the encoder output."),
    ("mask-cross-attention", 0, "The queries come from the decoder and the keys and values from the encoder output."),
    ("mask-cross-attention", 0, "In cross-attention the decoder provides the queries and the encoder output the keys and values."),
    ("mask-cross-attention", 0, "query 来自解码器，key 和 value 来自编码器输出。"),
    ("mask-cross-attention-multimodal", 3, "The tanh gates start at 0, so at initialisation the model equals the frozen language model."),
    ("mask-cross-attention-multimodal", 3, "The gates are initialised to zero, so the model starts as the frozen LM."),
    ("mask-cross-attention-multimodal", 3, "Flamingo's gates start at 0: tanh(0) = 0, the frozen language model is unchanged at first."),
    ("mask-cross-attention-multimodal", 3, "tanh 门初始化为 0，所以初始化时模型等于冻结的语言模型。"),
]


test_reversed_contrast_does_not_tick, test_true_contrast_ticks = keypoint_tests(NO_TICK, TICK)
