# ruff: noqa: E501
"""Tuner tu2 (chapters 04 multi-head, 05 masking): myth patterns added for dev corpus5 misses.

Per myth: paraphrases of my own that must be flagged, and correct near-misses (the correction, a negation,
a condition) that must not be."""

from __future__ import annotations

import pytest

from selfattention.interview import similar
from selfattention.interview.bank import load_cards


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in load_cards()}


def _stated(card, text: str) -> set[str]:
    r = card.check(text)
    return {card.tells[j].myth for j in r.stated}


GAP = pytest.mark.xfail(strict=True, reason="paraphrase not caught yet (a known gap)")
# caught by the similarity fallback only (session 14): a gap while it is switched off (SELFATTENTION_SIMILAR=0)
SIMILAR_ONLY = () if similar.enabled() else GAP

FLAGGED = [
    ("mh-why-multi-head", "more-heads-means-more-computation", "Going from 8 to 16 heads means 2x compute."),
    ("mh-why-multi-head", "more-heads-means-more-computation", "Every extra head adds its own matmuls."),
    ("mh-why-multi-head", "more-heads-means-more-computation", "头数翻倍，每多一个头就多一次矩阵乘法计算。"),
    ("mh-why-multi-head", "each-head-sees-different-slice-input", "把 embedding 分成 h 段，每段给一个头。"),
    ("mh-why-multi-head", "each-head-sees-different-slice-input", "每个头只处理输入的一部分。"),
    ("mh-why-multi-head", "each-head-sees-different-slice-input", "输入被切成 h 块特征。"),
    ("mh-head-dim", "d-model-must-be-divisible-h", "d_model % h must be 0."),
    ("mh-head-dim", "d-model-must-be-divisible-h", "d_model 除以 h 的余数一定要等于 0。"),
    ("mh-output-projection", "w-o-just-there-restore-shape", "W_O brings the output shape back to d_model."),
    ("mh-output-projection", "w-o-just-there-restore-shape", "W_O 的作用就是把形状还原。"),
    ("mh-output-projection", "w-o-just-there-restore-shape", "The output projection's only thing is fixing the size."),
    ("mh-mqa-gqa", "mqa-reduces-attention-flops-factor-h", "MQA slashes the attention FLOPs."),
    ("mh-mqa-gqa", "mqa-reduces-attention-flops-factor-h", "GQA 的计算量减少为原来的 g/h。"),
    ("mh-mqa-gqa", "mqa-reduces-attention-flops-factor-h", "With one KV head the attention FLOPs are cut by h."),
    ("mh-mqa-cost", "mqa-makes-attention-linear-in-n", "With MQA, attention is linear in n."),
    ("mh-mqa-cost", "mqa-makes-attention-linear-in-n", "共享 K、V 之后注意力对 n 是线性的。"),
    ("mh-mqa-cost", "mqa-makes-attention-linear-in-n", "MQA 之后就不再是 n 平方了。"),
    ("mh-split-heads", "if-shapes-right-reshape-right", "只要形状对，就没问题。"),
    ("mh-split-heads", "if-shapes-right-reshape-right", "其实不需要 transpose，view 一下就好。"),
    ("mh-split-heads", "if-shapes-right-reshape-right", "Whether you transpose or not doesn't matter."),
    pytest.param("mh-split-heads", "if-shapes-right-reshape-right", "A reshape keeps all the elements, so it is fine.",
                 marks=GAP),
    pytest.param("mh-differential-attention", "differential-attention-still-gives-probability-distribution",
     "Each row still sums to 1."),
    pytest.param("mh-differential-attention", "differential-attention-still-gives-probability-distribution",
     "相减之后每行仍然和为 1。"),
    ("mh-differential-attention", "differential-attention-still-gives-probability-distribution",
     "The result is still a distribution over keys."),
    # "are zeroed" and "are zero" share their units: the action after the softmax is not told from the result
    pytest.param("mask-masked-attention", "mask-multiplies-attention-weights-0-after",
                 "After the softmax, the future weights are zeroed.", marks=GAP),
    ("mask-masked-attention", "mask-multiplies-attention-weights-0-after", "softmax 之后把未来位置置 0。"),
    ("mask-masked-attention", "mask-multiplies-attention-weights-0-after", "做完 softmax 后，未来的位置清零。"),
    ("mask-cross-attention", "cross-attention-needs-causal-mask-because",
     "The cross-attention is causally masked too."),
    ("mask-cross-attention", "cross-attention-needs-causal-mask-because", "交叉注意力也要传 is_causal=True。"),
    ("mask-cross-attention", "cross-attention-needs-causal-mask-because",
     "Cross-attention takes the source padding mask plus a causal mask."),
    ("mask-cross-attention", "cross-attention-needs-causal-mask-because",
     "We set is_causal=True for it since it lives in the decoder."),
    pytest.param("mask-cross-attention", "each-decoder-layer-attends-output-matching", "decoder 第 3 层读 encoder 第 3 层的输出。", marks=SIMILAR_ONLY),
    ("mask-cross-attention", "each-decoder-layer-attends-output-matching", "编码器和解码器的层一一对应。"),
    ("mask-cross-attention", "each-decoder-layer-attends-output-matching",
     "每层 decoder 读对应那一层 encoder 的输出。"),
    ("mask-padding-variable-length", "padding-changes-outputs-real-tokens-little",
     "Some padding leaks into the real outputs even with the mask."),
    ("mask-padding-variable-length", "padding-changes-outputs-real-tokens-little",
     "The outputs come out slightly different with padding."),
    ("mask-padding-variable-length", "padding-changes-outputs-real-tokens-little", "padding 还是会影响真实 token 的输出。"),
    ("mask-fully-masked-row", "using-1e9-instead-inf-solves-problem",
     "Use -1e9 rather than -inf and it works."),
    ("mask-fully-masked-row", "using-1e9-instead-inf-solves-problem", "用 finfo 的最小值代替 -inf 就行。"),
    ("mask-fully-masked-row", "using-1e9-instead-inf-solves-problem", "全 mask 的行这样就正常了。"),
    ("mask-kv-cache", "kv-cache-approximation-that-trades-accuracy", "The error is bigger than float rounding."),
    ("mask-kv-cache", "kv-cache-approximation-that-trades-accuracy", "差别比浮点舍入要大。"),
    ("mask-kv-cache", "queries-cached-too", "The past queries are reused at each step."),
    ("mask-kv-cache", "queries-cached-too", "过去的 query 也要存起来。"),
    ("mask-kv-cache", "queries-cached-too", "We keep a q_cache next to the K and V caches."),
    ("mask-kv-alignment", "causal-true-always-does-right-thing", "is_causal=True handles the cache correctly."),
    ("mask-kv-alignment", "causal-true-always-does-right-thing", "is_causal 自动就是右下对齐。"),
    ("mask-kv-alignment", "causal-true-always-does-right-thing", "带 cache 的 prefill 直接用就对。"),
    ("mask-kv-alignment", "causal-true-always-does-right-thing", "SDPA aligns the mask correctly for you."),
    ("mask-torch-mha-masks", "in-nn-multiheadattention-boolean-true-means",
     "In MHA, True marks the positions to keep."),
    ("mask-torch-mha-masks", "in-nn-multiheadattention-boolean-true-means", "MHA 的 mask 跟 SDPA 一样。"),
    ("mask-torch-mha-masks", "in-nn-multiheadattention-boolean-true-means",
     "For nn.MultiheadAttention, True lets a position be attended."),
    ("mask-torch-mha-masks", "float-attn-mask-0s-1s-masks", "A float attn_mask acts as a multiplicative gate."),
    ("mask-torch-mha-masks", "float-attn-mask-0s-1s-masks", "0 blocks the pair and 1 lets it through."),
    ("mask-torch-mha-masks", "float-attn-mask-0s-1s-masks", "浮点 mask 用 0 和 1 就可以。"),
    ("mask-torch-mha-masks", "float-attn-mask-0s-1s-masks", "0 的位置被屏蔽。"),
    ("mask-cross-attention-multimodal", "every-vision-language-model-connects-image",
     "Every VLM uses cross-attention to read the image."),
    ("mask-cross-attention-multimodal", "every-vision-language-model-connects-image",
     "LLaVA adds cross-attention layers."),
    ("mask-cross-attention-multimodal", "every-vision-language-model-connects-image", "任何多模态模型都有交叉注意力。"),
    ("mask-cross-attention-multimodal", "in-text-image-diffusion-text-tokens",
     "In Stable Diffusion the prompt embeddings are the queries."),
    ("mask-cross-attention-multimodal", "in-text-image-diffusion-text-tokens", "扩散模型里文本 token 做 query。"),
    ("mask-cross-attention-multimodal", "in-text-image-diffusion-text-tokens",
     "In the diffusion UNet, text tokens act as queries."),
    ("mask-target-attention", "din-normalises-its-attention-weights-with",
     "DIN's activation unit scores then go through a softmax."),
    ("mask-target-attention", "din-normalises-its-attention-weights-with", "激活单元的输出最后接 softmax。"),
    ("mask-target-attention", "din-normalises-its-attention-weights-with", "DIN 的分数再做 softmax。"),
]

NOT_FLAGGED = [
    ("mh-why-multi-head", "With d_k = d_model/h, twice the heads costs the same compute."),
    ("mh-why-multi-head", "Only the softmax work grows with extra heads, not the matmuls."),
    ("mh-why-multi-head", "每个头都看到完整的输入，只是投影不同。"),
    ("mh-why-multi-head", "投影之后把 Q 切成 h 段，每个头拿一段。"),
    ("mh-head-dim", "d_model % h only has to be 0 when d_k is defined as d_model/h."),
    ("mh-head-dim", "只有当 d_k 取 d_model/h 时，d_model % h 才必须为 0。"),
    ("mh-output-projection", "Concatenation already brings the shape back to d_model; W_O mixes the heads."),
    ("mh-output-projection", "W_O 不只是还原形状，它把各个头混合起来。"),
    ("mh-mqa-gqa", "MQA does not reduce the attention FLOPs; it shrinks the cache."),
    ("mh-mqa-gqa", "GQA reduces the K and V projection FLOPs only."),
    ("mh-mqa-cost", "MQA leaves attention quadratic in n; only the cache memory is linear in n."),
    ("mh-mqa-cost", "MQA 之后仍然是 n 平方。"),
    ("mh-split-heads", "Without the transpose the data does not line up."),
    ("mh-split-heads", "你必须 transpose，否则内容是错的。"),
    ("mh-split-heads", "A reshape keeps all the elements but in the wrong order."),
    ("mh-differential-attention", "Each row sums to 1 − λ, no longer 1."),
    ("mh-differential-attention", "It is no longer a distribution over keys."),
    ("mask-masked-attention", "Set the future scores to -inf before the softmax."),
    ("mask-masked-attention", "After the softmax, the weights of future positions are exactly zero."),
    ("mask-masked-attention", "softmax 之前把未来位置的分数置为负无穷。"),
    ("mask-cross-attention", "Cross-attention needs no causal mask; only the source padding mask."),
    ("mask-cross-attention", "交叉注意力不需要 is_causal=True，只要 padding mask。"),
    ("mask-cross-attention", "The decoder self-attention is causal because it sits in the decoder."),
    ("mask-cross-attention", "每层 decoder 读的都是 encoder 最后一层的输出。"),
    ("mask-padding-variable-length", "With a correct key padding mask no padding leaks into the outputs."),
    ("mask-padding-variable-length", "The outputs differ only by a tiny floating-point rounding."),
    ("mask-padding-variable-length", "只要 mask 正确，padding 不会影响真实 token 的输出。"),
    ("mask-fully-masked-row", "-1e9 rather than -inf removes the NaN, but the row becomes uniform."),
    ("mask-fully-masked-row", "全 mask 的行不会 NaN，但变成均匀平均。"),
    ("mask-kv-cache", "The error is no bigger than float rounding."),
    ("mask-kv-cache", "Past queries are never needed again."),
    ("mask-kv-cache", "过去的 query 不需要缓存。"),
    ("mask-kv-alignment", "is_causal=True is wrong with a cache: it is top-left aligned."),
    ("mask-kv-alignment", "is_causal=True 不是右下对齐，是左上对齐。"),
    ("mask-kv-alignment", "Build your own mask aligned to the bottom-right corner."),
    ("mask-torch-mha-masks", "In MHA, True marks positions to ignore, the opposite of SDPA."),
    ("mask-torch-mha-masks", "A float mask is added to the scores, so 0 and 1 only shift them."),
    ("mask-torch-mha-masks", "bool mask 里 False 的位置被屏蔽。"),
    ("mask-cross-attention-multimodal", "LLaVA uses no cross-attention; it concatenates image tokens."),
    ("mask-cross-attention-multimodal", "In Stable Diffusion the image latents are the queries; the text gives keys and values."),
    ("mask-cross-attention-multimodal", "In Flamingo text tokens act as queries over visual tokens."),
    ("mask-target-attention", "DIN's activation unit drops the softmax, so the weights need not sum to 1."),
    ("mask-target-attention", "DIN 的激活单元不做 softmax。"),
]


@pytest.mark.parametrize(("card_id", "myth", "text"), FLAGGED)
def test_flagged(cards, card_id, myth, text):
    assert myth in _stated(cards[card_id], text), text


@pytest.mark.parametrize(("card_id", "text"), NOT_FLAGGED)
def test_not_flagged(cards, card_id, text):
    assert not _stated(cards[card_id], text), (text, cards[card_id].check(text).stated)
