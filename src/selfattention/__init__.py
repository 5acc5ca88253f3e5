"""Self-Attention, Executed: the one implementation every chapter notebook imports.

Names are imported lazily (PEP 562), so `import selfattention` and the `attention-rehearse` command do not pay
for importing torch until an attention function is actually used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "AdditiveAttention": "baselines",
    "GRUBaseline": "baselines",
    "MultiplicativeAttention": "baselines",
    "VanillaRNN": "baselines",
    "RelativePositionBias": "bias",
    "MoE": "block",
    "normalise_tokens": "block",
    "residual_gradient_norms": "block",
    "training_bytes": "block",
    "alibi_bias": "bias",
    "alibi_slopes": "bias",
    "t5_relative_bucket": "bias",
    "AttentionSteps": "core",
    "attention_steps": "core",
    "scaled_dot_product_attention": "core",
    "softmax": "core",
    "KVCache": "caches",
    "PagedKVCache": "caches",
    "RollingKVCache": "caches",
    "SinkKVCache": "caches",
    "sink_positions": "caches",
    "decode_step": "decoding",
    "block_topk_attention": "dynamic_sparse",
    "linear_attention": "efficient",
    "tiled_attention": "efficient",
    "KeyRecallModel": "extrapolation",
    "make_key_recall_data": "extrapolation",
    "attention_with_lse": "flash",
    "flash_attention": "flash",
    "merge_attention_partials": "flash",
    "split_kv_attention": "flash",
    "saved_tensor_bytes": "complexity",
    "count_flops": "complexity",
    "causal_mask": "masks",
    "sliding_window_mask": "masks",
    "streaming_mask": "masks",
    "combine_masks": "masks",
    "key_padding_to_attn_mask": "masks",
    "padding_mask": "masks",
    "attention_intensity": "intensity",
    "kv_numbers_per_token": "intensity",
    "LatentKVCache": "latent",
    "sliding_chunks": "long_inputs",
    "mlm_corrupt": "mlm",
    "MultiHeadLatentAttention": "latent",
    "block_diagonal_mask": "masks",
    "position_ids": "masks",
    "to_torch_mha_masks": "masks",
    "GatedCrossAttention": "cross_modal",
    "FixedTokenMixing": "circuits",
    "differential_attention": "variants",
    "soft_cap": "variants",
    "fit_without_value_projection": "circuits",
    "TargetAttention": "cross_modal",
    "MultiHeadAttention": "multi_head",
    "merge_heads": "multi_head",
    "repeat_kv": "multi_head",
    "grouped_query_attention": "multi_head",
    "mean_pool_kv_heads": "multi_head",
    "windowed_receptive_field": "multi_head",
    "split_heads": "multi_head",
    "plot_attention": "plotting",
    "LearnedPositionalEmbedding": "positional",
    "rope_frequencies": "positional",
    "rope_rotate": "positional",
    "sinusoidal_positions": "positional",
    "yarn_attention_factor": "positional",
    "yarn_ramp": "positional",
    "one_cpu_thread": "utils",
    "set_seed": "utils",
    "DecoderLayer": "transformer",
    "block_cost": "transformer",
    "count_parameters": "transformer",
    "ffn_gradient_norms": "transformer",
    "DecoderOnlyLM": "transformer",
    "EncoderDecoder": "transformer",
    "EncoderLayer": "transformer",
    "FeedForward": "transformer",
    "RMSNorm": "transformer",
    "SwiGLU": "transformer",
    "prefix_lm_mask": "transformer",
    "trace_calls": "transformer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'selfattention' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # cache: the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # static type checkers and IDEs see the real names
    from .baselines import AdditiveAttention, GRUBaseline, MultiplicativeAttention, VanillaRNN  # noqa: F401
    from .bias import RelativePositionBias, alibi_bias, alibi_slopes, t5_relative_bucket  # noqa: F401
    from .block import MoE, normalise_tokens, residual_gradient_norms, training_bytes  # noqa: F401
    from .caches import KVCache, PagedKVCache, RollingKVCache, SinkKVCache, sink_positions  # noqa: F401
    from .circuits import FixedTokenMixing, fit_without_value_projection  # noqa: F401
    from .complexity import count_flops, saved_tensor_bytes  # noqa: F401
    from .core import AttentionSteps, attention_steps, scaled_dot_product_attention, softmax  # noqa: F401
    from .cross_modal import GatedCrossAttention, TargetAttention  # noqa: F401
    from .decoding import decode_step  # noqa: F401
    from .dynamic_sparse import block_topk_attention  # noqa: F401
    from .efficient import linear_attention, tiled_attention  # noqa: F401
    from .extrapolation import KeyRecallModel, make_key_recall_data  # noqa: F401
    from .flash import (  # noqa: F401
        attention_with_lse,
        flash_attention,
        merge_attention_partials,
        split_kv_attention,
    )
    from .intensity import attention_intensity, kv_numbers_per_token  # noqa: F401
    from .latent import LatentKVCache, MultiHeadLatentAttention  # noqa: F401
    from .long_inputs import sliding_chunks  # noqa: F401
    from .masks import (  # noqa: F401
        block_diagonal_mask,
        causal_mask,
        combine_masks,
        key_padding_to_attn_mask,
        padding_mask,
        position_ids,
        sliding_window_mask,
        streaming_mask,
        to_torch_mha_masks,
    )
    from .mlm import mlm_corrupt  # noqa: F401
    from .multi_head import (  # noqa: F401
        MultiHeadAttention,
        grouped_query_attention,
        mean_pool_kv_heads,
        merge_heads,
        repeat_kv,
        split_heads,
        windowed_receptive_field,
    )
    from .plotting import plot_attention  # noqa: F401
    from .positional import (  # noqa: F401
        LearnedPositionalEmbedding,
        rope_frequencies,
        rope_rotate,
        sinusoidal_positions,
        yarn_attention_factor,
        yarn_ramp,
    )
    from .transformer import (  # noqa: F401
        DecoderLayer,
        DecoderOnlyLM,
        EncoderDecoder,
        EncoderLayer,
        FeedForward,
        RMSNorm,
        SwiGLU,
        block_cost,
        count_parameters,
        ffn_gradient_norms,
        prefix_lm_mask,
        trace_calls,
    )
    from .utils import one_cpu_thread, set_seed  # noqa: F401
    from .variants import differential_attention, soft_cap  # noqa: F401
