"""Review round 8 (reviews8/ch10-12, ch13-14, ch15): the checker findings at pattern level (myths.yaml).

Each row is a reviewer sentence on the card it was typed for. FLAGGED must state a myth, NOT_FLAGGED must not."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in load_cards()}


FLAGGED = [
    # the myths of the patterns changed below are still caught
    ("tf-moe", "Mixtral 的计算量和 47B 的稠密模型差不多。"),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的 token 其他位置看不到。"),
    ("tf-mlm-mask-vs-attention-mask", "Other positions cannot see the masked token."),
    ("tf-mlm-mask-vs-attention-mask", "其他位置都看不到被 mask 的 token。"),
    ("tf-pre-post-ln", "LayerNorm placement is cosmetic."),
    # ch13-14 M1: the registry sentence after "I believe (that)" and "Probably"
    ("decoding-temperature", "Temperature changes which token is most likely."),
    ("decoding-temperature", "I think temperature changes which token is most likely."),
    ("decoding-temperature", "I believe that temperature changes which token is most likely."),
    ("decoding-temperature", "I believe temperature changes which token is most likely."),
    ("decoding-temperature", "I believe that a higher temperature changes which token is most likely."),
    ("decoding-temperature", "Probably temperature changes which token is most likely."),
    ("decoding-temperature", "Temperature probably changes which token is most likely."),
    ("decoding-temperature", "At high temperature, other tokens become the most likely."),
    ("block-training-memory", "Training memory is mostly the weights."),
    ("decoding-speculative", "Speculative decoding approximates the target model."),
    ("decoding-speculative", "Its output only approximates the target model."),
    ("block-rmsnorm-placement", "RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "I think RMSNorm drops the gain."),
    ("decoding-budget", "Doubling the batch doubles the step time."),
    ("decoding-budget", "I think doubling the batch doubles the step time."),
    ("decoding-budget", "With a batch of 32, doubling the batch doubles the step time."),
    # ch15 M1: the myth without ZeRO is still the myth
    ("parallel-kinds", "Data parallelism saves memory per device."),
    ("parallel-kinds", "I think data parallelism saves memory per device."),
    ("parallel-kinds", "数据并行能节省每张卡的显存。"),
    ("parallel-kinds", "Even without ZeRO or FSDP, data parallelism still saves memory per device."),
    ("parallel-kinds", "Even without ZeRO, data parallelism saves memory per device."),
    ("parallel-kinds", "即使没有 ZeRO，数据并行也能节省每张卡的显存。"),
    ("parallel-kinds", "Data parallelism reduces the memory per GPU."),
    ("parallel-kinds", "数据并行可以降低每张卡的显存。"),
]

NOT_FLAGGED = [
    # ch10-12 M1 (fixed in language.py: 'usually X, but Y')
    ("scale-flash-backward", "Usually recomputation slows training down, but here it speeds it up, because the extra "
     "FLOPs are cheap and the avoided HBM traffic is expensive."),
    ("scale-flash-backward", "Normally recomputation makes training slower, but FlashAttention's recomputation makes "
     "it faster."),
    ("scale-flash-backward", "通常重算会让训练变慢，但 FlashAttention 的重算反而更快。"),
    # ch10-12 M2
    ("tf-moe", "MoE 每个 token 的计算量和 13B 的稠密模型差不多。"),
    ("tf-moe", "Mixtral 每个 token 的计算量只相当于 13B 的稠密模型。"),
    ("tf-moe", "每个 token 的算力开销和一个 13B 的稠密模型一样。"),
    ("tf-moe", "Mixtral 的计算量和 13B 稠密模型相当，显存却和 47B 稠密模型一样。"),
    # ch10-12 M3
    ("tf-mlm-mask-vs-attention-mask", "At a masked position the model cannot see the original token."),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的位置看不到原来的词，但其他位置仍然能注意到它。"),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的 token 看不到自己原来的词，但其他位置仍然能注意到它。"),
    ("tf-mlm-mask-vs-attention-mask", "[MASK] 只是替换输入，被 mask 的 token 原来是什么模型看不到；注意力掩码是把分数去掉。"),
    ("tf-mlm-mask-vs-attention-mask", "A masked token can't see its own identity, yet the encoder stays bidirectional."),
    # ch10-12 L1
    ("tf-pre-post-ln", "The placement is far from cosmetic."),
    ("tf-pre-post-ln", "LayerNorm placement is far from cosmetic: the two compute different functions."),
    # ch13-14 M2 (fixed in language.py: 'I would say' is a hedge) -- the correction stays clean
    ("decoding-temperature", "I would say temperature does not change which token is most likely."),
    # ch13-14 M1: the framing stays clean without the 'belief' exclusion
    ("decoding-temperature", "A common belief is that temperature changes which token is most likely, but it does "
     "not."),
    ("decoding-temperature", "Temperature changes the probability of each token but not which token is most likely."),
    ("decoding-temperature", "Temperature changes the probability of the most likely token."),
    # ch13-14 M3
    ("block-training-memory", "The 16-bit weights are just 2 of the 16 bytes of memory per parameter."),
    ("block-training-memory", "The weights are just 2 of the 16 bytes per parameter in training memory."),
    ("block-training-memory", "In training, the 16-bit weights are only 2 of about 16 bytes of memory per parameter."),
    ("block-training-memory", "权重只占每个参数 16 字节显存中的 2 字节。"),
    ("block-training-memory", "训练时权重只是 16 字节显存里的 2 字节。"),
    # ch13-14 M4
    ("decoding-temperature", "At high temperature, other tokens become almost as likely as the top one, but the "
     "argmax does not change."),
    ("decoding-temperature", "With a high temperature, the other tokens become nearly as probable as the top token."),
    ("decoding-temperature", "At high temperature, the other tokens become closer to the top token, but the top "
     "token stays the same."),
    ("decoding-temperature", "温度高时其他 token 变成和最大的那个差不多可能，但最大的那个不变。"),
    # ch13-14 M5
    ("decoding-speculative", "The approximation model samples k tokens and the target model verifies them in one "
     "pass."),
    ("decoding-speculative", "It uses a cheap approximation of the target to propose tokens, then the target "
     "verifies them."),
    # ch13-14 M6
    ("block-rmsnorm-placement", "Apart from the gain, RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "Except for the gain, RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "Other than the gain, RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "Besides the gain, RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "Other than gamma, RMSNorm has no learned parameters."),
    ("block-rmsnorm-placement", "Aside from gamma, RMSNorm has no learnable parameters."),
    ("block-rmsnorm-placement", "RMSNorm keeps the gain and drops only the mean and the bias."),
    ("block-rmsnorm-placement", "I think RMSNorm keeps the gain and drops only the mean and the bias."),
    # ch13-14 M7
    ("decoding-budget", "With a large enough batch, doubling the batch doubles the step time."),
    ("decoding-budget", "With a big enough batch, doubling it doubles the step time."),
    ("decoding-budget", "With enough sequences in the batch, doubling them doubles the step time."),
    ("decoding-budget", "When the batch is very large, the step time doubles when the batch doubles."),
    ("decoding-budget", "At high batch sizes, doubling the batch doubles the step time."),
    # ch15 M1
    ("parallel-kinds", "If you use ZeRO-3, data parallelism saves memory per device."),
    ("parallel-kinds", "Combined with ZeRO, data parallelism saves memory per device."),
    ("parallel-kinds", "When combined with ZeRO-3, data parallelism reduces memory per device."),
    ("parallel-kinds", "Using FSDP, data parallelism also cuts the memory per GPU."),
    ("parallel-kinds", "Thanks to ZeRO, data parallelism saves memory per device."),
    ("parallel-kinds", "When you add ZeRO, data parallelism saves memory per device."),
    ("parallel-kinds", "如果用 FSDP，数据并行也能减少每张卡的显存。"),
    ("parallel-kinds", "如果使用 ZeRO-3，数据并行能节省每张卡的显存。"),
    ("parallel-kinds", "有了 ZeRO，数据并行也能节省每张卡的显存。"),
    ("parallel-kinds", "借助 FSDP，数据并行可以降低每张卡的显存。"),
    ("parallel-kinds", "With ZeRO, data parallelism saves memory per device."),
]


@pytest.mark.parametrize("card, text", FLAGGED)
def test_myth_is_flagged(cards, card, text):
    assert cards[card].check(text).stated, text


@pytest.mark.parametrize("card, text", NOT_FLAGGED)
def test_correct_statement_is_not_flagged(cards, card, text):
    r = cards[card].check(text)
    assert not r.stated, r.stated
