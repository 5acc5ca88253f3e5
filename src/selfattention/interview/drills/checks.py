"""The checks behind ``attention-rehearse grade``, one module per drill (``sdpa.py``, ``causal.py``, ...), the
shared helpers in ``_common.py``.

A check is ``fn(module) -> None`` that raises `CheckFailed` with a plain-words reason: a wrong shape (expected
vs got), rows that don't sum to 1, a future leak (output at position i changes when a later token changes),
a mismatch with the reference (seed, shapes and max abs error of the failing case), or the exception the code
raised. Most checks also try to name the likely bug (missing scale, softmax over the wrong axis, ...).
They run in the grader's worker process; ``module`` is the candidate's file living in another, sandboxed
process (``_sandbox.py``): nothing the candidate's code does can reach the reference or the expected values.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from . import alibi, causal, gqa, kv_cache, kv_chunk, mha, online_softmax, rope, sdpa
from ._common import CheckFailed, where
from .checks_index import NAMES

__all__ = ["CheckFailed", "CHECKS", "where"]

Check = Callable[[ModuleType], None]

_FUNCS: dict[str, list[Check]] = {
    "sdpa": [
        sdpa.sdpa_shapes,
        sdpa.sdpa_rows,
        sdpa.sdpa_reference,
        sdpa.sdpa_mask,
        sdpa.sdpa_padding,
        sdpa.sdpa_large,
        sdpa.sdpa_fp16,
    ],
    "causal": [
        causal.causal_mask_check,
        causal.softmax_basic,
        causal.softmax_overflow,
        causal.softmax_mask,
        causal.softmax_fully_masked,
        causal.causal_attention_check,
        causal.causal_leak,
    ],
    "mha": [mha.mha_init, mha.mha_shape, mha.mha_one_head, mha.mha_heads, mha.mha_mask, mha.mha_leak],
    "kv_cache": [kv_cache.kv_shapes, kv_cache.kv_append, kv_cache.kv_output, kv_cache.kv_sequence],
    "alibi": [
        alibi.alibi_pow2,
        alibi.alibi_non_pow2,
        alibi.alibi_bias_check,
        alibi.alibi_attention_check,
        alibi.alibi_leak,
    ],
    "gqa": [
        gqa.gqa_shape,
        gqa.gqa_mha,
        gqa.gqa_mqa,
        gqa.gqa_groups,
        gqa.gqa_mask,
        gqa.gqa_rejects,
        gqa.gqa_masks_dv,
        gqa.gqa_fp16,
    ],
    "kv_chunk": [
        kv_chunk.chunk_shapes,
        kv_chunk.chunk_append,
        kv_chunk.chunk_last_rows,
        kv_chunk.chunk_empty_cache,
        kv_chunk.chunk_sequence,
    ],
    "rope": [
        rope.rope_shape,
        rope.rope_zero,
        rope.rope_reference,
        rope.rope_norm,
        rope.rope_relative,
        rope.rope_precision,
    ],
    "online_softmax": [
        online_softmax.online_shape,
        online_softmax.online_divides,
        online_softmax.online_ragged,
        online_softmax.online_extremes,
        online_softmax.online_large,
        online_softmax.online_negative_row,
        online_softmax.online_no_full_matrix,
    ],
}
CHECKS: dict[str, list[tuple[str, Check]]] = {
    d: list(zip(NAMES[d], fns, strict=True)) for d, fns in _FUNCS.items()
}
