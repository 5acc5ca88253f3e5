"""Review round 11, chapters 13-15 (reviews/2026-12-03/s10-r11-ch13-15.md): the card / myth findings M-1, M-3 ... M-10.

- M-1: a myth followed by its own correction ("…, but only at the same d_ff") is no longer flagged: `!!>` groups on
  swiglu-adds-parameters-ffn, chunked-prefill-approximation-that-trades-accuracy,
  speculative-decoding-approximates-target-model and causal-mask-halves-every-rank-s (and on every other myth touched
  here); the same myths followed by an unrelated clause are still flagged.
- M-3: reversed central contrasts no longer tick (claim exclusions naming the wrong subject: "LayerNorm depends",
  "post-LN puts", "attention holds two thirds", "memory-bound prefill", "data parallel splits", ...; new myth lines
  for "LayerNorm depends on the batch", "the emitted tokens approximate the target", "Ulysses scales past the heads").
- M-4 / M-5: plain myth forms (final LayerNorm, Ulysses on more devices than heads, ZeRO keeps the whole optimizer
  state, BatchNorm per token, 受算力限制, token 数是固定的, 会降低精度, Ulysses "increases with the number of devices");
  pre-ln-model-needs-no-norm is now on block-what-else, ulysses-works-for-any-number-heads on
  parallel-split-attention and parallel-bytes.
- M-6 / M-7 / M-8: false alarms on plain correct sentences (same number of blocks sent, FSDP all-gathers a full copy,
  expert parallelism stores a subset per device, one new token through the whole model, barely slower).
- M-9: "Temperature does not change which token is most likely.", "Ulysses can't use more devices than heads." tick.
- M-10: decoding-is-compute-bound's `!!>` group holds specific phrases ("at large batch", "queries that share a
  prefix"), not "large batch" / "shared prefix".

Left (still tick, the wrong subject sits in an earlier clause of the sentence):
"Post-LN puts the norm before each sub-layer, with a final norm." (block-what-else KP3 via "with a final norm"),
"Pre-LN normalises the stream, has large top gradients at init and needs warm-up." (block-rmsnorm-placement KP2),
"LayerNorm divides by the root mean square, with no mean subtraction and no bias." (block-rmsnorm-placement KP0),
"Tensor parallel splits the batch, keeps the whole model on each device and all-reduces gradients." (parallel-kinds KP0).
"""

from __future__ import annotations

from checker_support import checker_tests, keypoint_tests

# M-6 / M-7 / M-8: plain correct sentences on the parallel / block / decoding cards, written before reading the patterns
M678_CORRECT = [
    ('parallel-zigzag', 'Every rank sends the same number of blocks.'),
    ('parallel-zigzag', 'With zigzag shards every rank does the same amount of work.'),
    ('parallel-zigzag', 'Each rank sends and receives the same number of K/V blocks; only the compute differs.'),
    ('parallel-zigzag', '每个 rank 发送的块数相同，不均衡的是计算量。'),
    ('parallel-zigzag', 'With contiguous shards the last rank does P blocks and the first does one.'),
    ('parallel-kinds', "FSDP all-gathers a full copy of a layer's weights just before the layer runs."),
    ('parallel-kinds', "FSDP all-gathers a full copy of a layer's weights."),
    ('parallel-kinds', 'Expert parallelism stores a subset of the experts on each device.'),
    ('parallel-kinds', 'In data parallelism every device holds a full copy of the model.'),
    ('parallel-kinds', 'ZeRO shards the optimizer state across the data-parallel ranks.'),
    ('parallel-kinds', 'Plain data parallelism replicates the whole model state on every device.'),
    ('parallel-kinds', 'Pipeline parallelism sends activations between stages.'),
    ('parallel-kinds', '专家并行让每张卡只存一部分专家。'),
    ('parallel-kinds', 'FSDP 在某层运行前把它的完整权重 all-gather 过来。'),
    ('parallel-kinds', '数据并行时每张卡都有完整的模型副本。'),
    ('parallel-split-attention', 'Each device keeps n/P tokens of queries and passes its K/V block to the next device.'),
    ('parallel-split-attention', 'After P steps every query has seen every key.'),
    ('parallel-split-attention', 'Ulysses gives each device all tokens of h/P heads.'),
    ('parallel-split-attention', 'Tensor parallelism gives each device h/P heads and ends with one all-reduce.'),
    ('parallel-split-attention', 'Ulysses 让每张卡持有 h/P 个头的全部 token。'),
    ('parallel-head-tp', "Each rank computes its own heads' queries, keys and values without communication."),
    ('parallel-head-tp', 'The input X is replicated on every rank.'),
    ('parallel-ring-backward', 'The full output is assembled exactly from the partial outputs and their log-sum-exps.'),
    ('parallel-ulysses', 'Ulysses sends fewer bytes per rank as P grows.'),
    ('parallel-ulysses', 'Each rank holds all n tokens of h/P heads.'),
    ('parallel-bytes', 'The ring sends each K/V shard P - 1 times.'),
    ('decoding-to-text', 'Each step feeds one new token through the whole model.'),
    ('decoding-to-text', 'Each decode step runs the new token through every layer of the model.'),
    ('decoding-to-text', 'Every step reads the whole KV cache and all the weights.'),
    ('decoding-to-text', '每一步把一个新 token 送过整个模型。'),
    ('decoding-to-text', 'Prefill runs the whole prompt through the model once.'),
    ('decoding-batching', 'Chunked prefill gives the same logits as a single prefill.'),
    ('decoding-batching', 'Chunked prefill changes the latency, not the output.'),
    ('decoding-batching', '分块 prefill 只改变调度，不改变输出。'),
    ('decoding-speculative', 'The draft model is an approximation of the target; the output is still exact.'),
    ('decoding-speculative', 'Speculative decoding speeds up decoding without changing the output distribution.'),
    ('decoding-temperature', 'A high temperature flattens the distribution, but the argmax stays the same.'),
    ('decoding-temperature', '温度只改变分布的尖锐程度，不改变最可能的 token。'),
    ('decoding-rules', 'Top-k keeps a fixed number of tokens, top-p a variable number.'),
    ('decoding-budget', 'Batching 32 sequences makes each step only a few percent slower.'),
    ('block-what-else', 'Each token is normalised over its own features by LayerNorm.'),
    ('block-what-else', 'BatchNorm averages each feature over all tokens of the batch.'),
    ('block-what-else', 'The FFN is applied to each token separately.'),
    ('block-what-else', 'LayerNorm 对每个 token 自己的特征归一化，和批次无关。'),
    ('block-bn-vs-ln', 'LayerNorm gives the same output whatever the batch.'),
    ('block-bn-vs-ln', 'BatchNorm takes statistics per feature over the whole batch.'),
    ('block-rmsnorm-placement', 'Pre-LN models add a final norm before the output layer.'),
    ('block-rmsnorm-placement', 'RMSNorm keeps the learned gain but drops the bias and the mean subtraction.'),
    ('block-ffn-activations', 'SwiGLU has three matrices, so d_ff is cut to 8/3 d to keep the parameter count.'),
    ('block-ffn-activations', 'SwiGLU 有三个矩阵，所以 d_ff 缩到 8/3 d 保持参数量。'),
    ('block-moe-routing', 'All experts are stored, but each token uses only k of them.'),
    ('block-moe-routing', 'MoE makes each token cheaper to compute, not the model cheaper to store.'),
    ('block-training-memory', 'Each parameter needs 2 bytes of 16-bit weights, 2 of gradients, 4 of master weights and 8 of Adam moments.'),
    ('block-residual', 'Residuals keep the gradient from vanishing, but unscaled branches can still make it grow.'),
    ('block-moe-routing', 'Expert parallelism stores a subset of the experts on each device.'),
    ('block-moe-routing', 'Each device stores only part of the experts under expert parallelism.'),
    ('block-moe-routing', 'Each token activates a fraction of the parameters.'),
    ('block-moe-routing', 'MoE reduces the compute per token, not the memory.'),
    ('block-moe-routing', 'A token whose experts are all full is carried by the residual.'),
    ('block-moe-routing', 'Overflowing tokens are dropped for that expert and the residual carries them to the next layer.'),
    ('block-moe-routing', '专家并行让每张卡只存储一部分专家。'),
    ('block-moe-routing', '每个 token 只用一部分参数计算。'),
    ('block-training-memory', 'Inference needs only the 16-bit weights, 2 bytes per parameter.'),
    ('block-training-memory', 'The 16-bit weights take 2 bytes per parameter; training adds 14 more.'),
    ('block-training-memory', '推理时只需要 16 位权重，每个参数 2 字节。'),
    ('block-what-else', 'The final LayerNorm normalises the stream before the output layer.'),
    ('block-what-else', 'BatchNorm normalises each feature over the batch, not each token.'),
    ('block-what-else', 'LayerNorm does not depend on the batch.'),
    ('block-what-else', 'The residual stream carries the gradient straight to every layer.'),
    ('block-bn-vs-ln', 'With masking, BatchNorm no longer sees the padding, but it still depends on the other sequences.'),
    ('block-bn-vs-ln', 'Masking the padding fixes only the padding.'),
    ('block-bn-vs-ln', '屏蔽 padding 只解决了 padding 的问题。'),
    ('block-rmsnorm-placement', 'The pre-LN stream is never normalised inside the stack, so a final norm is needed.'),
    ('block-rmsnorm-placement', 'RMSNorm has a learned scale but no bias.'),
    ('block-rmsnorm-placement', 'RMSNorm 不减均值，只保留可学习的增益。'),
    ('block-ffn-activations', 'The tanh form is close to exact GELU but not identical.'),
    ('block-ffn-activations', 'At the same d_ff, SwiGLU has more parameters.'),
    ('block-ffn-activations', 'Llama-3 has more FFN weights because it chose d_ff = 3.5 d.'),
    ('block-residual', 'The residual connection mainly helps the backward pass.'),
    ('block-residual', 'Residual connections can still let the gradient explode when branches are unscaled.'),
    ('decoding-to-text', 'Decoding is memory-bound at small batch.'),
    ('decoding-to-text', 'Prefill is compute-bound because many tokens share each weight read.'),
    ('decoding-to-text', 'At large batch the weight matmuls of decoding become compute-bound.'),
    ('decoding-to-text', '解码在小 batch 时受显存带宽限制。'),
    ('decoding-to-text', 'With a KV cache only the new token is computed.'),
    ('decoding-to-text', 'The whole prompt goes through the model once during prefill.'),
    ('decoding-batching', 'Chunked prefill does not trade accuracy for latency.'),
    ('decoding-batching', 'Chunked prefill is exact; it only changes the schedule.'),
    ('decoding-batching', '分块 prefill 是精确的，不会降低精度。'),
    ('decoding-batching', 'Prefix caching shares the KV blocks of a common prompt across requests.'),
    ('decoding-speculative', 'Speculative decoding is exact, not an approximation.'),
    ('decoding-speculative', '投机解码不会降低精度，输出分布和目标模型完全一样。'),
    ('decoding-speculative', 'The draft approximates the target, and the accept/reject rule corrects the difference.'),
    ('decoding-temperature', 'Temperature does not change which token is most likely.'),
    ('decoding-temperature', 'Temperature changes how likely each token is, not which one is most likely.'),
    ('decoding-temperature', '温度不改变最可能的 token，只改变概率的分布。'),
    ('decoding-rules', 'Top-p keeps a variable number of tokens.'),
    ('decoding-rules', 'The number of tokens top-p keeps depends on how confident the model is.'),
    ('decoding-rules', 'top-p 保留的 token 数不是固定的。'),
    ('decoding-rules', 'top-k 保留的 token 数是固定的，top-p 的不是。'),
    ('decoding-budget', 'Time per token grows far less than the batch while decoding is memory-bound.'),
    ('decoding-budget', 'Once the FLOPs dominate, time per token grows with the batch.'),
    ('decoding-budget', 'Doubling the batch barely changes the time per step.'),
    ('parallel-ulysses', "Ulysses can't use more devices than heads."),
    ('parallel-ulysses', 'The number of devices must divide the number of heads.'),
    ('parallel-ulysses', 'Ulysses 的卡数不能超过头数。'),
    ('parallel-ulysses', 'Per-rank bytes fall as 1/P.'),
    ('parallel-ulysses', 'Total bytes across all ranks grow with P, but per rank they fall.'),
    ('parallel-split-attention', 'Ring attention is exact; nothing is approximated.'),
    ('parallel-split-attention', 'Ulysses needs whole heads per device, so P is at most h.'),
    ('parallel-split-attention', 'Each device sees every key block once over the P steps.'),
    ('parallel-split-attention', "Every device receives the whole sequence's keys and values over P steps, one block at a time."),
    ('parallel-ring-backward', 'Autograd cannot differentiate through the sends, so the backward ring is written by hand.'),
    ('parallel-ring-backward', 'The merge is exact, so only rounding differs.'),
    ('parallel-head-tp', 'There is no all-gather of Q, K and V; each rank computes its own heads.'),
    ('parallel-head-tp', 'Q, K and V are column-parallel and W_O is row-parallel.'),
    ('parallel-head-tp', "P can't exceed the number of KV heads unless they are replicated."),
    ('parallel-bytes', 'The ring never sends the whole sequence at once; each device sends P - 1 shards.'),
    ('parallel-bytes', 'Ulysses sends the fewest bytes without GQA for P > 2.'),
    ('parallel-kinds', 'ZeRO stage 1 shards only the optimizer states.'),
    ('parallel-kinds', 'Data parallelism alone does not save memory per device.'),
    ('parallel-kinds', '数据并行本身不省显存，切分状态的是 ZeRO。'),
    ('parallel-kinds', "FSDP gathers a layer's full weights only when it runs and frees them afterwards."),
    ('parallel-zigzag', 'The causal mask removes work unevenly across ranks.'),
    ('parallel-zigzag', 'Every rank sends the same number of bytes, but the last rank computes the most.'),
    ('parallel-zigzag', '所有 rank 收发的字节数一样，但计算量不同。'),
]

# M-1: a myth followed by its own correction ('…, but only …') states no myth
M1_OWN_CORRECTION = [
    ('block-ffn-activations', 'SwiGLU adds parameters to the FFN, but only at the same d_ff.'),
    ('block-ffn-activations', 'SwiGLU has more parameters, but only when d_ff stays the same.'),
    ('block-ffn-activations', 'SwiGLU 会增加参数，但只是在 d_ff 相同的时候。'),
    ('decoding-batching', 'Chunked prefill changes the output, but only by rounding in low-precision kernels.'),
    ('decoding-batching', 'Chunked prefill gives different logits, but only through floating-point rounding.'),
    ('decoding-batching', '分块 prefill 的输出会不同，但只是低精度下的舍入差异。'),
    ('decoding-speculative', "Speculative decoding's output differs slightly, but only by floating-point rounding."),
    ('decoding-speculative', 'Speculative decoding is approximate, but only with a lossy acceptance rule like typical acceptance.'),
    ('decoding-speculative', '投机解码的结果不完全一样，但只是舍入误差。'),
    ('parallel-zigzag', "A causal mask halves every rank's work, but only on average; per rank it is uneven."),
    ('parallel-zigzag', "The causal mask halves each rank's work, but only with zigzag shards."),
    ('parallel-zigzag', '因果掩码让每个 rank 工作量减半，但只是平均而言，各 rank 不均匀。'),
]

# M-10: decoding-is-compute-bound's '!!>' group now holds specific large-batch / shared-prefix phrases
M10_OWN_CORRECTION = [
    ('decoding-to-text', 'Decoding is compute-bound, but only at large batch.'),
    ('decoding-to-text', 'Decoding is compute-bound for the weight matmuls once the batch is large enough.'),
    ('decoding-to-text', 'Decoding is compute-bound, but only when several queries share a prefix.'),
    ('decoding-to-text', '解码的权重矩阵乘只有在 batch 足够大时才是计算受限的。'),
    ('decoding-to-text', '解码是计算受限的，但只是在 batch 很大时。'),
]

# every other myth touched here: '…, but <its own correction>' states no myth
OWN_CORRECTION = [
    ('parallel-kinds', 'ZeRO keeps the whole optimizer state on every rank, but only at stage 0, which is plain data parallelism.'),
    ('parallel-kinds', 'FSDP replicates the optimizer states on every rank, but only without sharding, as plain data parallelism.'),
    ('block-moe-routing', 'MoE makes a model cheaper to store, but only per token in compute, not in memory.'),
    ('decoding-to-text', 'Each step re-runs the whole sequence through the model, but only without a KV cache.'),
    ('decoding-to-text', '每一步都把整个序列重新过一遍模型，但只是在没有 KV cache 的时候。'),
    ('decoding-budget', 'Batching more sequences makes each token slower in proportion, but only once the FLOPs dominate.'),
    ('block-rmsnorm-placement', "A pre-LN model doesn't need a final norm inside the stack, but it needs one before the output layer."),
    ('parallel-ulysses', 'Ulysses can use more devices than heads, but only when combined with a ring across nodes.'),
    ('block-bn-vs-ln', 'BatchNorm normalises per token, but only in the sense that every token is rescaled with statistics taken over the batch.'),
    ('decoding-rules', 'Top-p keeps the same number of tokens, but only when the distribution is the same.'),
    ('parallel-ulysses', "Ulysses's communication increases with the number of devices, but only in total; per rank it falls as 1/P."),
    ('decoding-speculative', "The emitted tokens approximate the target's distribution, but only by rounding."),
    ('decoding-rules', 'Top-p keeps the same number of tokens, but only when the model is equally confident.'),
    ('block-moe-routing', 'MoE makes a model cheaper to store, but only per token.'),
    ('parallel-bytes', 'Ulysses scales past the heads, but only combined with a ring across nodes.'),
    ('block-bn-vs-ln', "LayerNorm normalises over the batch, but only over each token's own features."),
    ('block-bn-vs-ln', 'LayerNorm 在批次上归一化，但只是在每个 token 自己的特征上。'),
]

# M-1: the same myths followed by an unrelated clause are still flagged
M1_UNRELATED = [
    ('block-ffn-activations', 'SwiGLU adds parameters to the FFN, but the model is large anyway.'),
    ('decoding-batching', 'Chunked prefill changes the output, but it is faster.'),
    ('decoding-speculative', 'Speculative decoding is approximate, but it is much faster.'),
    ('parallel-zigzag', "A causal mask halves every rank's work, but the ring is still slow."),
]

# M-10: a later clause that merely mentions a large batch or a shared prefix no longer spares the myth
M10_UNRELATED = [
    ('decoding-to-text', 'Decoding is compute-bound, but a large batch needs more memory.'),
    ('decoding-to-text', 'Decoding is compute-bound, but a shared prefix saves memory.'),
    ('decoding-to-text', 'Decoding is compute-bound, but big batches need more KV cache.'),
    ('decoding-to-text', '解码是计算受限的，但大 batch 需要更多显存。'),
    ('decoding-to-text', '解码是计算受限的，但共享前缀可以省显存。'),
    ('scale-prefill-decode', 'Decoding is compute-bound, but a large batch needs more memory.'),
]

# … and '…, but <an unrelated clause>' is still flagged
UNRELATED = [
    ('parallel-kinds', 'ZeRO keeps the whole optimizer state on every rank, but it is easy to use.'),
    ('block-moe-routing', 'MoE makes a model cheaper to store, but routing is tricky.'),
    ('block-moe-routing', 'MoE 让模型存储更省，但路由很难训练。'),
    ('decoding-to-text', 'Each step re-runs the whole sequence through the model, but decoding is still fast.'),
    ('decoding-budget', 'Batching more sequences makes each token slower in proportion, but throughput matters more.'),
    ('block-rmsnorm-placement', "A pre-LN model doesn't need a final LayerNorm, but post-LN needs warm-up."),
    ('parallel-ulysses', 'Ulysses can use more devices than heads, but its all-to-all stresses the network.'),
    ('parallel-ulysses', 'Ulysses can use more devices than heads, but only if the heads are replicated.'),
    ('block-bn-vs-ln', 'BatchNorm normalises per token, but it needs running statistics.'),
    ('decoding-rules', 'top-p 保留的 token 数是固定的，但 top-k 也常用。'),
    ('decoding-rules', 'Top-p always keeps the same number of tokens, but it is popular.'),
    ('parallel-ulysses', "Ulysses's communication per rank increases with the number of devices, but it is still cheap."),
    ('block-bn-vs-ln', 'LayerNorm depends on the batch, but it is cheap.'),
    ('block-rmsnorm-placement', 'pre-LN 模型不需要最后的 LayerNorm，但需要预热。'),
    ('decoding-speculative', "The emitted tokens only approximate the target's distribution, but decoding is faster."),
    ('parallel-bytes', 'Ulysses scales past the heads, but it needs a fast network.'),
    ('block-ffn-activations', 'SwiGLU 会增加参数，但效果更好。'),
    ('decoding-batching', '分块 prefill 的输出会不同，但延迟更低。'),
    ('decoding-speculative', '投机解码的结果不完全一样，但速度快很多。'),
    ('parallel-zigzag', '因果掩码让每个 rank 工作量减半，但环形很慢。'),
    ('parallel-ulysses', 'Ulysses 可以用比头数更多的卡，但 all-to-all 对网络压力大。'),
    ('parallel-ulysses', 'Ulysses 每个 rank 的通信量随卡数增加，但总量不大。'),
    ('parallel-kinds', 'ZeRO 让每个 rank 都保存完整的优化器状态，但它很好用。'),
    ('block-bn-vs-ln', 'BatchNorm 对每个 token 单独归一化，但推理时要用滑动平均。'),
    ('decoding-to-text', '解码受算力限制，但大 batch 需要更多显存。'),
    ('parallel-ulysses', "Ulysses's communication per rank increases with the number of devices, but the total traffic is small."),
]

# M-4 / M-5: plain myth forms that were missed
M45_PLAIN_MYTHS = [
    ('block-rmsnorm-placement', "A pre-LN model doesn't need a final LayerNorm."),
    ('block-rmsnorm-placement', 'Pre-LN models need no final LayerNorm before the output layer.'),
    ('block-rmsnorm-placement', 'With pre-LN the final LayerNorm is unnecessary.'),
    ('block-rmsnorm-placement', 'pre-LN 模型不需要最后的 LayerNorm。'),
    ('block-what-else', "A pre-LN model doesn't need a final LayerNorm."),
    ('parallel-ulysses', 'Ulysses can use more devices than heads.'),
    ('parallel-ulysses', 'Ulysses can run on more devices than there are heads.'),
    ('parallel-ulysses', 'Ulysses 可以用比头数更多的卡。'),
    ('parallel-split-attention', 'Ulysses can use more devices than heads.'),
    ('parallel-kinds', 'ZeRO keeps the whole optimizer state on every rank.'),
    ('parallel-kinds', 'With FSDP every rank keeps the full optimizer state.'),
    ('parallel-kinds', 'ZeRO 让每个 rank 都保存完整的优化器状态。'),
    ('block-what-else', 'BatchNorm normalises per token.'),
    ('block-bn-vs-ln', 'BatchNorm normalises per token.'),
    ('block-bn-vs-ln', 'BatchNorm computes its statistics per token.'),
    ('block-bn-vs-ln', 'BatchNorm 对每个 token 单独归一化。'),
    ('decoding-to-text', '解码受算力限制。'),
    ('decoding-to-text', '解码主要受算力限制。'),
    ('scale-prefill-decode', '解码受算力限制。'),
    ('decoding-rules', 'top-p 保留的 token 数是固定的。'),
    ('decoding-rules', 'top-p 每次保留的 token 数是固定的。'),
    ('decoding-rules', 'Top-p always keeps the same number of tokens.'),
    ('decoding-batching', '分块 prefill 会降低精度。'),
    ('decoding-batching', 'Chunked prefill lowers the accuracy.'),
    ('decoding-speculative', '投机解码会降低精度。'),
    ('decoding-speculative', 'Speculative decoding lowers the quality of the output.'),
    ('parallel-ulysses', "Ulysses's communication per rank increases with the number of devices."),
    ('parallel-ulysses', 'Ulysses traffic per rank increases with the number of devices.'),
    ('parallel-ulysses', 'Ulysses 每个 rank 的通信量随卡数增加。'),
    ('parallel-bytes', "Ulysses's communication per rank increases with the number of devices."),
]

# M-3: central contrasts typed the wrong way round do not tick their point
M3_REVERSED = [
    ('block-bn-vs-ln', 0, "LayerNorm takes per-feature statistics over all tokens of the batch; BatchNorm normalises over each token's features."),
    ('block-bn-vs-ln', 0, 'LayerNorm 对每个特征在批次所有 token 上统计；BatchNorm 在每个 token 的特征上统计。'),
    ('block-what-else', 1, 'BatchNorm normalises each token over its features, independent of the batch.'),
    ('block-what-else', 2, 'LayerNorm depends on the batch, padding and future tokens; it breaks for decoding.'),
    ('block-what-else', 4, 'The attention holds about two thirds of the weights.'),
    ('block-rmsnorm-placement', 3, 'Post-LN normalises the sub-layer input and needs a final norm.'),
    ('block-moe-routing', 5, 'k experts are stored, but every token uses all of them.'),
    ('block-training-memory', 1, 'A 16-bit master copy because small updates round away in fp32.'),
    ('decoding-to-text', 3, 'A decode step reads all weights for one token per sequence, so it is compute-bound.'),
    ('decoding-to-text', 3, '每个解码步为每条序列一个 token 读全部权重和 cache，所以受算力限制。'),
    ('decoding-temperature', 1, 'Temperature changes the most likely token but keeps the entropy.'),
    ('decoding-temperature', 1, '温度改变最可能的 token，但不改变熵。'),
    ('decoding-speculative', 3, "The emitted tokens only approximate the target's distribution."),
    ('decoding-batching', 3, 'Disaggregation puts memory-bound prefill and compute-bound decode on separate GPUs.'),
    ('decoding-batching', 3, '分离式部署把带宽受限的 prefill 和算力受限的 decode 放在不同 GPU 上。'),
    ('decoding-batching', 1, 'Chunked prefill mixes prompt chunks with decode tokens and gives approximate outputs.'),
    ('decoding-rules', 3, 'Top-p keeps k tokens; top-k keeps the smallest set with mass at least p.'),
    ('decoding-budget', 4, 'While memory-bound, more sequences share the weight read, so time per token grows in proportion to the batch.'),
    ('parallel-head-tp', 1, 'Q/K/V are row-parallel and W_O is column-parallel.'),
    ('parallel-head-tp', 1, 'Q/K/V 按行并行，W_O 按列并行。'),
    ('parallel-kinds', 2, 'Data parallel splits the weight matrices and all-reduces activations every layer.'),
    ('parallel-zigzag', 1, 'Compute is equal; the imbalance is bytes.'),
    ('parallel-zigzag', 1, '计算量相同，不均衡的是字节数。'),
    ('parallel-zigzag', 0, 'With causal contiguous shards the first rank is the bottleneck.'),
    ('parallel-ulysses', 2, 'Ulysses per rank sends 4(P-1)/P^2 B n d elements, growing with P.'),
    ('parallel-ulysses', 3, 'Ulysses can use more devices than heads; P need not divide the heads.'),
    ('parallel-split-attention', 2, 'Partial outputs are merged approximately by their log-sum-exps.'),
    ('parallel-bytes', 4, 'Ulysses scales past the heads and overlaps; the ring is bounded by heads.'),
    ('block-residual', 1, 'Without residuals the gradient is the identity; with residuals it is a product of Jacobians that vanishes.'),
    ('block-ffn-activations', 4, 'SwiGLU keeps the parameter count at d_ff = 4d.'),
    ('block-what-else', 3, 'Post-LN puts the norm before each sub-layer.'),
    ('block-rmsnorm-placement', 2, 'Pre-LN has large top gradients at init and needs warm-up.'),
    ('block-rmsnorm-placement', 0, 'LayerNorm divides by the root mean square.'),
    ('parallel-kinds', 0, 'Tensor parallel keeps the whole model on each device and all-reduces gradients.'),
    ('block-what-else', 2, 'LayerNorm depends on the batch and on padding.'),
    ('block-what-else', 1, 'LayerNorm depends on the batch.'),
    ('block-what-else', 4, 'The attention has about two thirds of the weights.'),
    ('block-ffn-activations', 1, "Attention holds two thirds of the block's weights."),
    ('block-what-else', 4, 'The FFN has only one third of the weights.'),
]

# … and their affirmed reversals do not tick
M9_REVERSED = [
    ('decoding-temperature', 1, 'Temperature changes which token is most likely.'),
    ('parallel-ulysses', 3, 'Ulysses can use more devices than heads.'),
    ('parallel-ulysses', 3, 'Ulysses 可以用比头数更多的卡。'),
]

# … and the correct forms still tick it
M3_CORRECT = [
    ('block-bn-vs-ln', 0, "BatchNorm takes per-feature statistics over all tokens of the batch; LayerNorm over each token's features."),
    ('block-what-else', 1, 'LayerNorm normalises each token over its own features, independent of the batch.'),
    ('block-what-else', 1, 'LayerNorm 对每个 token 自己的特征归一化，和批次无关。'),
    ('block-what-else', 2, 'BatchNorm depends on the batch, padding and future tokens; it breaks for decoding.'),
    ('block-what-else', 2, 'BatchNorm 依赖批次、padding 和未来 token，解码时用不了。'),
    ('block-what-else', 3, 'Pre-LN puts the norm before each sub-layer, with a final norm.'),
    ('block-what-else', 4, 'The FFN holds about two thirds of the weights.'),
    ('block-what-else', 4, 'FFN 约占三分之二的权重。'),
    ('block-rmsnorm-placement', 2, 'Post-LN normalises the stream, has large top gradients at init and needs warm-up.'),
    ('block-rmsnorm-placement', 3, 'Pre-LN normalises the sub-layer input and needs a final norm.'),
    ('block-rmsnorm-placement', 0, 'RMSNorm divides by the root mean square, with no mean subtraction and no bias.'),
    ('block-moe-routing', 5, 'All experts are stored, but each token uses only k of them.'),
    ('block-training-memory', 1, 'An fp32 master copy because small updates round away in 16 bits.'),
    ('decoding-to-text', 3, 'A decode step reads all weights for one token per sequence, so at small batch it is memory-bound.'),
    ('decoding-temperature', 1, 'Temperature keeps the order of the logits, so the most likely token never changes; only the entropy does.'),
    ('decoding-speculative', 3, "The emitted token has probability min(p, q) + max(0, p - q) = p, exactly the target's distribution."),
    ('decoding-batching', 3, 'Disaggregation puts compute-bound prefill and memory-bound decode on separate GPUs.'),
    ('decoding-batching', 3, '分离式部署把算力受限的 prefill 和带宽受限的 decode 放在不同 GPU 上。'),
    ('decoding-batching', 1, 'Chunked prefill mixes prompt chunks with decode tokens and gives identical outputs in exact arithmetic.'),
    ('decoding-rules', 3, 'Top-k keeps k tokens; top-p keeps the smallest set with mass at least p.'),
    ('decoding-budget', 4, 'While memory-bound, more sequences share the weight read, so time per token grows far less than the batch.'),
    ('parallel-head-tp', 1, 'Q/K/V are column-parallel and W_O is row-parallel.'),
    ('parallel-head-tp', 1, 'Q/K/V 按列并行，W_O 按行并行。'),
    ('parallel-kinds', 2, 'Tensor parallel splits the weight matrices and all-reduces activations every layer.'),
    ('parallel-kinds', 0, 'Data parallel splits the batch, keeps the whole model on each device and all-reduces gradients.'),
    ('parallel-zigzag', 1, 'Bytes are equal; the imbalance is compute.'),
    ('parallel-zigzag', 1, '字节数相同，不均衡的是计算量。'),
    ('parallel-zigzag', 0, 'With causal contiguous shards the last rank is the bottleneck.'),
    ('parallel-ulysses', 2, 'Ulysses per rank sends 4(P-1)/P^2 B n d elements, falling as 1/P.'),
    ('parallel-ulysses', 3, 'Each rank owns whole heads, so P <= h; an even split needs P to divide the heads.'),
    ('parallel-split-attention', 2, 'Partial outputs merge exactly by their log-sum-exps.'),
    ('parallel-bytes', 4, 'The ring scales past the heads and overlaps; Ulysses is bounded by heads.'),
    ('block-residual', 1, 'Without residuals the gradient is a product of Jacobians and vanishes or explodes geometrically.'),
    ('block-ffn-activations', 4, 'SwiGLU keeps the parameter count at d_ff = 8/3 d.'),
    ('block-rmsnorm-placement', 0, 'RMSNorm, unlike LayerNorm, divides by the root mean square.'),
    ('block-what-else', 1, 'LayerNorm normalises each token over its own features and does not depend on the batch.'),
    ('block-what-else', 2, 'BatchNorm, unlike LayerNorm, depends on the batch and breaks for decoding.'),
    ('block-what-else', 3, 'Pre-LN, unlike post-LN, puts the norm before each sub-layer.'),
    ('parallel-kinds', 0, 'Data parallelism keeps the whole model on each device, while tensor parallelism splits each weight matrix.'),
    ('block-moe-routing', 5, 'All experts are stored, although each token uses only k of them.'),
    ('block-residual', 1, 'Without residuals the gradient is a product of Jacobians; with residuals it is not.'),
    ('block-ffn-activations', 1, "The FFN holds two thirds of the block's weights."),
    ('block-what-else', 4, 'The FFN has about two thirds of the weights, attention one third.'),
]

# M-9: central points in own words tick by claim patterns with a licensed negation ('~not', '~不能').
# decoding-temperature KP1 is itself a negated key point ('never changes'): its rows may depend on the M-2
# (negated key point) fix made in matcher/language code at the same time; the Ulysses rows do not
M9_OWN_WORDS = [
    ('decoding-temperature', 1, 'Temperature does not change which token is most likely.'),
    ('decoding-temperature', 1, 'Temperature never changes the most likely token.'),
    ('decoding-temperature', 1, '温度不改变最可能的 token。'),
    ('decoding-temperature', 1, '温度不会改变哪个 token 最可能。'),
    ('parallel-ulysses', 3, "Ulysses can't use more devices than heads."),
    ('parallel-ulysses', 3, 'Ulysses cannot run on more devices than there are heads.'),
    ('parallel-ulysses', 3, 'Ulysses 的卡数不能超过头数。'),
    ('parallel-ulysses', 3, 'Ulysses 不能用比头数更多的卡。'),
    ('parallel-split-attention', 4, "Ulysses can't use more devices than heads."),
    ('parallel-bytes', 4, "Ulysses can't use more devices than heads."),
]

NOT_FLAGGED = [*M678_CORRECT, *M1_OWN_CORRECTION, *M10_OWN_CORRECTION, *OWN_CORRECTION]
FLAGGED = [*M1_UNRELATED, *M10_UNRELATED, *UNRELATED, *M45_PLAIN_MYTHS]
NOT_TICKING = [*M3_REVERSED, *M9_REVERSED]
TICKING = [*M3_CORRECT, *M9_OWN_WORDS]

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED)
test_reversed_does_not_tick, test_correct_still_ticks = keypoint_tests(NOT_TICKING, TICKING)
