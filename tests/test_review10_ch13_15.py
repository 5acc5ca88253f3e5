"""Review round 9, chapters 13-15 (reviews/2026-12-02/s7-r9-ch13-15.md), checked again after the ch06-15 tuning
was withdrawn.

NOT_FLAGGED:
- every correct sentence the review quotes (N1-N14, P1, L1, its "verified correct" list, and the round-8 lows
  it carries as L2: 13-14 L4 and 15 L3), whether or not it is flagged now: guards for the next tuning;
- near-miss sentences (EN and 中文) for each pattern this round changed, plain correct statements a candidate
  would type close to the myth.
FLAGGED: myth forms near each fix that must still be caught.
OPEN: correct sentences still flagged for a reason outside myths.yaml / synonyms.yaml."""

from __future__ import annotations

from checker_support import checker_tests

_RESIDUAL = ("block-residual", "block-what-else")
_NORM = ("block-bn-vs-ln", "block-what-else")

# -- the review's sentences ------------------------------------------------------------------------------------
REVIEW = [
    # N1 residual-connection-only-helps-forward-pass (withdrawn lines)
    *[(c, s) for c in _RESIDUAL for s in (
        "The residual's role in the forward pass is to preserve the input; in the backward pass it carries the gradient.",
        "In the forward pass, the residual's job is to keep the input signal.",
        "残差连接在前向传播中的作用是保留输入信息。",
        "The gradient still passes through each sub-layer, but the identity adds a direct path.",
        "The gradient still goes through every layer, but the identity path gives it a shortcut.",
        "The gradient still flows through every branch as well as through the identity path.",
        "Gradient clipping does not help with vanishing gradients; residuals do.",
    )],
    # N2 with-residual-connections-gradient-can-never
    ("block-residual", "Residual connections do not keep the gradient from exploding."),
    ("block-residual", "Residual connections don't make exploding gradients impossible."),
    ("block-residual", "残差连接不会阻止梯度爆炸。"),
    ("block-residual", "Gradient clipping bounds the gradient, the residual does not."),
    ("block-residual", "Clipping keeps the gradient bounded."),
    ("block-residual", "梯度裁剪让梯度有界。"),
    # N3 layernorm-normalises-over-batch
    *[(c, s) for c in _NORM for s in (
        "Statistics across the whole batch make one sequence's output depend on the other samples.",
        "Batch statistics computed across the whole batch make outputs depend on other samples.",
        "LayerNorm gives the same result over any batch.",
        "LayerNorm works the same over any batch size.",
        "LayerNorm 对所有 batch 大小都给出同样的结果。",
    )],
    # N4 masked-batchnorm-as-good-as-layernorm
    ("block-bn-vs-ln", "BatchNorm and LayerNorm use the same formula, over different axes."),
    ("block-bn-vs-ln", "BatchNorm and LayerNorm compute the same statistics, mean and variance, over different axes."),
    ("block-bn-vs-ln", "BatchNorm and LayerNorm have the same learned scale and shift."),
    ("block-bn-vs-ln", "BatchNorm 和 LayerNorm 的公式一样，只是归一化的维度不同。"),
    ("block-bn-vs-ln", "BatchNorm 和 LayerNorm 都有一样的可学习缩放和偏移。"),
    # N5 gelu-s-tanh-form-same-function
    ("block-ffn-activations", "训练和推理之间互换 GELU 形式会带来小误差。"),
    ("block-ffn-activations", "If you swap the form between training and inference, the outputs shift slightly."),
    # N6 moe-makes-model-cheaper-store
    ("block-moe-routing", "The router only keeps the selected experts' outputs."),
    ("block-moe-routing", "The router only keeps the top-k selected experts per token."),
    ("block-moe-routing", "Each token only keeps the outputs of its chosen experts."),
    ("block-moe-routing", "Expert parallelism also reduces the memory per device."),
    # N7 tokens-over-expert-s-capacity-wait
    ("block-moe-routing", "The capacity factor sets each expert's buffer size."),
    ("block-moe-routing", "The expert capacity is a fixed buffer per expert; overflowing tokens are dropped."),
    ("block-moe-routing", "容量因子决定每个专家的缓存大小。"),
    # N8 training-memory-model-s-16-bit
    ("block-training-memory", "The trainable parameters also need an fp32 master copy."),
    ("block-training-memory", "Trainable parameters also need an fp32 master copy in mixed precision."),
    # N9 each-new-token-re-runs-whole (the 中文 one is older: `@each + 整个 + 重新 | 一遍`)
    ("decoding-to-text", "Each step runs a forward pass through the full model for one token."),
    ("decoding-to-text", "Every decode step passes the new token through the whole model."),
    ("decoding-to-text", "Each step processes one token through the entire model."),
    ("decoding-to-text", "每一步都要把新 token 过一遍整个模型。"),
    # N10 temperature-changes-which-token-most-likely
    ("decoding-temperature", "A different temperature keeps the same top token."),
    ("decoding-temperature", "温度改变时，排第一的 token 不变。"),
    ("decoding-temperature", "Temperature changes the distribution, but the top token stays the same."),
    ("decoding-temperature", "换了温度，最可能的 token 也不会变。"),
    # N11 top-p-keeps-fixed-number-tokens
    ("decoding-rules", "Top-p's set size can range from one token to the whole vocabulary."),
    # N12 speculative-decoding-approximates-target-model
    ("decoding-speculative", "The accept/reject rule removes any bias from the distribution."),
    ("decoding-speculative", "The residual distribution corrects the bias of the draft."),
    ("decoding-speculative", "Rejection sampling removes the bias of the draft distribution."),
    ("decoding-speculative", "拒绝后从 max(0, p − q) 重采样，纠正了草稿分布的偏差。"),
    # N13 batching-more-sequences-makes-each-token
    (
        "decoding-budget",
        "While memory-bound, throughput scales linearly with the batch and per-token latency stays almost flat.",
    ),
    ("decoding-budget", "Per-token latency grows much less than linearly with the batch while decode is memory-bound."),
    ("decoding-budget", "吞吐量随 batch 线性增长而每个 token 的延迟基本不变。"),
    ("decoding-budget", "Batch 32 gives nearly 32 times the throughput."),
    ("decoding-budget", "A batch of 32 gives about 32 times the tokens per second at almost the same step time."),
    # N14 ring-attention-sends-whole-sequence-every
    ("parallel-bytes", "By the end, every device has received the full sequence's K and V, but never at once."),
    ("parallel-bytes", "Over the ring, every device receives the whole sequence's K and V, but never at once."),
    ("parallel-bytes", "Eventually each device gets the whole sequence's keys and values, one piece at a time."),
    # P1 (older false alarms)
    *[(c, "残差连接不仅对前向有用，对反向传播更重要。") for c in _RESIDUAL],
    ("decoding-rules", "Top-p with a fixed p keeps a different number of tokens at each step."),
    ("block-ffn-activations", "训练和推理要用同一种 GELU（tanh 或精确）。"),
    ("parallel-head-tp", "Megatron avoids the all-gather of Q, K and V; each rank then attends with its own heads."),
    # L1 (rare false alarms of the withdrawn lines)
    ("block-rmsnorm-placement", "RMSNorm 里计算 RMS 的部分参数都没有，只有增益是学的。"),
    ("block-ffn-activations", "For a new model, either form is fine."),
    ("block-training-memory", "梯度累积不会占用额外显存。"),
    ("block-moe-routing", "Quantizing the experts also makes storage smaller."),
    ("parallel-ulysses", "All-gather context parallelism works for any number of devices."),
    ("block-residual", "With gradient clipping, the gradient can never blow up."),
    # L2: round-8 lows still open (13-14 L4, 15 L3); the semicolon one is in OPEN
    ("block-bn-vs-ln", "PowerNorm 是 BatchNorm 的变体，在机器翻译上和 LayerNorm 一样好。"),
    ("decoding-batching", "Approximate methods such as sparse attention trade accuracy for speed; chunked prefill is exact."),
    ("parallel-bytes", "With a ring, each device receives the whole sequence over P-1 steps, one shard at a time."),
    ("parallel-split-attention", "With a ring, each device receives the whole sequence over P-1 steps, one shard at a time."),
    ("parallel-head-tp", "In Llama 3's context parallelism, an all-gather of K and V is needed, not in tensor parallelism."),
    (
        "parallel-kinds",
        "With a fixed global batch, data parallelism reduces activation memory per device but not the model state.",
    ),
    # "verified correct" in the review (pass now; guards)
    ("decoding-temperature", "Temperature does not change which token is most likely."),
    ("decoding-rules", "Top-k keeps a fixed number of tokens; top-p keeps a variable number."),
    ("block-moe-routing", "Only the top-k selected experts are computed, but all experts' weights must be stored."),
    ("block-training-memory", "2 bytes per parameter is enough for inference weights, not for training."),
    ("parallel-kinds", "用 ZeRO 时数据并行能节省显存。"),
    ("parallel-ulysses", "Ring attention works for any number of devices, while Ulysses is limited by the heads."),
    ("parallel-ulysses", "If the K/V heads are replicated, P can be larger than the number of K/V heads."),
    ("parallel-split-attention", "Each device holds n/P tokens, not the full sequence."),
    ("parallel-ring-backward", "Autograd does not track send and recv."),
    ("parallel-ring-backward", "反向不能直接交给 autograd。"),
    ("decoding-batching", "分块 prefill 能降低其他请求的延迟而不影响输出。"),
    ("decoding-batching", "Chunked prefill lowers latency and does not affect the output."),
    ("parallel-ulysses", "P cannot exceed the number of heads."),
    ("parallel-ulysses", "卡数不可以超过头数。"),
]

# -- near misses of the patterns changed in this round ---------------------------------------------------------
NEAR = [
    # synonyms.yaml @notonly (不仅 / 不仅仅 are one unit: their 仅 is not "only")
    *[(c, s) for c in _RESIDUAL for s in (
        "残差连接不仅仅帮助前向传播，更重要的是让梯度直接回传。",
        "残差不仅让前向保留输入，还给梯度一条捷径。",
        "残差连接的作用不仅在前向，也在反向。",
        "残差连接不仅仅是为了前向传播。",
        "残差连接不仅对前向传播有帮助，也让反向的梯度多了一条恒等路径。",
        "残差连接不只对前向有用，对反向也有用。",
    )],
    # top-p-keeps-fixed-number-tokens: `top p | nucleus + fix + number` spares a varying number
    ("decoding-rules", "With a fixed p, top-p keeps a variable number of tokens."),
    ("decoding-rules", "Top-p fixes the probability mass, so the number of tokens it keeps varies from step to step."),
    ("decoding-rules", "Nucleus sampling with a fixed threshold keeps a different number of tokens on each step."),
    ("decoding-rules", "For a fixed p, the number of tokens in the nucleus adapts to the distribution."),
    ("decoding-rules", "Top-p fixes the mass p, not the number of tokens."),
    ("decoding-rules", "Top-k keeps a fixed number of tokens, while top-p keeps a number that varies."),
    # top-p: the new "same number" line
    ("decoding-rules", "Top-p does not keep the same number of tokens at every step."),
    ("decoding-rules", "Unlike top-k, nucleus sampling does not always keep the same number of tokens."),
    ("decoding-rules", "Top-p can keep the same number of tokens on two steps if the distributions happen to match."),
    ("decoding-rules", "Nucleus sampling keeps the same probability mass, not the same number of tokens."),
    ("decoding-rules", "Top-k keeps the same number of tokens at every step; top-p keeps the same mass."),
    ("decoding-rules", "核采样每一步保留的 token 数量不一样。"),
    ("decoding-rules", "top-p 每步保留的概率质量相同，token 数量随分布变化。"),
    ("decoding-rules", "只有 top-k 每步保留相同数量的 token，top-p 不是。"),
    # gelu-s-tanh-form-same-function: "use the same GELU in training and inference" is the correction
    ("block-ffn-activations", "训练时用 tanh 版 GELU，推理时也要用同一种 GELU。"),
    ("block-ffn-activations", "用 tanh GELU 训练的模型，推理也要用相同的 GELU。"),
    ("block-ffn-activations", "推理时的 GELU 要和训练时相同，tanh 就用 tanh。"),
    ("block-ffn-activations", "Train and serve with the same GELU: tanh if you trained with tanh."),
    ("block-ffn-activations", "Use the same GELU form, tanh or exact, in training and inference."),
    ("block-ffn-activations", "A model trained with tanh GELU should run inference with that same tanh GELU."),
    # tensor-parallelism-attention-needs-all-gather
    ("parallel-head-tp", "Megatron skips any all-gather of Q, K and V, because the input is replicated."),
    ("parallel-head-tp", "Tensor parallelism avoids gathering Q, K and V: each rank computes its own heads."),
    ("parallel-head-tp", "Megatron's column split makes the QKV all-gather unnecessary."),
    ("parallel-head-tp", "Megatron 避免了对 Q、K、V 做 all-gather。"),
    ("parallel-head-tp", "张量并行省去了 Q、K、V 的 all-gather，每个 rank 只算自己的头。"),
    ("parallel-head-tp", "Context parallelism as in Llama 3 needs an all-gather of K and V."),
    ("parallel-head-tp", "With GQA, Llama 3's context parallelism first all-gathers K and V."),
    ("parallel-head-tp", "Ring attention needs no all-gather of K and V."),
    ("parallel-head-tp", "Ulysses needs an all-to-all of Q, K and V, not an all-gather."),
    # each-new-token-re-runs-whole, the 中文 `@each + 整个 + 重新 | 一遍` line: the whole *model*, one token
    ("decoding-to-text", "每一步只把新 token 过一遍整个模型，前面的 token 不用重算。"),
    ("decoding-to-text", "每个新 token 都要过一遍整个模型的所有层，但只算它自己这一行。"),
    ("decoding-to-text", "解码时每一步都把一个 token 过一遍整个模型，这一步受带宽限制。"),
    ("decoding-to-text", "每一步新 token 都要重新走一遍整个模型的每一层。"),
    ("decoding-to-text", "每个 token 都要经过一遍整个模型，这是逐个生成的代价。"),
    # masked-batchnorm-as-good-as-layernorm: PowerNorm (Shen et al. 2020) is spared like RMSNorm
    ("block-bn-vs-ln", "PowerNorm 在机器翻译上和 LN 一样好。"),
    ("block-bn-vs-ln", "Shen 等人的 PowerNorm 在翻译上和 LayerNorm 一样好，但它改了 BatchNorm 的统计量。"),
    ("block-bn-vs-ln", "PowerNorm, a BatchNorm variant, works as well as LayerNorm on machine translation."),
    ("block-bn-vs-ln", "Shen et al.'s PowerNorm is as good as LayerNorm for translation; plain BatchNorm is not."),
    ("block-bn-vs-ln", "RMSNorm 和 LayerNorm 一样好，而且更便宜。"),
    ("block-bn-vs-ln", "经过修改的 PowerNorm 跟 LayerNorm 一样有效。"),
    # chunked-prefill-approximation-that-trades-accuracy: other approximations
    ("decoding-batching", "Sparse or low-rank attention is an approximation that trades accuracy for speed; chunked prefill is not."),
    ("decoding-batching", "Quantization is an approximation that trades some accuracy for memory."),
    ("decoding-batching", "稀疏注意力是用精度换速度的近似，分块 prefill 不是。"),
    ("decoding-batching", "量化是用一点精度换显存的近似。"),
    ("decoding-batching", "Linear attention approximates softmax attention and trades accuracy for speed."),
    ("decoding-batching", "Sliding-window attention is an approximation that gives up some accuracy."),
    # ring-attention-sends-whole-sequence-every, the `receive | get + whole` line: over the steps
    ("parallel-bytes", "Every device eventually receives the full sequence, one shard at a time."),
    ("parallel-bytes", "Each GPU gets the whole sequence in turn, a block per step."),
    ("parallel-bytes", "Every rank gets the full sequence over P - 1 steps, never all at once."),
    ("parallel-bytes", "Each device receives the whole sequence one shard at a time."),
    ("parallel-bytes", "Over the P − 1 steps each device receives the whole sequence, shard by shard."),
    ("parallel-bytes", "每张卡在 P−1 步里依次收到整个序列的每个分片。"),
    # data-parallelism-saves-memory-per-device: activation memory at a fixed global batch
    ("parallel-kinds", "Data parallelism reduces activation memory per GPU, since each holds a slice of the batch."),
    ("parallel-kinds", "数据并行能降低每张卡的激活显存，但模型状态不变。"),
    ("parallel-kinds", "数据并行减少每张卡的激活显存，模型状态仍然完整复制。"),
    ("parallel-kinds", "At a fixed global batch, data parallelism cuts the activation memory of each device, not the weights."),
    ("parallel-kinds", "Data parallelism lowers per-device activation memory; the model state stays replicated."),
    ("parallel-kinds", "数据并行节省的是激活显存，不是模型状态。"),
    # rmsnorm-layernorm-without-learned-scale: new 中文 line for round-8 L1 "RMSNorm 没有可学习参数" (the EN one
    # is caught); the gain, the bias, the mean and an exception spare it
    ("block-rmsnorm-placement", "除了增益以外，RMSNorm 没有可学习的参数。"),
    ("block-rmsnorm-placement", "RMSNorm 除了增益没有可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm 没有可学习的偏置参数。"),
    ("block-rmsnorm-placement", "RMSNorm 只有增益是可学习参数，没有偏置。"),
    ("block-rmsnorm-placement", "RMSNorm 的均值部分没有可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm 不减均值，也没有可学习的平移参数。"),
    ("block-rmsnorm-placement", "RMSNorm 除去增益外没有其他可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm 没有 beta 这个可学习参数，但保留了 gamma。"),
    ("block-rmsnorm-placement", "RMSNorm 并不是没有可学习参数，它保留了增益。"),
]

NOT_FLAGGED = REVIEW + NEAR

FLAGGED = [
    # 只 / 仅 still read as "only"
    *[(c, s) for c in _RESIDUAL for s in (
        "残差连接只对前向传播有帮助。",
        "残差连接仅对前向有用。",
        "残差仅仅帮助前向传播。",
        "我觉得残差连接只对前向传播有用。",
    )],
    # top-p
    ("decoding-rules", "Top-p keeps a fixed number of tokens."),
    ("decoding-rules", "Top-p keeps a fixed number of tokens at every step."),
    ("decoding-rules", "Nucleus sampling keeps a fixed number of tokens, like top-k."),
    ("decoding-rules", "Nucleus sampling always keeps the same number of tokens."),
    ("decoding-rules", "Top-p keeps the same number of tokens at every step."),
    ("decoding-rules", "I think top-p always keeps the same number of tokens."),
    ("decoding-rules", "top-p 保留固定数量的 token。"),
    ("decoding-rules", "核采样每一步保留的 token 数量相同。"),
    # GELU
    ("block-ffn-activations", "GELU's tanh form is the same function as exact GELU."),
    ("block-ffn-activations", "The tanh GELU and the exact GELU are identical."),
    ("block-ffn-activations", "GELU 的 tanh 形式和精确 GELU 是同一个函数。"),
    ("block-ffn-activations", "tanh 版 GELU 就是精确 GELU，所以训练和推理可以随便换。"),
    # tensor parallelism
    ("parallel-head-tp", "Tensor parallelism of attention needs an all-gather of Q, K and V."),
    ("parallel-head-tp", "Megatron all-gathers Q, K and V before attention."),
    ("parallel-head-tp", "In tensor parallelism you first need an all-gather of Q, K and V."),
    ("parallel-head-tp", "注意力的张量并行需要对 Q、K、V 做 all-gather。"),
    # each new token re-runs the whole sequence
    ("decoding-to-text", "每生成一个新 token 都要把整个序列重新过一遍模型。"),
    ("decoding-to-text", "每一步都要把整个前缀重新过一遍。"),
    ("decoding-to-text", "每个 token 都要把前面整个序列再过一遍整个模型。"),
    ("decoding-to-text", "Each new token re-runs the whole sequence through the model."),
    # masked BatchNorm
    ("block-bn-vs-ln", "加了掩码的 BatchNorm 对序列和 LayerNorm 一样好。"),
    ("block-bn-vs-ln", "BatchNorm 在序列上和 LayerNorm 一样好。"),
    ("block-bn-vs-ln", "A masked BatchNorm is as good as LayerNorm for sequences."),
    ("block-bn-vs-ln", "With a padding mask, BatchNorm works as well as LayerNorm."),
    # chunked prefill
    ("decoding-batching", "Chunked prefill is an approximation that trades accuracy for latency."),
    ("decoding-batching", "It is an approximation that trades some accuracy for lower latency."),
    ("decoding-batching", "分块 prefill 是用精度换延迟的近似。"),
    ("decoding-batching", "分块 prefill 损失了一点精度。"),
    # ring attention
    ("parallel-bytes", "Ring attention sends the whole sequence to every device."),
    ("parallel-bytes", "In ring attention, every device receives the whole sequence."),
    ("parallel-bytes", "Every device receives the whole sequence at once."),
    ("parallel-bytes", "Each GPU gets the full sequence at every step."),
    ("parallel-bytes", "环形注意力把整个序列发给每张卡。"),
    # data parallelism
    ("parallel-kinds", "Data parallelism saves memory per device."),
    ("parallel-kinds", "Data parallelism reduces the memory per GPU."),
    ("parallel-kinds", "Plain data parallelism cuts the memory of each device."),
    ("parallel-kinds", "数据并行能节省每张卡的显存。"),
    ("parallel-kinds", "数据并行可以降低每张卡的显存。"),
    # RMSNorm (中文 line added for round-8 L1)
    ("block-rmsnorm-placement", "RMSNorm 没有可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm 没有任何可学习的参数。"),
    ("block-rmsnorm-placement", "我觉得 RMSNorm 没有可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm 无可学习参数。"),
    ("block-rmsnorm-placement", "RMSNorm is LayerNorm without the learned scale."),
    ("block-rmsnorm-placement", "RMSNorm 是去掉可学习缩放的 LayerNorm。"),
]

OPEN = [
    # round-8 13-14 L4: the semicolon ends the sentence for the checker, so the "Without a cache" condition
    # (`!!!without | no cach`) never reaches the second clause; needs a language.py change
    ("decoding-to-text", "Without a cache, decoding would be quadratic; each new token re-runs the whole sequence."),
    # the comma of the list "Q, K and V" ends the clause, so the exclusion `unnecessari` is not in it
    ("parallel-head-tp", "Megatron's column split makes an all-gather of Q, K and V unnecessary."),
]

test_not_flagged, test_flagged, test_open = checker_tests(
    NOT_FLAGGED, FLAGGED, OPEN,
    reason="language.py cuts the correction off the myth's clause (a ';' ends the sentence; a list's comma ends the clause)",
)
