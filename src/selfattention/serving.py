"""Serving arithmetic: parameters and bytes of a decoder-only model, the cost of one decode step, batching.

``decode_cost`` is a roofline lower bound for one decode step of a batch (every sequence gets one token): the
weights are read once per step whoever uses them, each sequence's KV cache is read once, and the step can be
no faster than bytes / bandwidth nor than FLOPs / peak. It ignores communication, kernel launch and the
softmax: a real step is slower. The attention part reuses ``intensity.attention_intensity`` (chapter 12).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._checks import check_positive_int
from .intensity import attention_intensity, kv_numbers_per_token

__all__ = [
    "LLAMA3_70B",
    "LLAMA3_8B",
    "H100_SXM",
    "model_params",
    "decode_cost",
    "kv_capacity",
    "simulate_batching",
]

# Llama 3 shapes (Grattafiori et al. 2024; the released config.json files): untied embeddings, SwiGLU, GQA.
LLAMA3_70B = dict(layers=80, d_model=8192, num_heads=64, num_kv_heads=8, d_head=128, d_ff=28672,
                  vocab_size=128256, tied=False)
LLAMA3_8B = dict(layers=32, d_model=4096, num_heads=32, num_kv_heads=8, d_head=128, d_ff=14336,
                 vocab_size=128256, tied=False)
# H100 SXM5 datasheet: 80 GB HBM3 at 3.35 TB/s, 989 TFLOP/s dense BF16 (1979 is with 2:4 sparsity).
H100_SXM = dict(hbm_bytes=80e9, bandwidth=3.35e12, flops=989e12)


def model_params(config: dict) -> dict[str, int]:
    """Parameters of a Llama-shaped model (RMSNorm, SwiGLU, no biases): total, embedding, per layer."""
    d, layers = config["d_model"], config["layers"]
    q_o = 2 * d * config["num_heads"] * config["d_head"]
    k_v = 2 * d * config["num_kv_heads"] * config["d_head"]
    mlp = 3 * d * config["d_ff"]  # gate, up, down
    per_layer = q_o + k_v + mlp + 2 * d  # + two RMSNorm weights
    embedding = config["vocab_size"] * d
    head = 0 if config["tied"] else embedding
    total = layers * per_layer + embedding + head + d  # + the final norm
    return dict(total=total, embedding=embedding, per_layer=per_layer, head=head)


def decode_cost(
    config: dict,
    hardware: dict,
    batch: int,
    context: int,
    devices: int = 1,
    weight_bytes: float = 2,
    kv_bytes: float = 2,
) -> dict[str, float]:
    """One decode step of ``batch`` sequences with ``context`` cached tokens -> bytes, FLOPs, time bounds.

    Bytes: every weight but the input-embedding table (a lookup reads only ``batch`` rows of it) once, plus
    each sequence's KV cache (``kv_numbers_per_token`` * context numbers). FLOPs: 2 per weight per sequence
    plus the attention core. Spread evenly over ``devices`` (tensor parallel, no communication counted).
    """
    b = check_positive_int(batch, "batch")
    n = check_positive_int(context, "context")
    g = check_positive_int(devices, "devices")
    params = model_params(config)
    # the output head is a matmul over all its weights; an untied input table is a lookup of b rows
    read_params = params["total"] - (0 if config["tied"] else params["embedding"])
    kv_per_token = kv_numbers_per_token(config["layers"], config["num_kv_heads"], config["d_head"]) * kv_bytes
    attn = attention_intensity("decode", n, config["num_heads"], config["d_head"], config["num_kv_heads"],
                               batch=b, bytes_per_element=1)  # elements (1 byte each), for one layer
    qo_elements = b * 2 * config["num_heads"] * config["d_head"]
    kv_elements = config["layers"] * (attn["bytes"] - qo_elements)  # = batch * context * kv numbers
    w_bytes = read_params * weight_bytes
    bytes_step = w_bytes + kv_elements * kv_bytes
    flops = 2 * read_params * b + config["layers"] * attn["flops"]
    t_memory = bytes_step / (g * hardware["bandwidth"])
    t_compute = flops / (g * hardware["flops"])
    t_step = max(t_memory, t_compute)
    return dict(
        weight_bytes=float(w_bytes),
        kv_bytes_per_token=float(kv_per_token),
        kv_bytes=float(kv_elements * kv_bytes),
        bytes=float(bytes_step),
        flops=float(flops),
        t_memory=t_memory,
        t_compute=t_compute,
        t_step=t_step,  # the lower bound on time per output token (TPOT) of each sequence
        tokens_per_s=b / t_step,
        intensity=flops / bytes_step,
    )


def kv_capacity(
    config: dict,
    hardware: dict,
    devices: int,
    weight_bytes: float = 2,
    kv_bytes: float = 2,
    utilisation: float = 0.9,
) -> dict[str, float]:
    """Memory budget: weights, the KV pool left in ``utilisation`` of all HBM, the tokens it holds."""
    g = check_positive_int(devices, "devices")
    if not 0 < utilisation <= 1:
        raise ValueError(f"utilisation must be in (0, 1]: got {utilisation!r}")
    weights = model_params(config)["total"] * weight_bytes
    per_token = kv_numbers_per_token(config["layers"], config["num_kv_heads"], config["d_head"]) * kv_bytes
    pool = g * hardware["hbm_bytes"] * utilisation - weights
    return dict(weights=float(weights), pool=float(pool), kv_per_token=float(per_token),
                tokens=float(max(0, math.floor(pool / per_token))))


def simulate_batching(output_lengths: Sequence[int], slots: int, policy: str) -> dict[str, float]:
    """Decode steps to serve requests (all waiting at step 0) with ``slots`` sequences per step.

    ``policy`` "static": batches of ``slots`` requests in order, each batch runs until its longest
    request ends.
    "continuous": a slot takes the next waiting request as soon as its request ends (iteration-level
    scheduling, Orca). Returns steps, the mean step at which a request finishes, and slot utilisation (tokens
    produced / (steps * slots)). Prefill is not modelled.
    """
    slots = check_positive_int(slots, "slots")
    lengths = [check_positive_int(x, "output length") for x in output_lengths]
    if policy not in ("static", "continuous"):
        raise ValueError(f"policy must be 'static' or 'continuous': got {policy!r}")
    finish: list[int] = []
    if policy == "static":
        t = 0
        for i in range(0, len(lengths), slots):
            batch = lengths[i:i + slots]
            finish += [t + x for x in batch]
            t += max(batch)
        steps = t
    else:
        free_at = [0] * slots  # step at which each slot becomes free
        for x in lengths:
            s = min(range(slots), key=lambda j: free_at[j])  # the earliest free slot
            free_at[s] += x
            finish.append(free_at[s])
        steps = max(free_at)
    return dict(steps=float(steps), mean_finish=sum(finish) / len(finish),
                utilisation=sum(lengths) / (steps * slots))
