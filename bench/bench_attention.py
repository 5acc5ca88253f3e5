#!/usr/bin/env python3
"""Benchmark: the library's attention vs PyTorch's, naive vs tiled peak memory, training (forward + backward).

    python3 tasks.py bench                       # or: .venv/bin/python bench/bench_attention.py [--quick]

Prints two tables and writes them to bench/results.json (and bench/results.md); --quick writes
bench/results-quick.json instead, so the smoke test never replaces the full run. Not part of the test suite:
timings depend on the machine and its load, so the script reports medians over interleaved repeats and
compares against the targets without failing the build.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from selfattention import (
    causal_mask,
    flash_attention,
    scaled_dot_product_attention,
    set_seed,
    tiled_attention,
)
from selfattention.complexity import PeakMemory, attention_weights_bytes, peak_memory

HERE = Path(__file__).resolve().parent
TIME_TARGET = 1.2  # library / torch time ratio at n >= 1024
MEMORY_TARGET = 0.10  # tiled / naive peak bytes at n = 8192
TILED_FORWARD_TARGET = 2.0  # tiled / fused forward time at n >= 2048
FLASH_TRAIN_MEMORY_TARGET = 0.10  # flash / explicit peak bytes of forward + backward at n = 4096


def say(msg: str) -> None:
    print(msg, flush=True)


def interleaved_medians(fns: dict[str, object], repeats: int, warmup: int = 1) -> dict[str, float]:
    """Median seconds per function; the functions take turns so that load spikes hit all of them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()  # type: ignore[operator]
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()  # type: ignore[operator]
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def contenders(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> dict[str, object]:
    """The calls we time, bound to one set of inputs."""
    mask = causal_mask(q.shape[-2])
    return {
        "torch": lambda: F.scaled_dot_product_attention(q, k, v),
        "ours": lambda: scaled_dot_product_attention(q, k, v),
        "torch_causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "ours_causal": lambda: scaled_dot_product_attention(q, k, v, mask=mask),
        "ours_weights": lambda: scaled_dot_product_attention(q, k, v, return_weights=True),
    }


def bench_time(ns: list[int], batch: int, heads: int, d_k: int, repeats: int) -> list[dict[str, float]]:
    rows = []
    for n in ns:
        set_seed(0)
        q, k, v = (torch.randn(batch, heads, n, d_k) for _ in range(3))
        # correctness first: the fast path is the same function as PyTorch's
        ours = scaled_dot_product_attention(q, k, v)
        ref = F.scaled_dot_product_attention(q, k, v)
        torch.testing.assert_close(ours, ref, rtol=1e-5, atol=1e-5)
        reps = repeats if n <= 2048 else max(3, repeats // 2)
        with torch.no_grad():
            t = interleaved_medians(contenders(q, k, v), repeats=reps)
        row = {
            "n": n,
            "torch_ms": 1e3 * t["torch"],
            "ours_ms": 1e3 * t["ours"],
            "ratio": t["ours"] / t["torch"],
            "torch_causal_ms": 1e3 * t["torch_causal"],
            "ours_causal_ms": 1e3 * t["ours_causal"],
            "causal_ratio": t["ours_causal"] / t["torch_causal"],
            "ours_weights_ms": 1e3 * t["ours_weights"],
            "weights_ratio": t["ours_weights"] / t["torch"],
        }
        rows.append(row)
        say(
            f"  n={n:5d}  torch {row['torch_ms']:8.2f} ms  ours {row['ours_ms']:8.2f} ms"
            f"  ratio {row['ratio']:.2f}"
            f"  | causal: torch {row['torch_causal_ms']:8.2f} ms  ours {row['ours_causal_ms']:8.2f} ms"
            f"  ratio {row['causal_ratio']:.2f}  | with weights {row['ours_weights_ms']:8.2f} ms"
            f" ({row['weights_ratio']:.1f}x)"
        )
    return rows


def bench_memory(ns: list[int], d_k: int, block_size: int) -> list[dict[str, float]]:
    rows = []
    for n in ns:
        set_seed(0)
        q, k, v = (torch.randn(1, 1, n, d_k) for _ in range(3))
        t0 = time.perf_counter()
        naive = peak_memory(scaled_dot_product_attention, q, k, v, return_weights=True)
        t1 = time.perf_counter()
        tiled = peak_memory(tiled_attention, q, k, v, block_size=block_size)
        t2 = time.perf_counter()
        with torch.no_grad():  # the two give the same answer
            torch.testing.assert_close(
                tiled_attention(q, k, v, block_size=block_size), F.scaled_dot_product_attention(q, k, v),
                rtol=1e-4, atol=1e-5,
            )
        row = {
            "n": n,
            "naive_peak_mib": naive.peak / 2**20,
            "tiled_peak_mib": tiled.peak / 2**20,
            "ratio": tiled.peak / naive.peak,
            "weights_mib": attention_weights_bytes(n) / 2**20,
            "naive_s": t1 - t0,
            "tiled_s": t2 - t1,
        }
        rows.append(row)
        say(
            f"  n={n:5d}  naive peak {row['naive_peak_mib']:9.1f} MiB"
            f"  tiled peak {row['tiled_peak_mib']:7.2f} MiB"
            f"  ratio {row['ratio']:.4f}  (one n x n fp32 matrix: {row['weights_mib']:.0f} MiB)"
        )
    return rows


def flash_block(n: int) -> int:
    """Tile size for the pure-Python tiled/flash loops: 256, growing to keep at most 8 x 8 tiles."""
    return min(1024, max(256, n // 8))


def training_row(n: int, d_k: int, repeats: int) -> dict[str, float]:
    """One length: forward time (4 paths), forward + backward time and peak memory (3 paths), one head."""
    set_seed(0)
    block = flash_block(n)
    q, k, v = (torch.randn(1, 1, n, d_k, requires_grad=True) for _ in range(3))
    d_out = torch.randn(1, 1, n, d_k)
    paths = {
        "explicit": lambda: scaled_dot_product_attention(q, k, v, return_weights=True)[0],
        "fused": lambda: F.scaled_dot_product_attention(q, k, v),
        "tiled": lambda: tiled_attention(q, k, v, block_size=block),
        "flash": lambda: flash_attention(q, k, v, block_size=block),
    }
    with torch.no_grad():  # all four are the same function
        ref = paths["fused"]()
        for name in ("explicit", "tiled", "flash"):
            torch.testing.assert_close(paths[name](), ref, rtol=1e-4, atol=1e-5)
    grads = torch.autograd.grad(paths["flash"](), (q, k, v), d_out)
    for a, b in zip(grads, torch.autograd.grad(paths["fused"](), (q, k, v), d_out), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)
    reps = repeats if n <= 2048 else max(1, repeats // 3)
    warmup = 1 if n <= 2048 else 0
    with torch.no_grad():
        fwd = interleaved_medians(paths, repeats=reps, warmup=warmup)
    trained = ("explicit", "fused", "flash")  # tiled_attention has no backward of its own
    steps = {name: (lambda fn=paths[name]: torch.autograd.grad(fn(), (q, k, v), d_out)) for name in trained}
    train = interleaved_medians(steps, repeats=reps, warmup=warmup)
    row: dict[str, float] = {"n": n, "block": block}
    row.update({f"fwd_{name}_ms": 1e3 * t for name, t in fwd.items()})
    row.update({f"train_{name}_ms": 1e3 * t for name, t in train.items()})
    for name in trained:
        with PeakMemory() as rec:
            steps[name]()
        row[f"train_{name}_peak_mib"] = rec.peak / 2**20
    return row


def bench_training(ns: list[int], d_k: int, repeats: int) -> list[dict[str, float]]:
    """Explicit vs fused vs tiled vs flash for each n (see ``training_row``)."""
    rows = []
    for n in ns:
        row = training_row(n, d_k, repeats)
        rows.append(row)
        say(
            f"  n={n:5d} block {row['block']:4d} | forward ms: explicit {row['fwd_explicit_ms']:8.1f}"
            f" fused {row['fwd_fused_ms']:8.1f} tiled {row['fwd_tiled_ms']:8.1f}"
            f" flash {row['fwd_flash_ms']:8.1f} | fwd+bwd ms: explicit {row['train_explicit_ms']:8.1f}"
            f" fused {row['train_fused_ms']:8.1f} flash {row['train_flash_ms']:8.1f}"
            f" | fwd+bwd peak MiB: explicit {row['train_explicit_peak_mib']:7.1f}"
            f" fused {row['train_fused_peak_mib']:6.2f} flash {row['train_flash_peak_mib']:6.2f}"
        )
    return rows


def markdown(result: dict) -> str:
    cfg = result["config"]
    lines = [
        "# Attention benchmark",
        "",
        f"{cfg['platform']}, torch {cfg['torch']}, {cfg['threads']} threads; medians of interleaved repeats.",
        "",
        f"## Time: batch {cfg['batch']}, heads {cfg['heads']}, d_k {cfg['d_k']} (ms)",
        "",
        "| n | torch SDPA | ours | ratio | torch causal | ours causal | ratio | ours + weights |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["time"]:
        lines.append(
            f"| {r['n']} | {r['torch_ms']:.2f} | {r['ours_ms']:.2f} | {r['ratio']:.2f} | "
            f"{r['torch_causal_ms']:.2f} | {r['ours_causal_ms']:.2f} | {r['causal_ratio']:.2f} | "
            f"{r['ours_weights_ms']:.2f} |"
        )
    lines += [
        "",
        f"## Peak memory: one head, d_k {cfg['d_k']}, tiled block {cfg['block_size']} (MiB)",
        "",
        "| n | naive | tiled | tiled / naive |",
        "|---:|---:|---:|---:|",
    ]
    for r in result["memory"]:
        lines.append(
            f"| {r['n']} | {r['naive_peak_mib']:.1f} | {r['tiled_peak_mib']:.2f} | {r['ratio']:.4f} |"
        )
    if result.get("training"):
        lines += [
            "",
            f"## Training: one head, d_k {cfg['d_k']}, batch 1 (ms; peak MiB of forward + backward)",
            "",
            "Forward: explicit (weights materialised), PyTorch fused SDPA, `tiled_attention`,",
            "`flash_attention`. Forward + backward (`torch.autograd.grad` of q, k, v): explicit, fused,",
            "flash (tiled has no backward of its own). Peak: live tensors created during the step",
            "(`PeakMemory`); the fused kernel's internal scratch is invisible to it.",
            "",
            "| n | block | fwd explicit | fwd fused | fwd tiled | fwd flash | tiled / fused "
            "| train explicit | train fused | train flash | peak explicit | peak fused | peak flash "
            "| flash / explicit peak |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in result["training"]:
            lines.append(
                f"| {r['n']} | {r['block']} | {r['fwd_explicit_ms']:.1f} | {r['fwd_fused_ms']:.1f} | "
                f"{r['fwd_tiled_ms']:.1f} | {r['fwd_flash_ms']:.1f} | "
                f"{r['fwd_tiled_ms'] / r['fwd_fused_ms']:.2f} | "
                f"{r['train_explicit_ms']:.1f} | {r['train_fused_ms']:.1f} | {r['train_flash_ms']:.1f} | "
                f"{r['train_explicit_peak_mib']:.1f} | {r['train_fused_peak_mib']:.2f} | "
                f"{r['train_flash_peak_mib']:.2f} | "
                f"{r['train_flash_peak_mib'] / r['train_explicit_peak_mib']:.4f} |"
            )
    lines += ["", "## Targets", ""]
    for name, ok in result["targets"].items():
        lines.append(f"- {name}: {'met' if ok else 'NOT met'}")
    return "\n".join(lines) + "\n"


def default_out(quick: bool) -> Path:
    """Where a run writes by default: --quick (the smoke test) never replaces the full run chapters read."""
    return HERE / ("results-quick.json" if quick else "results.json")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats (a smoke test)")
    parser.add_argument("--repeats", type=int, default=9, help="timed repeats per size (median is reported)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: PyTorch's default)")
    parser.add_argument("--out", type=Path, default=None,
                        help="results file (default: results.json; results-quick.json with --quick)")
    args = parser.parse_args(argv)
    if args.out is None:  # the smoke test must not overwrite the full run the chapters read
        args.out = default_out(args.quick)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    time_ns = [256, 512] if args.quick else [256, 512, 1024, 2048, 4096]
    mem_ns = [1024, 2048] if args.quick else [1024, 2048, 4096, 8192]
    train_ns = [256, 1024] if args.quick else [256, 1024, 2048, 4096, 8192]
    repeats = 3 if args.quick else args.repeats
    cfg = {
        "batch": 1, "heads": 8, "d_k": 64, "block_size": 256, "repeats": repeats, "quick": args.quick,
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "platform": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
    }
    t_start = time.perf_counter()
    say(f"[bench] time: library vs torch.nn.functional.scaled_dot_product_attention, n in {time_ns}")
    time_rows = bench_time(time_ns, cfg["batch"], cfg["heads"], cfg["d_k"], repeats)
    say(f"[bench] peak memory: naive (n x n weights) vs tiled (block {cfg['block_size']}), n in {mem_ns}")
    mem_rows = bench_memory(mem_ns, cfg["d_k"], cfg["block_size"])
    say(f"[bench] training: explicit vs fused vs tiled vs flash, forward and fwd + bwd, n in {train_ns}")
    train_rows = bench_training(train_ns, cfg["d_k"], repeats)
    big = [r for r in time_rows if r["n"] >= 1024]
    at_8192 = [r for r in mem_rows if r["n"] == 8192]
    time_ok = bool(big) and all(r["ratio"] <= TIME_TARGET for r in big)
    memory_ok = bool(at_8192) and at_8192[0]["ratio"] < MEMORY_TARGET
    long = [r for r in train_rows if r["n"] >= 2048]
    at_4096 = [r for r in train_rows if r["n"] == 4096]
    tiled_ok = bool(long) and all(
        r["fwd_tiled_ms"] / r["fwd_fused_ms"] <= TILED_FORWARD_TARGET for r in long
    )
    flash_mem_ok = bool(at_4096) and (
        at_4096[0]["train_flash_peak_mib"] / at_4096[0]["train_explicit_peak_mib"]
        <= FLASH_TRAIN_MEMORY_TARGET
    )
    targets = {
        f"ours / torch <= {TIME_TARGET} at n >= 1024": time_ok,
        f"tiled / naive peak < {MEMORY_TARGET} at n = 8192": memory_ok,
        f"tiled / fused forward time <= {TILED_FORWARD_TARGET} at n >= 2048": tiled_ok,
        f"flash / explicit fwd + bwd peak <= {FLASH_TRAIN_MEMORY_TARGET} at n = 4096": flash_mem_ok,
    }
    result = {"config": cfg, "time": time_rows, "memory": mem_rows, "training": train_rows,
              "targets": targets,
              "seconds": time.perf_counter() - t_start}
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    say(f"[bench] targets: {targets}")
    say(f"[bench] wrote {args.out} and {args.out.with_suffix('.md')} in {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
