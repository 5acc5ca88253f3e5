"""Tuner tu4 (chapters 10-12): myth patterns as meanings. Own paraphrases of each myth must be flagged on the
card that uses it; correct near-misses (the correction, a negation, the condition where it holds) must not."""

from __future__ import annotations

import pytest

from selfattention.interview import bank

CARDS = {c.id: c for c in bank.load_cards()}


def _myth_index(card, myth):
    return next(j for j, t in enumerate(card.tells) if t.myth == myth)


MYTHS = [
    ("tf-pre-post-ln", "layernorm-placement-cosmetic", [
        "Where the LayerNorm goes is just a matter of style.",
        "pre-LN 和 post-LN 只是写法不一样而已。",
        "Pre-LN and post-LN compute the same function either way.",
        "两种放法没什么实质区别。",
    ], [
        "LayerNorm placement is far from a matter of style: the two compute different functions.",
        "pre-LN 和 post-LN 不只是写法不同，梯度分布也不同。",
    ]),
    ("tf-architectures-masks", "decoder-only-model-decoder-original-transformer", [
        "decoder-only 模型就是把原始 Transformer 的解码器单独拿出来。",
        "A decoder-only model is simply the original decoder taken out on its own.",
    ], [
        "decoder-only 的块是把原始解码器的交叉注意力去掉后的样子。",
    ]),
    ("tf-why-decoder-only", "decoder-only-was-proven-be-best", [
        "Experiments showed decoder-only beats encoder-decoder across the board.",
        "It has been proven to be the optimum.",
        "研究证明 decoder-only 在所有任务上都更好。",
    ], [
        "Wang et al.: decoder-only better zero-shot, encoder-decoder better after multitask fine-tuning.",
        "The comparison showed a trade-off that depends on fine-tuning.",
    ]),
    ("tf-modern-block", "swiglu-makes-ffn-bigger", [
        "换成 SwiGLU 之后 FFN 的参数变多了。",
        "SwiGLU increases the FFN parameters.",
    ], [
        "SwiGLU keeps the parameters the same because d_ff shrinks to 8/3 d.",
        "SwiGLU 多一个矩阵，但 d_ff 调小到 8/3 d，参数不变。",
    ]),
    ("tf-params-flops", "ffn-minor-part-attention-where-compute", [
        "Transformer 的算力都在 attention 上。",
        "The FFN is just a side player.",
        "FFN 只是个配角。",
    ], [
        "For long contexts most compute sits in attention, beyond n = 2d.",
        "FFN 不是配角，它占三分之二的参数。",
    ]),
    ("tf-moe", "mixture-experts-model-with-47b-parameters", [
        "Mixtral 每个 token 的算力和 dense 47B 差不多。",
        "每 token 计算量跟 47B 的 dense 模型是一个量级。",
    ], [
        "Mixtral 每个 token 的计算量相当于 13B 的 dense 模型，显存才和 47B 一样。",
    ]),
    ("tf-embeddings-tying", "multiplying-embeddings-d-model-learning-rate", [
        "The sqrt(d_model) factor is a learning-rate hack.",
        "乘 √d 就是个调学习率的技巧。",
        "这相当于把 embedding 的学习率放大了。",
    ], [
        "The √d_model factor sets the embedding scale relative to the positional vectors.",
        "It is not a learning-rate trick.",
    ]),
    ("tf-mlm-mask-vs-attention-mask", "bert-s-mask-works-like-attention", [
        "The masked tokens are also masked out in the attention.",
        "被 mask 的 token 在注意力里同时也被屏蔽掉。",
    ], [
        "Only the padding is masked in BERT's attention; the [MASK] tokens are attended to normally.",
    ]),
    ("pos-word-order", "self-attention-permutation-invariant", [
        "Shuffle the tokens and you get exactly the same outputs.",
        "注意力对输入是置换不变的。",
    ], [
        "Shuffle the tokens and the outputs are reordered the same way: attention is equivariant.",
        "打乱输入，输出也跟着相应地重排。",
    ]),
    ("pos-word-order", "context-extension-means-retraining-model-from", [
        "You have to pretrain it again from scratch for a longer context.",
        "要扩上下文只能从头重新预训练。",
    ], [
        "You do not need to pretrain from scratch; a short fine-tune at the new length is enough.",
        "扩上下文只需要在长文本上微调，不用从头训练。",
    ]),
    ("pos-rope-how", "rope-adds-position-vector-embeddings", [
        "RoPE is added to the embeddings before the first layer.",
        "RoPE 加到嵌入上。",
    ], [
        "Unlike sinusoidal encodings, which are added to the embeddings, RoPE rotates q and k.",
        "RoPE 旋转 query 和 key，而不是加到嵌入上。",
    ]),
    ("pos-rope-how", "rope-makes-every-attention-score-decay", [
        "Scores drop monotonically with distance under RoPE.",
        "score 随距离单调下降。",
        "不管 q、k 是什么都会衰减。",
    ], [
        "Only an upper bound decays with distance; individual scores need not.",
        "衰减的只是上界，对齐的 q、k 分数不一定变小。",
    ]),
    ("pos-nope", "any-transformer-without-positional-encodings-bag", [
        "Positional encodings are mandatory for every Transformer.",
        "Remove RoPE and the decoder reduces to a bag of words.",
        "没有 PE 的 decoder 也只是个词袋。",
    ], [
        "A bidirectional encoder without positions is a bag of words.",
        "With a causal mask, a decoder without positional encodings is not a bag of words.",
    ]),
    ("pos-context-extension", "position-interpolation-leaves-model-s-short", [
        "Position interpolation only affects long-range positions.",
        "PI 对近邻的 token 基本没影响。",
        "Local behaviour stays exactly as trained after interpolation.",
    ], [
        "YaRN keeps the fast pairs, so local behaviour stays intact.",
        "PI compresses the fast pairs too, so neighbouring tokens end up closer in angle.",
    ]),
    ("pos-context-extension", "ntk-scaling-brings-every-slow-pair-back", [
        "NTK scaling compresses every slow pair back into its trained range.",
        "NTK 把所有慢的维度都压缩回训练范围。",
    ], [
        "NTK-aware scaling still leaves the slowest pairs beyond their trained range.",
        "PI brings every slow pair back into range.",
    ]),
    ("pos-extrapolation", "alibi-extrapolation-means-model-uses-whole", [
        "Flat perplexity shows the model is exploiting the whole longer context.",
        "ppl 平稳就说明远处的信息也被利用了。",
    ], [
        "Flat perplexity does not show that it uses distant tokens; you must test retrieval.",
        "是否利用了整个上下文需要用检索任务检验。",
    ]),
    ("scale-cheap-enough", "serving-cost-dominated-flops", [
        "Serving is expensive mostly because of FLOPs.",
        "推理主要是被算力卡住的。",
        "Decoding is compute-bound.",
    ], [
        "Decoding is memory-bound: reading weights and the KV cache dominates, not FLOPs.",
        "prefill 是计算受限的，decode 是带宽受限的。",
    ]),
    ("scale-cheap-enough", "flashattention-reduces-o-n-2-compute", [
        "FlashAttention 的 FLOPs 比标准实现少。",
        "It performs fewer floating-point operations than naive attention.",
    ], [
        "FlashAttention does the same FLOPs; it cuts HBM traffic.",
        "FlashAttention 的计算量没有减少，减少的是显存读写。",
    ]),
    ("scale-flash-backward", "flashattention-stores-attention-matrix-in-lower", [
        "FlashAttention keeps the attention probabilities around for backward in fp8.",
        "它把注意力概率保存下来给反向用。",
    ], [
        "FlashAttention does not store the probabilities; it recomputes them in backward.",
    ]),
    ("scale-flash-backward", "recomputation-must-make-training-slower", [
        "Recomputation means training must be slower.",
        "重算之后训练一定更慢。",
    ], [
        "Despite recomputation, training is faster in wall-clock time.",
        "虽然多了重算，实际反而更快。",
    ]),
    ("scale-flash-versions", "flashattention-2-changed-mathematics-attention", [
        "FA2 uses a different formula from v1.",
        "FA2 的公式跟 FA1 不一样。",
        "FA2 换了一套数学。",
    ], [
        "FA2 computes the same attention as v1; it only reorders the work.",
        "FA2 的数学和 FA1 一样，只是并行方式不同。",
    ]),
    ("scale-prefill-decode", "big-enough-batch-makes-decoding-compute", [
        "With a big batch, attention also becomes compute-bound in decoding.",
        "batch 足够大时 attention 也是计算受限的。",
    ], [
        "A big batch makes the weight matmuls compute-bound, but attention stays memory-bound.",
    ]),
    ("scale-mla", "mla-just-gqa-with-fewer-heads", [
        "MLA is really just grouped-query attention with fewer KV heads.",
        "MLA 就是 GQA。",
    ], [
        "MLA is not GQA: it caches a latent vector and up-projects it to per-head keys.",
    ]),
    ("scale-sliding-window", "with-sliding-window-token-can-only", [
        "Anything older than w tokens is invisible to the model.",
        "超过 4k 的内容模型根本拿不到。",
        "The effective context is just w.",
    ], [
        "In one layer a token sees only w positions; stacked layers reach L times w.",
        "单层里超过窗口的 token 看不到，但叠层后感受野变大。",
    ]),
    ("scale-paged-attention", "pagedattention-makes-attention-kernel-itself-faster", [
        "The speedup comes from the paged kernel being more cache-friendly.",
        "分页的内核计算更快。",
    ], [
        "The throughput gain comes from bigger batches; the kernel itself is not faster.",
        "吞吐提升来自更大的 batch，而不是内核更快。",
    ]),
    ("scale-flash-decoding", "splitting-keys-approximates-attention", [
        "Flash-Decoding is an approximation.",
        "split-K 之后结果只是近似的。",
        "合并之后和完整 attention 会有误差。",
    ], [
        "Flash-Decoding is exact: the chunks are merged with their log-sum-exp.",
        "split-K 的结果是精确的，合并时按 lse 重新缩放。",
    ]),
]

MYTH_CASES = [(c, m, t) for c, m, ms, _ in MYTHS for t in ms]
OK_CASES = [(c, m, t) for c, m, _, oks in MYTHS for t in oks]


@pytest.mark.parametrize(("card", "myth", "text"), MYTH_CASES)
def test_myth_flagged(card, myth, text):
    c = CARDS[card]
    assert _myth_index(c, myth) in c.check(text).stated


@pytest.mark.parametrize(("card", "myth", "text"), OK_CASES)
def test_correct_not_flagged(card, myth, text):
    c = CARDS[card]
    assert _myth_index(c, myth) not in c.check(text).stated
