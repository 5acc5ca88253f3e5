"""Review 17, precision of the key-point ticks (issue 20: key-point agreement >= 93 % in each language).

On the dev corpus the main error was false ticks: key points ticked that the expert label says the answer does not
state. Two general causes were fixed here, per key point, not sentence by sentence:

- a claim pattern so loose that a neighbouring statement ticks it: bags ("3 of: ...") and two-group patterns made of
  the generic words of the whole card (token, target, one, plus, weight, 16, bit, byte, rotation, position, layer,
  language, text, memory, attention), so that "the big model checks them in one pass with k + 1 queries" ticked
  "the acceptance rate sets the speed", "the weights are 16-bit" ticked "an fp32 master copy", "keys are rotated at
  their own position" ticked "rotating values breaks shift invariance", "Var(q_i k_i) = 1" ticked "dividing by
  sqrt(d_k) gives variance 1", "it saves memory and memory traffic" ticked "standard attention is memory-bound",
  "the encoder's last hidden state" ticked "Bahdanau keeps all encoder states", "any vision-language model needs
  cross-attention layers" ticked Flamingo's gated layers. Each pattern now needs the key point's own content.
- a myth flagged but not blocking the key point it contradicts: "training memory is the 16-bit weights, 2 bytes
  per parameter" now blocks the 16-bit weights-and-gradients and the fp32 master copy points; "rotate the cached keys
  by the current position" blocks "that is a bug"; "reshape straight to (B, h, n, d_k)" blocks "reshape, then
  transpose"; "Bahdanau computes one context once" blocks "scores each state from the previous decoder state".

NOT_TICKING: the false-tick forms (fresh variants, not only the corpus sentences); TICKING: paraphrases of each
touched key point that must still tick.
"""

from __future__ import annotations

from checker_support import keypoint_tests

# (card, key point, sentence): must NOT tick that key point
NOT_TICKING = [
    # decoding-speculative: the bags of generic words (token, target, one, plus, pass)
    ('decoding-speculative', 4, 'The big model checks all k drafted tokens in a single forward pass with k + 1 queries.'),
    ('decoding-speculative', 4, 'The target runs one pass over the k + 1 positions and scores every drafted token.'),
    ('decoding-speculative', 0, 'The emitted token has probability min(p, q) + max(0, p - q) = p, like the target.'),
    ('decoding-speculative', 0, "The output tokens follow the target's distribution exactly."),
    ('decoding-speculative', 2, 'The emitted token has probability min(p, q) + max(0, p - q) = p, so every token is drawn as the target would.'),
    ('decoding-speculative', 2, 'On a rejection the target draws a replacement token.'),
    ('decoding-speculative', 1, 'Each emitted token has probability min(p, q) + max(0, p - q), which equals p.'),
    # block-training-memory: 16-bit weights are not the fp32 master copy; the 2-bytes myth blocks both points
    ('block-training-memory', 1, 'The weights are kept in bf16, 2 bytes each.'),
    ('block-training-memory', 1, 'You store 16-bit weights and 16-bit gradients.'),
    ('block-training-memory', 1, '权重是 16 位的，每个参数 2 字节。'),
    ('block-training-memory', 0, 'Training a model takes 2 bytes per parameter, since the weights are 16-bit.'),
    ('block-training-memory', 1, 'Training a model takes 2 bytes per parameter, since the weights are 16-bit.'),
    ('block-training-memory', 0, '训练显存就是权重，每个参数 2 字节。'),
    # pos-rope-details: a key rotated at its position is not "rotating values breaks shift invariance"
    ('pos-rope-details', 1, 'Each key is rotated once at its own position and cached that way.'),
    ('pos-rope-details', 1, 'Rotating the cached keys by the current position makes the positions cancel.'),
    ('pos-rope-details', 1, '每个 key 按自己的位置旋转一次再存进缓存。'),
    ('pos-rope-details', 4, 'Keep the raw keys in the cache and rotate all of them by the current decoding position when you read them.'),
    # scaling-variance-derivation: one term's variance of 1 is not the division by sqrt(d_k)
    ('scaling-variance-derivation', 3, 'By independence each term has variance E[q_i^2] E[k_i^2] = 1.'),
    ('scaling-variance-derivation', 3, 'The components have zero mean and variance 1.'),
    ('scaling-variance-derivation', 3, '每一项的方差是 1。'),
    # cx-flashattention: what FlashAttention saves is not why standard attention is memory-bound
    ('cx-flashattention', 0, 'FlashAttention cuts memory use and memory traffic.'),
    ('cx-flashattention', 0, 'It is an IO-aware kernel for exact attention.'),
    # rnn-seq2seq-bottleneck: the encoder's last state is not Bahdanau keeping all states; the one-context myth
    ('rnn-seq2seq-bottleneck', 2, "The source is squeezed into the encoder's final hidden state."),
    ('rnn-seq2seq-bottleneck', 2, 'The decoder only sees the last encoder state.'),
    ('rnn-seq2seq-bottleneck', 2, 'Bahdanau keeps all the encoder hidden states and takes one weighted sum of them up front, a single context for the whole sentence.'),
    # mask-cross-attention-multimodal: cross-attention layers in general are not Flamingo's gated layers
    ('mask-cross-attention-multimodal', 2, 'Every vision-language model hooks the image into the text model with cross-attention layers.'),
    ('mask-cross-attention-multimodal', 2, 'LLaVA concatenates the image tokens with the text tokens for the language model.'),
    ('mask-cross-attention-multimodal', 3, 'Flamingo adds gated cross-attention layers to a frozen language model.'),
    ('mask-cross-attention-multimodal', 3, 'The gated layers read the visual tokens while the LM stays frozen.'),
    # mh-split-heads: "reshape straight to (B, h, n, d_k)" (the myth) blocks "reshape, then transpose"
    ('mh-split-heads', 0, 'Take the (B, n, d_model) projection and view it straight as (B, h, n, d_k); if the shapes match the reshape is right.'),
    ('mh-split-heads', 0, '(B, n, d_model) 只要形状对，直接 view 成 (B, h, n, d_k) 就行。'),
]

# (card, key point, sentence): must still tick that key point
TICKING = [
    ('decoding-speculative', 4, 'The acceptance rate sets how fast it goes.'),
    ('decoding-speculative', 4, 'With acceptance rate α a target pass yields (1 - α^(k+1)) / (1 - α) tokens on average.'),
    ('decoding-speculative', 4, '接受率 α 决定速度。'),
    ('decoding-speculative', 0, 'A small draft model proposes k tokens.'),
    ('decoding-speculative', 0, 'The target verifies the k drafted tokens in one pass of k + 1 queries over its KV cache.'),
    ('decoding-speculative', 0, '草稿模型先提出 k 个 token，目标模型一次前向验证。'),
    ('decoding-speculative', 2, 'If all k are accepted, a bonus token is drawn from the last distribution.'),
    ('decoding-speculative', 2, "When every draft passes you also get one extra token from the target's last distribution."),
    ('decoding-speculative', 1, 'Draft token i is accepted with probability min(1, p_i/q_i).'),
    ('decoding-speculative', 1, 'At the first rejection it resamples from the normalised residual max(0, p - q).'),
    ('block-training-memory', 1, 'There is an fp32 master copy of the weights, 4 bytes.'),
    ('block-training-memory', 1, 'Small updates would round away in 16 bits, so a master copy is kept in fp32.'),
    ('block-training-memory', 1, '还有 fp32 的主权重，4 字节。'),
    ('block-training-memory', 0, 'The 16-bit weights and gradients take 2 bytes each.'),
    ('block-training-memory', 0, '16 位的权重和梯度各占 2 字节。'),
    ('pos-rope-details', 1, 'Rotating the values would pass absolute positions into the output and break shift invariance.'),
    ('pos-rope-details', 1, 'Rotating v would leak absolute position into the output.'),
    ('pos-rope-details', 1, '旋转 value 会把绝对位置带进输出，破坏平移不变性。'),
    ('pos-rope-details', 4, 'Rotating the cached keys by the current position cancels the positions, which is a bug.'),
    ('pos-rope-details', 4, '按当前位置旋转缓存的 key 会让位置抵消。'),
    ('scaling-variance-derivation', 3, 'Dividing by sqrt(d_k) brings the variance back to 1.'),
    ('scaling-variance-derivation', 3, 'Dividing by a constant c divides the variance by c squared, so the scaled score has variance 1.'),
    ('scaling-variance-derivation', 3, '除以 √d_k 后方差为 1。'),
    ('cx-flashattention', 0, 'Standard attention is memory-bound.'),
    ('cx-flashattention', 0, 'Standard attention writes and reads the n by n matrix in main memory, so the memory traffic bounds it.'),
    ('rnn-seq2seq-bottleneck', 2, 'Bahdanau keeps all the encoder states.'),
    ('rnn-seq2seq-bottleneck', 2, 'It scores each encoder state against the previous decoder state.'),
    ('rnn-seq2seq-bottleneck', 2, 'Bahdanau 保留所有编码器状态。'),
    ('mask-cross-attention-multimodal', 2, 'Flamingo inserts gated cross-attention layers into a frozen language model.'),
    ('mask-cross-attention-multimodal', 2, 'In Flamingo, new gated cross-attention layers let the text query the visual tokens.'),
    ('mask-cross-attention-multimodal', 2, 'Flamingo 在冻结的语言模型里插入门控交叉注意力层。'),
    ('mask-cross-attention-multimodal', 3, 'The tanh gates start at 0.'),
    ('mask-cross-attention-multimodal', 3, 'At initialisation the model is exactly the frozen language model.'),
    ('mask-cross-attention-multimodal', 3, 'tanh 门初始为 0。'),
    ('mh-split-heads', 0, 'Reshape (B, n, d_model) to (B, n, h, d_k), then transpose to (B, h, n, d_k).'),
    ('mh-split-heads', 0, 'View the projection as (B, n, h, d_k) and transpose the middle two axes.'),
]

test_false_statement_does_not_tick, test_correct_statement_still_ticks = keypoint_tests(NOT_TICKING, TICKING)
