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
    "alibi_bias": "bias",
    "alibi_slopes": "bias",
    "t5_relative_bucket": "bias",
    "AttentionSteps": "core",
    "attention_steps": "core",
    "scaled_dot_product_attention": "core",
    "softmax": "core",
    "KVCache": "decoding",
    "decode_step": "decoding",
    "tiled_attention": "efficient",
    "causal_mask": "masks",
    "combine_masks": "masks",
    "key_padding_to_attn_mask": "masks",
    "padding_mask": "masks",
    "block_diagonal_mask": "masks",
    "position_ids": "masks",
    "MultiHeadAttention": "multi_head",
    "merge_heads": "multi_head",
    "repeat_kv": "multi_head",
    "grouped_query_attention": "multi_head",
    "split_heads": "multi_head",
    "plot_attention": "plotting",
    "set_seed": "utils",
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
    from .core import AttentionSteps, attention_steps, scaled_dot_product_attention, softmax  # noqa: F401
    from .decoding import KVCache, decode_step  # noqa: F401
    from .efficient import tiled_attention  # noqa: F401
    from .masks import (  # noqa: F401
        block_diagonal_mask,
        causal_mask,
        combine_masks,
        key_padding_to_attn_mask,
        padding_mask,
        position_ids,
    )
    from .multi_head import (  # noqa: F401
        MultiHeadAttention,
        grouped_query_attention,
        merge_heads,
        repeat_kv,
        split_heads,
    )
    from .plotting import plot_attention  # noqa: F401
    from .utils import set_seed  # noqa: F401
