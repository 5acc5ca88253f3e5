"""Tuner tu3 (chapters 06-09): myth patterns generalised for the corpus5 writers' styles (myths.yaml).

For every myth whose patterns were added, the dev answer that was missed plus paraphrases of our own in other
words (FLAGGED), and correct near-misses: the correction, a negation, a condition under which it holds
(NOT_FLAGGED). Each row is (card, sentence)."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in load_cards()}


FLAGGED = [
    # attention-always-most-expensive-part-transformer
    ("cx-time-space", "Attention is pretty much always the priciest thing in any Transformer."),
    ("cx-time-space", "Whatever the input length, the attention part is the most "
     "expensive piece of the model."),
    ("cx-time-space", "Regardless of length, attention dominates the cost of the network."),
    ("cx-time-space", "Attention is the most costly part of the whole model, full stop."),
    ("cx-time-space", "所以注意力永远是整个模型最耗算力的地方。"),
    ("cx-time-space", "不管序列多长，整个模型里最贵的都是注意力。"),
    ("cx-time-space", "注意力在任何长度下都是模型的主要开销。"),
    # self-attention-needs-o-n-2
    ("cx-time-space", "不管你用啥实现都得把 n×n 的矩阵整个存下来。"),
    ("cx-time-space", "n² 显存是硬性的，躲不掉。"),
    ("cx-time-space", "无论哪种实现，n×n 矩阵都得存下来。"),
    ("cx-time-space", "The n by n matrix has to be stored no matter which kernel you use."),
    # flashattention-reduces-o-n-2-compute
    ("cx-time-space", "FlashAttention brings the n^2 compute down to something close to linear."),
    ("cx-time-space", "FlashAttention 把 attention 的计算量从 O(n²) 降下来了。"),
    ("cx-time-space", "FlashAttention 砍掉了一大块计算量。"),
    ("cx-flashattention", "FlashAttention fixes that and also lowers the arithmetic."),
    ("cx-flashattention", "Besides saving memory, the O(n^2 d) FLOPs go down too."),
    ("cx-flashattention", "同时 FLOPs 也被砍掉了不少，所以才这么快。"),
    ("cx-flashattention", "FlashAttention also cuts the FLOPs, which is why it is fast."),
    # long-context-inference-limited-n-n
    ("cx-long-context-memory", "When you serve long prompts, what kills you is the n x n attention matrix."),
    ("cx-long-context-memory", "推理时主要是 n² 的注意力矩阵把显存撑爆。"),
    ("cx-long-context-memory", "At long context the bottleneck in generation is the attention matrix."),
    ("cx-long-context-memory", "The n by n matrix is what runs out of memory when serving "
     "100k-token prompts."),
    # blockwise-softmax-approximation-because-each-block
    ("cx-online-softmax", "Each block is normalised on its own, so it's an "
     "approximation of the real softmax."),
    ("cx-online-softmax", "所以结果跟完整 softmax 有误差。"),
    ("cx-online-softmax", "Stitching the blocks gives only an approximation to the full softmax."),
    ("cx-online-softmax", "合并以后和真正的 softmax 相比还是近似的。"),
    # linear-attention-computes-same-result-as
    ("cx-sparse-linear", "Mathematically it's the same thing as softmax attention, just way cheaper."),
    ("cx-sparse-linear", "线性注意力本质上就是 softmax attention 换了个计算顺序，结果一模一样。"),
    ("cx-sparse-linear", "Its output is exactly the same; only the order of the products changes."),
    ("cx-sparse-linear", "数学上它和 softmax 等价，只是更快。"),
    # sliding-chunks-give-every-token-whole
    ("cx-long-inputs-encoder", "这样每个 token 的 context 就是全文了。"),
    ("cx-long-inputs-encoder", "With overlapping chunks every token gets the whole input as context."),
    ("cx-long-inputs-encoder", "每个 token 都能看到全文。"),
    # attention-cheaper-than-rnn
    ("rnn-why-attention", "Self-attention beats RNNs mainly because it needs fewer FLOPs per layer."),
    ("rnn-why-attention", "On top of that attention is simply the cheaper layer in FLOPs."),
    ("rnn-why-attention", "所以 attention 的 FLOPs 更少，这就是它比 RNN 好的原因。"),
    ("rnn-complexity", "算 FLOPs 的话 self-attention 一层比 LSTM、普通 RNN 都省。"),
    ("rnn-complexity", "An attention layer takes less compute than a recurrent layer."),
    ("rnn-complexity", "注意力层的计算量比 RNN 和 LSTM 都少。"),
    # attention-wasteful-on-short-sequences
    ("rnn-drawbacks", "Attention is overkill for short inputs."),
    ("rnn-drawbacks", "短文本上 attention 性价比很低。"),
    ("rnn-drawbacks", "On short sentences attention is inefficient."),
    ("rnn-drawbacks", "短序列用注意力很浪费。"),
    # self-attention-permutation-invariant
    ("rnn-positional-information", "Shuffle the tokens and self-attention gives you "
     "the same outputs; it's permutation "
     "invariant."),
    ("rnn-positional-information", "Attn(PX) = Attn(X)，对任意置换矩阵 P 都成立。"),
    ("rnn-positional-information", "Without positions, it is invariant to permutations of the tokens."),
    ("rnn-positional-information", "它对置换是不变的。"),
    # transformers-faster-than-rnns-at-everything
    ("rnn-inference-cost", "Even so the Transformer is faster per generated token at any context length."),
    ("rnn-inference-cost", "Transformer 每生成一个 token 都比 RNN 快，不管上下文多长。"),
    ("rnn-inference-cost", "The Transformer decodes faster than an RNN regardless of the context length."),
    # bahdanau-attention-gives-decoder-one-context
    ("rnn-seq2seq-bottleneck", "Bahdanau computes one context for the sentence, "
     "and the decoder reuses it at every "
     "step."),
    ("rnn-seq2seq-bottleneck", "They take a single softmax-weighted sum of them up front."),
    ("rnn-seq2seq-bottleneck", "这个 c 在解码开始前算一次，后面每个 step 都用同一个 c。"),
    ("rnn-seq2seq-bottleneck", "The context vector is computed once in advance and reused "
     "at every decoder step."),
    ("rnn-seq2seq-bottleneck", "上下文向量提前算好一个，解码时每一步复用。"),
    # attention-bias-means-bias-vectors-q
    ("bias-what-is-attention-bias", "It's the b vectors inside the Q/K/V linear layers."),
    ("bias-what-is-attention-bias", "Attention bias is bias=True in the QKV projection."),
    ("bias-what-is-attention-bias", "注意力偏置指的是 Q、K、V 投影中的偏置向量。"),
    # since-b-k-cancels-b-q
    ("bias-k-bias-redundant", "By the same argument the query bias drops out as well."),
    ("bias-k-bias-redundant", "query bias 一样会被 softmax 消掉。"),
    ("bias-k-bias-redundant", "The query bias is redundant too, by symmetry."),
    ("bias-k-bias-redundant", "b_Q 同样也没用。"),
    # alibi-slopes-learned
    ("bias-alibi", "m_h is a learned per-head parameter."),
    ("bias-alibi", "The slopes are learned during training."),
    ("bias-alibi", "每个头的斜率是学出来的。"),
    # t5-learns-separate-bias-for-every
    ("bias-t5-buckets", "Every position pair (i, j) gets its own learned scalar bias in T5."),
    ("bias-t5-buckets", "T5 keeps a separate learned bias for every (i, j)."),
    ("bias-t5-buckets", "每一对位置都有自己单独学到的偏置。"),
    # rope-adds-position-vector-embeddings
    ("bias-rope-alibi", "RoPE 在输入层为每个位置生成一个旋转位置向量，并将其与词嵌入相加。"),
    ("bias-rope-alibi", "RoPE 生成位置向量，再和嵌入加起来。"),
    ("bias-rope-alibi", "RoPE adds a rotary position vector to the token embeddings."),
    # boolean-true-always-means-masked
    ("bias-mask-conventions", "True = masked, in every PyTorch attention API."),
    ("bias-mask-conventions", "PyTorch 里 True 就是 mask 掉的意思，不管 SDPA 还是 MHA 都一样。"),
    ("bias-mask-conventions", "True means masked in all APIs."),
    ("bias-mask-conventions", "无论 SDPA 还是 MultiheadAttention，约定都一样。"),
    # dot-product-attention-has-lower-complexity
    ("dva-dot-vs-additive", "Dot product wins because it is O(n^2 d) while additive is O(n^2 d^2)."),
    ("dva-dot-vs-additive", "点积是 O(n^2 d)，加性是 O(n^2 d^2)，所以点积快。"),
    ("dva-dot-vs-additive", "Additive attention costs n^2 d^2."),
    # scaled-dot-product-attention-less-expressive
    ("dva-variants", "Scaled dot-product has zero parameters, so it is weaker than general attention."),
    ("dva-variants", "没参数，所以表达力比 general attention 差。"),
    ("dva-variants", "The dot-product score is less powerful than the bilinear one."),
    ("dva-variants", "点积的表现力不如双线性打分。"),
    # additive-attention-projects-every-query-key
    ("dva-cost", "For each of the n*m pairs additive computes W_q q_i and W_k k_j."),
    ("dva-cost", "So additive is O(n m d d_a)."),
    ("dva-cost", "加性注意力对每一对都要算一次 W_q q 和 W_k k 的投影。"),
]

NOT_FLAGGED = [
    # attention-always-most-expensive-part-transformer
    ("cx-time-space", "For long contexts, attention is the most expensive part of the model."),
    ("cx-time-space", "Attention is not always the most expensive part; below n = "
     "2 d_model the projections cost more."),
    ("cx-time-space", "只有当 n 超过 2 d_model 时，注意力才是模型里最贵的部分。"),
    ("cx-time-space", "注意力并不总是最耗算力的地方。"),
    # self-attention-needs-o-n-2
    ("cx-time-space", "A naive implementation has to store the n by n matrix no matter what."),
    ("cx-time-space", "FlashAttention 不需要把 n×n 矩阵存下来，无论序列多长。"),
    ("cx-time-space", "不管用什么实现，计算量都是 n² 的。"),
    # flashattention-reduces-o-n-2-compute
    ("cx-time-space", "Linear attention brings the n^2 compute down to linear."),
    ("cx-time-space", "FlashAttention 不降低计算量，省的是显存和访存。"),
    ("cx-time-space", "FlashAttention 降低了显存，计算量没减少。"),
    ("cx-flashattention", "FlashAttention also cuts the HBM traffic, so wall-clock time goes down too."),
    ("cx-flashattention", "With causal skipping the FLOPs also drop by about half."),
    ("cx-flashattention", "The FLOPs do not go down; only the memory traffic does."),
    # long-context-inference-limited-n-n
    ("cx-long-context-memory", "In training, naive attention's n x n matrix is what runs "
     "out of memory first."),
    ("cx-long-context-memory", "With a fused kernel the n by n matrix never exists; the KV "
     "cache is the bottleneck."),
    ("cx-long-context-memory", "推理时的瓶颈不是 n×n 注意力矩阵，而是 KV cache。"),
    # blockwise-softmax-approximation-because-each-block
    ("cx-online-softmax", "The rescaling makes it exact, not an approximation of the real softmax."),
    ("cx-online-softmax", "Without the rescaling, it would only approximate the full softmax."),
    ("cx-online-softmax", "Performer's random features give an approximation of the true softmax."),
    ("cx-online-softmax", "结果和完整 softmax 一样，没有误差。"),
    # linear-attention-computes-same-result-as
    ("cx-sparse-linear", "FlashAttention is mathematically the same as softmax attention."),
    ("cx-sparse-linear", "It is not the same thing as softmax attention "
     "mathematically; it changes the similarity."),
    ("cx-sparse-linear", "但别以为它和 softmax 结果一样，它换了相似度函数。"),
    ("cx-sparse-linear", "Performer's output only approximates the softmax output."),
    # sliding-chunks-give-every-token-whole
    ("cx-long-inputs-encoder", "每个 token 只能看到自己所在块里的上下文，看不到全文。"),
    ("cx-long-inputs-encoder", "With global attention every token gets the whole input as context."),
    ("cx-long-inputs-encoder", "Not every token sees the whole input; only its own chunk."),
    # attention-cheaper-than-rnn
    ("rnn-why-attention", "Attention does not need fewer FLOPs; it wins on parallelism and path length."),
    ("rnn-why-attention", "For n < 2d, attention needs fewer FLOPs than an LSTM."),
    ("rnn-why-attention", "注意力的 FLOPs 并不更少，它赢在并行。"),
    ("rnn-complexity", "Attention takes fewer sequential steps than an RNN."),
    # attention-wasteful-on-short-sequences
    ("rnn-drawbacks", "Attention is not wasteful on short inputs; there the projections dominate."),
    ("rnn-drawbacks", "For short inputs the cost is in the projections "
     "and the feed-forward layers, not wasted in "
     "attention."),
    ("rnn-drawbacks", "短序列上注意力并不浪费，开销主要在投影和前馈层。"),
    # self-attention-permutation-invariant
    ("rnn-positional-information", "It is permutation equivariant, not invariant."),
    ("rnn-positional-information", "After pooling, it becomes permutation invariant."),
    ("rnn-positional-information", "Attn(PX) = P Attn(X) for any permutation matrix P."),
    ("rnn-positional-information", "It is invariant to permuting the keys and values for a fixed query."),
    # transformers-faster-than-rnns-at-everything
    ("rnn-inference-cost", "The RNN is cheaper per generated token at any long context length."),
    ("rnn-inference-cost", "The Transformer is faster to train, but not faster per "
     "generated token at long context."),
    ("rnn-inference-cost", "Transformer 训练更快，但长上下文下每生成一个 token 反而比 RNN 慢。"),
    # bahdanau-attention-gives-decoder-one-context
    ("rnn-seq2seq-bottleneck", "It recomputes the context at every decoder step."),
    ("rnn-seq2seq-bottleneck", "The decoder reuses the same encoder states at every step, "
     "but with different weights."),
    ("rnn-seq2seq-bottleneck", "每一步都重新算一个不同的上下文向量。"),
    ("rnn-seq2seq-bottleneck", "Plain seq2seq compresses the source into one fixed vector up front."),
    # attention-bias-means-bias-vectors-q
    ("bias-what-is-attention-bias", "It is not the b vectors of the Q/K/V linear "
     "layers; it is a matrix added to the "
     "scores."),
    ("bias-what-is-attention-bias", "Attention bias is a matrix added to the scores, unlike the "
     "projection biases."),
    ("bias-what-is-attention-bias", "注意力偏置不是投影里的偏置向量，而是加到分数上的矩阵。"),
    # since-b-k-cancels-b-q
    ("bias-k-bias-redundant", "The key bias drops out, but the query bias does not drop out as well."),
    ("bias-k-bias-redundant", "b_Q 不会被消掉，因为 b_Q·k_j 随 key 变化。"),
    ("bias-k-bias-redundant", "The value bias is not redundant either."),
    # alibi-slopes-learned
    ("bias-alibi", "The slopes are not learned; they are a fixed geometric sequence."),
    ("bias-alibi", "Some later variants make the slopes learned."),
    ("bias-alibi", "斜率是固定的几何序列，不是学出来的。"),
    # t5-learns-separate-bias-for-every
    ("bias-t5-buckets", "Each bucket gets its own learned scalar bias per head."),
    ("bias-t5-buckets", "T5 does not learn a separate bias for every pair; the distance picks a bucket."),
    ("bias-t5-buckets", "每个桶有自己单独学到的标量偏置。"),
    # rope-adds-position-vector-embeddings
    ("bias-rope-alibi", "正弦位置编码是和词嵌入相加的，RoPE 则旋转 q 和 k。"),
    ("bias-rope-alibi", "RoPE 不与词嵌入相加，而是旋转 q 和 k。"),
    ("bias-rope-alibi", "RoPE rotates the queries and keys and adds nothing to the embeddings."),
    # boolean-true-always-means-masked
    ("bias-mask-conventions", "In every PyTorch attention API, check what True means: the "
     "conventions are opposite."),
    ("bias-mask-conventions", "SDPA 和 MHA 的 True 含义相反。"),
    ("bias-mask-conventions", "不管 SDPA 还是 MHA，输出形状都一样。"),
    ("bias-mask-conventions", "True does not always mean masked; it depends on the API."),
    # dot-product-attention-has-lower-complexity
    ("dva-dot-vs-additive", "Both are O(n^2 d); additive is not O(n^2 d^2)."),
    ("dva-dot-vs-additive", "Additive attention is O(n^2 d_a), the same order as dot-product attention."),
    ("dva-dot-vs-additive", "加性注意力也是 O(n² d)，差别在常数和硬件。"),
    # scaled-dot-product-attention-less-expressive
    ("dva-variants", "It's not true that scaled dot-product attention "
     "is parameter-free and therefore weaker than "
     "general attention."),
    ("dva-variants", "Without projections, a raw dot product is weaker than general attention."),
    ("dva-variants", "Per head it is limited to rank d_k, weaker than a full-rank general W."),
    ("dva-variants", "它的表达力并不比 general attention 差，投影已经给了双线性形式。"),
    # additive-attention-projects-every-query-key
    ("dva-cost", "The projections W_q q and W_k k are computed once per vector, not for each pair."),
    ("dva-cost", "For each pair, only the addition, tanh and the dot with v are computed."),
    ("dva-cost", "投影对每个向量只算一次，每一对只做加法、tanh 和与 v 的点积。"),
]


@pytest.mark.parametrize("card, text", FLAGGED)
def test_myth_is_flagged(cards, card, text):
    assert cards[card].check(text).stated, text


@pytest.mark.parametrize("card, text", NOT_FLAGGED)
def test_correct_statement_is_not_flagged(cards, card, text):
    r = cards[card].check(text)
    assert not r.stated, r.stated
