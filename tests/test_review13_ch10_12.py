"""Review round 12, chapters 10-12 (reviews/2026-12-03/s10-r12-ch10-12.md): the card/myth findings N-1, N-2, N-4, N-6.

Every sentence below was written before the patterns it tests were read:

- N-2: two plain EN forms and one 中文 form of every myth the ch10-12 cards use, "myth, but <unrelated>" (flagged)
  and "myth, but <its own correction>" (not flagged);
- N-4: plain correct near misses (the review's three plus ours) that must state no myth;
- N-6: the card's own short-answer sentences and plain key-point statements that must tick their point;
- N-1: key points typed the wrong way round, which must not tick their point (rows that still tick are in
  N1_OPEN, strict xfail: the cause is systemic, claims are order-free word bags).
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests, keypoint_tests

# N-2: plain forms of every myth the ch10-12 cards use, written before reading any pattern.
# Per myth: 2 plain EN, 1 中文, "myth, but <unrelated>" (all FLAGGED) and "myth, but <own correction>" (NOT_FLAGGED).
N2_FLAGGED = [
    # encoder-decoder-blocks-fundamentally-different
    ('tf-what-is-transformer-structure', 'The encoder block and the decoder block are completely different designs.'),
    ('tf-what-is-transformer-structure', 'Decoder blocks work in a fundamentally different way from encoder blocks.'),
    ('tf-what-is-transformer-structure', '编码器块和解码器块是完全不同的结构。'),
    ('tf-what-is-transformer-structure', 'Encoder and decoder blocks are fundamentally different, but both have residual connections.'),
    # layernorm-placement-cosmetic
    ('tf-pre-post-ln', 'Where you put the LayerNorm is just a cosmetic detail.'),
    ('tf-pre-post-ln', 'Pre-LN and post-LN are the same model written differently.'),
    ('tf-pre-post-ln', 'LayerNorm 放在残差前还是后没有本质区别。'),
    ('tf-pre-post-ln', 'LayerNorm placement is cosmetic, but RMSNorm is cheaper.'),
    # post-ln-top-layer-gradients-small
    ('tf-pre-post-ln', 'In a post-LN Transformer the gradients at the top layers are tiny at initialisation.'),
    ('tf-pre-post-ln', 'Post-LN starts training with vanishing gradients near the output.'),
    ('tf-pre-post-ln', 'post-LN 在初始化时靠近输出的层梯度很小。'),
    ("tf-pre-post-ln", "Post-LN's top-layer gradients are small at initialisation, but the original Transformer used post-LN anyway."),
    # decoder-only-model-decoder-original-transformer
    ('tf-architectures-masks', 'GPT is simply the decoder half of the original Transformer.'),
    ('tf-architectures-masks', "A decoder-only model takes the original Transformer's decoder and drops the encoder."),
    ('tf-architectures-masks', 'GPT 这类仅解码器模型就是原始 Transformer 的解码器部分。'),
    ('tf-architectures-masks', 'A decoder-only model is the decoder of the original Transformer, but it is trained on far more data.'),
    # decoder-only-was-proven-be-best
    ('tf-why-decoder-only', 'Research has shown that decoder-only is the best architecture.'),
    ('tf-why-decoder-only', 'It has been proven that decoder-only Transformers beat encoder-decoders.'),
    ('tf-why-decoder-only', '研究证明了仅解码器架构是最优的。'),
    ('tf-why-decoder-only', 'Decoder-only was proven to be the best architecture, but encoders are still used for embeddings.'),
    # swiglu-makes-ffn-bigger
    ('tf-modern-block', 'SwiGLU adds parameters to the FFN.'),
    ('tf-modern-block', "Switching to SwiGLU increases the FFN's parameter count because it has a third matrix."),
    ('tf-modern-block', 'SwiGLU 多了一个矩阵，所以 FFN 的参数更多。'),
    ('tf-modern-block', 'SwiGLU makes the FFN bigger, but it trains better.'),
    # gqa-gives-each-query-head-own-kv-head
    ('tf-modern-block', 'In GQA every query head has a dedicated key and value head.'),
    ('tf-modern-block', 'Grouped-query attention keeps one KV head per query head.'),
    ('tf-modern-block', 'GQA 中每个查询头都有一个专属的 KV 头。'),
    ('tf-modern-block', 'GQA gives each query head its own key-value head, but Llama 2 70B uses it.'),
    # ffn-minor-part-attention-where-compute
    ('tf-params-flops', "Most of a Transformer's compute is spent in attention; the FFN is a small add-on."),
    ('tf-params-flops', 'The feed-forward layer is a minor cost next to attention.'),
    ('tf-params-flops', 'FFN 只是个小部件，主要的计算都花在注意力上。'),
    ('tf-params-flops', 'The FFN is a minor part and attention is where the compute goes, but the FFN is easy to parallelise.'),
    # attention-dominates-short-contexts-ffn-long
    ('tf-params-flops', 'At short sequence lengths attention dominates the FLOPs, at long ones the FFN does.'),
    ('tf-params-flops', "The FFN's share of the compute grows with the context length."),
    ('tf-params-flops', '序列越长，FFN 占的计算比例越大。'),
    ('tf-params-flops', 'Attention dominates at short contexts and the FFN at long ones, but both are matmuls.'),
    # mixture-experts-model-with-47b-parameters
    ('tf-moe', 'A 47B MoE model needs as many FLOPs per token as a dense 47B model.'),
    ('tf-moe', 'Mixtral costs as much compute per token as a 47B dense model since every parameter is used.'),
    ('tf-moe', '47B 的 MoE 模型每个 token 的算力开销和 47B 稠密模型相同。'),
    ('tf-moe', 'A 47B MoE costs as much per token as a dense 47B model, but it is open-weight.'),
    # multiplying-embeddings-d-model-learning-rate
    ('tf-embeddings-tying', 'The √d_model factor on the embeddings is there to adjust the effective learning rate.'),
    ('tf-embeddings-tying', 'Scaling the embeddings by sqrt(d_model) is a trick to speed up learning.'),
    ('tf-embeddings-tying', '嵌入乘以 √d_model 是为了调节学习率。'),
    ('tf-embeddings-tying', 'Multiplying the embeddings by √d_model is a learning-rate trick, but few modern models do it.'),
    # bert-s-mask-works-like-attention
    ('tf-mlm-mask-vs-attention-mask', 'Other tokens cannot attend to a [MASK] token in BERT.'),
    ('tf-mlm-mask-vs-attention-mask', 'The [MASK] token is hidden from attention like a causal mask hides future tokens.'),
    ('tf-mlm-mask-vs-attention-mask', 'BERT 里被 [MASK] 的位置其他 token 看不到。'),
    ('tf-mlm-mask-vs-attention-mask', "BERT's [MASK] works like an attention mask, but it is used on 15% of tokens."),
    # self-attention-permutation-invariant
    ('pos-word-order', "Shuffling the input tokens leaves self-attention's output unchanged."),
    ('pos-word-order', "Self-attention's output does not change when you permute the inputs."),
    ('pos-word-order', '打乱输入顺序，自注意力的输出完全不变。'),
    ('pos-word-order', 'Self-attention is permutation-invariant, but RNNs are not.'),
    # context-extension-means-retraining-model-from
    ('pos-word-order', 'To extend the context window you have to pre-train the model again from scratch.'),
    ('pos-word-order', 'A longer context requires training a new model on long sequences from the start.'),
    ('pos-word-order', '想要更长的上下文，只能从头重新训练模型。'),
    ('pos-word-order', 'Context extension means retraining from scratch, but long documents are scarce.'),
    # sinusoidal-encodings-relative-because-pe-p
    ('pos-families', 'Sinusoidal position encodings are a relative scheme, since PE(p+k) is a linear map of PE(p).'),
    ('pos-families', 'Because a shift is a rotation of PE(p), the sinusoidal encoding makes attention scores depend only on the offset.'),
    ('pos-families', '正弦位置编码是相对位置编码，因为 PE(p+k) 可以由 PE(p) 线性变换得到。'),
    ('pos-families', 'Sinusoidal encodings are relative because PE(p + k) is linear in PE(p), but they are not learned.'),
    # rope-adds-position-vector-embeddings
    ('pos-rope-how', 'RoPE is added to the token embeddings at the input, like sinusoidal encodings.'),
    ('pos-rope-how', 'Rotary embeddings add a rotated position vector to each token embedding.'),
    ('pos-rope-how', 'RoPE 和正弦编码一样，是把位置向量加到词嵌入上。'),
    ('pos-rope-how', 'RoPE adds a position vector to the embeddings, but it has no learned parameters.'),
    # rope-makes-every-attention-score-decay
    ('pos-rope-how', 'With RoPE, every query-key score gets smaller as the distance grows.'),
    ('pos-rope-how', 'RoPE guarantees that attention scores shrink with the relative distance.'),
    ('pos-rope-how', 'RoPE 让所有注意力分数都随着距离增大而减小。'),
    ('pos-rope-how', 'RoPE makes every attention score decay with distance, but it is cheap to compute.'),
    # cached-keys-rotated-current-position-when
    ('pos-rope-details', "When decoding, the cached keys get rotated by the new token's position."),
    ('pos-rope-details', 'The KV cache keys are rotated again at every step using the current position.'),
    ('pos-rope-details', '解码时缓存里的 key 要按当前 token 的位置重新旋转。'),
    ('pos-rope-details', 'Cached keys are rotated by the current position when they are read, but values are not rotated.'),
    # any-transformer-without-positional-encodings-bag
    ('pos-nope', "A Transformer with no position encoding can't tell word order at all."),
    ('pos-nope', 'Without positional encodings every Transformer treats its input as a bag of words.'),
    ('pos-nope', '没有位置编码的 Transformer 完全无法区分词序。'),
    ('pos-nope', 'Any Transformer without positional encodings is a bag of words, but it trains faster.'),
    # position-interpolation-leaves-model-s-short
    ('pos-context-extension', 'Position interpolation does not change how the model sees nearby tokens.'),
    ('pos-context-extension', 'PI keeps the short-range behaviour intact and only affects long distances.'),
    ('pos-context-extension', '位置插值只影响远距离，近距离的行为保持不变。'),
    ('pos-context-extension', 'Position interpolation leaves the short-range behaviour untouched, but it needs some fine-tuning.'),
    # ntk-scaling-brings-every-slow-pair-back
    ('pos-context-extension', 'NTK-aware scaling puts all the slow dimension pairs back inside the trained range.'),
    ('pos-context-extension', 'After NTK scaling, no slow pair rotates beyond the angles seen in training.'),
    ('pos-context-extension', 'NTK-aware 缩放让所有慢维度对都回到训练时的角度范围内。'),
    ('pos-context-extension', 'NTK-aware scaling brings every slow pair back into the trained range, but it needs no fine-tuning.'),
    # alibi-extrapolation-means-model-uses-whole
    ('pos-extrapolation', 'Because ALiBi extrapolates, the model makes use of the entire longer context.'),
    ('pos-extrapolation', "ALiBi's stable loss at longer lengths shows the model reads the far tokens."),
    ('pos-extrapolation', 'ALiBi 能外推，说明模型真正利用了整段更长的上下文。'),
    ('pos-extrapolation', 'ALiBi extrapolation means the model uses the whole longer context, but BLOOM uses it.'),
    # flashattention-approximation-or-changes-model-as
    ('scale-cheap-enough', 'FlashAttention approximates attention to save memory.'),
    ('scale-cheap-enough', 'FlashAttention is a sparse approximation of attention, like Longformer.'),
    ('scale-cheap-enough', 'FlashAttention 是一种近似注意力算法。'),
    ('scale-cheap-enough', 'FlashAttention is an approximation, but it is very fast.'),
    # serving-cost-dominated-flops
    ('scale-cheap-enough', 'The cost of serving an LLM is mostly the FLOPs.'),
    ('scale-cheap-enough', 'Inference cost is set by how much arithmetic the GPU does.'),
    ('scale-cheap-enough', '部署大模型的成本主要取决于计算量。'),
    ('scale-cheap-enough', 'Serving cost is dominated by FLOPs, but GPUs are expensive.'),
    # flashattention-reduces-o-n-2-compute
    ('scale-cheap-enough', 'FlashAttention cuts the quadratic FLOPs of attention.'),
    ('scale-cheap-enough', "FlashAttention makes attention's compute linear in n."),
    ('scale-flash-backward', 'FlashAttention 把注意力的计算量从 O(n²) 降了下来。'),
    ('scale-flash-backward', 'FlashAttention reduces the O(n²) compute, but it needs a recent GPU.'),
    # decoding-is-compute-bound
    ('scale-prefill-decode', "Generating tokens one by one is limited by the GPU's arithmetic throughput."),
    ('scale-prefill-decode', 'Token generation is bottlenecked by FLOPs.'),
    ('scale-prefill-decode', '逐个生成 token 的解码阶段受限于算力。'),
    ('scale-cheap-enough', 'Decoding is compute-bound, but it is the phase users wait for.'),
    # flashattention-stores-attention-matrix-in-lower
    ('scale-flash-backward', 'FlashAttention saves memory by keeping the attention matrix in fp8.'),
    ('scale-flash-backward', 'FlashAttention keeps a compressed, low-precision copy of the attention weights for the backward pass.'),
    ('scale-flash-backward', 'FlashAttention 用半精度存注意力矩阵来节省显存。'),
    ('scale-flash-backward', 'FlashAttention stores the attention matrix in lower precision, but it runs on A100s.'),
    # recomputation-must-make-training-slower
    ('scale-flash-backward', 'Recomputing the attention in the backward pass necessarily slows training down.'),
    ('scale-flash-backward', 'Recomputation always costs wall-clock time.'),
    ('scale-flash-backward', '重计算必然让训练变慢。'),
    ('scale-flash-backward', 'Recomputation must make training slower, but it saves memory.'),
    # flashattention-2-changed-mathematics-attention
    ('scale-flash-versions', 'FlashAttention-2 uses a different formula for attention.'),
    ('scale-flash-versions', 'FlashAttention-2 changed how attention is computed mathematically to get its speed-up.'),
    ('scale-flash-versions', 'FlashAttention-2 修改了注意力的计算公式。'),
    ('scale-flash-versions', 'FlashAttention-2 changed the mathematics of attention, but it is twice as fast.'),
    # big-enough-batch-makes-decoding-compute
    ('scale-prefill-decode', 'With a large enough batch, decoding becomes compute-bound, attention included.'),
    ('scale-prefill-decode', 'Increasing the batch size raises the arithmetic intensity of decode attention.'),
    ('scale-prefill-decode', '只要 batch 够大，解码的注意力部分也会变成计算受限。'),
    ('scale-prefill-decode', 'A big enough batch makes decoding compute-bound, but it raises latency.'),
    # mla-just-gqa-with-fewer-heads
    ('scale-mla', 'MLA is basically grouped-query attention with a smaller number of KV heads.'),
    ('scale-mla', 'Multi-head latent attention is GQA with fewer key-value heads.'),
    ('scale-mla', 'MLA 其实就是 KV 头更少的 GQA。'),
    ('scale-mla', 'MLA is just GQA with fewer heads, but DeepSeek invented it.'),
    # with-sliding-window-token-can-only
    ('scale-sliding-window', 'A sliding-window model cannot see past w tokens.'),
    ('scale-sliding-window', 'With windowed attention, information from more than w tokens back is lost.'),
    ('scale-sliding-window', '滑动窗口模型看不到 w 个 token 以外的内容。'),
    ('scale-sliding-window', 'A sliding-window model cannot see past w tokens, but it is cheap.'),
    # attention-sinks-tokens-with-important-content
    ('scale-attention-sinks', 'Attention sinks are the tokens that carry the most important information.'),
    ('scale-attention-sinks', 'Tokens that soak up lots of attention must be semantically important.'),
    ('scale-attention-sinks', 'attention sink 是携带关键信息的 token。'),
    ('scale-attention-sinks', 'Attention sinks are tokens with important content, but they are usually at the start.'),
    # streamingllm-gives-model-infinite-context
    ('scale-attention-sinks', 'StreamingLLM lets a model use an unlimited context.'),
    ('scale-attention-sinks', 'With StreamingLLM, the model can remember everything from an infinitely long stream.'),
    ('scale-attention-sinks', 'StreamingLLM 让模型可以利用无限长的上下文。'),
    ('scale-attention-sinks', 'StreamingLLM gives a model infinite context, but it needs sink tokens.'),
    # pagedattention-makes-attention-kernel-itself-faster
    ('scale-paged-attention', 'PagedAttention speeds up the attention computation itself.'),
    ('scale-paged-attention', "vLLM's paged kernel computes attention faster than a contiguous one."),
    ('scale-paged-attention', 'PagedAttention 让注意力计算本身变快了。'),
    ('scale-paged-attention', 'PagedAttention makes the attention kernel faster, but vLLM also does continuous batching.'),
    # splitting-keys-approximates-attention
    ('scale-flash-decoding', 'Flash-Decoding is an approximation.'),
    ('scale-flash-decoding', 'Splitting the KV cache into chunks gives only approximate attention.'),
    ('scale-flash-decoding', 'Flash-Decoding 把 key 切块计算，结果只是近似的。'),
    ('scale-flash-decoding', 'Flash-Decoding is an approximation, but it is fast for long contexts.'),
]

N2_NOT_FLAGGED = [  # "myth, but <its own correction>"
    ('tf-what-is-transformer-structure', 'Encoder and decoder blocks are fundamentally different, but only by a causal mask and, in an encoder-decoder, a cross-attention sublayer.'),
    ('tf-pre-post-ln', 'LayerNorm placement may look cosmetic, but pre-LN and post-LN compute different functions.'),
    ("tf-pre-post-ln", "Post-LN's top-layer gradients should be small at initialisation, but they are large, which is why it needs a warm-up."),
    ('tf-architectures-masks', 'A decoder-only model is the decoder of the original Transformer, but without the cross-attention sublayer.'),
    ('tf-why-decoder-only', 'Decoder-only was shown to be best, but only for zero-shot use after pre-training; after multitask fine-tuning non-causal models won.'),
    ('tf-modern-block', 'SwiGLU makes the FFN bigger, but only if d_ff stays at 4d; at 8/3 d the weights are the same.'),
    ('tf-modern-block', 'GQA gives each query head its own key-value head, but only when the number of groups equals the number of heads, which is plain MHA.'),
    ('tf-params-flops', 'The FFN is a minor part of the compute, but only at contexts much longer than 2d.'),
    ('tf-params-flops', 'Attention dominates the compute at short contexts, but only in tiny models where n already exceeds 2d.'),
    ('tf-moe', 'A 47B MoE costs as much per token as a dense 47B model, but only in memory, not in FLOPs.'),
    ('tf-embeddings-tying', 'Multiplying the embeddings by √d_model looks like a learning-rate trick, but it sets their scale relative to the position vectors.'),
    ('tf-mlm-mask-vs-attention-mask', "BERT's [MASK] hides the token, but only its identity in the input; every position still attends to it."),
    ('pos-word-order', 'Self-attention is permutation-invariant, but only once the outputs are summed or averaged.'),
    ('pos-word-order', 'Context extension means retraining the model, but not from scratch: it continues from the trained checkpoint.'),
    ('pos-families', 'PE(p + k) is a linear function of PE(p), but that only makes offsets learnable; the encoding is still absolute.'),
    ('pos-rope-how', 'RoPE looks like it adds a position vector to the embeddings, but it rotates the queries and keys inside each layer instead.'),
    ('pos-rope-how', 'RoPE makes attention scores decay with distance, but only the upper bound; random pairs keep their spread.'),
    ('pos-rope-details', 'Cached keys are rotated again when read, but only when dynamic scaling changes the frequencies, and then by their own positions.'),
    ('pos-nope', 'A Transformer without positional encodings is a bag of words, but only when the attention is unmasked.'),
    ('pos-context-extension', 'Position interpolation leaves short-range behaviour untouched, but only in YaRN, which does not interpolate the fast pairs.'),
    ('pos-context-extension', 'NTK-aware scaling brings the slow pairs back into the trained range, but only the slowest exactly; the others still extrapolate.'),
    ('pos-extrapolation', 'ALiBi extrapolation means the model can use the whole longer context, but only when a far token\'s content score beats slope times distance.'),
    ('scale-cheap-enough', 'FlashAttention is an approximation, but only up to floating-point rounding; it computes exact attention.'),
    ('scale-cheap-enough', 'Serving cost is dominated by FLOPs, but only in prefill; decoding is limited by reading the cache and the weights.'),
    ('scale-flash-backward', 'FlashAttention reduces the O(n²) cost, but only the memory; the FLOPs stay quadratic.'),
    ('scale-prefill-decode', 'Decoding is compute-bound, but only with hundreds of sequences in the batch.'),
    ('scale-flash-backward', 'FlashAttention saves memory on the attention matrix, but by never storing it, not by lower precision.'),
    ('scale-flash-backward', 'Recomputation must make training slower, but only if the GPU is compute-bound, which attention is not.'),
    ('scale-flash-versions', 'FlashAttention-2 changed the mathematics of attention, but only in how the work is split; the result is exactly the same.'),
    ('scale-prefill-decode', 'A large batch makes decoding compute-bound, but only the weight matmuls, not attention.'),
    ('scale-mla', 'MLA is like GQA with fewer heads, but only in what is cached; every head still has its own keys.'),
    ('scale-sliding-window', 'A sliding-window model cannot see past w tokens, but only in one layer; stacking extends the reach.'),
    ('scale-attention-sinks', 'Attention sinks look like tokens with important content, but they are often meaningless tokens that attract weight by position.'),
    ('scale-attention-sinks', 'StreamingLLM gives a model infinite context, but only in the sense of an unbounded stream; evicted tokens are not used.'),
    ('scale-paged-attention', 'PagedAttention makes attention faster, but only through the bigger batch its memory savings allow.'),
    ('scale-flash-decoding', 'Splitting the keys looks like an approximation, but with the log-sum-exp weights the merge is exact.'),
]

# N-4: plain correct near misses (the review's three plus our own), written before reading any pattern.
N4_NOT_FLAGGED = [
    ('scale-flash-backward', 'Recomputation avoids the slow memory traffic.'),
    ('scale-prefill-decode', 'Decoding is mostly idle arithmetic units waiting on memory.'),
    ('scale-cheap-enough', 'Decoding is mostly idle arithmetic units waiting on memory.'),
    ('pos-families', 'RoPE is a relative encoding built from the same sinusoidal frequencies.'),
    ('pos-rope-how', 'RoPE is a relative encoding built from the same sinusoidal frequencies.'),
    ('scale-flash-backward', 'Recomputation is cheap because the FLOPs are fast and the memory reads are slow.'),
    ('scale-flash-backward', 'FlashAttention stores only the softmax statistics, not the attention matrix.'),
    ('scale-flash-backward', 'FlashAttention keeps the output and the log-sum-exp in full precision and recomputes the rest.'),
    ('scale-flash-backward', 'Recomputation trades cheap FLOPs for expensive memory traffic, so it usually makes training faster.'),
    ('scale-cheap-enough', 'FlashAttention computes exact attention with the same FLOPs, just less memory traffic.'),
    ('scale-cheap-enough', 'Serving cost is dominated by memory bandwidth, not FLOPs.'),
    ('scale-cheap-enough', 'The FLOPs matter for prefill; decoding cost is set by the bytes read.'),
    ('scale-cheap-enough', 'Sparse attention approximates; FlashAttention does not.'),
    ('scale-cheap-enough', 'Decoding is memory-bound: the arithmetic units wait on the weights and the cache.'),
    ('scale-flash-versions', 'FlashAttention-2 changed the kernel, not the mathematics.'),
    ('scale-flash-versions', 'FlashAttention-3 uses asynchrony on Hopper but computes the same attention.'),
    ('scale-prefill-decode', "A larger batch helps the weight matmuls but leaves attention's intensity unchanged."),
    ('scale-prefill-decode', "Each sequence has its own KV cache, so batching does not raise attention's FLOPs per byte."),
    ('scale-mla', 'MLA caches one shared latent, but each head decompresses its own keys and values.'),
    ('scale-mla', 'Unlike GQA, MLA gives every head distinct keys.'),
    ('scale-sliding-window', 'Each layer looks back w tokens, and stacking layers extends the reach.'),
    ('scale-sliding-window', "A sliding window limits one layer's view to w tokens, not the model's."),
    ('scale-attention-sinks', 'Attention sinks are usually the first tokens, whatever their content.'),
    ('scale-attention-sinks', 'StreamingLLM handles unbounded streams with bounded memory but forgets evicted tokens.'),
    ('scale-paged-attention', "PagedAttention's gain is memory: less fragmentation lets the batch grow."),
    ('scale-flash-decoding', 'Flash-Decoding splits the keys across blocks and merges the partial results exactly.'),
    ('scale-flash-decoding', 'The log-sum-exp merge makes split-key attention exact, not approximate.'),
    ('tf-modern-block', 'SwiGLU has three matrices, but with d_ff = 8/3 d the parameter count matches a 4d ReLU FFN.'),
    ('tf-modern-block', 'In GQA a group of query heads shares one key-value head.'),
    ('tf-params-flops', "The FFN holds about two thirds of a block's weights."),
    ('tf-params-flops', "At long contexts attention's n² term dominates the compute."),
    ('tf-moe', 'A 47B MoE needs the memory of a 47B model but the FLOPs of a much smaller one.'),
    ('tf-pre-post-ln', "Post-LN's top-layer gradients are large at initialisation, hence the warm-up."),
    ('tf-pre-post-ln', 'Pre-LN and post-LN compute different functions with the same weights.'),
    ('tf-architectures-masks', 'A decoder-only block is the encoder block with a causal mask.'),
    ('tf-why-decoder-only', 'Nobody proved decoder-only is best; Wang et al. found a trade-off.'),
    ('tf-embeddings-tying', "The √d_model factor sets the embeddings' scale relative to the position vectors."),
    ('tf-mlm-mask-vs-attention-mask', "Every position still attends to the [MASK] token; it only hides the token's identity."),
    ('pos-word-order', 'Self-attention is permutation-equivariant: permuting the inputs permutes the outputs.'),
    ('pos-word-order', 'Context extension fine-tunes the trained model on long sequences after rescaling the RoPE frequencies.'),
    ('pos-rope-how', 'RoPE rotates the queries and keys, not the values.'),
    ('pos-rope-how', 'Only the upper bound of the RoPE score decays with distance.'),
    ('pos-rope-details', 'Each cached key is rotated once, at its own position.'),
    ('pos-nope', 'A causal decoder without positional encodings can still infer positions from the mask.'),
    ('pos-context-extension', 'Position interpolation also squeezes the fast pairs, so neighbours look closer.'),
    ('pos-context-extension', "NTK-aware scaling divides only the slowest pair's angle by exactly s."),
    ('pos-extrapolation', "ALiBi's stable loss does not show that the far context is used."),
    ('tf-what-is-transformer-structure', 'Encoder and decoder blocks share the same sublayers; the decoder adds a mask and, in an encoder-decoder, cross-attention.'),
]

# N-6: the card's own short-answer sentences (and the plain key-point statement) must tick their points.
N6_TICKING = [
    ('tf-why-decoder-only', 0, 'These are arguments, not a proof.'),
    ('tf-why-decoder-only', 0, '这是论证，不是证明。'),
    ('tf-why-decoder-only', 0, 'These are arguments from the literature, not a proof.'),
    ('pos-nope', 3, 'A bidirectional encoder has no such signal and does need positions.'),
    ('pos-nope', 3, '双向编码器没有这种信号，确实需要位置编码。'),
    ('pos-nope', 3, 'Bidirectional encoders without a mask are order blind and need positional encodings.'),
    ('scale-sliding-window', 0, '每个 query 只看最近的 $w$ 个位置（包括自己），所以一个 $w$ 个槽位的滚动缓冲区（位置 $t$ 放在槽 $t \\bmod w$）就能用固定显存装下全部缓存。'),
    ('scale-sliding-window', 0, '每个 query 只看最近的 w 个位置，包括它自己。'),
    ('scale-sliding-window', 0, '窗口为 w：每个 query 看自己和之前的 w − 1 个位置。'),
    ('pos-extrapolation', 1, '正弦编码和 RoPE 会产生训练中没见过的值，RoPE 模型会随着慢的维度对转到新角度而变差。'),
    ('pos-extrapolation', 1, '正弦和 RoPE 模型能运行，但会遇到没见过的值或角度，RoPE 的质量在训练长度之后下降。'),
    ('pos-extrapolation', 4, 'Flat perplexity is no evidence that the far context is used.'),
    ('pos-extrapolation', 4, '困惑度平稳并不能说明用上了远处的上下文。'),
    ('pos-context-extension', 1, '位置插值用 $\\theta_i/s$：位置 $sL$ 得到 $L$ 的角度，但相邻 token 看起来近了 $s$ 倍。'),
    ('scale-paged-attention', 2, '序列结束后块立刻归还。'),
    ('pos-word-order', 3, 'RoPE rotates q and k by p θ_i so that q_m · k_n depends only on m − n.'),
]

# N-1: key points typed the wrong way round must not tick their point (written before reading the claims).
N1_NOT_TICKING = [
    ('tf-what-is-transformer-structure', 1, 'The position-wise FFN exchanges information between tokens; self-attention transforms each token on its own.'),
    ('tf-what-is-transformer-structure', 3, 'The 2017 model was decoder-only with pre-LN.'),
    ('tf-pre-post-ln', 0, 'Pre-LN normalises after the residual add; post-LN normalises the sub-layer input.'),
    ('tf-pre-post-ln', 3, 'Post-LN keeps an identity path through the residual stream and trains deep stacks stably.'),
    ('tf-pre-post-ln', 4, "The cost of post-LN is a growing stream, so later layers' updates are relatively small."),
    ('tf-architectures-masks', 1, 'Encoder-only (BERT) is causal and trained on the next token.'),
    ('tf-architectures-masks', 2, 'Decoder-only (GPT) is bidirectional and trained on masked tokens.'),
    ('tf-architectures-masks', 4, 'A prefix LM is causal over the prompt and bidirectional after it.'),
    ('tf-why-decoder-only', 0, 'This is a proof, not just arguments.'),
    ('tf-why-decoder-only', 3, 'Wang et al. (2022) found non-causal models best zero-shot after pre-training and causal decoders best after multitask fine-tuning.'),
    ('tf-modern-block', 2, 'Rotary embeddings add positions to the input instead of rotating queries and keys.'),
    ('tf-modern-block', 3, 'Grouped-query attention shares query heads and grows the KV cache.'),
    ('tf-params-flops', 0, 'Per block attention has 8 d^2 weights and the FFN 4 d^2.'),
    ('tf-params-flops', 1, "Two thirds of a block's parameters are in attention."),
    ('tf-params-flops', 5, 'Attention dominates short contexts; the FFN dominates long ones.'),
    ('tf-moe', 1, 'Each token goes to all experts, weighted by the router.'),
    ('tf-moe', 2, 'FLOPs per token grow with the number of experts, parameters only with k.'),
    ('tf-embeddings-tying', 0, 'Weight tying uses separate matrices for the input embedding and the output layer.'),
    ('tf-embeddings-tying', 2, 'Press and Wolf found that tying hurts perplexity.'),
    ('tf-mlm-mask-vs-attention-mask', 0, 'An attention mask removes queries, not keys.'),
    ('tf-mlm-mask-vs-attention-mask', 1, "BERT's [MASK] token hides a token's position in the input, not its identity."),
    ('pos-word-order', 0, 'Without positions attention is permutation invariant, so order need not be injected.'),
    ('pos-word-order', 3, 'RoPE rotates v so that the output depends only on the absolute position.'),
    ('pos-families', 0, 'Absolute encodings act inside attention and make the scores shift invariant.'),
    ('pos-families', 3, 'RoPE is absolute and additive, adding a learned vector to the input.'),
    ('pos-rope-how', 1, 'theta_i = base^(2i/d), growing from slow to fast pairs.'),
    ('pos-rope-how', 4, "The score's upper bound grows with distance."),
    ('pos-rope-details', 1, 'Rotating values keeps shift invariance and passes no absolute position into the output.'),
    ('pos-rope-details', 3, 'With a KV cache, keys are stored unrotated and rotated by the current position at every step.'),
    ('pos-nope', 0, 'A causal mask gives every position the same visible prefix.'),
    ('pos-nope', 3, 'Bidirectional encoders without a mask know the order and need no positional encodings.'),
    ('pos-context-extension', 0, 'Beyond L only the fast RoPE pairs meet unseen angles; slow pairs have already turned many times.'),
    ('pos-context-extension', 1, 'Position interpolation multiplies every frequency by s; neighbours get s times farther apart and no fine-tune is needed.'),
    ('pos-extrapolation', 0, 'A learned absolute table extrapolates to unseen positions.'),
    ('pos-extrapolation', 4, 'Running at a longer length is the same as using the longer context.'),
    ('scale-cheap-enough', 1, 'FlashAttention does fewer FLOPs but moves more bytes.'),
    ('scale-cheap-enough', 2, 'Decoding reads the whole KV cache per token at hundreds of FLOPs per byte, so it is compute-bound.'),
    ('scale-flash-backward', 1, 'The backward pass reads P from memory, stored during the forward pass, instead of recomputing it.'),
    ('scale-flash-backward', 3, 'Fewer attention FLOPs per training step, but more bytes to slow memory.'),
    ('scale-prefill-decode', 0, 'Intensity above the ridge point is memory-bound.'),
    ('scale-prefill-decode', 1, 'Prefill is memory-bound and decoding is compute-bound.'),
    ('scale-prefill-decode', 3, "Batching raises attention's intensity but not the weight matmuls'."),
    ('scale-mla', 0, 'MLA caches per-head keys and values instead of one low-rank latent per token.'),
    ('scale-mla', 2, 'RoPE helps absorption, so every head gets its own RoPE key.'),
    ('scale-sliding-window', 1, "The rolling buffer's memory grows with the sequence length."),
    ('scale-sliding-window', 2, 'Receptive field after L layers stays w, whatever the depth.'),
    ('scale-attention-sinks', 0, 'Models put large weights on the last tokens because the softmax need not sum to one.'),
    ('scale-attention-sinks', 1, 'Evicting the sinks with a plain window keeps perplexity flat.'),
    ('scale-paged-attention', 1, 'Each sequence reserves its max length, wasting many blocks.'),
    ('scale-flash-decoding', 0, 'Flash-Decoding splits the queries into chunks, for large batches.'),
    ('scale-flash-decoding', 3, 'A plain average of the parts is correct.'),
]

# more near misses, so that every myth touched has at least two
N4_MORE = [
    ('tf-what-is-transformer-structure', 'A decoder-only block is an encoder block with a causal mask added.'),
    ('tf-pre-post-ln', 'Where the LayerNorm sits changes the function and the gradients, so it is not cosmetic.'),
    ('tf-pre-post-ln', "Post-LN's gradients at the top layers are large at initialisation and do not shrink with depth."),
    ('tf-architectures-masks', 'GPT keeps no cross-attention: its block is the encoder block with a causal mask.'),
    ('tf-why-decoder-only', 'Decoder-only won in practice, but nothing proves it is the best architecture.'),
    ('tf-modern-block', 'SwiGLU keeps the FFN at 8 d^2 weights by shrinking d_ff to 8/3 d.'),
    ('tf-modern-block', 'With GQA, several query heads share each key-value head, which shrinks the KV cache.'),
    ('tf-params-flops', 'For n below 2d the FFN does most of the FLOPs.'),
    ('tf-params-flops', 'The FFN dominates short contexts and attention dominates long ones.'),
    ('tf-moe', 'Mixtral runs about 13B active parameters per token though it stores 47B.'),
    ('tf-embeddings-tying', 'The learning rate has nothing to do with the √d_model factor; it sets the scale of the embeddings.'),
    ('tf-mlm-mask-vs-attention-mask', 'BERT replaces the token with [MASK] in the input, and every position can still attend to it.'),
    ('pos-word-order', 'Permuting the inputs of self-attention permutes its outputs the same way.'),
    ('pos-word-order', 'Context extension starts from the trained model and continues training on long sequences.'),
    ('pos-families', 'Sinusoidal encodings are absolute: the scores still depend on absolute positions.'),
    ('pos-rope-how', 'RoPE adds nothing to the embeddings; it rotates q and k inside attention.'),
    ('pos-rope-how', 'Unlike sinusoidal encodings, RoPE is not added to the input.'),
    ('pos-rope-how', 'With RoPE only the bound on the score decays with distance; random pairs do not decay.'),
    ('pos-rope-details', 'The new token\'s key is rotated by its own position before it is cached.'),
    ('pos-nope', 'Only a Transformer without a mask and without positions is a bag of words.'),
    ('pos-context-extension', 'Position interpolation changes short-range behaviour too: neighbours look s times closer.'),
    ('pos-context-extension', 'After NTK-aware scaling the slow pairs other than the slowest still extrapolate.'),
    ('pos-extrapolation', 'ALiBi keeps the loss stable, but whether the far context is used needs a retrieval test.'),
    ('scale-cheap-enough', 'FlashAttention is exact, unlike sparse or low-rank approximations.'),
    ('scale-cheap-enough', 'Serving cost is mostly memory traffic: decoding reads the weights and the KV cache for every token.'),
    ('scale-flash-backward', 'FlashAttention does not reduce the FLOPs; it reduces the memory traffic.'),
    ('scale-flash-backward', 'FlashAttention never materialises the attention matrix, in any precision.'),
    ('scale-flash-versions', 'FlashAttention-2 computes exactly the same attention as FlashAttention-1.'),
    ('scale-attention-sinks', 'Sink tokens are often meaningless; they attract weight because of their position.'),
    ('scale-attention-sinks', 'StreamingLLM does not extend the context: evicted tokens are gone.'),
    ('scale-paged-attention', "PagedAttention's kernel does the same work; throughput rises because the batch grows."),
    ('scale-paged-attention', 'The paged kernel is not faster than a contiguous one.'),
]
# correct statements of the key points that got N-1 exclusions: they still tick
N6_MORE = [
    ('tf-embeddings-tying', 0, 'Weight tying uses one matrix as both the input embedding and the output layer, not two separate ones.'),
    ('pos-word-order', 0, 'Without positions and without a mask, attention is permutation equivariant, not invariant, so order must be injected.'),
    ('pos-nope', 3, 'Bidirectional encoders without a mask are order blind; they do need positional encodings.'),
    ('tf-pre-post-ln', 3, 'Pre-LN, unlike post-LN, keeps an identity path through the residual stream and trains deep stacks stably.'),
    ('scale-prefill-decode', 0, 'Below the ridge point, peak FLOP/s over bandwidth, a kernel is memory-bound.'),
    ('scale-flash-decoding', 0, 'With one query per sequence and a small batch the GPU sits idle, so Flash-Decoding splits the keys into chunks processed in parallel.'),
    ('pos-rope-how', 4, "The score's upper bound decays with distance; it is tight only for similar q and k."),
    ('scale-attention-sinks', 0, 'Models put large weights on the first tokens because the softmax must sum to one.'),
    ('tf-modern-block', 3, 'Grouped-query attention shares key-value heads among query heads and shrinks the KV cache.'),
]

# N-1 reversals that still tick (4 of 51; 31 ticked before): word-bag claims with no sound exclusion
# (pos-extrapolation KP0 'extrapolates to unseen positions' no longer ticks: matcher.point_negated, review16).
N1_OPEN = [
    ('tf-pre-post-ln', 4, "The cost of post-LN is a growing stream, so later layers' updates are relatively small."),
    ('tf-why-decoder-only', 3, 'Wang et al. (2022) found non-causal models best zero-shot after pre-training and causal decoders best after multitask fine-tuning.'),
    ('pos-rope-how', 1, 'theta_i = base^(2i/d), growing from slow to fast pairs.'),
    ('scale-sliding-window', 1, "The rolling buffer's memory grows with the sequence length."),
]

NOT_FLAGGED = N2_NOT_FLAGGED + N4_NOT_FLAGGED + N4_MORE
FLAGGED = N2_FLAGGED

# a parenthetical splits the clause ("Decoding" / "like prefill" / "is compute-bound"): language-level, not fixed here
MISSED = [
    ('scale-cheap-enough', 'Decoding, like prefill, is compute-bound.'),
    ('scale-prefill-decode', 'Decoding, like prefill, is compute-bound.'),
]

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED)


@pytest.mark.xfail(strict=True, reason="a parenthetical ('like prefill') splits the myth's clause (language.py)")
@pytest.mark.parametrize("card, text", MISSED)
def test_open_missed_myth(card, text):
    assert card_map()[card].check(text).stated
test_reversed_does_not_tick, test_statement_ticks = keypoint_tests(
    [row for row in N1_NOT_TICKING if row not in N1_OPEN], N6_TICKING + N6_MORE
)


@pytest.mark.xfail(strict=True, reason="N-1: reversed key point still ticks (claims are order-free word bags)")
@pytest.mark.parametrize("card, point, text", N1_OPEN)
def test_open_reversed_still_ticks(card, point, text):
    assert point not in card_map()[card].check(text).covered
