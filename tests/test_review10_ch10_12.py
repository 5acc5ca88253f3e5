"""Review round 9, chapters 10-12 (reviews/2026-12-02/s7-r9-ch10-12.md), re-checked after the ch06-15 tuning was
withdrawn (d06d322), at pattern level (myths.yaml).

NOT_FLAGGED: every correct sentence the review quotes (round-8 M1/M2 re-checks, the "verified correct" list,
M-1 ... M-21, L-5, L-6), whether or not it was still flagged on main; they guard the next tuning round. After
them, near-miss correct sentences for each pattern changed here. FLAGGED: myth forms next to each fix that must
still be caught, and the missed paraphrases L-1 ... L-4 that new or widened patterns now catch.
OPEN: a correct sentence still flagged for a reason outside the patterns. MISSED: myth paraphrases still not
caught (strict xfail on the flag).

Root cause of L-6 ("MLA really beats GQA on quality"): a pattern word written as a stem is also analysed again,
so `onli` also matches the unit "on" ("on quality", "on its left"). The ch10-12 patterns now write `only` in
their concept groups (it gives the stem "onli" and no "on")."""

from __future__ import annotations

import pytest
from checker_support import checker_tests, stated

NOT_FLAGGED = [
    # --- round-8 M1 (recompute), the forms still flagged on main, then those already passing
    (
        "scale-flash-backward",
        "Gradient checkpointing's recomputation usually makes training slower; FlashAttention's makes it faster "
        "because it saves HBM traffic.",
    ),
    ("scale-flash-backward", "梯度检查点的重算一般会让训练变慢，但 FlashAttention 省掉了显存读写，所以更快。"),
    ("scale-flash-backward", "按理说重算会更慢，但 FlashAttention 实际上更快。"),
    (
        "scale-flash-backward",
        "Usually recomputation slows training down, but here it speeds it up, because the extra FLOPs are cheap "
        "and the avoided HBM traffic is expensive.",
    ),
    (
        "scale-flash-backward",
        "Normally recomputation makes training slower, but FlashAttention's recomputation makes it faster.",
    ),
    (
        "scale-flash-backward",
        "Recomputation usually means slower training, as with gradient checkpointing, but FlashAttention is faster "
        "because it avoids reading the n by n matrix.",
    ),
    ("scale-flash-backward", "通常重算会让训练变慢，但 FlashAttention 的重算反而更快。"),
    # --- round-8 M2 (MoE "13B")
    ("tf-moe", "MoE 每个 token 的计算量和 13B 的稠密模型差不多。"),
    ("tf-moe", "Mixtral 每个 token 的计算量只相当于 13B 的稠密模型。"),
    ("tf-moe", "每个 token 的算力开销和一个 13B 的稠密模型一样。"),
    ("tf-moe", "Mixtral 的计算量和 13B 稠密模型相当，显存却和 47B 稠密模型一样。"),
    ("tf-moe", "Mixtral's compute per token is about the same as a 13B dense model."),
    # --- "Verified correct"
    ("pos-extrapolation", "Flat perplexity does not show that the model uses the far context."),
    ("pos-word-order", "You don't have to train from scratch."),
    ("tf-why-decoder-only", "It was never proven that decoder-only is the winner."),
    ("scale-flash-versions", "FA2 和 FA1 的公式一样，不同的是并行方式。"),
    ("scale-flash-decoding", "Splitting the keys does not approximate attention."),
    ("scale-flash-decoding", "Split-K 没有引入近似。"),
    ("pos-rope-how", "RoPE adds nothing to the embeddings."),
    ("pos-rope-how", "The score does not decay monotonically with distance."),
    ("scale-mla", "MLA is nothing like GQA: it is a genuinely new low-rank scheme."),
    ("scale-cheap-enough", "Cutting FLOPs does not cut the serving cost much."),
    ("scale-sliding-window", "The effective context is not just w but L(w-1)+1."),
    ("pos-context-extension", "YaRN 只对慢的维度对插值，所以只影响远距离。"),
    ("tf-pre-post-ln", "Pre-LN 和 post-LN 不是写法问题，而是计算的函数不同。"),
    # --- M-1 (ALiBi / long context)
    ("pos-extrapolation", "With YaRN fine-tuning, the model can use a longer context."),
    ("pos-extrapolation", "The steep heads stay local; the flat heads can use distant tokens."),
    (
        "pos-extrapolation",
        "Flat perplexity shows stability; to show that the model uses distant tokens you need a retrieval test.",
    ),
    ("pos-extrapolation", "陡的头只看附近，平缓的头可以利用远处的信息。"),
    ("pos-extrapolation", "平缓的头能用到远处的 token。"),
    # --- M-2 (NoPE)
    ("pos-nope", "解码器也能通过因果掩码知道顺序。"),
    ("pos-nope", "没有位置编码时，解码器也能靠因果掩码推断位置。"),
    ("pos-nope", "A decoder too can infer positions from the causal mask."),
    ("pos-nope", "Causal models, decoders included, can count tokens through the mask."),
    ("pos-nope", "Removing positional encodings from an encoder makes it a bag of words."),
    ("pos-nope", "Positional encodings are necessary for every encoder-only model."),
    ("pos-nope", "Every Transformer requires order information; in a causal decoder the mask supplies it."),
    # --- M-3 (attention sinks)
    ("scale-attention-sinks", "sink 往往是信息量最少的 token。"),
    ("scale-attention-sinks", "真正信息量大的 token 反而得到的权重少。"),
    ("scale-attention-sinks", "模型真正需要的是语义上重要的 token，sink 只是一个缓冲区。"),
    # --- M-4 (context extension)
    ("pos-word-order", "重新缩放 RoPE 频率后继续预训练。"),
    ("pos-word-order", "重新缩放频率后，再在长序列上继续预训练。"),
    ("pos-word-order", "Llama 3 was pre-trained from scratch at 8K and then extended to 128K."),
    # --- M-5 (MLM)
    (
        "tf-mlm-mask-vs-attention-mask",
        "The masked position also attends to every other position in the attention layer.",
    ),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的位置同样会计算注意力，它只是输入被替换成了 [MASK]。"),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的 token 同样参与注意力计算，只是它的输入被换成了 [MASK]。"),
    ("tf-mlm-mask-vs-attention-mask", "A masked token also takes part in attention like any other token."),
    # --- M-6 (FFN share of compute)
    ("tf-params-flops", "At 128k context, the FFN is a small fraction of the compute."),
    ("tf-params-flops", "When n is much larger than 2d, the FFN is only a small fraction of the FLOPs."),
    ("tf-params-flops", "前馈网络在长序列下就变成次要的了。"),
    ("tf-params-flops", "For long sequences the FFN becomes a minor part of the FLOPs."),
    # --- M-7 (FlashAttention as approximation)
    ("scale-cheap-enough", "稀疏注意力属于近似方法，FlashAttention 不是。"),
    ("scale-cheap-enough", "Sparse attention is a kind of approximation; FlashAttention is exact."),
    ("scale-cheap-enough", "Linformer and Performer are sort of approximations, FlashAttention is exact."),
    ("scale-cheap-enough", "FlashAttention 的输出和标准实现有一点差异，那是 bf16 累加造成的。"),
    # --- M-8 (FLOPs on decoding)
    ("scale-cheap-enough", "解码时每个 token 的计算量很少，瓶颈在读取 KV cache。"),
    ("scale-cheap-enough", "解码阶段每步的计算量很少，受限于读取 KV cache 和权重。"),
    ("scale-cheap-enough", "稀疏注意力因为计算量少所以更快，但它是近似的。"),
    ("scale-cheap-enough", "Mamba brings the quadratic compute down to linear, FlashAttention does not."),
    # --- M-9 (FlashAttention stores probabilities)
    (
        "scale-flash-backward",
        "It keeps only the statistics needed to rebuild the attention probabilities for backward.",
    ),
    ("scale-flash-backward", "它只保存 logsumexp 以便反向时重建概率。"),
    # --- M-10 (LayerNorm placement)
    ("tf-pre-post-ln", "pre-LN 和 post-LN 的参数量没什么区别，但计算的函数不同。"),
    ("tf-pre-post-ln", "pre-LN 和 post-LN 的计算量没有本质区别，区别在梯度。"),
    ("tf-pre-post-ln", "Pre-LN 和 post-LN 的 FLOPs 没啥区别，但训练稳定性差别很大。"),
    ("tf-pre-post-ln", "Post-LN 其实就是原始论文里的写法，需要 warm-up。"),
    ("tf-pre-post-ln", "Pre-LN is the only style you see in modern LLMs."),
    ("tf-pre-post-ln", "Folding the LayerNorm gain into the next linear layer is mathematically equivalent."),
    # --- M-11 (serving cost)
    ("scale-cheap-enough", "Inference costs about 2N FLOPs per token."),
    ("scale-cheap-enough", "Inference costs about 2N FLOPs per token, but decoding is bound by memory."),
    ("scale-cheap-enough", "Reducing FLOPs reduces training cost, not serving cost."),
    ("scale-cheap-enough", "In prefill, reducing the FLOPs reduces the cost."),
    ("scale-cheap-enough", "Sparse attention is faster because of fewer FLOPs, but it approximates."),
    ("scale-cheap-enough", "解码在 batch 很大时变成计算受限。"),
    ("scale-cheap-enough", "With a batch of 256, decoding becomes compute-bound for the weight matmuls."),
    ("scale-cheap-enough", "Speculative decoding's verification step is compute-bound."),
    # --- M-12 (split-K merge)
    ("scale-flash-decoding", "Naive merging of the partial outputs gives an error; with the LSE weights it is exact."),
    ("scale-flash-decoding", "直接平均合并会有误差，要用 log-sum-exp 加权。"),
    ("scale-flash-decoding", "Flash-decoding avoids approximation by rescaling with the LSE."),
    # --- M-13 (recompute, "always")
    (
        "scale-flash-backward",
        "Gradient checkpointing always makes training slower, FlashAttention's recomputation does not.",
    ),
    ("scale-flash-backward", "检查点重算一定更慢，但 FlashAttention 的重算反而更快。"),
    # --- M-14 (MoE sizes other than 13B)
    ("tf-moe", "Per token, DeepSeek-V3's compute is about the same as a 37B dense model."),
    ("tf-moe", "DeepSeek-V3 每个 token 的计算量和 37B 的稠密模型差不多。"),
    ("tf-moe", "Mixtral's compute per token is about the same as a 14B dense model."),
    ("tf-moe", "每个 token 的计算量和一个 14B 的稠密模型差不多。"),
    # --- M-15 (embedding scale)
    ("tf-embeddings-tying", "乘 √d_model 和调学习率无关。"),
    ("tf-embeddings-tying", "这跟调学习率没有关系，是为了调整嵌入相对位置编码的尺度。"),
    ("tf-embeddings-tying", "Unlike a learning-rate tweak, it changes the forward pass."),
    ("tf-embeddings-tying", "它和学习率技巧无关。"),
    (
        "tf-embeddings-tying",
        "It is sometimes called a learning-rate trick, but it actually rescales the embeddings relative to the "
        "positional encodings.",
    ),
    # --- M-16 (NTK)
    (
        "pos-context-extension",
        "NTK-aware scaling squeezes all the slow pairs into smaller angles, but only the slowest by the full s.",
    ),
    (
        "pos-context-extension",
        "NTK compresses every slow pair into a smaller angle, by less than s except for the slowest.",
    ),
    # --- M-17 (PI short range / YaRN / base raising)
    ("pos-context-extension", "Unlike PI, YaRN's interpolation only affects long-range pairs."),
    ("pos-context-extension", "增大 base 后，近邻 token 的角度基本不变。"),
    # --- M-18 (permutation)
    ("pos-word-order", "Shuffling the key-value pairs gives exactly the same output for each query."),
    ("pos-word-order", "The average of the outputs over the tokens is permutation invariant."),
    # --- M-19 (SwiGLU)
    ("tf-modern-block", "SwiGLU has one more weight matrix, so d_ff is reduced to keep the parameter count."),
    ("tf-modern-block", "SwiGLU 多了一个权重矩阵，所以把 d_ff 调到 8/3 d。"),
    # --- M-20 (sliding window, rolling buffer)
    ("scale-sliding-window", "With a rolling buffer cache, keys older than the window are gone."),
    ("scale-sliding-window", "超出窗口的 key 会从缓存里丢掉。"),
    (
        "scale-sliding-window",
        "Tokens older than w are gone from the rolling cache, but their information survives in later layers.",
    ),
    (
        "scale-sliding-window",
        "The rolling buffer means keys beyond the window are lost from the cache, which is fine because deeper "
        "layers already carry them.",
    ),
    ("scale-sliding-window", "超过窗口的 token 在缓存里访问不到，但信息已经通过前面的层传下来了。"),
    ("scale-sliding-window", "In a single attention operation, a query only ever uses the last w keys."),
    # --- M-21 (FA-2 math)
    (
        "scale-flash-versions",
        "FlashAttention-2 tweaks the online softmax in a new way: it delays the final division until the end.",
    ),
    ("scale-flash-versions", "FA-2 用新的划分方式计算同一个数学公式。"),
    # --- L-5
    ("pos-rope-how", "Unlike RoPE, ALiBi makes the score decrease monotonically with distance."),
    ("scale-paged-attention", "The FlashAttention kernel runs faster, and PagedAttention adds paging on top of it."),
    # --- L-6 (MLA: `onli` also matched "on")
    ("scale-mla", "MLA really beats GQA on quality at a similar memory budget."),
    ("scale-mla", "MLA 就是用低秩潜向量代替 GQA 的分组共享。"),
    #
    # ===== near-misses of the patterns changed here =====
    # recompute: gradient checkpointing is slower (EN/zh 'checkpoint' exclusion, 按理); flash-subject lines
    ("scale-flash-backward", "Gradient checkpointing trades recomputation for memory, so it makes training slower."),
    ("scale-flash-backward", "With gradient checkpointing, recomputing activations makes each step slower."),
    (
        "scale-flash-backward",
        "Activation checkpointing recomputes the forward pass and is slower; FlashAttention's recomputation is not.",
    ),
    ("scale-flash-backward", "梯度检查点靠重算省显存，所以训练会变慢。"),
    ("scale-flash-backward", "检查点的重算会更慢，这是拿时间换显存。"),
    ("scale-flash-backward", "照理说重算会更慢，可 FlashAttention 省下的显存读写更多。"),
    ("scale-flash-backward", "FlashAttention's recomputation makes the backward pass faster, not slower."),
    ("scale-flash-backward", "FlashAttention 的重算不会让训练变慢，反而更快。"),
    (
        "scale-flash-backward",
        "FlashAttention recomputes the attention matrix in the backward pass and is still faster than the "
        "standard kernel.",
    ),
    ("scale-flash-backward", "FlashAttention 在反向重算注意力矩阵，实际上比标准实现更快。"),
    # sinks: 信息量 line (少/低/反而), 语义重要 lines (真正需要 …)
    ("scale-attention-sinks", "sink token 的信息量很少，权重却很大。"),
    ("scale-attention-sinks", "sink 本身的信息量低，它只是一个放多余权重的地方。"),
    ("scale-attention-sinks", "第一个 token 信息量最少，却吸走了大部分注意力。"),
    ("scale-attention-sinks", "模型真正关注的是语义上重要的 token，而不是 sink。"),
    ("scale-attention-sinks", "真正有用的是语义重要的 token，sink 只是吸收多余的权重。"),
    ("scale-attention-sinks", "Sinks carry little information; they soak up spare attention."),
    # MLM: the masked token takes part in attention
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的 token 和其他 token 一样参与注意力。"),
    ("tf-mlm-mask-vs-attention-mask", "The [MASK] position participates in self-attention just like the others."),
    ("tf-mlm-mask-vs-attention-mask", "MLM 的 [MASK] 只是替换输入，被 mask 的位置照样参与注意力。"),
    ("tf-mlm-mask-vs-attention-mask", "Unlike an attention mask, BERT's [MASK] only replaces the input token."),
    ("tf-mlm-mask-vs-attention-mask", "A masked position takes part in attention as any other position does."),
    # FFN minor part: long-sequence conditions
    ("tf-params-flops", "At long context lengths the FFN becomes a minor part of the compute."),
    ("tf-params-flops", "Once n is far larger than 2d, the FFN is a minor part of the FLOPs."),
    ("tf-params-flops", "For 128k-token sequences, the feed-forward network is a minor part of the FLOPs."),
    ("tf-params-flops", "长序列下，FFN 只是次要部分。"),
    ("tf-params-flops", "上下文超过 2d 以后，FFN 就成了次要的计算。"),
    ("tf-params-flops", "序列很长时 FFN 只是次要部分，注意力占大头。"),
    # LayerNorm: same cost/parameters, original paper, modern LLMs, folding the gain
    ("tf-pre-post-ln", "pre-LN 和 post-LN 的参数个数没什么区别，区别在梯度。"),
    ("tf-pre-post-ln", "两种放法的计算量没什么区别，但训练行为差别很大。"),
    ("tf-pre-post-ln", "Pre-LN 和 post-LN 的速度没有本质区别。"),
    ("tf-pre-post-ln", "两者的显存占用没啥区别。"),
    ("tf-pre-post-ln", "Post-LN 就是最初 Transformer 论文里的写法。"),
    ("tf-pre-post-ln", "Pre-LN is the only style modern LLMs use."),
    ("tf-pre-post-ln", "Pre-LN 是现在主流大模型里唯一的写法。"),
    ("tf-pre-post-ln", "Folding the LayerNorm scale into the following weights is mathematically equivalent."),
    ("tf-pre-post-ln", "Absorbing the RMSNorm gain into W_Q is exactly equivalent."),
    ("tf-pre-post-ln", "把 LayerNorm 的增益合并进下一层的权重，在数学上是等价的。"),
    # MoE: other correct active sizes
    ("tf-moe", "Per token, Llama 4 Maverick's compute is about the same as a 17B dense model."),
    ("tf-moe", "Mixtral 8x22B computes about as much per token as a 39B dense model."),
    ("tf-moe", "Qwen1.5-MoE costs about as much per token as a 2.7B dense model."),
    ("tf-moe", "DeepSeek-V2 每个 token 的计算量和 21B 的稠密模型差不多。"),
    ("tf-moe", "每个 token 的计算量和一个 370 亿参数的稠密模型差不多。"),
    ("tf-moe", "Mixtral 每个 token 的算力和 140 亿参数的稠密模型相当。"),
    # embeddings: learning-rate wording negated or reported
    ("tf-embeddings-tying", "Multiplying by √d_model is sometimes called a learning-rate trick, but it is a scale fix."),
    ("tf-embeddings-tying", "Unlike a learning-rate trick, it changes the scale of the forward pass."),
    ("tf-embeddings-tying", "这和学习率技巧没有关系，它调的是嵌入和位置编码的相对尺度。"),
    ("tf-embeddings-tying", "它不是为了学习率，而是为了让嵌入和位置编码的尺度相当。"),
    ("tf-embeddings-tying", "乘 √d_model 并非学习率技巧。"),
    ("tf-embeddings-tying", "有人把它称为学习率技巧，其实它改变的是前向的尺度。"),
    # PI short range: base raising (ABF) does leave local positions nearly unchanged
    ("pos-context-extension", "Raising the RoPE base leaves local positions almost unchanged."),
    ("pos-context-extension", "With ABF, neighbouring positions stay unchanged while far ones get new angles."),
    ("pos-context-extension", "A larger base leaves short-range angles untouched."),
    ("pos-context-extension", "提高 base 对局部位置几乎没有影响。"),
    ("pos-context-extension", "增大 base 之后，相邻 token 之间的角度几乎不变。"),
    ("pos-context-extension", "NTK-aware scaling leaves local positions unchanged; PI does not."),
    # sliding window: one attention operation; `onli` no longer matches "on"; 层数再多 line
    ("scale-sliding-window", "In one attention operation, a token only ever sees the last w tokens."),
    ("scale-sliding-window", "For a single attention operation, the query can only ever use the last w keys."),
    ("scale-sliding-window", "Each token can see w tokens on its left."),
    ("scale-sliding-window", "单次注意力里，一个 token 只能看到最近 w 个 token。"),
    ("scale-sliding-window", "层数再多，每层的计算量也一样。"),
    ("scale-sliding-window", "层数再多也一样能把信息传得更远。"),
    ("scale-sliding-window", "层数再多，缓存的大小也一样，都是 w。"),
    ("scale-sliding-window", "叠再多层，每层的窗口也一样是 w。"),
    # FA-2: same math
    ("scale-flash-versions", "FA-2 用新的并行方式算同样的数学公式。"),
    ("scale-flash-versions", "FA-2 和 FA-1 算的是同一个数学结果。"),
    ("scale-flash-versions", "FA-2 引入了新的工作划分，数学上和原来完全相同。"),
    ("scale-flash-versions", "FA-2 的新版本算的是同样的数学。"),
    ("scale-flash-versions", "FlashAttention-2 没改数学，只是换了新的划分。"),
    # MLA: replacing GQA's grouping; decode-time MQA view; `only` lines
    ("scale-mla", "MLA 就是用低秩潜向量取代了 GQA 的分组。"),
    ("scale-mla", "MLA replaces GQA's head sharing with a low-rank latent; it is not just GQA."),
    ("scale-mla", "MLA basically replaces GQA's grouping with a shared latent."),
    ("scale-mla", "At decode time, with absorbed weights, MLA is just MQA over the latent."),
    ("scale-mla", "MLA 在解码时就是压缩缓存上的 MQA。"),
    ("scale-mla", "MLA focuses on compressing the cache, just like MQA reduces it."),
    ("scale-mla", "MLA really does use less cache than GQA."),
    # decoder-only (`only`)
    ("tf-architectures-masks", "A decoder-only model is not the original decoder: it has no cross-attention."),
    # L-1: "believe" / "say" no longer excluded; others' beliefs, negations and corrections still spared
    ("pos-families", "I don't believe sinusoidal encodings are relative."),
    (
        "pos-families",
        "Many people believe sinusoidal encodings are relative, but the scores still depend on absolute positions.",
    ),
    ("pos-families", "I believe sinusoidal encodings are absolute: the linear map only makes offsets learnable."),
    (
        "pos-families",
        "It is widely believed that sinusoidal encodings are relative; in fact the scores depend on absolute "
        "positions.",
    ),
    ("pos-families", "我不认为正弦编码是相对的。"),
    ("pos-rope-details", "I believe each cached key is rotated once, at its own position."),
    (
        "pos-rope-details",
        "Some believe cached keys are rotated by the current position when read, but each key keeps its own "
        "rotation.",
    ),
    ("pos-rope-details", "I don't believe cached keys are re-rotated at the current position."),
    ("scale-attention-sinks", "I believe StreamingLLM gives unbounded streaming with bounded memory."),
    ("scale-attention-sinks", "I'd say StreamingLLM handles infinite streams, not infinite context."),
    ("scale-attention-sinks", "I wouldn't say StreamingLLM gives a model infinite context."),
    ("scale-attention-sinks", "Many believe StreamingLLM gives infinite context, but evicted tokens are gone."),
    ("scale-attention-sinks", "StreamingLLM is said to give infinite context, but it does not."),
    ("scale-attention-sinks", "我不认为 StreamingLLM 能给模型无限上下文。"),
    # L-2: NoPE "even with a causal mask" line
    ("pos-nope", "Even with a causal mask, a Transformer without positional encodings is not a bag of words."),
    ("pos-nope", "With a causal mask, a Transformer without positional encodings is no longer a bag of words."),
    ("pos-nope", "A Transformer without positional encodings is a bag of words only without a causal mask."),
    (
        "pos-nope",
        "A bidirectional Transformer without positional encodings is a bag of words, even with a padding mask.",
    ),
    ("pos-nope", "即使有因果掩码，没有位置编码的 Transformer 也不是词袋。"),
    ("pos-nope", "没有位置编码的双向 Transformer 即使有 padding 掩码也是词袋。"),
]

FLAGGED = [
    # recompute
    ("scale-flash-backward", "Recomputation must make training slower."),
    ("scale-flash-backward", "FlashAttention's recomputation makes training slower, like gradient checkpointing."),
    ("scale-flash-backward", "FlashAttention 的重算跟梯度检查点一样会让训练变慢。"),
    ("scale-flash-backward", "FlashAttention 的重算会让训练变慢。"),
    (
        "scale-flash-backward",
        "FlashAttention recomputes like gradient checkpointing, so its recomputation makes training slower.",
    ),
    ("scale-flash-backward", "重算一定会让训练变慢。"),
    ("scale-flash-backward", "Recomputing the attention matrix in the backward pass makes training slower."),
    ("scale-flash-backward", "因为要重算，FlashAttention 的训练更慢。"),
    # sinks
    ("scale-attention-sinks", "attention sink 是信息量特别大的 token。"),
    ("scale-attention-sinks", "sink 的信息量最大，所以权重最高。"),
    ("scale-attention-sinks", "sink 是语义上最重要的 token。"),
    ("scale-attention-sinks", "attention sink 是内容重要的 token。"),
    ("scale-attention-sinks", "Attention sinks are tokens with important content."),
    # MLM
    ("tf-mlm-mask-vs-attention-mask", "BERT's [MASK] works like an attention mask."),
    ("tf-mlm-mask-vs-attention-mask", "BERT 的 [MASK] 和注意力掩码一样。"),
    ("tf-mlm-mask-vs-attention-mask", "被 mask 的 token 相当于注意力掩码。"),
    # FFN
    ("tf-params-flops", "The FFN is a minor part and attention is where the compute goes."),
    ("tf-params-flops", "The FFN is only a minor part of the block."),
    ("tf-params-flops", "FFN 只是次要部分，计算量都在注意力上。"),
    ("tf-params-flops", "FFN 是次要的，计算都在注意力上。"),
    ("tf-params-flops", "The feed-forward layer is a minor part of a Transformer block."),
    # LayerNorm
    ("tf-pre-post-ln", "LayerNorm placement is cosmetic."),
    ("tf-pre-post-ln", "pre-LN 和 post-LN 没什么区别。"),
    ("tf-pre-post-ln", "LN 放在前面还是后面没什么区别。"),
    ("tf-pre-post-ln", "两种放法没啥区别。"),
    ("tf-pre-post-ln", "Pre-LN and post-LN are mathematically equivalent."),
    ("tf-pre-post-ln", "Where the LayerNorm goes is only a matter of style."),
    ("tf-pre-post-ln", "LayerNorm 放哪只是写法问题。"),
    # MoE
    (
        "tf-moe",
        "A mixture-of-experts model with 47B parameters costs as much per token as a dense 47B model.",
    ),
    ("tf-moe", "Mixtral 8x7B costs as much per token as a dense 47B model."),
    ("tf-moe", "DeepSeek-V3 costs as much per token as a 671B dense model."),
    ("tf-moe", "一个 470 亿参数的 MoE 模型，每个 token 的计算量和 470 亿的稠密模型一样。"),
    ("tf-moe", "MoE 每个 token 的计算量和参数一样多的稠密模型差不多。"),
    # embeddings
    ("tf-embeddings-tying", "Multiplying the embeddings by √d_model is a learning-rate trick."),
    ("tf-embeddings-tying", "嵌入乘以 √d_model 是调学习率的技巧。"),
    ("tf-embeddings-tying", "It acts as a learning-rate boost for the embeddings."),
    ("tf-embeddings-tying", "乘 √d_model 相当于把学习率调大。"),
    ("tf-embeddings-tying", "乘 √d_model 是为了学习率。"),
    ("tf-embeddings-tying", "It's just a learning-rate trick."),
    # PI short range
    ("pos-context-extension", "Position interpolation leaves the model's short-range behaviour untouched."),
    ("pos-context-extension", "PI leaves local positions unchanged."),
    ("pos-context-extension", "位置插值不影响模型的短距离行为。"),
    # sliding window (L-3 included)
    ("scale-sliding-window", "With a sliding window a token can only ever use the last w tokens."),
    ("scale-sliding-window", "滑动窗口下，一个 token 只能看到最近 w 个 token，层数再多也一样。"),
    ("scale-sliding-window", "用了滑动窗口，一个 token 只能利用最近 w 个 token。"),
    ("scale-sliding-window", "No matter how many layers you stack, a token only sees the last w tokens."),
    ("scale-sliding-window", "层数再多也没用，token 还是只能看到最近 w 个。"),
    ("scale-sliding-window", "The model can only see the last w tokens."),
    ("scale-sliding-window", "叠再多层也一样，还是只有最近 w 个 token。"),
    # FA-2
    ("scale-flash-versions", "FlashAttention-2 改变了注意力的数学形式。"),
    ("scale-flash-versions", "FA-2 用了新的数学公式。"),
    ("scale-flash-versions", "FlashAttention-2 changed the mathematics of attention."),
    # MLA (L-4 included)
    ("scale-mla", "MLA is just MQA with a compressed cache."),
    ("scale-mla", "MLA is basically MQA with a compressed cache."),
    ("scale-mla", "MLA 就是带压缩的 MQA。"),
    ("scale-mla", "MLA is just GQA with fewer heads."),
    ("scale-mla", "MLA 就是头更少的 GQA。"),
    ("scale-mla", "MLA is only GQA."),
    # decoder-only
    ("tf-architectures-masks", "A decoder-only model is the decoder of the original Transformer."),
    # L-1
    (
        "pos-families",
        "I believe sinusoidal encodings are relative because PE(p + k) is a linear function of PE(p).",
    ),
    ("pos-families", "Sinusoidal encodings are relative because PE(p + k) is a linear function of PE(p)."),
    ("pos-rope-details", "I believe cached keys are rotated by the current position when they are read."),
    ("pos-rope-details", "Cached keys are rotated by the current position when they are read."),
    ("scale-attention-sinks", "I believe StreamingLLM gives a model infinite context."),
    ("scale-attention-sinks", "I'd say StreamingLLM gives a model infinite context."),
    ("scale-attention-sinks", "I would say StreamingLLM gives a model infinite context."),
    ("scale-attention-sinks", "I think StreamingLLM gives a model infinite context."),
    # L-2
    ("pos-nope", "A Transformer without positional encodings is a bag of words even with a causal mask."),
    ("pos-nope", "With or without a mask, a Transformer without positional encodings is a bag of words."),
    ("pos-nope", "Even with a causal mask, a Transformer without positional encodings is a bag of words."),
    ("pos-nope", "Any Transformer without positional encodings is a bag-of-words model."),
]

OPEN = [
    # "et al." ends a sentence for the segmenter, so the fronted "Raising the RoPE base" no longer qualifies
    # "leaves local positions nearly unchanged" (without "as Xiong et al. did" it passes, see above)
    (
        "pos-context-extension",
        "Raising the RoPE base, as Xiong et al. did, leaves local positions nearly unchanged.",
    ),
]

# myth paraphrases still missed: the mask is named in an "whether or not …" / "even with …, unless …" clause of
# its own, where a pattern cannot require it (round-8 L2)
MISSED = [
    ("pos-nope", "Whether or not there is a mask, a Transformer without positional encodings is a bag of words."),
]

# caught since review 11 (fx1012b: the bag line of any-transformer-… reads the mask with "!!~", so an affirmed
# "even with a causal mask" no longer spares it); moved here from MISSED
CAUGHT_SINCE_REVIEW11 = [
    ("pos-nope", "Even with a causal mask, unless you add positions, a Transformer is a bag of words."),
]

test_not_flagged, test_flagged, test_open = checker_tests(
    NOT_FLAGGED, FLAGGED + CAUGHT_SINCE_REVIEW11, OPEN, reason="correct sentence still flagged (see OPEN)"
)


@pytest.mark.xfail(strict=True, reason="myth paraphrase not caught yet (see MISSED)")
@pytest.mark.parametrize("card, text", MISSED)
def test_missed_myth_is_flagged(card, text):
    assert stated(card, text)
