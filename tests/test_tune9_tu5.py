"""Tuner tu5 (chapters 13-15: the block, decoding, parallelism): the myth patterns added for the corpus5
writers (terse, verbose, code, blog, infra jargon, thinking aloud) catch paraphrases of each myth written for
this test, in other words than the dev answers, and spare the correction, a negation of the myth and the
condition under which it is right."""

from __future__ import annotations

import pytest

from selfattention.interview.bank import load_cards

CARDS = {c.id: c for c in load_cards()}

PROBES = {
    # residual-connection-only-helps-forward-pass, with-residual-connections-gradient-can-never
    "block-residual": [
        ("Skip connections are purely a forward-pass trick.", True),
        ("The backward pass gets no benefit from the residual.", True),
        ("残差对梯度没有什么帮助。", True),
        ("With the skip connection the gradient is bounded.", True),
        ("Thanks to the identity path the gradient can never blow up.", True),
        ("加了残差，梯度就不可能爆炸。", True),
        ("Without a residual, the gradient has no shortcut to the early layers.", False),
        ("The residual matters mostly for the backward pass: the identity carries the gradient.", False),
        ("没有残差的时候梯度没有捷径，要连乘 L 个雅可比。", False),
        ("Unscaled branches grow the variance, so the gradient can still explode with depth.", False),
        ("The identity keeps the gradient from vanishing on average at initialisation.", False),
        ("残差防止梯度指数级消失，但不缩放的分支仍会让梯度变大。", False),
    ],
    "block-bn-vs-ln": [  # layernorm-normalises-over-batch, masked-batchnorm-as-good-as-layernorm
        ("LayerNorm computes its mean over the whole batch, across the samples.", True),
        ("LayerNorm 把整个批次的样本一起求均值和方差。", True),
        ("Layer norm averages each feature across the batch.", True),
        ("Once the pads are masked, batch norm is equivalent to layer norm.", True),
        ("把 padding 屏蔽掉以后，BatchNorm 跟 LayerNorm 就等价了。", True),
        ("With masking, BN is just as good as LN for sequences.", True),
        ("LayerNorm uses each token's own features, independent of the batch.", False),
        ("BatchNorm takes its statistics across the whole batch.", False),
        ("BatchNorm 用整个批次的样本算统计量，LayerNorm 只看每个 token 自己。", False),
        ("Even with the padding masked, BatchNorm is not equivalent to LayerNorm.", False),
        ("屏蔽 padding 之后，BatchNorm 仍然跟 LayerNorm 不一样，还依赖同批其他序列。", False),
        ("Masking fixes only the padding; the output still depends on future tokens.", False),
    ],
    "block-rmsnorm-placement": [  # rmsnorm-layernorm-without-learned-scale, pre-ln-model-needs-no-norm
        ("RMSNorm is just LayerNorm minus its gain.", True),
        ("It divides by the root mean square and has no learnable gain.", True),
        ("RMSNorm 把可学习的缩放也删掉了。", True),
        ("RMSNorm has zero parameters.", True),
        ("用了 pre-LN 就不需要 final norm 了。", True),
        ("Since every sub-layer input is normalised, no need for a final norm.", True),
        ("RMSNorm drops the mean subtraction and the bias; the learned gain stays.", False),
        ("RMSNorm has no bias, but it keeps a learned scale.", False),
        ("RMSNorm 不减均值、没有偏置，可学习的增益还在。", False),
        ("Pre-LN models add a final norm before the output layer.", False),
        ("pre-LN 的残差流从未归一化，所以输出层前要加 final norm。", False),
        ("If the mean of the token is zero, RMSNorm is the same as LayerNorm.", False),
    ],
    "block-ffn-activations": [  # gelu-s-tanh-form-same-function
        ("The tanh version is an equivalent formula for GELU.", True),
        ("tanh 近似和精确 GELU 等价。", True),
        ("You can swap exact GELU and the tanh one between training and inference.", True),
        ("The tanh form is an approximation of GELU, close but not equal.", False),
        ("tanh 版本只是近似，误差很小但不相等。", False),
        ("A model trained with tanh GELU should be run with tanh GELU.", False),
    ],
    "block-moe-routing": [  # moe-makes-model-cheaper-store, tokens-over-expert-s-capacity-wait
        ("With MoE the memory also shrinks, since only part of it is used.", True),
        ("MoE 只需要存被选中的专家参数。", True),
        ("Tokens beyond capacity get buffered and handled at the next step.", True),
        ("超出容量的 token 会被缓存，下一步重新路由。", True),
        ("MoE cuts compute per token, but every expert must be stored.", False),
        ("MoE 每个 token 计算更少，但所有专家都要存，显存更多。", False),
        ("Tokens over capacity are dropped for that expert; only the residual carries them on.", False),
        ("溢出的 token 被丢弃，只由残差带到下一层。", False),
    ],
    "block-training-memory": [  # training-memory-model-s-16-bit
        ("Training needs that too: 2 bytes per weight.", True),
        ("The gradients don't add to memory, they are computed on the fly.", True),
        ("bf16 权重 14 GB 就足够训练 7B 模型了。", True),
        ("Training with Adam in mixed precision needs about 16 bytes per parameter.", False),
        ("Inference in bf16 takes 14 GB for a 7B model.", False),
        ("训练时梯度、优化器状态和 fp32 主权重都要占显存。", False),
    ],
    "decoding-to-text": [  # each-new-token-re-runs-whole
        ("Every step runs the whole prefix through the model again.", True),
        ("每一步都把整个序列重新算一遍。", True),
        ("With a KV cache only the new token is computed.", False),
        ("Without a cache, every step recomputes the whole prefix.", False),
    ],
    "decoding-temperature": [  # temperature-changes-which-token-most-likely
        ("A higher temperature can switch which token is the most likely one.", True),
        ("温度变了，概率最大的 token 也会换。", True),
        ("Temperature changes the spread but not which token is the most likely.", False),
        ("温度不会改变概率最大的 token，只改变分布的尖锐程度。", False),
        ("With a high temperature the sampled token often differs from the argmax.", False),
    ],
    "decoding-rules": [  # top-p-keeps-fixed-number-tokens
        ("Top-p always keeps a fixed number of candidates.", True),
        ("top-p 截断到固定大小的集合。", True),
        ("Top-p keeps a set whose size adapts to the model's confidence.", False),
        ("Top-k keeps a fixed number of tokens; top-p does not.", False),
        ("top-p 的候选数量随分布变化，不固定。", False),
    ],
    "decoding-speculative": [  # speculative-decoding-approximates-target-model
        ("You get approximately the target model's distribution.", True),
        ("投机解码是用一点质量换速度。", True),
        ("The draft model's errors sometimes slip through.", True),
        ("The output is distributed exactly as the target model's samples.", False),
        ("投机解码不会让分布有偏差，和目标模型完全一致。", False),
        ("The draft proposes tokens and the target verifies them in one pass.", False),
    ],
    "decoding-batching": [  # chunked-prefill-approximation-that-trades-accuracy
        ("Chunked prefill costs a little accuracy.", True),
        ("分块 prefill 会让质量下降一点。", True),
        ("Chunked prefill gives the same logits as one prefill, in exact arithmetic.", False),
        ("分块 prefill 不损失精度，只是调度不同。", False),
    ],
    "decoding-budget": [  # batching-more-sequences-makes-each-token
        ("Per-token latency grows linearly with the batch.", True),
        ("batch 变大，每步时间按比例增加。", True),
        ("While decode is memory-bound, per-step time barely grows with the batch.", False),
        ("只有在算力成为瓶颈以后，每步时间才随 batch 线性增长。", False),
    ],
    "parallel-split-attention": [  # context-parallelism-gives-every-device-full
        ("With context parallelism every device holds the full sequence's activations.", True),
        ("上下文并行时每张卡都保存全部 token 的激活。", True),
        ("With context parallelism each device keeps n/P tokens of queries and activations.", False),
        ("上下文并行每张卡只存 n/P 个 token 的激活。", False),
    ],
    "parallel-kinds": [  # data-parallelism-saves-memory-per-device
        ("Data parallelism lowers memory per GPU.", True),
        ("数据并行能让每张卡显存减少。", True),
        ("Plain data parallelism replicates the whole model state on every GPU.", False),
        ("数据并行配合 ZeRO 才能降低每张卡的显存。", False),
    ],
    "parallel-head-tp": [  # tensor-parallelism-attention-needs-all-gather
        ("Each rank must all-gather the full Q, K and V before attention.", True),
        ("每张卡要先 gather 完整的 QKV 再算注意力。", True),
        ("No all-gather of Q, K, V is needed: each rank computes its own heads.", False),
        ("张量并行不需要收集完整的 Q、K、V，输入本来就是复制的。", False),
    ],
    "parallel-ring-backward": [  # autograd-can-simply-differentiate-through-sends
        ("Autograd handles the send/recv calls for you.", True),
        ("反向直接交给 autograd 就行。", True),
        ("反向不需要手写。", True),
        ("Autograd has no formula for point-to-point sends, so the backward ring is written by hand.", False),
        ("autograd 不能穿过 send/recv，反向的环要自己写。", False),
    ],
    "parallel-ulysses": [  # ulysses-works-for-any-number-heads
        ("The number of GPUs can be arbitrary with Ulysses.", True),
        ("Ulysses 的卡数没有上限。", True),
        ("P can be larger than the head count.", True),
        ("P cannot exceed the number of heads.", False),
        ("卡数不能超过头数，均分时 P 要整除头数。", False),
    ],
    "parallel-bytes": [  # ring-attention-sends-whole-sequence-every
        ("Each device gets the full K and V at once.", True),
        ("每张卡一次性收到完整的 K 和 V。", True),
        ("Each device receives the K/V blocks one step at a time, never all at once.", False),
        ("每张卡每步只收一个 n/P 的 K/V 块。", False),
    ],
}


@pytest.mark.parametrize(
    ("card", "text", "is_myth"), [(cid, t, m) for cid, items in PROBES.items() for t, m in items]
)
def test_tu5_myths(card: str, text: str, is_myth: bool) -> None:
    assert bool(CARDS[card].check(text).stated) is is_myth, text
