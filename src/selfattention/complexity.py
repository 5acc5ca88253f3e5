"""Cost of attention: FLOP formulas, FLOP counting, peak-memory recording and timing helpers.

The formulas count a multiply-add as 2 FLOPs (the convention of ``torch.utils.flop_counter``), so they can be
checked exactly against :class:`torch.utils.flop_counter.FlopCounterMode`.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import FlopCounterMode

from ._checks import check_positive_int

__all__ = [
    "attention_flops",
    "huge_pages_for_large_tensors",
    "minor_page_faults",
    "crossover_length",
    "layer_cost",
    "recurrent_flops",
    "block_flops",
    "attention_vs_recurrent_crossover",
    "block_crossover_length",
    "attention_weights_bytes",
    "kv_cache_bytes",
    "count_flops",
    "elementwise_entries",
    "aten_ops",
    "PeakMemory",
    "peak_memory",
    "peak_memory_autograd",
    "saved_tensors_bytes",
    "time_call",
    "loglog_slope",
    "saved_tensor_bytes",
]


def attention_flops(
    n: int, d_model: int, n_kv: int | None = None, batch: int = 1, projections: bool = True
) -> dict[str, int]:
    """FLOPs of one attention layer on ``n`` queries and ``n_kv`` keys (default ``n``), summed over heads.

    Returns a dict with ``projections`` (Q, K, V, O: ``2·n·d² + 2·2·n_kv·d² + 2·n·d²``, i.e. ``8·n·d²`` for
    self-attention), ``scores`` (``2·n·n_kv·d``), ``weighted_sum`` (``2·n·n_kv·d``) and ``total``, each times
    ``batch``. The count is independent of the number of heads (``h·d_k = d_model``); softmax, scaling and
    bias terms are O(n·n_kv) and not counted, as in ``FlopCounterMode``.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d_model, "d_model")
    m = n if n_kv is None else check_positive_int(n_kv, "n_kv")
    b = check_positive_int(batch, "batch")
    proj = (2 * n * d * d + 2 * 2 * m * d * d + 2 * n * d * d) if projections else 0
    scores = 2 * n * m * d
    weighted = 2 * n * m * d
    return {
        "projections": b * proj,
        "scores": b * scores,
        "weighted_sum": b * weighted,
        "total": b * (proj + scores + weighted),
    }


def crossover_length(d_model: int) -> int:
    """Length at which the n² terms (``4·n²·d``) equal the projections (``8·n·d²``): ``n = 2·d_model``."""
    d = check_positive_int(d_model, "d_model")
    return 2 * d


def layer_cost(kind: str, n: int, d: int, kernel_size: int = 3) -> dict[str, float]:
    """Per-layer cost (Vaswani et al. 2017, Table 1) of ``kind``: self-attention, recurrent, convolutional.

    Returns ``ops`` (multiply-adds, leading term: ``n²·d``, ``n·d²``, ``k·n·d²``), ``sequential`` (operations
    that cannot run in parallel: 1, n, 1) and ``path`` (maximum path length between two positions: 1, n, and
    ⌈log_k n⌉ for a stack of dilated convolutions).
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    k = check_positive_int(kernel_size, "kernel_size")
    if kind == "self-attention":
        return {"ops": float(n * n * d), "sequential": 1.0, "path": 1.0}
    if kind == "recurrent":
        return {"ops": float(n * d * d), "sequential": float(n), "path": float(n)}
    if kind == "convolutional":
        if k == 1:
            return {"ops": float(n * d * d), "sequential": 1.0, "path": float(n)}
        path, reach = 1, k  # dilated stack: layer j reaches k**j positions
        while reach < n:
            path, reach = path + 1, reach * k
        return {"ops": float(k * n * d * d), "sequential": 1.0, "path": float(path)}
    raise ValueError(
        f"kind must be one of 'self-attention', 'recurrent', 'convolutional': got {kind!r}"
    )


_GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def recurrent_flops(n: int, d: int, kind: str = "rnn", batch: int = 1) -> int:
    """FLOPs of a recurrent layer of width ``d`` on ``n`` tokens: ``gates·2·2·n·d²`` (input + hidden matmuls).

    ``kind`` is ``rnn`` (1 gate: ``4nd²``), ``gru`` (3: ``12nd²``) or ``lstm`` (4: ``16nd²``); biases and
    the elementwise gate arithmetic are O(n·d) and not counted, as in ``FlopCounterMode``.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    b = check_positive_int(batch, "batch")
    if kind not in _GATES:
        raise ValueError(f"kind must be one of {sorted(_GATES)}: got {kind!r}")
    return b * _GATES[kind] * 2 * 2 * n * d * d


def block_flops(
    n: int, d_model: int, ffn_mult: int = 4, causal: bool = False, batch: int = 1
) -> dict[str, int]:
    """FLOPs of one Transformer block (attention + FFN of hidden width ``ffn_mult·d``), leading terms.

    Returns ``projections`` (``8nd²``), ``quadratic`` (the two n×n products: ``4n²d``, or ``2n²d`` when
    ``causal`` skips the masked half), ``ffn`` (``2·2·ffn_mult·n·d²``, ``16nd²`` at 4) and ``total``.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d_model, "d_model")
    f = check_positive_int(ffn_mult, "ffn_mult")
    b = check_positive_int(batch, "batch")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be a bool: got {causal!r}")
    proj = 8 * n * d * d
    quad = (2 if causal else 4) * n * n * d
    ffn = 4 * f * n * d * d
    return {"projections": b * proj, "quadratic": b * quad, "ffn": b * ffn, "total": b * (proj + quad + ffn)}


def attention_vs_recurrent_crossover(d_model: int, kind: str = "lstm") -> float:
    """Length below which a full attention layer (``8nd² + 4n²d``) costs fewer FLOPs than ``kind``.

    Solves ``8nd² + 4n²d < c·nd²`` (``c`` = 4, 12, 16 for rnn, gru, lstm): ``n < (c - 8)·d / 4``. Returns
    ``0.0`` when no length qualifies (a vanilla RNN, ``c = 4``: attention is never cheaper).
    """
    d = check_positive_int(d_model, "d_model")
    if kind not in _GATES:
        raise ValueError(f"kind must be one of {sorted(_GATES)}: got {kind!r}")
    c = 4 * _GATES[kind]
    return max(0.0, (c - 8) * d / 4)


def block_crossover_length(d_model: int, ffn_mult: int = 4, causal: bool = False) -> float:
    """Length at which the n² terms equal the rest of the block (projections + FFN): ``6d``, ``12d`` causal.

    Solves ``q·n²d = (8 + 4·ffn_mult)·nd²`` with ``q = 4`` (``2`` when ``causal`` skips the masked half);
    the causal case is Kaplan et al.'s ``n_ctx = 12·d_model`` (their context term ``2·n_layer·n_ctx·d``).
    """
    d = check_positive_int(d_model, "d_model")
    f = check_positive_int(ffn_mult, "ffn_mult")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be a bool: got {causal!r}")
    return (8 + 4 * f) * d / (2 if causal else 4)


def attention_weights_bytes(
    n_q: int, n_k: int | None = None, heads: int = 1, batch: int = 1, dtype: torch.dtype = torch.float32
) -> int:
    """Bytes of the attention-weight tensor A of shape (batch, heads, n_q, n_k) in ``dtype``."""
    nq = check_positive_int(n_q, "n_q")
    nk = nq if n_k is None else check_positive_int(n_k, "n_k")
    h = check_positive_int(heads, "heads")
    b = check_positive_int(batch, "batch")
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"dtype must be a torch.dtype: got {type(dtype).__name__}")
    return b * h * nq * nk * torch.empty((), dtype=dtype).element_size()


def kv_cache_bytes(
    layers: int, kv_heads: int, d_k: int, n: int, bytes_per_element: int = 2, batch: int = 1
) -> int:
    """KV-cache size ``2·layers·kv_heads·d_k·n·bytes·batch`` (the 2 is one K and one V per layer)."""
    return (
        2
        * check_positive_int(layers, "layers")
        * check_positive_int(kv_heads, "kv_heads")
        * check_positive_int(d_k, "d_k")
        * check_positive_int(n, "n")
        * check_positive_int(bytes_per_element, "bytes_per_element")
        * check_positive_int(batch, "batch")
    )


def count_flops(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
    """Run ``fn(*args, **kwargs)`` under ``FlopCounterMode``; return (total FLOPs, FLOPs per aten op name)."""
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    with FlopCounterMode(display=False) as counter:
        fn(*args, **kwargs)
    per_op = {str(op): int(c) for op, c in counter.get_flop_counts().get("Global", {}).items()}
    return int(counter.get_total_flops()), per_op


_MATMULS = frozenset({"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "linear", "dot", "mv"})
_NO_WORK = frozenset({"_unsafe_view", "clone", "copy_", "contiguous", "detach", "_local_scalar_dense"})
_FUSED_ATTENTION = frozenset({
    "_flash_attention_forward", "_efficient_attention_forward", "_cudnn_attention_forward",
    "_native_multi_head_attention", "_transformer_encoder_layer_fwd",
})


def _is_fused_attention(name: str) -> bool:
    """An aten op that computes a whole attention in one kernel (its scores never appear as a tensor); under
    ``inference_mode`` the dispatcher shows the composite names (``scaled_dot_product_attention``) too."""
    return name.lstrip("_").startswith("scaled_dot_product") or name in _FUSED_ATTENTION


class _ElementwiseCounter(TorchDispatchMode):
    def __init__(self, fused_ok: bool = False) -> None:
        super().__init__()
        self.per_op: dict[str, int] = {}
        self.fused_ok = fused_ok

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if _is_fused_attention(name) and not self.fused_ok:
            raise ValueError(
                f"elementwise_entries: {name} is a fused attention kernel; its softmax work happens inside "
                "and is not written out, so its entries cannot be counted (use the unfused path, e.g. "
                "return_weights=True, or aten_ops to list the ops)"
            )
        if not (func.is_view or name in _MATMULS or name in _NO_WORK):
            written = sum(t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))
            self.per_op[name] = self.per_op.get(name, 0) + written
        return out


def elementwise_entries(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
    """Entries written by the non-matmul ops of ``fn(*args, **kwargs)``: (total, entries per aten op name).

    What ``FlopCounterMode`` leaves out: scaling, masking, the softmax's max/subtract/exp/sum/divide and
    dropout. Matrix products, views and pure layout copies (``clone``, ``_unsafe_view``) are not counted.
    Raises ``ValueError`` on a fused attention kernel (``_scaled_dot_product_flash_attention_for_cpu`` and
    the like): it writes only its output, so counting it would hide the softmax work it does inside.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    with _ElementwiseCounter() as counter:
        fn(*args, **kwargs)
    return sum(counter.per_op.values()), dict(counter.per_op)


def aten_ops(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, int]:
    """The non-matmul, non-view aten ops ``fn(*args, **kwargs)`` runs, with the entries each writes.

    Unlike ``elementwise_entries`` it accepts fused attention kernels: one shows up under its own name
    with its output size only (what it computes inside is not visible), so use it to see *which* path ran.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    with _ElementwiseCounter(fused_ok=True) as counter:
        fn(*args, **kwargs)
    return dict(counter.per_op)


class PeakMemory(TorchDispatchMode):
    """Dispatch mode that records the peak bytes of live tensor storage created inside the ``with`` block.

    Every aten op's outputs are registered by storage; a storage counts until it is garbage-collected (checked
    with weak references before each op). Tensors that existed before the block (the inputs) are not counted,
    and neither are scratch buffers a fused kernel allocates and frees internally. Attributes after the block:
    ``peak`` (bytes), ``largest`` (bytes of the largest single storage), ``largest_shape`` and ``ops``.
    """

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[int, tuple[StorageWeakRef, int]] = {}
        self._outside: dict[int, StorageWeakRef] = {}  # storages created before the block (inputs)
        self.current = 0
        self.peak = 0
        self.largest = 0
        self.largest_shape: tuple[int, ...] = ()
        self.ops = 0

    def _sweep(self) -> None:
        dead = [key for key, (ref, _) in self._live.items() if ref.expired()]
        for key in dead:
            self.current -= self._live.pop(key)[1]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self._sweep()
        for t in tree_flatten((args, kwargs))[0]:
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                ref = StorageWeakRef(t.untyped_storage())
                if ref.cdata not in self._live:
                    self._outside[ref.cdata] = ref
        out = func(*args, **(kwargs or {}))
        self.ops += 1
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                storage = t.untyped_storage()
                ref = StorageWeakRef(storage)
                if ref.cdata in self._live:
                    continue
                old = self._outside.get(ref.cdata)
                if old is not None and not old.expired():
                    continue  # a view of (or in-place op on) an input: no new memory
                nbytes = storage.nbytes()
                self._live[ref.cdata] = (ref, nbytes)
                self.current += nbytes
                if nbytes > self.largest:
                    self.largest, self.largest_shape = nbytes, tuple(t.shape)
        self.peak = max(self.peak, self.current)
        return out


def peak_memory(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> PeakMemory:
    """Run ``fn(*args, **kwargs)`` under :class:`PeakMemory` with autograd off; return the recorder."""
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    with torch.no_grad(), PeakMemory() as recorder:
        out = fn(*args, **kwargs)
        del out
    return recorder


def peak_memory_autograd(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> PeakMemory:
    """Run ``fn(*args, **kwargs)`` under :class:`PeakMemory` with autograd ON, output (and graph) kept alive.

    The peak then includes every tensor autograd saves for the backward pass, as in training.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    with torch.enable_grad(), PeakMemory() as recorder:
        out = fn(*args, **kwargs)
    del out
    return recorder


def time_call(fn: Callable[[], Any], repeats: int = 5, warmup: int = 1, number: int = 1) -> float:
    """Median wall time in seconds of ``fn()`` over ``repeats`` runs (each the mean of ``number`` calls)."""
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    repeats = check_positive_int(repeats, "repeats")
    number = check_positive_int(number, "number")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be a non-negative int: got {warmup!r}")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)



def fastest_of(
    fns: Mapping[str, Callable[[], Any]],
    repeats: int = 7,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Fastest time in seconds of each ``fns[name]()`` by ``clock``, the calls interleaved round by round.

    For "which is faster" the minimum is the robust statistic (other load on the machine only ever adds
    time), and interleaving exposes every candidate to the same bursts of load. ``clock`` is the timer:
    ``time.perf_counter`` (wall time, the default), ``time.thread_time`` (this thread's CPU time, kernel time
    such as page faults included, time other processes take from the core left out), or a fake one in a test
    so that its durations are exact.
    """
    if not fns or not all(callable(f) for f in fns.values()):
        raise ValueError("fns must be a non-empty mapping of names to callables")
    repeats = check_positive_int(repeats, "repeats")
    for _ in range(warmup):
        for f in fns.values():
            f()
    best = {name: math.inf for name in fns}
    for _ in range(repeats):
        for name, f in fns.items():
            t0 = clock()
            f()
            best[name] = min(best[name], clock() - t0)
    return best


def huge_pages_for_large_tensors(environ: Mapping[str, str] | None = None,
                                 thp_setting: str | None = None) -> bool:
    """Are large CPU tensors backed by transparent huge pages (2 MiB) rather than 4 KiB pages? True when the
    kernel's THP mode is ``always`` (``/sys/kernel/mm/transparent_hugepage/enabled`` reads ``[always] …``) or
    PyTorch is asked to advise huge pages for large allocations (``THP_MEM_ALLOC_ENABLE=1``). With huge pages
    a fresh 64 MiB tensor takes 32 page faults instead of 16,384, so first-touch allocation costs far less.
    ``environ`` / ``thp_setting`` override ``os.environ`` and the sysfs file (for tests)."""
    import os

    env = os.environ if environ is None else environ
    if env.get("THP_MEM_ALLOC_ENABLE") == "1":
        return True
    if thp_setting is None:
        try:
            with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="ascii") as f:
                thp_setting = f.read()
        except OSError:  # not Linux, or no THP support: 4 KiB pages
            return False
    return "[always]" in thp_setting


def minor_page_faults(fn: Callable[[], Any]) -> int | None:
    """Minor page faults this thread takes while running ``fn()`` (each first touch of a new 4 KiB page, or
    2 MiB huge page, of memory), from ``getrusage(RUSAGE_THREAD)``; None where that is not
    available (not Linux).
    A count, not a time: other processes on the machine do not change it. Only this thread's faults count, so
    run ``fn`` on one thread (``utils.one_cpu_thread``) when the pages it touches matter."""
    try:
        import resource

        who = resource.RUSAGE_THREAD
    except (ImportError, AttributeError):
        return None
    before = resource.getrusage(who).ru_minflt
    fn()
    return resource.getrusage(who).ru_minflt - before


def loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log(ys) against log(xs): the exponent p in ys ≈ c·xs^p."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"xs and ys must have the same length >= 2: got {len(xs)} and {len(ys)}")
    if any(x <= 0 for x in xs) or any(y <= 0 for y in ys):
        raise ValueError("xs and ys must be positive to take logarithms")
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    num = sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True))
    den = sum((a - mx) ** 2 for a in lx)
    if den == 0:
        raise ValueError("xs must not all be equal")
    return num / den


def saved_tensor_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Bytes autograd keeps for backward when running ``fn(*args, **kwargs)``: each saved storage once.

    Measured with ``torch.autograd.graph.saved_tensors_hooks`` (inputs that are saved count too), with grad
    enabled even inside ``torch.no_grad()`` (what training would keep, not what inference keeps).
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable: got {type(fn).__name__}")
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        seen[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*args, **kwargs)
    del out
    return sum(seen.values())


saved_tensors_bytes = saved_tensor_bytes  # the older name (chapter 06): one function, not two
