"""Review round 12 of chapters 13-15 (reviews/2026-12-03/s11-r12-ch13-15.md): the checker findings M-1 ... M-4,
L-1 ... L-3 (M-5 and L-4 are content wording, fixed by the lead).

- M-1: key points ticked on their own explicit negation, because a claim holds only the subject ("post + ln") or a
  noun bag; those claims now require the point's predicate (needs warm-up, keeps the whole model, depends, leaks).
- M-2: a point whose negation sits in the clause of its claim ("does not shrink on average", "instead of a large
  auxiliary loss", "(no communication)") was ticked by its reversal; the claims name the negated concept with its
  negation ("not shrink", "~instead of + auxiliari loss") or exclude the reversal.
- M-3: wrong-subject swaps of central contrasts (draft/target, Switch/DeepSeek-V3, static/continuous batching,
  LayerNorm/RMSNorm, pre/post-LN, prefill/decode, ring/Ulysses, zigzag/striped, top-k/top-p): the subject is a
  required group and the other subject excluded.
- M-4: plain myth forms missed ("Raising T changes the argmax.", "With FSDP each GPU still stores all the weights
  and Adam moments.", ...).
- L-1: SwiGLU's own "at 8/3 d" correction; L-2: "far more than the 2 bytes"; L-3: three correct paraphrases.

Left (need matcher.py / language.py, not edited here):
- a subject in an earlier comma clause of the sentence: "Post-LN places the norm ahead of every sub-layer, plus a final
  norm." (block-what-else KP3 via "plus a final norm"), "Tensor parallelism splits the batch, keeps a whole model copy
  per device and all-reduces the gradients." (parallel-kinds KP0 via its second clause): a key-point claim has no
  sentence-level exclusion (`!!` is read for myths only);
- a myth split over two clauses: "batch 越大每个 token 越慢，成正比。" (myths match one clause), "You can use Ulysses on
  128 GPUs even if the model has only 64 heads." (the myth sits in the "even if" clause);
- "SwiGLU adds parameters to the FFN, unless you shrink d_ff to 8d/3." (OPEN): an "unless" clause after a myth is
  neither a limitation (`!!>`) nor a condition (`!!!`) for it.
"""

from __future__ import annotations

from checker_support import checker_tests, keypoint_tests

M1_NEGATED = [
    ('block-rmsnorm-placement', 2, 'Post-LN does not need warm-up.'),
    ('parallel-kinds', 0, 'Data parallel does not keep the whole model on each device.'),
    ('block-bn-vs-ln', 1, "With BatchNorm a sequence's output doesn't depend on padding."),
    ('block-bn-vs-ln', 1, 'BatchNorm 时一个序列的输出不依赖同批其他序列和 padding。'),
    ('block-bn-vs-ln', 2, 'In a causal model batch statistics do not leak future tokens.'),
    ('block-bn-vs-ln', 2, '因果模型里批统计量不会泄露未来 token。'),
    ('block-what-else', 2, 'BatchNorm does not depend on the batch, padding or future tokens.'),
    ('block-residual', 1, 'Without residuals the gradient does not vanish or explode.'),
    ('block-residual', 3, "Unscaled branches don't grow the stream's variance."),
]

M1_MENTION = [
    ('block-rmsnorm-placement', 2, 'Post-LN is one placement.'),
    ('block-rmsnorm-placement', 2, 'Post-LN 是一种放法。'),
    ('block-rmsnorm-placement', 3, 'Pre-LN is another placement.'),
    ('parallel-kinds', 0, 'Data parallelism is the first kind.'),
    ('block-what-else', 3, 'I have read about pre-LN.'),
    ('block-residual', 0, 'y = x + F(x) is how a residual block is written.'),
    ('block-residual', 4, 'People talk about the residual stream.'),
    ('block-moe-routing', 2, 'Switch Transformer has an auxiliary loss.'),
    ('decoding-to-text', 2, 'There is an end-of-sequence token.'),
    ('block-training-memory', 4, 'ZeRO and FSDP exist.'),
]

M2_IN_CLAUSE = [
    ('block-residual', 2, 'At random initialisation the residual gradient shrinks on average.'),
    ('block-residual', 2, 'At random initialisation the residual gradient does shrink on average.'),
    ('block-residual', 2, '随机初始化时有残差的梯度平均会变小。'),
    ('block-moe-routing', 3, 'DeepSeek-V3 does not balance with a selection-only bias.'),
    ('block-moe-routing', 3, 'DeepSeek-V3 balances with a large auxiliary loss instead of a bias.'),
    ('parallel-head-tp', 1, 'Q/K/V are not column-parallel, and W_O is not row-parallel.'),
    ('block-what-else', 2, 'BatchNorm 解码时能用。'),
    # the open rows of tests/test_review13_negation.py these claims fix
    ('block-residual', 3, "Unscaled branches do not grow the stream's variance."),
    ('block-residual', 3, '不缩放的分支不会让残差流的方差增长。'),
    ('parallel-head-tp', 1, 'Q/K/V are not column-parallel.'),
]

M3_SWAPS = [
    ('block-rmsnorm-placement', 2, 'Pre-LN normalises the residual stream, gets large top gradients at init and needs warm-up.'),
    ('block-rmsnorm-placement', 0, 'LayerNorm divides by the root mean square, with no mean subtraction and no bias.'),
    ('block-rmsnorm-placement', 1, 'LayerNorm saves a reduction and half the parameters compared with RMSNorm.'),
    ('parallel-ulysses', 0, 'Ring attention does an all-to-all from token shards to head shards and back.'),
    ('parallel-zigzag', 2, 'Striped attention gives rank r chunks r and 2P - 1 - r.'),
    ('decoding-rules', 3, 'Top-k keeps the smallest set with mass at least p.'),
    ('decoding-batching', 0, 'Continuous batching waits for the longest request; static batching refills slots every step.'),
    ('decoding-speculative', 0, 'The target proposes k tokens and the draft verifies them in one pass.'),
    ('block-moe-routing', 3, 'Switch balances with a selection-only bias instead of an auxiliary loss.'),
    ('block-moe-routing', 4, 'Mixtral adds fine-grained and shared experts.'),
    ('parallel-ring-backward', 0, 'The queries move; K/V blocks stay on their rank.'),
    ('decoding-to-text', 0, 'Prefill runs once per token; decode runs the prompt once.'),
]

# correct statements of the points whose claims changed: they must still tick
STILL_TICKING = [
    ('block-rmsnorm-placement', 2, 'Post-LN normalises the residual stream, has large top-layer gradients at init and needs warm-up.'),
    ('block-rmsnorm-placement', 2, 'Post-LN needs a learning-rate warm-up.'),
    ('parallel-kinds', 0, 'Data parallelism keeps a whole model copy on each device, splits the batch and all-reduces the gradients.'),
    ('block-bn-vs-ln', 1, "With BatchNorm a sequence's output depends on the other sequences and on padding."),
    ('block-bn-vs-ln', 2, 'In a causal model batch statistics leak future tokens into earlier positions.'),
    ('block-residual', 1, 'Without residuals the gradient is a product of Jacobians and vanishes or explodes geometrically.'),
    ('block-residual', 3, "Unscaled branches grow the stream's variance; GPT-2 scales residual projections by 1/sqrt(N)."),
    ('block-residual', 2, 'At random initialisation the residual gradient does not shrink on average.'),
    ('block-moe-routing', 3, 'DeepSeek-V3 balances with a selection-only bias instead of a large auxiliary loss.'),
    ('parallel-head-tp', 1, 'Q/K/V are column-parallel and W_O is row-parallel, with no communication in between.'),
    ('decoding-speculative', 0, 'The draft proposes k tokens and the target verifies them in one pass.'),
    ('decoding-batching', 0, 'Static batching waits for the longest request; continuous batching refills slots every step.'),
    ('decoding-to-text', 0, 'Prefill runs the prompt once; decode runs once per token.'),
    ('parallel-ulysses', 0, 'Ulysses does an all-to-all from token shards to head shards and back.'),
    ('decoding-rules', 3, 'Top-p keeps the smallest set with mass at least p.'),
    ('block-rmsnorm-placement', 0, 'RMSNorm divides by the root mean square, with no mean subtraction and no bias.'),
    ('block-rmsnorm-placement', 1, 'RMSNorm saves a reduction and half the parameters compared with LayerNorm.'),
    # L-3
    ('decoding-temperature', 1, 'Dividing by T keeps the ranking of the logits, so the argmax is the same.'),
    ('decoding-temperature', 1, 'The argmax never changes with temperature; only the entropy does.'),
    ('parallel-ring-backward', 2, 'The log-sum-exp merge is an exact identity, so ring attention is exact.'),
]

M4_FLAGGED = [
    ('block-what-else', 'With pre-LN you can skip the norm after the last block.'),
    ('parallel-kinds', 'With FSDP each GPU still stores all the weights and Adam moments.'),
    ('decoding-to-text', '解码阶段主要受计算能力限制。'),
    ('decoding-rules', 'Nucleus sampling draws from a fixed-size set of tokens.'),
    ('block-residual', 'Residual connections make exploding gradients impossible.'),
    ('decoding-to-text', '每个新 token 都要把前面所有 token 重新算一遍。'),
    ('decoding-temperature', 'Raising T changes the argmax.'),
]

L_NOT_FLAGGED = [
    # L-1
    ('block-ffn-activations', 'SwiGLU has more parameters than a plain FFN, but not at d_ff = 8/3 d.'),
    ('block-ffn-activations', 'SwiGLU adds parameters, but not if d_ff is cut to 8/3 d.'),
    ('block-ffn-activations', 'SwiGLU 增加了参数，但 d_ff 取 8/3 d 时参数量不变。'),
    # L-2
    ('block-training-memory', 'Training memory is far more than the 2 bytes of 16-bit weights per parameter.'),
]

# every touched myth: plain correct near misses (not flagged), "myth, but <unrelated>" (flagged),
# "myth, but <its own correction>" (not flagged)
NEAR_NOT_FLAGGED = [
    ('block-what-else', 'With pre-LN you cannot skip the norm after the last block.'),
    ('block-what-else', 'With post-LN you can skip the final norm, since every sub-layer output is normalised.'),
    ('block-what-else', 'With pre-LN you can skip the norm after the last block, but only if you put one before the output layer.'),
    ('decoding-temperature', 'Raising T never changes the argmax.'),
    ('decoding-temperature', 'Raising T changes the probabilities, not the argmax.'),
    ('decoding-temperature', 'Changing T changes the entropy; the argmax stays.'),
    ('block-residual', 'Residual connections do not make exploding gradients impossible.'),
    ('block-residual', 'Residual connections make vanishing gradients unlikely at initialisation.'),
    ('decoding-rules', 'Top-k samples from a fixed-size set of tokens.'),
    ('decoding-rules', 'Nucleus sampling does not draw from a fixed-size set of tokens.'),
    ('decoding-to-text', '解码阶段主要受显存带宽限制，不受计算能力限制。'),
    ('decoding-to-text', 'prefill 阶段主要受计算能力限制。'),
    ('decoding-to-text', '有 KV cache 时，每个新 token 不用把前面所有 token 重新算一遍。'),
    ('decoding-to-text', '没有 KV cache 时，每个新 token 都要把前面所有 token 重新算一遍。'),
    ('block-ffn-activations', 'SwiGLU keeps the parameter count at d_ff = 8/3 d.'),
    ('block-ffn-activations', 'SwiGLU adds parameters only at the same d_ff; at 8/3 d it matches the FFN.'),
    ('block-training-memory', 'Training memory is much more than 2 bytes per parameter: about 16 with Adam.'),
    ('block-training-memory', 'Inference needs 2 bytes per parameter for 16-bit weights; training needs about 16.'),
    ('parallel-kinds', 'With FSDP each GPU stores only a shard of the weights and Adam moments.'),
    ('parallel-kinds', 'With ZeRO stage 1 each GPU still stores all the weights.'),
    ('parallel-kinds', 'With plain data parallelism each GPU still stores all the weights and Adam moments.'),
]

NEAR_FLAGGED = [
    ('block-what-else', 'With pre-LN you can skip the norm after the last block, but it trains more stably.'),
    ('decoding-temperature', 'Raising T changes the argmax, but it also makes the output more diverse.'),
    ('block-residual', 'Residual connections make exploding gradients impossible, but they cost memory.'),
    ('decoding-rules', 'Nucleus sampling draws from a fixed-size set of tokens, but it is popular.'),
    ('decoding-to-text', '解码阶段主要受计算能力限制，但 prefill 更快。'),
    ('decoding-to-text', '每个新 token 都要把前面所有 token 重新算一遍，但 GPU 很快。'),
    ('block-ffn-activations', 'SwiGLU has more parameters than a plain FFN, but it trains better.'),
    ('block-training-memory', 'Training memory is 2 bytes per parameter, but activations add more.'),
    ('parallel-kinds', 'With FSDP each GPU still stores all the weights and Adam moments, but it shards the batch.'),
]

SWIGLU_OPEN = [('block-ffn-activations', 'SwiGLU adds parameters to the FFN, unless you shrink d_ff to 8d/3.')]

NOT_TICKING = [*M1_NEGATED, *M1_MENTION, *M2_IN_CLAUSE, *M3_SWAPS]

test_false_statement_does_not_tick, test_correct_statement_ticks = keypoint_tests(NOT_TICKING, STILL_TICKING)
test_not_flagged, test_flagged, test_open = checker_tests(
    [*L_NOT_FLAGGED, *NEAR_NOT_FLAGGED], [*M4_FLAGGED, *NEAR_FLAGGED], SWIGLU_OPEN,
    reason="an 'unless' clause after a myth is neither its limitation nor its condition (matcher)",
)
