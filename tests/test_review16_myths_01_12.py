"""Myth patterns of chapters 01-12 after the session-11 reviews (reviews/2026-12-03/):

- s11-r14-ch01-05 M-2: the concept-group lines of cross-attention-queries-from-encoder flagged correct sentences
  about encoder / decoder self-attention ("where the encoder gives Q, K and V" split at its commas; "takes only keys
  and values from it"; "the queries come from the encoder itself"), and letter / role forms of the myth were missed
  ("Q comes from the encoder", "Q is the encoder output", "the encoder is the query side", 编码器输出当 query,
  编码器是 query 一方); L-2: sink-eviction paraphrases with a pronoun object ("evicting them is harmless", "does no
  harm"), "Most of today's LLMs are post-LN models.", 每个解码步.
- s11-r13-ch06-09 M2: plain rewordings of 7 myths (whatever the model size, 不管怎么实现, 由 … 决定, trades exactness
  for speed, fewer multiplications, 序列短的时候，…浪费, shuffled / same output when permuted, additive has the worse
  big-O).
- s11-r13-ch10-12 M-1: plain forms of 9 myths ([MASK] as an attention mask, sinks hold important content, the FFN is
  minor, LayerNorm placement is cosmetic, decoder-only proven best, GPT = the 2017 decoder, encoder and decoder
  blocks fundamentally different, sliding-window reach, sqrt(d_model) as a learning-rate knob, cached keys rotated
  by the current position); L-2: "说仅解码器被证明最优，这谈不上。" was flagged.

Every touched myth has plain near misses (NOT_FLAGGED), "myth, but <unrelated>" (FLAGGED) and "myth, but <its own
correction>" (NOT_FLAGGED).
"""

from __future__ import annotations

from checker_support import checker_tests

X = 'mask-cross-attention'
S = 'flow-attention-sink'

NOT_FLAGGED = [
    # r14 ch01-05 M-2: false alarms (regressions) on encoder / decoder self-attention
    (X, 'Unlike encoder self-attention, where the encoder gives Q, K and V, cross-attention takes Q from the decoder.'),
    (X, "Encoder self-attention takes queries, keys and values from the encoder; the decoder's cross-attention takes only keys and values from it."),
    (X, 'The decoder self-attention takes Q, K and V from the decoder, and its cross-attention takes K and V from the encoder.'),
    (X, 'In the encoder the queries come from the encoder itself; in cross-attention they come from the decoder.'),
    # near misses of the new letter / role lines
    (X, 'Q comes from the decoder, K and V from the encoder output.'),
    (X, 'The decoder gives Q; the encoder gives K and V.'),
    (X, 'In the encoder, Q, K and V all come from the encoder; cross-attention takes Q from the decoder.'),
    (X, 'In cross-attention Q comes from the decoder and K and V come from the encoder.'),
    (X, 'Cross-attention: Q is the decoder state, K and V are the encoder output.'),
    (X, 'In cross-attention the decoder is the query side and the encoder is the key-value side.'),
    (X, '交叉注意力用解码器状态当 query，编码器输出当 key 和 value。'),
    (X, '交叉注意力中，解码器是 query 一方，编码器是 key/value 一方。'),
    (X, 'In encoder self-attention Q comes from the encoder too.'),
    ('mask-self-masked-cross', 'In cross-attention Q comes from the decoder and K and V come from the encoder.'),
    # own correction
    (X, 'In cross-attention Q comes from the encoder, but no: the queries come from the decoder.'),
    (X, '交叉注意力用编码器输出当 query，但其实 query 来自解码器。'),
    # r14 L-2: sink eviction, near misses and own correction
    (S, 'Evicting tokens from the middle of the window is harmless as long as the first tokens stay.'),
    (S, 'Evicting the sink tokens is not harmless: perplexity explodes.'),
    (S, 'The sink tokens lie outside the recent window, so evicting them breaks generation.'),
    (S, 'Evicting the sink tokens, which are far from the recent window, breaks streaming generation; keeping them fixes it.'),
    (S, 'Throwing the middle tokens out of the sliding-window cache does no harm as long as the first few tokens stay.'),
    (S, 'The recent tokens are inside the window, so keeping them is harmless.'),
    (S, 'The sink tokens lie outside the recent window, so evicting them seems harmless, but streaming generation breaks down without them.'),
    # r14 L-2: post-LN, cross-attention cache
    ('flow-pre-post-ln', "Most of today's LLMs are pre-LN models."),
    ('flow-pre-post-ln', "Few of today's LLMs are post-LN models."),
    ('flow-pre-post-ln', "Most of today's LLMs are post-LN models, but no: they use pre-LN."),
    (X, '交叉注意力的 Q 每个解码步都要重新计算。'),
    (X, '交叉注意力的 K 和 V 只算一次，不用每个解码步重新计算。'),
    # r13 ch06-09 M2: near misses and own corrections of the touched myths
    ('cx-time-space', 'At long contexts attention is where most of the compute goes.'),
    ('cx-time-space', 'For short sequences the FFN, not attention, is where most of the compute goes.'),
    ('cx-time-space', 'Only beyond n = 2 d_model is attention where most of the compute goes.'),
    ('cx-time-space', 'Attention is where most of the compute goes, but only for long sequences.'),
    ('cx-time-space', '不融合的标准实现里，自注意力都需要 O(n²) 的显存。'),
    ('cx-time-space', '朴素实现的自注意力都需要 O(n²) 的显存，FlashAttention 不需要。'),
    ('cx-kv-cache-memory', 'KV cache 的大小由 KV 头的数量决定，而不是 query 头。'),
    ('cx-kv-cache-memory', 'KV cache 的大小由 key/value 头的数量决定。'),
    ('cx-kv-cache-memory', 'KV cache 的大小和 query 头的数量无关。'),
    ('cx-flashattention', 'FlashAttention trades extra recomputation for less memory traffic.'),
    ('cx-flashattention', 'FlashAttention does not trade exactness for speed.'),
    ('cx-flashattention', 'FlashAttention trades exactness for speed? No, it is exact.'),
    ('cx-flashattention', 'FlashAttention seems to trade exactness for speed, but it is exact up to rounding.'),
    ('cx-flashattention', 'FlashAttention is faster because it performs fewer reads and writes of HBM.'),
    ('cx-flashattention', 'FlashAttention is faster because it performs the same multiplications with less memory traffic.'),
    ('cx-flashattention', 'With a causal mask it performs fewer multiplications, since it skips the masked blocks.'),
    ('rnn-drawbacks', '序列短的时候，注意力的计算量很小。'),
    ('rnn-drawbacks', '填充太多时，注意力很浪费计算。'),
    ('rnn-drawbacks', '序列短的时候，注意力并不浪费计算。'),
    ('rnn-positional-information', 'Self-attention permutes its output the same way when the input tokens are shuffled.'),
    ('rnn-positional-information', 'Self-attention gives the same output, permuted the same way, when the input tokens are permuted.'),
    ('rnn-positional-information', 'With mean pooling, self-attention gives the same output when the input tokens are permuted.'),
    ('rnn-positional-information', 'For a single query, self-attention gives the same output when the keys and values are permuted.'),
    ('rnn-positional-information', 'Self-attention does not change its output when the input tokens are shuffled, but only after pooling.'),
    ('dva-dot-vs-additive', 'Additive attention has a higher constant than dot-product attention, but the same complexity.'),
    ('dva-dot-vs-additive', 'Additive attention has a higher memory complexity than dot-product attention, since it forms an n^2 d_a tensor.'),
    ('dva-dot-vs-additive', 'Additive attention does not have a worse big-O complexity than dot-product attention.'),
    ('dva-dot-vs-additive', '加性注意力的渐近复杂度和点积注意力相同。'),
    ('dva-dot-vs-additive', 'Additive attention has a worse big-O complexity than dot-product attention, but no: both are O(n^2 d).'),
    # r13 ch10-12 M-1: near misses and own corrections
    ('tf-mlm-mask-vs-attention-mask', 'Every token attends to the [MASK] token like to any other token.'),
    ('tf-mlm-mask-vs-attention-mask', 'No token is prevented from attending to the [MASK] token.'),
    ('tf-mlm-mask-vs-attention-mask', 'No token attends to padding positions.'),
    ('tf-mlm-mask-vs-attention-mask', 'Under a causal mask no token attends to future tokens.'),
    ('tf-mlm-mask-vs-attention-mask', '被 [MASK] 的 token 照样会被其他 token 关注。'),
    ('tf-mlm-mask-vs-attention-mask', 'The attention mask hides padding; the [MASK] token is an ordinary input token.'),
    ('tf-mlm-mask-vs-attention-mask', "BERT's [MASK] token does not act as an attention mask."),
    ('tf-mlm-mask-vs-attention-mask', 'No position attends to a masked token, but that is wrong: every position attends to the [MASK] token like any other.'),
    ('scale-attention-sinks', 'Sink tokens get attention because of their position, not their content.'),
    ('scale-attention-sinks', 'The first tokens get attention not because they are important but because they are always visible.'),
    ('scale-attention-sinks', 'Attention sinks are important for stable streaming.'),
    ('scale-attention-sinks', 'Other heads attend to a token because its content is important.'),
    ('scale-attention-sinks', 'Sink tokens get attention because their content is important, but no: they are attended because of their position, and their content is meaningless.'),
    ('tf-params-flops', 'At long contexts the FFN is a small part of the compute compared with attention.'),
    ('tf-params-flops', 'The FFN is not a small part of the compute: at short contexts it holds most of the FLOPs.'),
    ('tf-params-flops', 'Attention is where the FLOPs go only for long sequences; the FFN dominates short ones.'),
    ('tf-params-flops', 'Most of the FLOPs are in the FFN at short contexts.'),
    ('tf-params-flops', 'The FFN is a small part of the compute compared with attention, but only for long contexts.'),
    ('tf-what-is-transformer-structure', 'The encoder layer and the decoder layer have a lot in common: the decoder adds a causal mask and cross-attention.'),
    ('tf-what-is-transformer-structure', 'The encoder weights and the decoder weights have nothing in common; they are trained separately.'),
    ('tf-what-is-transformer-structure', '编码器和解码器的层不是截然不同的设计，只差一个因果掩码和交叉注意力。'),
    ('tf-what-is-transformer-structure', 'The encoder layer and the decoder layer have nothing in common, but only by a causal mask and a cross-attention sublayer do they differ.'),
]

FLAGGED = [
    # r14 ch01-05 M-2: letter / role forms
    (X, 'In cross-attention Q comes from the encoder and K and V come from the decoder.'),
    ('mask-self-masked-cross', 'In cross-attention Q comes from the encoder and K and V come from the decoder.'),
    (X, 'Cross-attention: Q is the encoder output, K and V are the decoder states.'),
    (X, 'In cross-attention the encoder is the query side and the decoder is the key-value side.'),
    (X, '交叉注意力用编码器输出当 query，解码器状态当 key 和 value。'),
    (X, '交叉注意力中，编码器是 query 一方，解码器是 key/value 一方。'),
    (X, 'Q comes from the encoder output, K and V from the decoder.'),
    (X, 'The encoder gives Q; the decoder gives K and V.'),
    (X, 'Cross-attention takes its queries from the encoder output and its keys and values from the decoder.'),
    (X, 'Unlike self-attention, cross-attention takes Q from the encoder and K and V from the decoder.'),
    (X, 'In cross-attention Q comes from the encoder, but the source padding is masked.'),
    # r14 L-2
    (S, 'The sink tokens lie outside the recent window, so evicting them is harmless.'),
    (S, 'The sink tokens are far from the recent window, so evicting them is harmless.'),
    (S, 'Since the first tokens are far from the current position, evicting them from the cache is harmless.'),
    (S, 'Throwing the first few tokens out of the sliding-window cache does no harm.'),
    (S, 'Evicting the sink tokens is harmless, but the window must stay large.'),
    (S, 'The sink tokens lie outside the recent window, so evicting them is harmless, but the cache still grows with the batch.'),
    ('flow-pre-post-ln', "Most of today's LLMs are post-LN models."),
    ('flow-pre-post-ln', "Most of today's LLMs are post-LN models, but they use RMSNorm."),
    (X, '交叉注意力的 K 和 V 每个解码步都要重新计算。'),
    # r13 ch06-09 M2
    ('cx-time-space', 'Whatever the model size, attention is where most of the compute goes.'),
    ('cx-time-space', 'Whatever the model size, attention is where most of the compute goes, but FlashAttention helps.'),
    ('cx-time-space', '不管怎么实现，自注意力都需要 O(n²) 的显存。'),
    ('cx-kv-cache-memory', 'KV cache 的大小由 query 头的数量决定。'),
    ('cx-kv-cache-memory', 'KV cache 的大小由 query 头的数量决定，但 batch 也有影响。'),
    ('cx-flashattention', 'FlashAttention trades exactness for speed.'),
    ('cx-flashattention', 'FlashAttention trades exact results for speed.'),
    ('cx-flashattention', 'FlashAttention gives up exactness for speed.'),
    ('cx-flashattention', 'FlashAttention trades exactness for speed, but it needs a recent GPU.'),
    ('cx-flashattention', 'FlashAttention is faster because it performs fewer multiplications.'),
    ('cx-flashattention', 'FlashAttention is faster because it performs fewer multiplications, but it needs a recent GPU.'),
    ('rnn-drawbacks', '序列短的时候，注意力很浪费计算。'),
    ('rnn-drawbacks', '序列短的时候，注意力很浪费计算，但它容易并行。'),
    ('rnn-positional-information', 'Self-attention does not change its output when the input tokens are shuffled.'),
    ('rnn-positional-information', 'Self-attention gives the same output when the input tokens are permuted.'),
    ('rnn-positional-information', 'Self-attention gives the same output when the input tokens are permuted, but it is slow on long inputs.'),
    ('dva-dot-vs-additive', 'Additive attention has a worse big-O complexity than dot-product attention.'),
    ('dva-dot-vs-additive', '加性注意力的渐近复杂度比点积注意力高。'),
    ('dva-dot-vs-additive', 'Additive attention has a worse big-O complexity than dot-product attention, but it came first.'),
    # r13 ch10-12 M-1
    ('tf-mlm-mask-vs-attention-mask', 'No token can attend to a [MASK] token, just as with an attention mask.'),
    ('tf-mlm-mask-vs-attention-mask', 'BERT 的 [MASK] 位置不会被其他 token 关注。'),
    ('tf-mlm-mask-vs-attention-mask', 'Other tokens do not attend to the [MASK] token.'),
    ('tf-mlm-mask-vs-attention-mask', "BERT's [MASK] token acts as an attention mask."),
    ('tf-mlm-mask-vs-attention-mask', '被 [MASK] 的 token 不会被关注。'),
    ('tf-mlm-mask-vs-attention-mask', 'BERT 的 [MASK] 就是注意力掩码。'),
    ('tf-mlm-mask-vs-attention-mask', 'No position attends to a masked token.'),
    ('tf-mlm-mask-vs-attention-mask', 'Positions do not attend to [MASK] tokens.'),
    ('tf-mlm-mask-vs-attention-mask', 'No position attends to a masked token, but BERT still learns bidirectional context.'),
    ('scale-attention-sinks', 'Sink tokens get attention because their content is important.'),
    ('scale-attention-sinks', 'The first tokens get attention because they are the most important.'),
    ('scale-attention-sinks', 'Attention sinks are important tokens.'),
    ('scale-attention-sinks', 'Sink tokens matter because of their content.'),
    ('scale-attention-sinks', 'Sink tokens get attention because their content is important, but StreamingLLM keeps only four of them.'),
    ('tf-params-flops', 'Attention is where the FLOPs go; the FFN is just a small extra.'),
    ('tf-params-flops', 'The FFN hardly matters for the compute, but it does store factual knowledge.'),
    ('tf-params-flops', '前馈网络只是小头，算力主要消耗在注意力上。'),
    ('tf-params-flops', 'Most of the FLOPs are in attention and the FFN is cheap.'),
    ('tf-params-flops', 'The FFN is a small part of the compute compared with attention.'),
    ('tf-params-flops', 'The FFN is a small part of the compute compared with attention, but it holds most parameters.'),
    ('tf-what-is-transformer-structure', 'The encoder layer and the decoder layer have nothing in common.'),
    ('tf-what-is-transformer-structure', '编码器和解码器的层是两种截然不同的设计。'),
    ('tf-what-is-transformer-structure', 'Encoder blocks and decoder blocks are nothing alike.'),
    ('tf-what-is-transformer-structure', 'Encoder blocks and decoder blocks are nothing alike, but both are trained with Adam.'),
]

# r13 ch10-12 L-2: a post-position rejection in its own clause ('…，这谈不上') is not read as one (language.py,
# not a pattern: a forward group holds only after a 'but / only' clause)
OPEN = [
    ('tf-why-decoder-only', '说仅解码器被证明最优，这谈不上。'),
]

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, OPEN, reason="'说 X，这谈不上' is not read as a rejection")
