"""Tests of selfattention.complexity: FLOP formulas vs FlopCounterMode, the peak-memory recorder, timing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from selfattention.complexity import (
    PeakMemory,
    aten_ops,
    attention_flops,
    attention_vs_recurrent_crossover,
    attention_weights_bytes,
    block_crossover_length,
    block_flops,
    count_flops,
    crossover_length,
    elementwise_entries,
    fastest_of,
    kv_cache_bytes,
    layer_cost,
    loglog_slope,
    peak_memory,
    peak_memory_autograd,
    recurrent_flops,
    saved_tensors_bytes,
    time_call,
)
from selfattention.efficient import tiled_attention


@pytest.mark.parametrize(
    ("n", "n_kv", "d_model", "heads", "batch"), [(16, 16, 32, 4, 2), (10, 7, 24, 3, 1), (33, 65, 16, 1, 3)]
)
def test_attention_flops_equals_flop_counter_on_torch_mha(
    n: int, n_kv: int, d_model: int, heads: int, batch: int
) -> None:
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
    x, ctx = torch.randn(batch, n, d_model), torch.randn(batch, n_kv, d_model)
    total, per_op = count_flops(lambda: mha(x, ctx, ctx, need_weights=True))
    want = attention_flops(n, d_model, n_kv=n_kv, batch=batch)
    assert total == want["total"]
    # the two batched matmuls are exactly the scores + the weighted sum
    assert per_op["aten.bmm"] == want["scores"] + want["weighted_sum"]
    assert per_op.get("aten.mm", 0) + per_op.get("aten.addmm", 0) == want["projections"]


def test_attention_flops_self_attention_closed_form() -> None:
    f = attention_flops(100, 64)
    assert f["projections"] == 8 * 100 * 64**2
    assert f["scores"] == f["weighted_sum"] == 2 * 100**2 * 64
    assert attention_flops(100, 64, projections=False)["total"] == 4 * 100**2 * 64


def test_crossover_length_is_where_the_terms_meet() -> None:
    for d in (64, 512, 4096):
        n = crossover_length(d)
        f = attention_flops(n, d)
        assert f["scores"] + f["weighted_sum"] == f["projections"]
        below, above = attention_flops(n - 1, d), attention_flops(n + 1, d)
        assert below["scores"] + below["weighted_sum"] < below["projections"]
        assert above["scores"] + above["weighted_sum"] > above["projections"]


def test_layer_cost_table_1() -> None:
    assert layer_cost("self-attention", 10, 4) == {"ops": 400.0, "sequential": 1.0, "path": 1.0}
    assert layer_cost("recurrent", 10, 4) == {"ops": 160.0, "sequential": 10.0, "path": 10.0}
    conv = layer_cost("convolutional", 9, 4, kernel_size=3)
    assert conv == {"ops": 432.0, "sequential": 1.0, "path": 2.0}  # 3**2 = 9 positions in two layers
    assert layer_cost("convolutional", 10, 4, kernel_size=3)["path"] == 3.0
    with pytest.raises(ValueError, match="kind must be one of"):
        layer_cost("transformer", 10, 4)


def test_attention_weights_bytes_matches_a_real_softmax() -> None:
    s = torch.randn(2, 3, 5, 7, dtype=torch.float16)
    a = s.softmax(-1)
    want = a.nelement() * a.element_size()
    assert attention_weights_bytes(5, 7, heads=3, batch=2, dtype=torch.float16) == want
    assert attention_weights_bytes(1024) == 4 * 1024 * 1024


def test_kv_cache_bytes_matches_tensors() -> None:
    layers, kv_heads, d_k, n, batch = 3, 2, 8, 11, 2
    caches = [
        (
            torch.zeros(batch, kv_heads, n, d_k, dtype=torch.bfloat16),
            torch.zeros(batch, kv_heads, n, d_k, dtype=torch.bfloat16),
        )
        for _ in range(layers)
    ]
    actual = sum(t.nelement() * t.element_size() for kv in caches for t in kv)
    assert kv_cache_bytes(layers, kv_heads, d_k, n, bytes_per_element=2, batch=batch) == actual
    with pytest.raises(ValueError, match="kv_heads must be a positive int"):
        kv_cache_bytes(1, 0, 8, 8)


def test_peak_memory_counts_live_storage_and_frees() -> None:
    def chain(n: int) -> torch.Tensor:
        a = torch.ones(n, n)
        b = a * 2
        del a  # freed before the next op: the peak is two n x n buffers, not three
        c = b + 1
        return c.sum()

    rec = peak_memory(chain, 100)
    assert rec.peak == 2 * 100 * 100 * 4 + 4  # two live float32 matrices, plus the scalar sum
    assert rec.largest == 100 * 100 * 4
    assert rec.largest_shape == (100, 100)
    assert rec.ops == 4


def test_peak_memory_ignores_inputs_views_and_inplace() -> None:
    x = torch.randn(64, 64)
    with torch.no_grad(), PeakMemory() as rec:
        y = x.t()  # a view of the input: no new storage
        z = y.clone()  # 64*64 floats
        z.mul_(2)  # in place: same storage
        w = z[:, :10]  # view of z
        del y, w
    assert rec.peak == 64 * 64 * 4
    del z


def test_peak_memory_sees_the_n_squared_matrix() -> None:
    n, d = 256, 16
    q, k, v = (torch.randn(1, 1, n, d) for _ in range(3))

    def naive(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v

    rec = peak_memory(naive, q, k, v)
    assert rec.largest == n * n * 4
    assert 2 * n * n * 4 <= rec.peak < 3 * n * n * 4  # scores and weights are both alive during softmax


def test_fastest_of_takes_each_candidates_minimum_interleaved() -> None:
    # A fake clock that each call advances by its scripted duration: the test is exact on a loaded
    # machine (time.sleep(0.004) once took 6.8 ms on a CI run, and a real-clock bound failed).
    calls: list[str] = []
    durations = {"slow": iter([0.05, 0.02, 0.03]), "fast": iter([0.004, 0.03, 0.006])}
    now = [0.0]

    def make(name: str):
        def f() -> None:
            calls.append(name)
            now[0] += next(durations[name])

        return f

    fns = {"slow": make("slow"), "fast": make("fast")}
    best = fastest_of(fns, repeats=3, warmup=0, clock=lambda: now[0])
    assert calls == ["slow", "fast"] * 3  # round by round, not all of one then the other
    assert best["slow"] == pytest.approx(0.02, abs=1e-12)  # the minimum, not the median 0.03 or first 0.05
    assert best["fast"] == pytest.approx(0.004, abs=1e-12)  # the minimum despite one slow burst (0.03)
    # with the real clock the minimum of real sleeps is at least the shortest sleep
    real = fastest_of({"sleep": lambda: time.sleep(0.002)}, repeats=2, warmup=0)
    assert real["sleep"] >= 0.002
    with pytest.raises(ValueError, match="non-empty mapping"):
        fastest_of({})
    with pytest.raises(ValueError, match="repeats must be a positive int"):
        fastest_of({"a": lambda: None}, repeats=0)


def test_time_call_measures() -> None:
    t = time_call(lambda: time.sleep(0.01), repeats=3, warmup=0)
    assert 0.009 < t < 0.5
    with pytest.raises(ValueError, match="repeats must be a positive int"):
        time_call(lambda: None, repeats=0)
    with pytest.raises(ValueError, match="fn must be callable"):
        time_call(3)  # type: ignore[arg-type]


def test_loglog_slope() -> None:
    xs = [1.0, 2.0, 4.0, 8.0]
    assert loglog_slope(xs, [3 * x**2 for x in xs]) == pytest.approx(2.0, abs=1e-12)
    assert loglog_slope(xs, [5 * x**1.5 for x in xs]) == pytest.approx(1.5, abs=1e-12)
    with pytest.raises(ValueError, match="same length"):
        loglog_slope([1.0], [1.0])
    with pytest.raises(ValueError, match="positive"):
        loglog_slope([1.0, 2.0], [0.0, 1.0])


def test_attention_flops_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="d_model must be a positive int: got 0"):
        attention_flops(8, 0)
    with pytest.raises(ValueError, match="n must be a positive int"):
        attention_flops(2.5, 8)  # type: ignore[arg-type]


@pytest.mark.parametrize(("cell", "kind"), [(torch.nn.RNNCell, "rnn"), (torch.nn.GRUCell, "gru"),
                                            (torch.nn.LSTMCell, "lstm")])
def test_recurrent_flops_equals_flop_counter_on_torch_cells(cell: type, kind: str) -> None:
    torch.manual_seed(0)
    n, d, batch = 7, 24, 3
    layer = cell(d, d)
    xs = torch.randn(n, batch, d)

    def run() -> None:
        state = None
        for t in range(n):  # one step per token, as a recurrent layer runs
            state = layer(xs[t], state)

    total, _ = count_flops(run)
    assert total == recurrent_flops(n, d, kind, batch=batch)
    assert recurrent_flops(10, 8, kind) == {"rnn": 2560, "gru": 7680, "lstm": 10240}[kind]


def test_block_flops_leading_terms_and_ffn_counter() -> None:
    torch.manual_seed(0)
    n, d = 10, 16
    ffn = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))
    assert count_flops(ffn, torch.randn(1, n, d))[0] == block_flops(n, d)["ffn"] == 16 * 10 * 256
    full, causal = block_flops(n, d), block_flops(n, d, causal=True)
    assert full == {"projections": 20480, "quadratic": 6400, "ffn": 40960, "total": 67840}
    assert causal["quadratic"] == 3200 and causal["total"] == 64640
    assert block_flops(n, d, batch=2)["total"] == 2 * 67840


def test_attention_vs_recurrent_crossover_both_sides() -> None:
    d = 64
    assert attention_vs_recurrent_crossover(d, "rnn") == 0.0  # never cheaper than a vanilla RNN
    assert attention_vs_recurrent_crossover(d, "gru") == 64.0
    assert attention_vs_recurrent_crossover(d, "lstm") == 128.0
    attn = {m: attention_flops(m, d)["total"] for m in (1, 127, 128, 129, 4096)}
    assert all(attn[m] > recurrent_flops(m, d, "rnn") for m in attn)
    assert attn[127] < recurrent_flops(127, d, "lstm") and attn[129] > recurrent_flops(129, d, "lstm")
    assert attn[128] == recurrent_flops(128, d, "lstm")


def test_block_crossover_length_6d_and_12d() -> None:
    assert block_crossover_length(100) == 600.0 and block_crossover_length(100, causal=True) == 1200.0
    for causal, n in ((False, 600), (True, 1200)):
        f = block_flops(n, 100, causal=causal)
        assert f["quadratic"] == f["projections"] + f["ffn"]
        g = block_flops(n + 1, 100, causal=causal)
        assert g["quadratic"] > g["projections"] + g["ffn"]


def test_cost_formulas_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="kind"):
        recurrent_flops(4, 4, "transformer")
    with pytest.raises(ValueError, match="kind"):
        attention_vs_recurrent_crossover(4, "cnn")
    with pytest.raises(ValueError, match="causal"):
        block_flops(4, 4, causal=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="d_model"):
        block_crossover_length(0)


def test_tiled_memory_is_linear_only_without_autograd() -> None:
    torch.manual_seed(0)
    n, d, blk = 256, 16, 32
    q, k, v = (torch.randn(1, 1, n, d, requires_grad=True) for _ in range(3))
    nn_bytes = n * n * 4
    no_grad = peak_memory(tiled_attention, q, k, v, block_size=blk).peak
    with_grad = peak_memory_autograd(tiled_attention, q, k, v, block_size=blk).peak
    saved = saved_tensors_bytes(tiled_attention, q, k, v, block_size=blk)
    assert no_grad < 0.25 * nn_bytes  # forward only: a few blocks, no n x n matrix
    assert saved > nn_bytes and with_grad > nn_bytes  # autograd keeps every block's p: >= n^2 floats
    fused = saved_tensors_bytes(torch.nn.functional.scaled_dot_product_attention, q, k, v)
    assert fused <= 5 * n * d * 4 < nn_bytes  # q, k, v, out (+ row stats): its backward recomputes
    with torch.no_grad():
        assert saved_tensors_bytes(tiled_attention, q, k, v, block_size=blk) > nn_bytes  # grad forced on
    from selfattention import saved_tensor_bytes

    assert saved_tensor_bytes is saved_tensors_bytes  # one helper under both names (chapters 06 and 12)


def test_elementwise_entries_counts_non_matmul_outputs_only() -> None:
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    assert elementwise_entries(lambda: a @ b) == (0, {})  # a matmul is FlopCounterMode's part
    assert elementwise_entries(lambda: a.t())[0] == 0  # a view writes nothing
    assert elementwise_entries(lambda: a.t().reshape(2, 6))[0] == 0  # a layout copy is not counted
    total, per_op = elementwise_entries(lambda: (a * 2).exp().sum(-1))
    assert per_op == {"mul": 12, "exp": 12, "sum": 3} and total == 27


@pytest.mark.parametrize("h", [1, 4, 32])
def test_elementwise_entries_of_attention_grow_with_h_n_squared(h: int) -> None:
    """Four passes over the (B, h, n, n) scores (scale, subtract max, exp, divide) plus O(B h n) terms."""
    from selfattention.multi_head import MultiHeadAttention

    batch, n, d_model = 2, 16, 128
    x = torch.randn(batch, n, d_model)
    layer = MultiHeadAttention(d_model, h)
    with torch.no_grad():
        total, per_op = elementwise_entries(lambda: layer(x, return_weights=True))
    for op in ("mul", "sub", "exp", "div"):
        assert per_op[op] == batch * h * n * n, op
    assert 4 * batch * h * n * n < total < 4 * batch * h * n * n + 12 * batch * h * n + 8


def test_elementwise_entries_refuses_a_fused_attention_kernel() -> None:
    """The fused CPU kernel writes only its (B, n, d_model)-sized output: counting it would be flat in h."""
    from selfattention.multi_head import MultiHeadAttention

    x = torch.randn(2, 16, 128)
    layer = MultiHeadAttention(128, 32)
    with torch.no_grad():
        with pytest.raises(ValueError, match="fused attention"):
            elementwise_entries(lambda: layer(x))  # return_weights=False: SDPA's fused path
        q = k = v = torch.randn(1, 2, 8, 4)
        with pytest.raises(ValueError, match="fused attention"):
            elementwise_entries(torch.nn.functional.scaled_dot_product_attention, q, k, v)
        ops = aten_ops(torch.nn.functional.scaled_dot_product_attention, q, k, v)
    assert any(name.startswith("_scaled_dot_product") for name in ops)  # listed, by name
    assert "exp" not in ops  # the softmax happens inside the kernel


def test_elementwise_entries_rejects_a_non_callable() -> None:
    with pytest.raises(ValueError, match="callable"):
        elementwise_entries(3)


def test_elementwise_entries_refuses_fused_attention_under_inference_mode_and_nn_fast_paths() -> None:
    """Under inference_mode the dispatcher shows the composite op names (`scaled_dot_product_attention`,
    `_native_multi_head_attention`, `_transformer_encoder_layer_fwd`): they are refused too, not counted."""
    from selfattention.multi_head import MultiHeadAttention

    x = torch.randn(2, 16, 32)
    mha = torch.nn.MultiheadAttention(32, 4, batch_first=True).eval()
    enc = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval()
    with torch.inference_mode():
        for fn in (
            lambda: MultiHeadAttention(32, 4)(x),
            lambda: mha(x, x, x, need_weights=False),
            lambda: enc(x),
        ):
            with pytest.raises(ValueError, match="fused attention"):
                elementwise_entries(fn)


# Chapter 09 asserts "a fresh 64 MiB output costs over twice a given one" only with 4 KiB pages (round-7
# review): with transparent huge pages the first-touch cost is 512 times fewer page faults.
_THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
_FAULTS_SCRIPT = """
import torch
from selfattention.complexity import minor_page_faults
torch.set_num_threads(1)
hq, hk = torch.randn(1, 512, 64), torch.randn(1, 512, 64)
out = torch.empty(1, 512, 512, 64)
torch.add(hq[:, :, None], hk[:, None], out=out)  # touch the given output once
(hq[:, :, None] + hk[:, None])  # warm up
print(minor_page_faults(lambda: hq[:, :, None] + hk[:, None]),
      minor_page_faults(lambda: torch.add(hq[:, :, None], hk[:, None], out=out)))
"""


def test_huge_pages_flag_reads_the_kernel_mode_and_pytorchs_switch() -> None:
    from selfattention.complexity import huge_pages_for_large_tensors as huge

    assert huge({}, "always [madvise] never\n") is False
    assert huge({}, "[always] madvise never\n") is True
    assert huge({}, "always madvise [never]\n") is False
    assert huge({"THP_MEM_ALLOC_ENABLE": "1"}, "always [madvise] never\n") is True
    assert huge({"THP_MEM_ALLOC_ENABLE": "0"}, "always [madvise] never\n") is False


@pytest.mark.skipif(not _THP.exists() or "[madvise]" not in _THP.read_text(),
                    reason="needs the kernel's THP mode 'madvise': PyTorch's switch then picks the page size")
def test_a_fresh_64_mib_output_takes_a_fault_per_4_kib_page_and_far_fewer_with_huge_pages() -> None:
    import os
    import subprocess
    import sys

    def faults(thp: str) -> tuple[int, int]:
        env = {**os.environ, "THP_MEM_ALLOC_ENABLE": thp, "OMP_NUM_THREADS": "1"}
        out = subprocess.run([sys.executable, "-c", _FAULTS_SCRIPT], env=env, capture_output=True, text=True,
                             check=True, timeout=120)
        fresh, given = out.stdout.split()
        return int(fresh), int(given)

    pages = 512 * 512 * 64 * 4 // 4096  # 16,384 pages of 4 KiB in the 64 MiB result
    fresh, given = faults("0")
    assert 0.95 * pages <= fresh <= 1.1 * pages, fresh  # the chapter's claim: a fault per page
    assert given < 0.01 * pages, given
    fresh_huge, _ = faults("1")
    assert fresh_huge < 0.1 * pages, fresh_huge  # the other side: 2 MiB pages, a few dozen faults


def test_minor_page_faults_counts_first_touches_only() -> None:
    from selfattention.complexity import huge_pages_for_large_tensors, minor_page_faults
    from selfattention.utils import one_cpu_thread

    # 64 MiB: above glibc's largest mmap threshold (32 MiB), so always fresh pages: 16,384 of 4 KiB

    with one_cpu_thread():  # the count is this thread's: another thread's first touches are not in it
        n = minor_page_faults(lambda: torch.ones(16 * 2**20))
        buf = torch.ones(16 * 2**20)
        again = minor_page_faults(lambda: buf.fill_(2.0))  # already touched: no new page
    if n is None:
        pytest.skip("getrusage(RUSAGE_THREAD) is not available here")
    assert again < 0.01 * 16384, again
    assert n >= (1 if huge_pages_for_large_tensors() else 0.95 * 16384), n
