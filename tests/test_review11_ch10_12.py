"""Review round 10, chapters 10-12 (reviews/2026-12-02/s8-r10-ch10-12.md): the MEDIUM findings M-1, M-2, M-4 ...
M-17 (M-3 was fixed before this round).

- M-1: generic words (token, sequenc, specul, cache/缓存, 每层, bert) moved from forward `!!` qualifiers to clause-local
  `!`; the 7 sentences are FLAGGED, and near-misses whose "but/only …" clause is the myth's real condition stay clean.
- M-2 / M-5: "call / called / 叫作 / 当成" frames in language.py ("Some people call X Y", "X is often called Y",
  "有人把 X 叫作 Y", "X 常被当成 Y"); a plain name ("are called attention sinks") and the speaker's own "I call" are
  not frames; streamingllm's per-myth `think that | claim | call` exclusion is gone.
- M-4: clause-final "是不对的 / 不正确 / 不成立 / 站不住" and "X — not true" reject in-clause; affirmations stay flagged.
  Checked across all chapters on every single-clause registry myth (test_language_rejections_across_chapters).
- M-6 … M-15: pattern false alarms (the reviewer's sentences, own near misses) and the myth forms.
- M-16: new registry myths (decoding-is-compute-bound, post-ln-top-layer-gradients-small,
  gqa-gives-each-query-head-own-kv-head, attention-dominates-short-contexts-ffn-long), new patterns on
  flashattention-reduces-o-n-2-compute (fewer FLOPs, more bytes) and mixture-experts-model-with-47b-parameters
  (each token uses all 47B), and `!` exclusions on BERT KP1, params KP1 (one third) and sinks KP2 (last four).
- M-17: a `~wrong` licence: a rejection word that belongs to the claim ("a plain average is wrong") takes nothing back.
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests, keypoint_tests

from selfattention.interview.bank import split_misconception
from selfattention.interview.language import clauses

M1_FLAGGED = [
    ('tf-params-flops', 'Most of the compute is in attention, but the FFN has more parameters per token.'),
    ('tf-params-flops', 'Attention is where the compute goes, but the FFN is also important in every sequence.'),
    ('scale-prefill-decode', 'A big enough batch makes decoding compute-bound, but speculative decoding also helps.'),
    ('scale-mla', 'MLA 就是头更少的 GQA，但缓存更小。'),
    ('scale-sliding-window', '用了滑动窗口，一个 token 只能利用最近 w 个 token，但是每层的计算很便宜。'),
    ('pos-nope', 'Any Transformer without positional encodings is a bag of words, but BERT adds learned positions.'),
    ('pos-nope', '任何没有位置编码的 Transformer 都是词袋模型，但 BERT 加了可学习的位置。'),
]

M1_NOT_FLAGGED = [
    ('tf-params-flops', 'Most of the compute is in attention, but only for long contexts.'),
    ('tf-params-flops', 'Most of the compute is in attention, but only once n exceeds 2d.'),
    ('tf-params-flops', 'Attention is where the compute goes, but only at 128K tokens.'),
    ('tf-params-flops', 'For long sequences, most of the compute is in attention.'),
    ('tf-params-flops', '大部分计算都在注意力上，但只在长上下文时如此。'),
    ('tf-params-flops', '计算都在注意力上，不过那是 n 大于 2d 以后。'),
    ('scale-prefill-decode', 'A big enough batch makes decoding compute-bound, but only for the weight matmuls.'),
    ('scale-prefill-decode', 'A big enough batch makes decoding compute-bound, but attention only gains from speculative verification or shared prefixes.'),
    ('scale-prefill-decode', 'batch 足够大就能让解码变成计算受限，但注意力要靠共享前缀或投机解码的验证。'),
    ('scale-mla', 'MLA 就是头更少的 GQA，但只是就缓存大小而言。'),
    ('scale-mla', 'MLA is basically MQA, but only at decode time with absorbed weights.'),
    ('scale-mla', 'MLA 本质上就是 MQA，但只是在解码时吸收权重之后。'),
    ('scale-sliding-window', '一个 token 只能利用最近 w 个 token，但这只是单层的情况。'),
    ('scale-sliding-window', '用了滑动窗口，一个 token 只能利用最近 w 个 token，不过这是在一层里。'),
    ('pos-nope', 'Any Transformer without positional encodings is a bag of words, but only an unmasked encoder.'),
    ('pos-nope', '任何没有位置编码的 Transformer 都是词袋模型，但这只对双向编码器成立。'),
    ('pos-nope', 'A Transformer without positional encodings is a bag of words, but only without a causal mask.'),
]

LANGUAGE_NOT_FLAGGED = [
    ('scale-cheap-enough', '把 FlashAttention 当成近似方法是不对的。'),
    ('scale-cheap-enough', '说 FlashAttention 是近似方法是不对的。'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法是不对的。'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法是不正确的。'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法，这个说法不成立。'),
    ('scale-cheap-enough', 'FlashAttention is an approximation — not true.'),
    ('scale-cheap-enough', 'FlashAttention is an approximation - not correct.'),
    ('scale-cheap-enough', 'FlashAttention is an approximation — not true at all, it is exact.'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法，不对吗？'),
    ('tf-pre-post-ln', 'Some people call LayerNorm placement cosmetic, but it changes the gradient profile.'),
    ('tf-pre-post-ln', 'LayerNorm placement is often called cosmetic, but it changes the gradient profile.'),
    ('scale-cheap-enough', 'Some people call FlashAttention an approximation, but it is exact.'),
    ('scale-cheap-enough', 'FlashAttention is sometimes called an approximation, but it is exact.'),
    ('scale-mla', 'Some people call MLA just GQA with fewer heads, but every head keeps its own keys.'),
    ('scale-cheap-enough', '有人把 FlashAttention 叫作近似方法，但它是精确的。'),
    ('scale-cheap-enough', 'FlashAttention 常被当成近似方法，但它是精确的。'),
    ('scale-attention-sinks', 'Some people call StreamingLLM an infinite-context method, but evicted tokens are gone.'),
    ('scale-attention-sinks', 'StreamingLLM streams without end, but its context stays finite.'),
    ('scale-attention-sinks', 'StreamingLLM 不是无限上下文：窗口大小不变。'),
]

LANGUAGE_FLAGGED = [
    ('scale-cheap-enough', 'FlashAttention 是近似方法，这并不是不对的。'),
    ('scale-cheap-enough', 'FlashAttention is an approximation — true.'),
    ('scale-cheap-enough', 'FlashAttention is an approximation, and that is true.'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法，这是对的。'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法，这一点没错。'),
    ('scale-cheap-enough', '说 FlashAttention 是近似方法是对的。'),
    ('scale-cheap-enough', 'I call FlashAttention an approximation.'),
    ('scale-cheap-enough', "I'd call FlashAttention an approximation."),
    ('scale-cheap-enough', 'FlashAttention is called an approximation because it is one.'),
    ('scale-cheap-enough', '我把 FlashAttention 叫作近似方法。'),
    ('scale-cheap-enough', 'FlashAttention 被称为近似方法，因为它就是近似的。'),
    ('scale-attention-sinks', 'I think that StreamingLLM gives a model infinite context.'),
    ('scale-attention-sinks', "I'd call StreamingLLM an infinite-context method."),
]

PATTERN_NOT_FLAGGED = [
    ('tf-what-is-transformer-structure', 'Self-attention and the FFN are fundamentally different: one mixes tokens, the other transforms each token.'),
    ('tf-what-is-transformer-structure', '自注意力和 FFN 本质上不同：一个在 token 之间混合信息，一个逐 token 变换。'),
    ('tf-what-is-transformer-structure', '交叉注意力的 query 和 key 来源完全不同：query 来自解码器，key 来自编码器。'),
    ('tf-what-is-transformer-structure', '2017 年的模型和今天的大模型在规模上完全不同，但块的结构基本一样。'),
    ('tf-what-is-transformer-structure', "The 2017 model and today's LLMs are completely different in size."),
    ('tf-what-is-transformer-structure', 'Attention and the feed-forward layer do fundamentally different jobs.'),
    ('tf-what-is-transformer-structure', 'The decoder block is not fundamentally different from the encoder block; it adds cross-attention and a mask.'),
    ('tf-what-is-transformer-structure', '编码器块和解码器块并没有本质不同，只是多了交叉注意力和掩码。'),
    ('tf-pre-post-ln', 'Where the norm sits matters even with the same weights.'),
    ('tf-pre-post-ln', 'pre-LN 和 post-LN 的参数量没有区别，区别在梯度。'),
    ('tf-pre-post-ln', 'Pre-LN 的学习率预热不重要，但 post-LN 必须用。'),
    ('tf-pre-post-ln', 'For pre-LN the warm-up length does not matter much; post-LN needs it.'),
    ('tf-pre-post-ln', '预热步数具体多少无所谓，关键是 post-LN 一开始不能用大学习率。'),
    ('tf-pre-post-ln', 'Pre-LN and post-LN have the same parameters, but where the norm sits changes the gradients.'),
    ('tf-pre-post-ln', '两种放法参数量没有区别，但训练稳定性完全不同。'),
    ('tf-pre-post-ln', 'With pre-LN the exact learning rate does not matter as much.'),
    ('pos-families', 'Sinusoidal and relative encodings differ in where the position enters.'),
    ('pos-families', 'Sinusoidal encodings and relative methods are compared in many papers.'),
    ('pos-families', '正弦编码和相对位置编码的区别在于位置从哪里进入。'),
    ('pos-families', 'Unlike sinusoidal encodings, relative methods act inside attention.'),
    ('pos-families', '正弦编码和相对编码不同：一个加在输入上，一个作用在注意力里。'),
    ('pos-families', 'Sinusoidal vs relative: the first is added to the input, the second acts on the scores.'),
    ('pos-rope-how', 'RoPE replaced the sinusoidal vectors that the original Transformer added to the embeddings.'),
    ('pos-rope-how', 'Unlike the learned vectors GPT-2 adds to the embeddings, RoPE rotates q and k.'),
    ('pos-rope-how', 'RoPE 取代了原始 Transformer 加到词向量上的正弦向量。'),
    ('pos-rope-how', 'The original Transformer adds a sinusoidal vector to each embedding; RoPE rotates q and k instead.'),
    ('pos-rope-how', 'RoPE 代替了 BERT 那种加在嵌入上的可学习位置向量。'),
    ('pos-word-order', 'Retraining from scratch is the expensive option that PI avoids.'),
    ('pos-word-order', '从头训练一个 128K 的模型太贵了，所以大家从已训练的模型出发继续训练。'),
    ('pos-word-order', 'Llama 3 是从头预训练到 8K，再继续预训练到 128K 的。'),
    ('pos-word-order', 'Instead of retraining from scratch, you fine-tune with interpolated positions.'),
    ('pos-word-order', 'Retraining from scratch would cost far more than a short fine-tune.'),
    ('pos-word-order', '扩展上下文不必从头训练，继续训练就够了。'),
    ('pos-word-order', '长上下文模型可以从已训练的模型出发，避免从头训练的代价。'),
    ('pos-extrapolation', 'Within the training length, the model can use the whole context.'),
    ('pos-extrapolation', 'Inside the training length, full attention can use all of the context.'),
    ('pos-extrapolation', '插值加微调之后，模型才能真正利用整个上下文。'),
    ('pos-extrapolation', 'After fine-tuning with interpolated positions, the model can use the whole context.'),
    ('pos-extrapolation', '在训练长度之内，模型可以利用整个上下文。'),
    ('scale-cheap-enough', 'FlashAttention 和近似方法不同，它是精确的。'),
    ('scale-cheap-enough', 'FlashAttention also has a block-sparse variant, which is approximate.'),
    ('scale-cheap-enough', 'FlashAttention 的块稀疏变体才是近似的。'),
    ('scale-cheap-enough', 'FlashAttention 不同于稀疏注意力，结果是精确的。'),
    ('scale-cheap-enough', 'Block-sparse FlashAttention, a variant, skips blocks and is approximate.'),
    ('scale-cheap-enough', 'FlashAttention 和稀疏注意力不同，它算的是完整的注意力。'),
    ('scale-flash-backward', 'Reading P back from HBM is slower than recomputing it.'),
    ('scale-flash-backward', '从显存读回 P 比重算还慢。'),
    ('scale-flash-backward', "The standard backward is slower than FlashAttention's recomputation."),
    ('scale-flash-backward', '标准实现的反向比 FlashAttention 的重算更慢。'),
    ('scale-flash-backward', 'Storing and re-reading the matrix is slower than recomputing it.'),
    ('scale-flash-backward', '读写 n×n 矩阵比重新计算更慢。'),
    ('scale-attention-sinks', 'The content tokens are the important ones; sinks just absorb weight.'),
    ('scale-attention-sinks', '真正重要的 token 是内容 token，sink 只是吸收权重。'),
    ('scale-attention-sinks', 'What matters most for the output is the value the sink carries, which is often near zero.'),
    ('scale-attention-sinks', 'Important content sits in the later tokens; the sink absorbs the leftover weight.'),
    ('scale-attention-sinks', '重要的内容在后面的 token 里，sink 只是吸收多余的权重。'),
    ('scale-paged-attention', 'PagedAttention is faster because more sequences fit.'),
    ('scale-paged-attention', 'PagedAttention is faster end to end because the batch grows.'),
    ('scale-paged-attention', 'PagedAttention 更快，是因为能放下更多序列。'),
    ('scale-paged-attention', 'PagedAttention is faster overall, since the batch can be larger.'),
    ('scale-paged-attention', 'PagedAttention 整体上更快，因为 batch 更大。'),
    ('scale-paged-attention', 'PagedAttention speeds up serving because more requests fit in memory.'),
]

PATTERN_FLAGGED = [
    ('tf-what-is-transformer-structure', 'Encoder and decoder blocks are fundamentally different.'),
    ('tf-what-is-transformer-structure', 'The decoder block is fundamentally different from the encoder block.'),
    ('tf-what-is-transformer-structure', '编码器块和解码器块本质上不同。'),
    ('tf-what-is-transformer-structure', '解码器的块和编码器的块完全不同。'),
    ('tf-pre-post-ln', 'LayerNorm placement is cosmetic.'),
    ('tf-pre-post-ln', 'Where you put the LayerNorm does not matter.'),
    ('tf-pre-post-ln', 'LayerNorm 放在哪里无所谓。'),
    ('tf-pre-post-ln', 'Pre-LN 和 post-LN 没有区别。'),
    ('tf-pre-post-ln', 'LayerNorm 的位置不重要。'),
    ('tf-pre-post-ln', 'Layer norm placement is a cosmetic detail.'),
    ('pos-families', 'Sinusoidal encodings are relative because PE(p + k) is a linear function of PE(p).'),
    ('pos-families', 'Sinusoidal encodings are relative.'),
    ('pos-families', '正弦编码是相对的。'),
    ('pos-rope-how', 'RoPE adds a position vector to the embeddings.'),
    ('pos-rope-how', 'RoPE 把位置向量加到词向量上。'),
    ('pos-word-order', 'Context extension means retraining the model from scratch.'),
    ('pos-word-order', 'To extend the context you have to retrain from scratch.'),
    ('pos-word-order', '扩展上下文就要从头训练。'),
    ('pos-word-order', '想要更长的上下文只能从零训练。'),
    ('pos-extrapolation', 'ALiBi extrapolation means the model uses the whole context.'),
    ('pos-extrapolation', 'Flat perplexity shows the model uses the whole context.'),
    ('pos-extrapolation', 'ALiBi 外推说明模型用上了整个上下文。'),
    ('scale-cheap-enough', 'FlashAttention is an approximation.'),
    ('scale-cheap-enough', 'FlashAttention 是近似方法。'),
    ('scale-cheap-enough', 'FlashAttention 是一种稀疏注意力。'),
    ('scale-cheap-enough', 'FlashAttention is an approximation, unlike standard attention.'),
    ('scale-flash-backward', 'Recomputation must make training slower.'),
    ('scale-flash-backward', "FlashAttention's recomputation makes training slower."),
    ('scale-flash-backward', '重算一定会让训练更慢。'),
    ('scale-flash-backward', 'Recomputation is slower than reading P back from HBM.'),
    ('scale-attention-sinks', 'Attention sinks are tokens with important content.'),
    ('scale-attention-sinks', 'The sink tokens carry important content.'),
    ('scale-attention-sinks', 'sink 这些 token 的内容很重要。'),
    ('scale-attention-sinks', 'A token with a huge attention weight must be important to the output.'),
    ('scale-paged-attention', 'PagedAttention makes the attention kernel itself faster.'),
    ('scale-paged-attention', 'PagedAttention is faster.'),
    ('scale-paged-attention', 'PagedAttention 让注意力更快。'),
    ('scale-paged-attention', 'PagedAttention is faster, but it also wastes less memory.'),
    ('scale-paged-attention', 'PagedAttention is faster because its kernel is better.'),
]

NOT_FLAGGED = M1_NOT_FLAGGED + LANGUAGE_NOT_FLAGGED + PATTERN_NOT_FLAGGED
FLAGGED = M1_FLAGGED + LANGUAGE_FLAGGED + PATTERN_FLAGGED

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED, ())

# M-16: (card, key point, false statements that must not tick it, correct statements that must)
KEY_POINTS = [
    (
        'scale-cheap-enough', 2,
        [
            'Decoding is compute-bound, doing hundreds of FLOPs per byte.',
            '解码是计算受限的，每字节几百次运算。',
            'Decoding is compute-bound.',
        ],
        [
            'Decoding is memory-bound: it reads the whole KV cache per token at about one FLOP per byte.',
            '解码每个 token 都要读完整个 KV cache，每字节约一次运算，所以受限于带宽。',
            'Decoding does about one FLOP per byte, so it is memory-bound.',
            'Unlike prefill, decoding is not compute-bound; it is memory-bound.',
            '解码不是计算受限，而是带宽受限。',
        ],
    ),
    (
        'scale-cheap-enough', 1,
        [
            'FlashAttention does fewer FLOPs and moves more bytes.',
            'FlashAttention 的 FLOPs 更少，搬运的字节更多。',
        ],
        [
            'FlashAttention does more FLOPs but moves fewer bytes.',
            'FlashAttention 多做了一些 FLOPs，但搬运的字节少得多。',
            'It is faster because it moves fewer bytes, even with extra FLOPs.',
            'FlashAttention trades extra FLOPs for fewer bytes moved.',
        ],
    ),
    (
        'tf-pre-post-ln', 1,
        [
            "At initialisation post-LN's top-layer gradients are small and shrink with depth.",
            '初始化时 post-LN 顶层梯度很小，并且随深度减小。',
        ],
        [
            "At initialisation post-LN's top-layer gradients are large and do not shrink with depth.",
            '初始化时 post-LN 顶层的梯度很大，不随深度减小。',
            "Xiong et al. 2020 showed post-LN's gradients near the output are large at initialisation.",
            'Post-LN has large gradients in the top layers at initialisation, hence the warm-up.',
        ],
    ),
    (
        'tf-modern-block', 3,
        [
            'Grouped-query attention gives every query head its own key-value head, so the KV cache grows.',
            '分组查询注意力让每个 query 头都有自己的 key/value 头。',
        ],
        [
            'Grouped-query attention shares key-value heads and shrinks the KV cache.',
            'GQA 让一组 query 头共享一个 KV 头，KV cache 变小。',
            'In GQA several query heads share one key-value head.',
            'GQA shares each key-value head across a group of query heads, which shrinks the cache.',
            'Unlike MHA, where every query head has its own key-value head, GQA shares them.',
        ],
    ),
    (
        'tf-params-flops', 5,
        [
            'Attention dominates short contexts and the FFN dominates long ones.',
            '短上下文时注意力占主导，长上下文时 FFN 占主导。',
        ],
        [
            'The FFN dominates short contexts; attention dominates long ones.',
            '短上下文时 FFN 占主导，长上下文时注意力占主导。',
            'For long contexts attention dominates, while the FFN dominates short ones.',
            "At long context lengths attention's n² term dominates.",
            'The FFN dominates until the context is longer than about 2d.',
        ],
    ),
    (
        'tf-moe', 2,
        [
            'Mixtral has about 47B parameters and each token uses all 47B.',
            'Mixtral 总共约 470 亿参数，每个 token 也用满 470 亿。',
        ],
        [
            'Parameters grow with the number of experts, FLOPs per token only with k; Mixtral has about 47B total and 13B active.',
            'Mixtral 总共约 470 亿参数，每个 token 只激活约 130 亿。',
            'Mixtral has 47B parameters in total but only 13B active per token.',
            'All 47B must sit in memory, though each token uses only 13B.',
            'Each token activates only two of the eight experts, about 13B parameters.',
        ],
    ),
    (
        'tf-architectures-masks', 1,
        [
            'Encoder-only BERT is causal and trained on the next token.',
        ],
        [
            'Encoder-only (BERT) is bidirectional and trained on masked tokens.',
            'BERT 这样的仅编码器模型是双向的，训练时预测被遮住的 token。',
            'BERT is bidirectional and trained to recover masked tokens.',
            'An encoder-only model like BERT sees both directions and learns from masked tokens.',
        ],
    ),
    (
        'tf-params-flops', 1,
        [
            "One third of a block's parameters are in the FFN.",
        ],
        [
            "Two thirds of a block's parameters are in the FFN.",
            '一个块三分之二的参数在 FFN 里。',
            "The FFN holds two thirds of a block's weights.",
            "About 2/3 of each block's parameters sit in the FFN.",
        ],
    ),
    (
        'scale-attention-sinks', 2,
        [
            'StreamingLLM keeps the last four tokens and drops the first ones.',
        ],
        [
            'StreamingLLM keeps the first four tokens plus a recent window.',
            'StreamingLLM 保留开头四个 token 和最近的窗口。',
            'It keeps the first four tokens as sinks and a sliding window of recent ones.',
            'StreamingLLM keeps four initial tokens and the recent window, and it is exactly attention over the kept positions.',
        ],
    ),
]

FALSE_TICKS = [(c, k, t) for c, k, false, _ in KEY_POINTS for t in false]
TRUE_TICKS = [(c, k, t) for c, k, _, good in KEY_POINTS for t in good]
OWN_TEXTS = [(c, k, lang) for c, k, _, _ in KEY_POINTS for lang in ("en", "zh")]


test_false_statement_does_not_tick_the_point_it_contradicts, test_correct_statement_still_ticks_its_point = keypoint_tests(FALSE_TICKS, TRUE_TICKS)


@pytest.mark.parametrize("card, point, lang", OWN_TEXTS)
def test_key_point_text_and_spoken_answer_still_tick(card, point, lang):
    c = card_map()[card]
    assert point in c.check(c.key_points[lang][point]).covered
    spoken = c.check(c.spoken[lang])
    assert point in spoken.covered and not spoken.stated


# M-17: scale-flash-decoding KP3 ("a plain average of the parts is wrong")
PLAIN_AVERAGE_WRONG = [
    "A plain average of the parts is wrong.",
    "A plain average of the chunk outputs would be wrong.",
    "Averaging the partial outputs directly is wrong.",
    "直接平均各部分是错的。",
    "You cannot just average the chunks.",
    "Simply averaging the chunk results gives the wrong answer.",
    "直接把各块的结果取平均是不对的。",
    "Naively averaging the partial outputs would be incorrect.",
]
PLAIN_AVERAGE_RIGHT = [
    "A plain average of the parts is right.",
    "A plain average of the parts is not wrong.",
    "A plain average of the chunk outputs is fine.",
    "直接平均各部分是对的。",
    "直接平均各部分不是错的。",
    "You can just average the chunks.",
    "Averaging the partial outputs directly is correct.",
]


@pytest.mark.parametrize("text", PLAIN_AVERAGE_WRONG)
def test_plain_average_is_wrong_ticks(text):
    assert 3 in card_map()["scale-flash-decoding"].check(text).covered


@pytest.mark.parametrize("text", PLAIN_AVERAGE_RIGHT)
def test_plain_average_is_right_does_not_tick(text):
    assert 3 not in card_map()["scale-flash-decoding"].check(text).covered


def _single_clause_myths():
    for cid, c in sorted(card_map().items()):
        for j, m in enumerate(c.misconceptions):
            en = split_misconception(m["en"], "en")[0].rstrip(".")
            zh = split_misconception(m["zh"], "zh")[0].rstrip("。")
            if len(clauses(en)) == 1 and len(clauses(zh)) == 1:
                yield cid, j, en, zh


def test_language_rejections_across_chapters():
    """M-4 on every card of every chapter: "X — not true" / "X是不对的" take a one-clause myth back; "X — true" /
    "X，这是对的" still state it."""
    bad = []
    rows = list(_single_clause_myths())
    assert len(rows) > 80
    for cid, j, en, zh in rows:
        check = card_map()[cid].check
        for text, want in ((f"{en} — not true.", False), (f"{zh}是不对的。", False),
                           (f"{en} — true.", True), (f"{zh}，这是对的。", True)):
            if (j in check(text).stated) != want:
                bad.append((cid, text))
    assert not bad, bad
