"""Arithmetic intensity of attention (the roofline view): FLOPs per byte moved, prefill vs decode.

Scope: the attention core of one layer (scores q k^T and the weighted sum A v, a multiply-add = 2 FLOPs as in
``FlopCounterMode``), without the projections, softmax or masking. Bytes: the tensors the core reads (q, the
keys and values, or MLA's latent cache) and writes (the output), each once: the least traffic any kernel can
have, so the intensity is an upper bound (the ideal). FlashAttention never writes the n_q x n_k weights and
makes Theta(n^2 d^2 / M) HBM accesses (Dao 2022 Thm 2); the loop order modelled here, FlashAttention-2's,
streams K and V once per query block (the first paper's loops over K/V blocks outside and re-reads Q and O);
a real prefill kernel approaches the ideal only through on-chip and L2 reuse (without it the intensity is
about the query-block height B_r, see ``streamed_prefill_intensity``). Prefill is counted without causal
skipping (full n x n).
"""

from __future__ import annotations

import math

from ._checks import check_divisible, check_positive_int

__all__ = ["attention_intensity", "kv_numbers_per_token", "streamed_prefill_intensity"]


def attention_intensity(
    phase: str,
    n: int,
    num_heads: int,
    d_head: int | None = None,
    num_kv_heads: int | None = None,
    batch: int = 1,
    bytes_per_element: int = 2,
    d_latent: int | None = None,
    d_rope: int | None = None,
) -> dict[str, float]:
    """FLOPs, bytes and FLOPs/byte of one layer's attention core: ``phase`` 'prefill' (n queries) or 'decode'.

    MHA: ``num_kv_heads`` None (= num_heads); GQA / MQA: fewer K/V heads. MLA (absorbed, DeepSeek-V2): give
    ``d_latent`` and ``d_rope``; every head attends to one shared cache of width d_latent + d_rope whose first
    d_latent columns are also the values. Decode: 1 query per sequence against a cache of n positions.
    """
    if phase not in ("prefill", "decode"):
        raise ValueError(f"phase must be 'prefill' or 'decode': got {phase!r}")
    n = check_positive_int(n, "n")
    h = check_positive_int(num_heads, "num_heads")
    b = check_positive_int(batch, "batch")
    e = check_positive_int(bytes_per_element, "bytes_per_element")
    n_q = n if phase == "prefill" else 1
    if d_latent is not None or d_rope is not None:
        if d_latent is None or d_rope is None or num_kv_heads is not None:
            raise ValueError("MLA needs both d_latent and d_rope and no num_kv_heads: "
                             f"got d_latent={d_latent}, d_rope={d_rope}, num_kv_heads={num_kv_heads}")
        c, r = check_positive_int(d_latent, "d_latent"), check_positive_int(d_rope, "d_rope")
        flops = 2 * b * h * n_q * n * (c + r) + 2 * b * h * n_q * n * c  # scores + weighted sum of latents
        elements = b * (h * n_q * (c + r) + n * (c + r) + h * n_q * c)  # q, the shared cache, the output
    else:
        if d_head is None:
            raise ValueError("d_head is required for MHA / GQA")
        d = check_positive_int(d_head, "d_head")
        h_kv = h if num_kv_heads is None else check_positive_int(num_kv_heads, "num_kv_heads")
        check_divisible(h, h_kv, "num_heads", "num_kv_heads")
        flops = 4 * b * h * n_q * n * d  # 2 n_q n d for scores + 2 n_q n d for A v, per head
        elements = b * (2 * h * n_q * d + 2 * h_kv * n * d)  # q and o per query head; K and V per K/V head
    nbytes = elements * e
    return {"flops": float(flops), "bytes": float(nbytes), "intensity": flops / nbytes}


def kv_numbers_per_token(
    layers: int,
    num_kv_heads: int | None = None,
    d_head: int | None = None,
    d_latent: int | None = None,
    d_rope: int | None = None,
) -> int:
    """Numbers cached per token, all layers: 2 layers h_kv d_head, or for MLA layers (d_latent + d_rope)."""
    layers = check_positive_int(layers, "layers")
    if d_latent is not None:
        if d_rope is None:
            raise ValueError("MLA needs d_rope with d_latent")
        return layers * (check_positive_int(d_latent, "d_latent") + check_positive_int(d_rope, "d_rope"))
    if num_kv_heads is None or d_head is None:
        raise ValueError("give num_kv_heads and d_head (MHA / GQA) or d_latent and d_rope (MLA)")
    h_kv = check_positive_int(num_kv_heads, "num_kv_heads")
    return 2 * layers * h_kv * check_positive_int(d_head, "d_head")


def streamed_prefill_intensity(
    n: int,
    block_rows: int,
    *,
    num_heads: int = 1,
    num_kv_heads: int | None = None,
    bytes_per_element: int = 2,
) -> float:
    """FLOPs per byte of prefill when K and V are re-read from memory for every query block (no reuse).

    FLOPs 4 h n^2 d over Q and O once (2 h n d numbers) plus K and V once per block of ``block_rows`` queries
    per K/V head (ceil(n / B_r) * 2 h_kv n d numbers: the query heads of a GQA group share each read; pass
    ``num_kv_heads = num_heads`` for a kernel that re-reads per query head). The width d always cancels; with
    b = ``bytes_per_element`` bytes per number I = 2 h n / (b (h + h_kv ceil(n / B_r))), for MHA
    2 n / (b (1 + ceil(n / B_r))): with 2-byte numbers n / (1 + ceil(n / B_r)), which tends to B_r as n grows
    (against n / 2 for the ideal, read-once traffic of ``attention_intensity``).
    """
    n = check_positive_int(n, "n")
    block_rows = check_positive_int(block_rows, "block_rows")
    h = check_positive_int(num_heads, "num_heads")
    h_kv = h if num_kv_heads is None else check_positive_int(num_kv_heads, "num_kv_heads")
    check_divisible(h, h_kv, "num_heads", "num_kv_heads")
    e = check_positive_int(bytes_per_element, "bytes_per_element")
    return 2 * h * n / (e * (h + h_kv * math.ceil(n / block_rows)))
