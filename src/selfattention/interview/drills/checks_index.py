"""Names of the grading checks per drill, importable without torch (the checks: one module per drill)."""

from __future__ import annotations

__all__ = ["NAMES"]

NAMES: dict[str, list[str]] = {
    "sdpa": [
        "returns (out, weights) with the right shapes",
        "each row of weights sums to 1 (softmax over the keys)",
        "matches the reference without a mask (3 shapes)",
        "mask: False positions get weight 0, output matches",
        "padding mask (B, 1, 1, n_k) broadcasts",
        "stays finite and correct for large scores",
        "float16 inputs: correct, and the mask fill fits in float16",
    ],
    "causal": [
        "causal_mask: lower-triangular bool, diagonal included",
        "stable_softmax matches softmax over the last dim",
        "stable_softmax: no overflow at scores of 1e4",
        "stable_softmax: masked positions get exactly 0",
        "stable_softmax: a fully masked row gives zeros, not NaN",
        "causal_attention matches the reference",
        "causal_attention: no future leak",
    ],
    "mha": [
        "constructs q/k/v/out projections; rejects d_model % num_heads != 0",
        "output shape (B, n, d_model)",
        "one head equals selfattention.MultiHeadAttention (weights copied)",
        "4 heads equal selfattention.MultiHeadAttention (weights copied)",
        "causal mask (n, n) gives the reference output",
        "with a causal mask: no future leak",
    ],
    "kv_cache": [
        "returns out (B, h, 1, d_v) and caches grown by one",
        "caches: new key/value appended at the end (as KVCache.append)",
        "output equals attention over cache + new token (also from an empty cache)",
        "decoding token by token equals full causal attention",
    ],
    "alibi": [
        "alibi_slopes(8) = 1/2, 1/4, ..., 1/256",
        "alibi_slopes for a head count that is not a power of 2",
        "alibi_bias(h, n): -m_h (i - j) on and below the diagonal",
        "alibi_attention matches the reference (causal + bias)",
        "alibi_attention: no future leak",
    ],
    "gqa": [
        "output shape (B, h, n_q, d_v)",
        "g = h equals multi-head attention",
        "g = 1 (MQA): every query head uses the one key/value head",
        "g = 2, h = 8: query head i uses key/value head i // 4",
        "mask applies to every head",
        "h not a multiple of g raises ValueError",
        "d_v != d_k, a per-head mask (B, h, n_q, n_k) and a padding mask (B, 1, 1, n_k)",
        "float16 inputs: correct, and the mask fill fits in float16",
    ],
    "kv_chunk": [
        "returns out (B, h, m, d) and caches grown by m",
        "caches: new keys/values appended at the end",
        "out equals the last m rows of full causal attention (cache p = 4, m = 3)",
        "from an empty cache (p = 0): equals full causal attention",
        "decoding in chunks of 2, 3, 1 equals full causal attention",
    ],
    "rope": [
        "keeps the shape and dtype of x",
        "position 0 leaves x unchanged",
        "matches the reference rotation (interleaved pairs, theta_i = base^(-2i/d))",
        "keeps the norm of every row",
        "rope(q, m) . rope(k, n) depends on m - n only",
        "another base, positions beyond 12 (up to 4095), float16 and bfloat16",
    ],
    "online_softmax": [
        "output shape (..., n_q, d_v)",
        "equals full attention when block_size divides n_k",
        "equals full attention when it does not (n_k = 10, block_size = 4)",
        "block_size = 1 and block_size > n_k",
        "scores up to ~1e4 stay finite and exact",
        "rows whose scores are all far below 0 (the running max starts at -inf)",
        "never builds the full (n_q, n_k) score matrix",
    ],
}
