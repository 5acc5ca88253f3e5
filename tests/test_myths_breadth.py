"""The myths of the breadth cards (chapter 2: W_V removal, attention vs a fully-connected layer; chapter 3:
soft-capping; chapter 4: differential attention; chapter 5: nn.MultiheadAttention's masks, multimodal
cross-attention, target attention; chapter 6: learned sparse attention, long inputs; chapter 7: seq2seq;
chapter 10: [MASK] vs attention masks) are caught when stated; correct answers to the same cards are not
flagged, in both languages."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards

CARDS = {c.id: c for c in load_cards()}

PROBES = {
    "scaling-soft-capping": [
        ("Soft-capping changes which key gets the most attention.", True),
        ("soft-cap 会改变分数的顺序。", True),
        ("Soft-capping keeps the order of the scores; it does not change the argmax.", False),
        ("tanh 单调，soft-capping 不会改变顺序。", False),
        (
            "Soft-capping changes the gap between the most attended key and the rest, while the order stays.",
            False,
        ),
        ("Capping changes how much weight the top key gets.", False),
        ("soft-capping 会改变哪个 key 得到最多的注意力。", True),
    ],
    "mh-differential-attention": [
        ("Differential attention still gives a probability distribution over the keys.", True),
        ("差分注意力的权重仍然是概率分布。", True),
        ("In differential attention each row sums to 1 minus lambda and weights can be negative.", False),
        ("差分注意力的权重不再是概率分布，每行和为 1 − λ。", False),
        (
            "Differential attention still uses two softmax distributions, one per map, and subtracts them.",
            False,
        ),
        ("差分注意力的权重仍然是 key 上的概率分布。", True),
    ],
    "qkv-remove-wv": [
        ("W_V is redundant in multi-head attention because it can always be folded into W_O.", True),
        ("多头注意力里 W_V 是多余的，它总能并入 W_O。", True),
        ("With one head W_V folds into W_O; with several heads it does not.", False),
        ("单头时 W_V 可以并入 W_O，多头时不行。", False),
    ],
    "qkv-attention-vs-fc": [
        ("Self-attention is just a fully-connected layer over the positions.", True),
        ("自注意力就是位置之间的全连接层。", True),
        ("MLP-Mixer simply replaces attention with a fully-connected layer across tokens.", False),
        (
            "Attention is the same as a fully-connected layer whose weights are computed from the input.",
            False,
        ),
        ("Attention is simply a dense layer across the positions.", True),
        ("Unlike a fully-connected layer, attention computes its mixing weights from the input.", False),
        ("注意力和全连接层不同，它的权重由输入计算。", False),
    ],
    "mask-torch-mha-masks": [
        ("nn.MultiheadAttention treats True as may attend.", True),
        ("In nn.MultiheadAttention True means allowed to attend.", True),
        ("A float mask with zeros masks those positions.", True),
        ("nn.MultiheadAttention uses the same convention as SDPA for boolean masks.", True),
        ("nn.MultiheadAttention 里 True 表示可以关注，和 SDPA 一样。", True),
        ("A float attn_mask of zeros and ones blocks the positions with zero.", True),
        ("由 0 和 1 组成的浮点掩码会屏蔽值为 0 的位置。", True),
        ("In nn.MultiheadAttention True means blocked, the opposite of SDPA, so invert the mask.", False),
        ("A float mask is added to the scores: -inf blocks, 0/1 only shifts them.", False),
        ("key_padding_mask is (B, S) and hides padded keys; attn_mask is (L, S) or (B*h, L, S).", False),
        (
            "Both SDPA and the course use True = may attend, "
            "while nn.MultiheadAttention uses True = blocked.",
            False,
        ),
        ("Both nn.MultiheadAttention and SDPA use True = may attend.", True),
    ],
    "mask-cross-attention-multimodal": [
        ("Every multimodal model uses cross-attention to connect image and text.", True),
        ("LLaVA uses cross-attention between the image and the text.", True),
        ("所有多模态模型都用交叉注意力连接图像和文本。", True),
        ("In diffusion models the text tokens are the queries over the image.", True),
        ("In Flamingo the text tokens are the queries over the visual tokens.", False),
        ("In MM-DiT text tokens are queries too, since text and image share one joint attention.", False),
        ("Each multimodal model of the Flamingo family uses gated cross-attention.", False),
        ("Every vision-language model connects the image to the text with cross-attention.", True),
        ("In text-to-image diffusion the text tokens are the queries over the image.", True),
        ("LLaVA does not use cross-attention; it concatenates image tokens with the text.", False),
        (
            "In Stable Diffusion the image latents are the queries and the text tokens give keys and values.",
            False,
        ),
        (
            "Flamingo inserts gated cross-attention layers into a frozen LM, text querying visual tokens.",
            False,
        ),
    ],
    "mask-target-attention": [
        ("DIN normalises the attention weights with a softmax like a Transformer.", True),
        ("In DIN the weights sum to 1.", True),
        ("DIN 和 Transformer 一样用 softmax 归一化权重。", True),
        ("DIN drops the softmax so the weights need not sum to 1.", False),
        ("DIN 去掉了 softmax，权重不必和为 1。", False),
        (
            "The paper drops the softmax, although DIN's public demo code "
            "still normalises the scores with a softmax.",
            False,
        ),
        ("DIN 论文去掉了 softmax，但公开代码里仍然用 softmax 归一化分数。", False),
        ("DIN normalises its attention weights with a softmax like a Transformer.", True),
        ("The candidate is the single query over the behaviour sequence.", False),
    ],
    "cx-dynamic-sparse": [
        ("MoBA gives the same result as full attention.", True),
        ("Learned sparse attention is exact, like FlashAttention.", True),
        ("MoBA 和完整注意力结果相同。", True),
        ("稀疏注意力像 FlashAttention 一样是精确的。", True),
        ("Unlike FlashAttention, MoBA is an approximation that can miss a key.", False),
        ("MoBA equals full attention only when every block is kept.", False),
        ("MoBA 是近似，可能漏掉 key，不同于 FlashAttention。", False),
        ("DSA 的 lightning indexer 选出前 k 个 token。", False),
        ("FlashAttention gives exactly the same output as full attention.", False),
        ('The same block selection is shared across heads in a GQA group in NSA.', False),
        ('NSA 在同一个 GQA 组的所有头之间共享相同的块选择。', False),
        ('MoBA keeps the same number of parameters as full attention.', False),
        ('DSA keeps the same MLA architecture; only the indexer is new.', False),
        ('Sparse attention computes the same softmax, but only over the selected keys.', False),
        ('MoBA uses the same gate as a mixture of experts: top-k over blocks.', False),
        ('MoBA 和混合专家用同样的门控：在块上取 top-k。', False),
        ('Learned sparse attention is mathematically equivalent to full attention.', True),
        (
            'DSA is lossless: it picks the top 2048 tokens so the output equals dense attention.',
            True,
        ),
        ('MoBA只读选中的块，所以结果和完整注意力相同。', True),
        ('DSA 是无损的，输出和稠密注意力完全一样。', True),
    ],
    "rnn-seq2seq-bottleneck": [
        ("Bahdanau attention computes one context vector once for the whole sentence.", True),
        ("Bahdanau's decoder uses the same context vector at every step.", True),
        ("Bahdanau 注意力只算一次上下文向量。", True),
        ("Bahdanau 注意力每一步都用同一个上下文向量。", True),
        ("Bahdanau attention recomputes the context at every decoder step.", False),
        ("In seq2seq without attention the decoder uses the same context at every step.", False),
        ("Bahdanau 注意力在每个解码步都重新计算上下文。", False),
        ("没有注意力的 seq2seq 每一步都用同一个上下文向量。", False),
        (
            'Bahdanau attention computes the scores once per decoder step, over all encoder states.',
            False,
        ),
        (
            "In Bahdanau attention the encoder runs once over the source; "
            "the decoder then attends at each step.",
            False,
        ),
        ('With attention the encoder is run once and all its states are kept.', False),
        ('编码器只运行一次，解码器每一步重新计算上下文。', False),
        ('Bahdanau 注意力在每个解码步算一次分数，覆盖所有编码器状态。', False),
        ('Attention gives the decoder a single context vector for the whole sentence.', True),
        ('Bahdanau 注意力给整个句子一个上下文向量，编码完只算一次。', True),
    ],
    "tf-mlm-mask-vs-attention-mask": [
        ("BERT's [MASK] token works like an attention mask.", True),
        ("Attention ignores the [MASK] tokens.", True),
        ("The [MASK] positions are excluded from attention.", True),
        ("BERT 的 [MASK] 和注意力掩码一样。", True),
        ("注意力会忽略 [MASK] 位置。", True),
        ("Every position still attends to the [MASK] token; only padding is masked.", False),
        ("Unlike an attention mask, [MASK] hides the token's identity.", False),
        ("每个位置仍然关注 [MASK]，只有填充被屏蔽。", False),
        ("[MASK] 和注意力掩码不同，它隐藏的是 token 的身份。", False),
        (
            "An attention mask works like setting scores to minus infinity; "
            "the [MASK] token only replaces the input.",
            False,
        ),
        (
            "The attention mask in BERT is the same as a padding mask; "
            "[MASK] is a token, not a mask on attention.",
            False,
        ),
        ("BERT's attention mask is like a padding mask: it skips only [PAD] tokens.", False),
        (
            "In GPT the causal mask works like an attention mask over future keys; "
            "BERT's [MASK] is an input token.",
            False,
        ),
        ('BERT 的注意力掩码相当于填充掩码；[MASK] 只是一个 token。', False),
        ('BERT masks 15% of tokens so that attention skips them.', True),
        ('BERT 遮盖 15% 的 token，让注意力跳过它们。', True),
    ],
    "cx-long-inputs-encoder": [
        ("With sliding chunks every token sees the whole document.", True),
        ("Sliding chunks give each token the entire document as context.", True),
        ("滑动块让每个 token 都看到整篇文档。", True),
        ("With sliding chunks a token sees only the tokens of its own chunk.", False),
        ("Each chunk is encoded on its own, and a hierarchical encoder links the chunks.", False),
        ("滑动块里 token 只能看到自己所在块里的 token。", False),
        ("截断保留前 512 个 token，丢掉其余部分。", False),
        ('The chunk vectors are pooled to represent the whole document.', False),
        (
            'For document classification, average the chunk embeddings to get a whole-document vector.',
            False,
        ),
        ('把各块的 CLS 向量池化得到整篇文档的表示。', False),
        ('Sliding windows with a stride let every token attend to the entire document.', True),
        ('因为窗口重叠，每个 token 都能看到整篇文档的上下文。', True),
    ],
}


@pytest.mark.parametrize(
    ("card", "text", "is_myth"), [(cid, t, m) for cid, items in PROBES.items() for t, m in items]
)
def test_breadth_myths(card: str, text: str, is_myth: bool) -> None:
    assert bool(CARDS[card].check(text).stated) is is_myth, text


@pytest.mark.parametrize("card", sorted(PROBES))
def test_breadth_cards_own_answers_state_no_myth_and_earn_their_points(card: str) -> None:
    c = CARDS[card]
    for lang in ("en", "zh"):
        for text in (c.short[lang], c.spoken[lang]):
            assert not c.check(text).stated, text
        for i, kp in enumerate(c.key_points[lang]):
            r = c.check(kp)
            assert not r.stated and i in r.covered, kp
