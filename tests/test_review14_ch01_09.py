"""Reviews of session 11 at 78d9ae3: chapters 01-05 (reviews/2026-12-03/s11-r13-ch01-05.md) and 06-09
(reviews/2026-12-03/s11-r12-ch06-09.md), the card- and myth-level findings.

- 01-05 M-2: the round-11 myths (cross-attention Q/KV swap, Flamingo gates starting open, post-LN in modern LLMs,
  cross-attention K/V recomputed, attention knowing order by itself, new query i sees j <= i) are concept groups
  with role words instead of runs fitted to the registry sentence; each has a ``!!>`` group of its own correction.
- 01-05 M-3: flow-what-is-transformer KP5 names the encoder-decoder family still in use (T5, BART, Whisper); the
  false either/or "modern models are encoder-only or decoder-only" no longer ticks KP5 (nor KP4).
- 06-09 M4 / round-10 L3, L5: plain paraphrases of six myths, and the chapter-09 headings "Additive attention is
  hard to parallelise" / "Dot-product attention is faster because it does fewer FLOPs" registered as myths.
- 06-09 L1: "FlashAttention is exact; block-sparse FlashAttention is the approximate variant." is not flagged.
- 01-05 M-1 / 06-09 M3 (partly): reversed key points the reviewers listed that no longer tick.
"""

from __future__ import annotations

from checker_support import checker_tests, keypoint_tests

CA, MM, LN, WT = 'mask-cross-attention', 'mask-cross-attention-multimodal', 'flow-pre-post-ln', 'flow-what-is-transformer'
KA = 'mask-kv-alignment'

FLAGGED = [
    # M-2 cross-attention-queries-from-encoder (reviewer's six misses + own forms)
    (CA, 'In cross-attention the encoder supplies the queries and the decoder supplies the keys and values.'),
    (CA, 'In cross-attention the encoder states act as queries and the decoder states as keys and values.'),
    (CA, 'Cross-attention projects the encoder output into queries and the decoder states into keys and values.'),
    (CA, 'The encoder output is used for the queries, and the decoder hidden states give K and V.'),
    (CA, '交叉注意力中编码器输出作为 query，解码器状态作为 key 和 value。'),
    (CA, '交叉注意力的 Q 由编码器提供，K 和 V 由解码器提供。'),
    (CA, 'The encoder output gives the queries.'),
    (CA, 'The encoder supplies the queries, but I forget the details.'),
    ('mask-self-masked-cross', 'Cross-attention takes Q from the encoder output and K, V from the decoder.'),
    ('mask-masked-attention', 'Cross-attention takes Q from the encoder and K and V from the decoder, masking only source padding.'),
    # M-2 cross-attention-gates-start-open
    (MM, 'Flamingo initialises its tanh gates to one, so the image signal flows from the first step.'),
    (MM, 'Flamingo starts its tanh gates at one, so images contribute from the very first step.'),
    (MM, 'The Flamingo gates start fully open, so the visual features pass through at initialisation.'),
    (MM, 'Flamingo 的门一开始就是打开的，视觉信息从初始化起就能进来。'),
    (MM, 'At initialisation the gated cross-attention already passes the visual signal.'),
    (MM, 'Initially the gated layers pass the image features straight through.'),
    (MM, 'The gates start at one, but I am not sure about the details.'),
    (MM, 'At initialisation the model differs from the frozen language model, because the gates start at 1.'),
    # M-2 most-modern-llms-use-post-ln
    (LN, 'Most modern LLMs use post-LN rather than pre-LN.'),
    (LN, 'Nearly all current LLMs put the LayerNorm after the residual addition, i.e. post-LN.'),
    (LN, '现在主流的大语言模型大多是 post-LN。'),
    (LN, '现在的大模型基本都用 post-LN。'),
    (LN, 'Most modern LLMs use post-LN, but I read that in a blog.'),
    (LN, '现在的大模型基本都用 post-LN，但我不确定。'),
    # M-2 cross-attention-kv-recomputed-every-step
    (CA, 'Since the decoder state changes, the cross-attention K and V are recalculated each step.'),
    (CA, '交叉注意力每一步都得重新算 K 和 V。'),
    (CA, 'Cross-attention K and V are recalculated each step, but that is slow.'),
    (CA, '交叉注意力每一步都得重新算 K 和 V，但这很慢。'),
    # M-2 attention-alone-knows-token-order
    (WT, 'Self-attention is inherently sensitive to the order of its inputs.'),
    (WT, '自注意力天生就知道词序。'),
    (WT, 'Self-attention is aware of token order on its own.'),
    (WT, 'Self-attention is inherently sensitive to the order of its inputs, but that is a detail.'),
    (WT, '自注意力天生就知道词序，但这不重要。'),
    (WT, 'We do not need positional encodings, since attention already sees the token order.'),
    # M-2 new-query-i-sees-keys-up-to-i
    (KA, 'Query i of the new chunk sees keys 0 through i.'),
    (KA, 'The new query i may attend to keys 0 to i.'),
    (KA, 'With a KV cache, query i of the new block sees key j iff j <= i.'),
    (KA, 'Query i of the new chunk sees keys 0 through i, but I may be wrong.'),
    # 06-09 M4
    ('cx-time-space', 'The attention layer always costs more than the feed-forward layers, whatever the sequence length.'),
    ('cx-time-space', '无论序列多长，注意力都是模型里开销最大的部分。'),
    ('cx-time-space', 'There is no way to compute self-attention with less than quadratic memory.'),
    ('cx-time-space', 'FlashAttention cuts the number of floating-point operations of attention.'),
    ('cx-flashattention', 'FlashAttention reduces the number of floating-point operations.'),
    ('cx-time-space', 'FlashAttention 把注意力的计算量从 O(n²) 降下来了。'),
    ('cx-time-space', 'FlashAttention 把计算量降下来了。'),
    ('cx-flashattention', 'FlashAttention speeds things up by doing fewer FLOPs.'),
    ('cx-flashattention', 'FlashAttention speeds up attention by doing fewer FLOPs.'),
    ('cx-flashattention', 'FlashAttention is an approximation.'),
    ('cx-sparse-linear', 'Performer reproduces softmax attention exactly.'),
    ('cx-sparse-linear', 'Performer reproduces softmax attention exactly, but that is my guess.'),
    ('bias-k-bias-redundant', 'Just like the key bias, the query bias drops out of the softmax.'),
    ('bias-k-bias-redundant', 'The query bias drops out of the softmax too, but I am not sure.'),
    ('dva-variants', "Because it has no learnable weights, scaled dot-product attention is weaker than Luong's general score."),
    # round-10 L3 / L5 carried
    ('dva-dot-vs-additive', 'Additive attention is O(n^2 d^2) while dot-product attention is O(n^2 d).'),
    ('dva-dot-vs-additive', 'Additive attention is hard to parallelise.'),
    ('dva-cost', 'Additive attention is hard to parallelise.'),
    ('dva-dot-vs-additive', 'Additive attention cannot be parallelised.'),
    ('dva-dot-vs-additive', '加性注意力很难并行。'),
    ('dva-dot-vs-additive', 'Additive attention is hard to parallelise, but it is old.'),
    ('dva-dot-vs-additive', 'Dot-product attention is faster because it does fewer FLOPs.'),
    ('dva-cost', 'Dot-product attention is faster because it does fewer FLOPs.'),
    ('dva-dot-vs-additive', 'Dot-product attention is faster thanks to fewer FLOPs.'),
    ('dva-dot-vs-additive', '点积注意力更快是因为 FLOPs 更少。'),
    ('dva-dot-vs-additive', 'Dot-product attention is faster because it does fewer FLOPs, but I forget the numbers.'),
]

NOT_FLAGGED = [
    # cross-attention roles stated right, incl. "myth, but its own correction"
    (CA, 'The decoder supplies the queries, and the encoder output supplies the keys and values.'),
    (CA, 'The encoder output is projected into keys and values; the decoder states give the queries.'),
    (CA, 'The queries are not taken from the encoder; they come from the decoder.'),
    (CA, '编码器输出提供 key 和 value，解码器提供 query。'),
    (CA, 'K 和 V 来自编码器，Q 来自解码器。'),
    (CA, 'Q comes from the decoder and K, V from the encoder output.'),
    (CA, 'The decoder states act as queries and the encoder states as keys and values.'),
    (CA, 'The decoder hidden states act as queries, and the encoder output as keys and values.'),
    (CA, 'Cross-attention projects the decoder states into queries and the encoder output into keys and values.'),
    (CA, '解码器状态作为 query，编码器输出作为 key 和 value。'),
    (CA, 'Q 由解码器提供，K 和 V 由编码器输出提供。'),
    (CA, "In the encoder, each token's queries attend to all keys."),
    (CA, 'The encoder computes queries, keys and values from the same tokens in self-attention.'),
    (CA, "The decoder's self-attention keys and values come from the decoder's own tokens."),
    (CA, 'The decoder caches its own keys and values for self-attention.'),
    (CA, "The encoder output is turned into keys and values that the decoder's queries read."),
    (CA, 'The encoder output provides the keys and values for the queries.'),
    (CA, 'The encoder supplies the queries, but actually it is the decoder that supplies them and the encoder gives the keys and values.'),
    # cross-attention K/V computed once
    (CA, 'The decoder recomputes its query every step, but the cross-attention keys and values are computed once.'),
    (CA, '交叉注意力的 K、V 只需算一次，每一步只重新计算 query。'),
    (CA, 'Cross-attention K and V are recalculated each step, but actually the encoder output is fixed, so they are computed once and cached.'),
    (CA, '交叉注意力每一步都得重新算 K 和 V，但其实编码器输出是固定的，只算一次。'),
    # gates
    (MM, 'The gates start closed at tanh(0) = 0, so at first the model is the frozen language model.'),
    (MM, 'The gates do not start at 1; they start at 0.'),
    (MM, 'Flamingo 的 tanh 门初始为 0，训练后才逐渐打开。'),
    (MM, 'The gates open during training, so the visual signal passes later on.'),
    (MM, 'At initialisation, the forward pass of the gated model equals the frozen LM.'),
    (MM, 'The gates start at zero and open gradually as training proceeds.'),
    (MM, '门控在初始化时为零，模型一开始等于冻结的语言模型。'),
    (MM, 'At initialisation the gates let no visual signal through.'),
    (MM, "Flamingo's gates start at one, but actually they start at zero, so the model is the frozen LM at first."),
    (MM, 'Flamingo 的 tanh 门初始化为 1，但其实门初始化为 0，初始化时模型就是冻结的语言模型。'),
    # post-LN
    (LN, 'BERT and the original Transformer use post-LN, while modern LLMs use pre-LN.'),
    (LN, "Few of today's LLMs use post-LN; most use pre-LN."),
    (LN, 'Most modern LLMs use pre-LN rather than post-LN.'),
    (LN, 'Most modern LLMs use pre-LN, not post-LN.'),
    (LN, 'Modern LLMs put the norm before the residual addition, inside the branch.'),
    (LN, '现在的大模型基本都用 pre-LN，而不是 post-LN。'),
    (LN, 'Today most LLMs are pre-LN; post-LN is what BERT used.'),
    (LN, 'Most modern LLMs use post-LN, but in fact they use pre-LN with RMSNorm.'),
    (LN, '现在的大模型基本都用 post-LN，但其实它们用 pre-LN。'),
    # order
    (WT, 'Self-attention is not inherently sensitive to order; positions must be added.'),
    (WT, 'Naturally, self-attention needs positional encodings to know the order.'),
    (WT, 'RNNs are inherently sensitive to the order of their inputs; self-attention is not.'),
    (WT, 'Self-attention is inherently sensitive to the order of its inputs, but actually without positions it is permutation-equivariant.'),
    (WT, '自注意力天生就知道词序，但其实没有位置编码时它对排列等变。'),
    # new query i
    (KA, 'Query i of the new chunk sees keys 0 through p + i.'),
    (KA, 'With p cached tokens, new query i attends to keys j <= p + i.'),
    (KA, 'Query i of the new chunk sees keys 0 through i, but only without a cache.'),
    (KA, 'Query i of the new chunk sees keys 0 through i, but actually it sits at p + i, so it sees keys up to p + i.'),
    (KA, '有缓存时第 i 个新 query 只能看到 j <= i 的 key，但其实它的绝对位置是 p + i。'),
    # 06-09 near misses and own corrections
    ('cx-time-space', 'The feed-forward layers always cost more than attention for short sequences.'),
    ('cx-time-space', 'For long sequences, attention always costs more than the feed-forward layers.'),
    ('cx-time-space', '在长序列里，注意力都是开销最大的部分。'),
    ('cx-time-space', 'The attention layer always costs more than the feed-forward layers, but only for long sequences.'),
    ('cx-time-space', 'FlashAttention cuts memory traffic, not the number of floating-point operations.'),
    ('cx-time-space', 'FlashAttention 把显存从 O(n²) 降下来了。'),
    ('cx-time-space', 'There is no way around O(n^2) compute, but memory can be O(n).'),
    ('cx-time-space', 'A naive implementation cannot use less than quadratic memory.'),
    ('cx-flashattention', 'FlashAttention speeds things up by moving fewer bytes, not by doing fewer FLOPs.'),
    ('cx-flashattention', 'FlashAttention speeds up attention 2 to 4 times with the same FLOPs.'),
    ('cx-flashattention', 'FlashAttention speeds things up by doing fewer FLOPs, but only by skipping masked blocks.'),
    ('cx-flashattention', 'FlashAttention is exact; block-sparse FlashAttention is the approximate variant.'),
    ('cx-flashattention', 'Block-sparse FlashAttention is an approximation.'),
    ('cx-sparse-linear', 'Performer reproduces softmax attention exactly only in expectation.'),
    ('cx-sparse-linear', 'Performer does not reproduce softmax attention exactly; it estimates it.'),
    ('cx-sparse-linear', 'FlashAttention reproduces softmax attention exactly, Performer only approximates it.'),
    ('cx-sparse-linear', 'Performer reproduces softmax attention exactly, but actually it only estimates it with random features.'),
    ('bias-k-bias-redundant', 'The key bias drops out of the softmax, but the query bias does not.'),
    ('bias-k-bias-redundant', 'Unlike the key bias, the query bias does not drop out of the softmax.'),
    ('bias-k-bias-redundant', 'A constant row bias drops out of the softmax.'),
    ('bias-k-bias-redundant', 'The query bias drops out of the softmax too, but actually b_Q · k_j varies across the keys.'),
    ('dva-variants', "Luong's plain dot score is weaker than his general score because it has no W."),
    ('dva-variants', 'Per head, scaled dot-product attention is weaker than a full-rank general score.'),
    ('dva-variants', 'Scaled dot-product attention is not weaker than general attention: W_Q W_K^T is a bilinear form.'),
    ('dva-dot-vs-additive', 'Additive attention is not hard to parallelise; it is slow because of element-wise work.'),
    ('dva-dot-vs-additive', 'RNNs are hard to parallelise, while additive attention computes all pairs at once.'),
    ('dva-dot-vs-additive', 'Dot-product attention is faster because it runs as one matrix multiply, not because it does fewer FLOPs.'),
    ('dva-dot-vs-additive', 'Additive attention does only slightly more FLOPs, yet it is slower.'),
    ('dva-dot-vs-additive', 'If you projected every pair, additive attention would be O(n^2 d^2).'),
    ('dva-dot-vs-additive', 'Both are O(n^2 d); additive attention is not O(n^2 d^2).'),
    ('dva-dot-vs-additive', 'Additive attention is hard to parallelise, but actually all pairs are computed at once by broadcasting.'),
    ('dva-dot-vs-additive', 'Dot-product attention is faster because it does fewer FLOPs, but actually the gap comes from the shape of the work, one GEMM versus element-wise passes.'),
    ('dva-dot-vs-additive', '加性注意力很难并行，但其实所有 query-key 对可以用广播一次算完。'),
    ('dva-dot-vs-additive', '点积注意力更快是因为 FLOPs 更少，但其实差距来自计算的形态，而不是运算次数。'),
    ('dva-cost', 'Same order of FLOPs; the difference is arithmetic intensity, matmul versus elementwise work that is bandwidth-bound on GPUs.'),
]

NOT_TICKED = [
    # M-3: the false either/or gets no credit for the families point (nor the original-architecture point)
    (WT, 5, 'Modern Transformers are either encoder-only or decoder-only.'),
    (WT, 4, 'Modern Transformers are either encoder-only or decoder-only.'),
    (WT, 5, 'Modern families are encoder-only (BERT) or decoder-only (GPT).'),
    (WT, 5, '现代模型分为仅编码器（BERT）和仅解码器（GPT）两类。'),
    (WT, 5, '现在的模型要么是仅编码器，要么是仅解码器。'),
    (WT, 5, 'Encoder-decoder models are obsolete; modern models are encoder-only or decoder-only.'),
    # M-2 rows that ticked the blocked point
    (CA, 0, 'In cross-attention the encoder supplies the queries and the decoder supplies the keys and values.'),
    (MM, 3, 'The Flamingo gates start fully open, so the visual features pass through at initialisation.'),
    (LN, 4, 'Most modern LLMs use post-LN rather than pre-LN.'),
    (LN, 4, 'Most modern LLMs normalise after the residual add, post-LN style.'),
    (WT, 3, 'Positions are not needed because attention is sensitive to order on its own.'),
    (KA, 1, 'Query i of the new chunk sees keys 0 through i.'),
    ('mask-self-masked-cross', 3, 'Cross-attention takes Q from the encoder output and K, V from the decoder.'),
    ('mask-masked-attention', 5, 'Cross-attention takes Q from the encoder and K and V from the decoder, masking only source padding.'),
    # M-1 / M3: reversed key points
    ('flow-computation', 3, 'The mask sets forbidden scores to minus infinity after the softmax.'),
    ('scaling-softmax-gradient', 3, 'The Jacobian entries can exceed 1/4.'),
    ('qkv-shared-qk', 1, 'The diagonal of the score matrix can be negative when W_Q = W_K.'),
    ('qkv-shared-qk', 2, 'By Cauchy-Schwarz an off-diagonal score always exceeds both self-scores.'),
    ('qkv-why-three', 2, 'With a shared Q/K matrix the scores are asymmetric.'),
    ('mh-head-dim', 2, "A head's logit matrix has rank at least d_k, so narrow heads are not a bottleneck."),
    ('mh-head-dim', 4, 'Pruning studies show that every head is essential after training.'),
    ('mh-mqa-gqa', 0, 'Decoding is compute-bound, so the KV cache size does not matter.'),
    ('mh-mqa-gqa', 1, 'MQA gives each query head its own key head and value head, growing the cache by h.'),
    ('mh-mqa-cost', 2, 'The KV cache grows by a factor h/g.'),
    ('mh-split-heads', 0, 'Reshape (B, n, d_model) directly to (B, h, n, d_k), with no transpose.'),
    ('mask-kv-cache', 4, 'The cache grows quadratically with the context length.'),
    ('mask-kv-cache', 2, 'Per step, attention costs O(t^2 d), the same as recomputing all positions.'),
    ('scaling-why-not-dk', 1, 'Without scaling the spread shrinks with d_k and the softmax becomes uniform.'),
    ('scaling-qk-norm', 2, 'Growing logits raise attention entropy and make training smoother.'),
    ('flow-attention-sink', 4, 'A learnable sink logit forces rows to sum to more than 1.'),
    ('mask-masked-attention', 0, 'Position i may attend only to positions j >= i.'),
    ('mask-fully-masked-row', 4, 'A large finite negative value avoids NaN and gives the correct output.'),
    ('cx-long-context-memory', 4, 'At inference the KV cache stays the same size as n grows.'),
    ('cx-kv-cache-memory', 3, 'To shrink the cache, GQA increases the number of KV heads.'),
    ('rnn-why-attention', 3, 'A fixed-size RNN state never overwrites information.'),
    ('rnn-positional-information', 0, 'Without positions self-attention already sees word order.'),
    ('bias-alibi', 1, 'The penalty grows quadratically with distance.'),
    ('bias-rope-alibi', 3, 'RoPE extends to any context length without rescaling.'),
    ('bias-k-bias-redundant', 1, 'Without RoPE, b_K changes the attention weights and gets a nonzero gradient.'),
    ('cx-sparse-linear', 1, 'Sparse attention cannot miss a distant token, because it costs O(n w d).'),
    ('bias-what-is-attention-bias', 3, 'Masks are biases with 1 for allowed and 0 for forbidden pairs.'),
    ('dva-variants', 1, 'Dot is the bilinear score with a learned W and allows different widths.'),
    ('cx-time-space', 4, 'FlashAttention 把注意力的计算量从 O(n²) 降下来了。'),
    ('cx-sparse-linear', 4, 'Performer reproduces softmax attention exactly.'),
]

TICKED = [
    # M-3: the corrected families point
    (WT, 5, 'Besides the encoder-decoder (original, T5, BART, Whisper), there are encoder-only models (BERT) and decoder-only models (GPT), the form most LLMs use.'),
    (WT, 5, '除编码器-解码器（原始结构、T5、BART、Whisper）外，还有仅编码器（BERT）和仅解码器（GPT，多数大语言模型采用）两类。'),
    (WT, 5, 'T5 and Whisper are encoder-decoder models that are still widely used.'),
    (WT, 5, 'There are encoder-only, decoder-only and encoder-decoder models.'),
    (WT, 5, 'Today there are three families: encoder-decoder like T5, encoder-only like BERT and decoder-only like GPT.'),
    (WT, 5, 'T5 是编码器-解码器模型。'),
    (WT, 4, 'The original is an encoder-decoder; the decoder uses masked self-attention and cross-attention.'),
    (WT, 4, '原始结构是编码器-解码器；解码器使用掩码自注意力和交叉注意力。'),
    (WT, 4, 'The original Transformer has an encoder and a decoder.'),
    # L-4 / L-5 card texts
    ('mh-head-dim', 3, 'In practice d_k is usually 64 to 128 (some models use 256, e.g. Gemma 7B), and the number of heads grows with d_model.'),
    ('mh-head-dim', 3, '实践中 d_k 通常为 64 到 128（也有模型用 256，如 Gemma 7B），头数随 d_model 增长。'),
    ('mask-fully-masked-row', 1, 'It occurs with masks that blank padded query rows, left padding with a causal mask, or packed sequences whose filler positions belong to no sequence.'),
    # correct forms of the points given exclusions above still tick
    (CA, 0, 'The decoder supplies the queries, and the encoder output supplies the keys and values.'),
    (MM, 3, 'The gates do not start at 1; they start at 0.'),
    (LN, 4, 'Most modern LLMs use pre-LN rather than post-LN.'),
    ('mask-self-masked-cross', 3, 'Cross-attention has queries from the decoder and keys and values from the encoder output.'),
    ('mask-cross-attention', 0, 'The decoder states are projected to queries, and the encoder output to keys and values.'),
    ('qkv-shared-qk', 2, 'By Cauchy-Schwarz an off-diagonal score cannot exceed both self-scores, so the diagonal tends to dominate.'),
    ('dva-cost', 4, 'Same order of FLOPs; the difference is arithmetic intensity, matmul versus elementwise work that is bandwidth-bound on GPUs.'),
]

test_not_flagged, test_flagged, _ = checker_tests(NOT_FLAGGED, FLAGGED)

test_reversed_key_point_does_not_tick, test_key_point_still_ticks = keypoint_tests(NOT_TICKED, TICKED)
