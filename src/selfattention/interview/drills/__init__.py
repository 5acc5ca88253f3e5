"""'Hand-write attention' coding drills: scaffolds to fill in, and the checks that grade them.

Each drill is a scaffold file (signatures, docstrings, ``raise NotImplementedError``) whose first line is
``# drill: NAME``; ``attention-rehearse grade FILE`` runs the drill's checks (one module per drill, shared
helpers in ``_common.py``, the registry in ``checks.py``) against the package's own implementation in a
worker process with a time limit (``_worker.py``), while the file itself runs in a sandboxed process that
cannot reach the package, write files or call a library attention kernel (``_sandbox.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .scaffolds import SCAFFOLDS

__all__ = ["Drill", "DRILLS", "get_drill", "detect_drill"]


@dataclass(frozen=True)
class Drill:
    """One drill: its name (used in ``# drill: NAME``), a title, what it practises, and the scaffold text."""

    name: str
    title: str
    summary: str
    scaffold: str


DRILLS: dict[str, Drill] = {
    "sdpa": Drill(
        "sdpa",
        "Scaled dot-product attention with a mask",
        "softmax(QK^T / sqrt(d_k)) V with a boolean mask (True = may attend); return output and weights",
        SCAFFOLDS["sdpa"],
    ),
    "causal": Drill(
        "causal",
        "Causal mask + numerically stable softmax",
        "a lower-triangular mask, a softmax that survives scores of 1e4 and fully masked rows, "
        "and causal attention without future leaks",
        SCAFFOLDS["causal"],
    ),
    "mha": Drill(
        "mha",
        "Multi-head attention module",
        "an nn.Module with q/k/v/out projections, head split and merge; equals "
        "selfattention.MultiHeadAttention after copying weights",
        SCAFFOLDS["mha"],
    ),
    "kv_cache": Drill(
        "kv_cache",
        "One KV-cache decoding step",
        "append the new key/value to the cache and attend from the new token; token-by-token "
        "decoding must equal full causal attention",
        SCAFFOLDS["kv_cache"],
    ),
    "alibi": Drill(
        "alibi",
        "ALiBi bias",
        "per-head slopes (also for a head count that is not a power of 2), the distance bias, and "
        "causal attention with it",
        SCAFFOLDS["alibi"],
    ),
    "gqa": Drill(
        "gqa",
        "Grouped-query attention",
        "h query heads share g key/value heads (head i uses kv head i // (h/g): repeat_interleave, not "
        "repeat); g = h is MHA, g = 1 is MQA",
        SCAFFOLDS["gqa"],
    ),
    "kv_chunk": Drill(
        "kv_chunk",
        "Multi-token KV-cache step",
        "m new tokens against a cache of p: the causal mask aligned bottom-right (query i sits at p + i); "
        "chunk-by-chunk decoding must equal full causal attention",
        SCAFFOLDS["kv_chunk"],
    ),
    "rope": Drill(
        "rope",
        "Rotary position embedding",
        "rotate interleaved pairs by position x theta_i; q_m . k_n must depend on m - n only",
        SCAFFOLDS["rope"],
    ),
    "online_softmax": Drill(
        "online_softmax",
        "Tiled attention with an online softmax",
        "keys in blocks with a running max and sum (FlashAttention's recurrence); exact, no softmax call",
        SCAFFOLDS["online_softmax"],
    ),
}

_HEADER_RE = re.compile(r"^\s*#\s*drill:\s*([A-Za-z0-9_\-]+)\s*$", re.M)


def get_drill(name: str) -> Drill:
    """The drill called ``name``; ``KeyError`` naming the valid names otherwise."""
    if name not in DRILLS:
        raise KeyError(f"unknown drill {name!r}; valid drills: {', '.join(DRILLS)}")
    return DRILLS[name]


def detect_drill(source: str) -> str | None:
    """The NAME in a ``# drill: NAME`` comment within the first 30 lines, or None."""
    head = "\n".join(source.splitlines()[:30])
    m = _HEADER_RE.search(head)
    return m.group(1) if m else None
