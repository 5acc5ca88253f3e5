"""Attention across processes on ``torch.distributed``: head (tensor), ring (context) and Ulysses parallelism.

Every byte moves through one point-to-point primitive (a batched ``dist.isend`` / ``dist.irecv`` pair), so a
``CommCounter`` records the bytes each rank really hands to the network. On top of it: a ring all-reduce
(reduce-scatter then all-gather, Patarasuk & Yuan 2009), an all-to-all, and a ring shift. The schemes:

- ``HeadParallelAttention`` (Megatron-LM, Shoeybi 2019): Q/K/V column-parallel (each rank owns h/P heads), W_O
  row-parallel, one all-reduce of the (B, n, d_model) output per forward (and one of dX in backward).
- ``ring_attention`` (Liu 2023): each rank keeps its query shard; K/V shards (h_kv heads with GQA) travel
  round the ring; the partial outputs are merged by log-sum-exp (``merge_attention_partials``). Exact. Custom
  backward: a second ring carries K, V and their gradient accumulators (FlashAttention block backward,
  ``flash._backward``). 16-bit inputs are accumulated in float32 (as zhuzilin/ring-flash-attention does).
- ``ulysses_attention`` (DeepSpeed-Ulysses, Jacobs 2023): all-to-all from sequence shards to head shards
  (q with h heads, k and v with h_kv), full attention on h/P heads, all-to-all back.

Tensors are (B, h, n, d_k) (k, v: (B, h_kv, n, d_k)); a rank's shard holds n/P positions given by
``shard_positions``. Every custom backward is once differentiable: a second derivative raises on every rank.
"""

from __future__ import annotations

import math
import os
import socket
import struct
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.autograd.function import once_differentiable

from ._checks import _shape, check_positive_int, check_qkv
from .core import scaled_dot_product_attention
from .flash import _backward, _forward, accumulation_dtype, merge_attention_partials
from .masks import causal_mask
from .multi_head import MultiHeadAttention, _merge_heads, _repeat_kv, _split_heads

__all__ = [
    "CommCounter",
    "HeadParallelAttention",
    "all_to_all",
    "comm_bytes_formula",
    "comm_bytes_per_step",
    "compare_on_groups",
    "compare_schemes",
    "ring_all_reduce",
    "ring_attention",
    "run_on_processes",
    "shard_positions",
    "shard_sequence",
    "ulysses_attention",
]


@dataclass
class CommCounter:
    """Bytes this rank sent (``bytes_sent``), collective calls by kind, score entries computed (``work``)."""

    bytes_sent: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    work: int = 0

    def reset(self) -> None:
        """Zero every count."""
        self.bytes_sent, self.work = 0, 0
        self.calls.clear()


def _world(group: dist.ProcessGroup | None) -> tuple[int, int]:
    """(rank, world size) in ``group`` (None = the default group)."""
    if not dist.is_initialized():
        raise RuntimeError("torch.distributed is not initialised: call dist.init_process_group first")
    return dist.get_rank(group), dist.get_world_size(group)


def _exchange(
    send: torch.Tensor,
    dst: int,
    recv_like: torch.Tensor,
    src: int,
    group: dist.ProcessGroup | None,
    counter: CommCounter | None,
) -> torch.Tensor:
    """Send ``send`` to group rank dst and receive a tensor shaped like ``recv_like`` from group rank src."""
    send = send.contiguous()
    buf = torch.empty_like(recv_like, memory_format=torch.contiguous_format)
    g = dist.group.WORLD if group is None else group
    ops = [  # one batch: no deadlock whatever the order round the ring (the pattern NCCL needs, too)
        dist.P2POp(dist.isend, send, dist.get_global_rank(g, dst), group),
        dist.P2POp(dist.irecv, buf, dist.get_global_rank(g, src), group),
    ]
    for r in dist.batch_isend_irecv(ops):
        r.wait()
    if counter is not None:
        counter.bytes_sent += send.numel() * send.element_size()
    return buf


def ring_all_reduce(
    x: torch.Tensor, group: dist.ProcessGroup | None = None, counter: CommCounter | None = None
) -> torch.Tensor:
    """Sum of ``x`` over the ranks (any shape): ring reduce-scatter then all-gather, 2(P-1)/P |x| sent."""
    rank, world = _world(group)
    if counter is not None:
        counter.calls["all_reduce"] += 1
    if world == 1:
        return x.clone()
    flat = x.reshape(-1).clone()  # (N,)
    chunks = list(torch.tensor_split(flat, world))  # P views of ~N/P each
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    for step in range(world - 1):  # reduce-scatter: after it, rank r owns the full sum of chunk (r + 1) % P
        s, r = (rank - step) % world, (rank - step - 1) % world
        chunks[r] += _exchange(chunks[s], nxt, chunks[r], prv, group, counter)
    for step in range(world - 1):  # all-gather: pass the finished chunks on
        s, r = (rank + 1 - step) % world, (rank - step) % world
        chunks[r].copy_(_exchange(chunks[s], nxt, chunks[r], prv, group, counter))
    return flat.reshape(x.shape)


def all_to_all(
    parts: Sequence[torch.Tensor], group: dist.ProcessGroup | None = None, counter: CommCounter | None = None
) -> list[torch.Tensor]:
    """``parts[j]`` goes to rank j; returns ``out[j]`` = what rank j sent here (shaped like ``parts[j]``)."""
    rank, world = _world(group)
    if len(parts) != world:
        raise ValueError(f"all_to_all needs one part per rank: got {len(parts)} parts for world size {world}")
    if counter is not None:
        counter.calls["all_to_all"] += 1
    out = [torch.empty(0)] * world
    out[rank] = parts[rank].clone()
    for off in range(1, world):
        dst, src = (rank + off) % world, (rank - off) % world
        out[src] = _exchange(parts[dst], dst, parts[src], src, group, counter)
    return out


# ---------------------------------------------------------------- tensor (head) parallel, Megatron-LM


class _CopyToParallel(torch.autograd.Function):
    """Megatron's f: identity forward, all-reduce of the gradient backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, group: Any, counter: Any) -> torch.Tensor:  # type: ignore[override]
        ctx.group, ctx.counter = group, counter
        return x.view_as(x)

    @staticmethod
    @once_differentiable  # the received halves are not in the graph: a second derivative would be wrong
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        return ring_all_reduce(grad, ctx.group, ctx.counter), None, None


class _ReduceFromParallel(torch.autograd.Function):
    """Megatron's g: all-reduce forward, identity backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, group: Any, counter: Any) -> torch.Tensor:  # type: ignore[override]
        return ring_all_reduce(x, group, counter)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        return grad, None, None


class HeadParallelAttention(nn.Module):
    """This rank's h/P heads of a ``MultiHeadAttention``: x (B, n, d_model) replicated -> (B, n, d_model).

    q/k/v projections column-parallel (the rows of W_Q, W_K, W_V for this rank's heads), W_O row-parallel (its
    columns for those heads); the partial outputs are summed by one all-reduce, then W_O's bias is added once.
    """

    def __init__(
        self,
        mha: MultiHeadAttention,
        group: dist.ProcessGroup | None = None,
        counter: CommCounter | None = None,
    ) -> None:
        super().__init__()
        rank, world = _world(group)
        h, h_kv, d_k = mha.num_heads, mha.num_kv_heads, mha.d_k
        if h_kv % world:
            raise ValueError(
                f"head parallelism needs the (key/value) heads divisible by the world size: "
                f"got num_heads={h}, num_kv_heads={h_kv}, world size {world}"
            )
        self.group, self.counter = group, counter
        self.d_model, self.heads, self.kv_heads, self.d_k = mha.d_model, h // world, h_kv // world, d_k
        q_rows = slice(rank * self.heads * d_k, (rank + 1) * self.heads * d_k)
        kv_rows = slice(rank * self.kv_heads * d_k, (rank + 1) * self.kv_heads * d_k)
        has_bias = mha.q_proj.bias is not None
        fw = {"device": mha.q_proj.weight.device, "dtype": mha.q_proj.weight.dtype}  # the full layer's
        self.q_proj = nn.Linear(mha.d_model, self.heads * d_k, bias=has_bias, **fw)
        self.k_proj = nn.Linear(mha.d_model, self.kv_heads * d_k, bias=has_bias, **fw)
        self.v_proj = nn.Linear(mha.d_model, self.kv_heads * d_k, bias=has_bias, **fw)
        self.out_proj = nn.Linear(
            self.heads * d_k, mha.d_model, bias=False, **fw
        )  # W_O[:, this rank's heads]
        self.out_bias = nn.Parameter(mha.out_proj.bias.detach().clone()) if has_bias else None
        with torch.no_grad():
            for mine, full, rows in (
                (self.q_proj, mha.q_proj, q_rows),
                (self.k_proj, mha.k_proj, kv_rows),
                (self.v_proj, mha.v_proj, kv_rows),
            ):
                mine.weight.copy_(full.weight[rows])
                if has_bias:
                    mine.bias.copy_(full.bias[rows])
            self.out_proj.weight.copy_(mha.out_proj.weight[:, q_rows])

    def forward(self, x: torch.Tensor, causal: bool = False) -> torch.Tensor:
        """x (B, n, d_model), the same on every rank -> (B, n, d_model), the same on every rank."""
        if x.ndim != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"x must be (B, n, d_model={self.d_model}): got {_shape(x)}")
        x = _CopyToParallel.apply(x, self.group, self.counter)  # (B, n, d_model)
        q = _split_heads(self.q_proj(x), self.heads)  # (B, h/P, n, d_k)
        k = _repeat_kv(_split_heads(self.k_proj(x), self.kv_heads), self.heads // self.kv_heads)
        v = _repeat_kv(_split_heads(self.v_proj(x), self.kv_heads), self.heads // self.kv_heads)
        mask = causal_mask(x.shape[1], device=x.device) if causal else None
        o = scaled_dot_product_attention(q, k, v, mask=mask)  # (B, h/P, n, d_k)
        assert isinstance(o, torch.Tensor)
        y = _ReduceFromParallel.apply(
            self.out_proj(_merge_heads(o)), self.group, self.counter
        )  # (B, n, d_model)
        return y if self.out_bias is None else y + self.out_bias


# ---------------------------------------------------------------- sequence sharding


def shard_positions(n: int, rank: int, world: int, layout: str = "contiguous") -> list[tuple[int, int]]:
    """The [start, end) segments rank ``rank`` holds: contiguous (one of P) or zigzag (c_r and c_2P-1-r)."""
    n, world = check_positive_int(n, "n"), check_positive_int(world, "world")
    if layout == "contiguous":
        if n % world:
            raise ValueError(f"contiguous sharding needs n divisible by the world size: got n={n}, P={world}")
        c = n // world
        return [(rank * c, (rank + 1) * c)]
    if layout == "zigzag":
        if n % (2 * world):
            raise ValueError(
                f"zigzag sharding needs n divisible by 2 x world size: got n={n}, 2P={2 * world}"
            )
        c = n // (2 * world)
        return [(rank * c, (rank + 1) * c), ((2 * world - 1 - rank) * c, (2 * world - rank) * c)]
    raise ValueError(f"layout must be 'contiguous' or 'zigzag': got {layout!r}")


def shard_sequence(
    x: torch.Tensor, rank: int, world: int, layout: str = "contiguous", dim: int = -2
) -> torch.Tensor:
    """This rank's shard of ``x`` along ``dim`` (the segments of ``shard_positions``, concatenated)."""
    segs = shard_positions(x.shape[dim], rank, world, layout)
    return torch.cat([x.narrow(dim, a, b - a) for a, b in segs], dim=dim)


# ---------------------------------------------------------------- ring attention (context parallel)


def _local_segments(segs: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(local start, global start, length) of each segment in a shard."""
    out, pos = [], 0
    for a, b in segs:
        out.append((pos, a, b - a))
        pos += b - a
    return out


def _pair_kind(qa: int, qlen: int, ka: int, klen: int, causal: bool) -> str | None:
    """'full', 'diag' (causal, same positions) or None (fully masked) for a query and a key segment."""
    if not causal or ka + klen <= qa:
        return "full"
    if ka >= qa + qlen:
        return None
    if ka == qa and klen == qlen:
        return "diag"
    raise AssertionError("segments are equal-sized and aligned")  # pragma: no cover


_LAYOUTS = ("contiguous", "zigzag")  # shard_positions' layouts, coded by index in the rank check
_MAX_DIMS = 8  # the shape check below has a fixed length: every rank all-reduces the same buffer
_DTYPE_CODES = {torch.float16: 1, torch.bfloat16: 2, torch.float32: 3, torch.float64: 4}


def _check_device(q: Any, group: Any) -> torch.device:
    """The device of the check's all-reduce, chosen on each rank from its own q and the group's backend.

    - q a CUDA tensor and the group has an NCCL backend (``"nccl"``, ``"cuda:nccl"``,
      ``"cpu:gloo,cuda:nccl"``): q's device, so ranks that placed their shards with
      ``.to(f"cuda:{local_rank}")`` without ``torch.cuda.set_device`` do not all land on cuda:0.
    - otherwise, a group whose only backend is NCCL (``"nccl"``, ``"cuda:nccl"``; NCCL takes CUDA tensors
      only): this rank's current CUDA device (a CPU or non-tensor q; it raises when there is no CUDA
      device).
    - otherwise (gloo; a multi-backend group, which picks its backend by the tensor's device): q's device,
      the CPU for a non-tensor q.

    A group made with no backend named (``get_backend`` says ``"undefined"``) is read from its backend config
    (torch 2.13: the accelerator's one, ``"cuda:nccl"`` on a GPU machine, ``"cpu:gloo"`` without one).

    The choice is per rank and the device type is not agreed first: under a multi-backend group every rank
    must pass q on the same device type (all CUDA or all CPU). If one rank passes a CPU or non-tensor q
    while the others pass CUDA tensors, its check runs on gloo and theirs on NCCL, and the ranks block in
    the all-reduce (until the backend's timeout) instead of raising ValueError.
    """
    backend = str(dist.get_backend(group))
    if backend == "undefined":  # init_process_group() with no backend: the accelerator's, e.g. "cuda:nccl"
        backend = str(dist.get_backend_config(group))
    specs = [b.split(":")[-1] for b in backend.split(",")]  # "cpu:gloo,cuda:nccl" -> ["gloo", "nccl"]
    if "nccl" in specs:
        if isinstance(q, torch.Tensor) and q.is_cuda:
            return q.device
        if all(b == "nccl" for b in specs):
            return torch.device("cuda", torch.cuda.current_device())
    return q.device if isinstance(q, torch.Tensor) else torch.device("cpu")


def _float_bits(x: float) -> int:
    """The IEEE-754 bits of a float64 as an int64: equal exactly when the floats are (for the check)."""
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _check_on_every_rank(
    q: Any,
    k: Any,
    v: Any,
    group: Any,
    what: str,
    local_check: Callable[[], None],
    options: Callable[[], dict[str, tuple[int, object]]] = dict,
    option_names: Sequence[str] = (),
) -> None:
    """Run ``local_check`` (types, shapes, dtypes, NaN/inf of this rank's q, k, v), then raise on every rank.

    One all-reduce (MAX) of a fixed-length int64 vector and its negation, on the device ``_check_device``
    picks (q's device; the current CUDA device for a CPU q under an NCCL-only group): an error flag from
    ``local_check``, ndim, dtype code and the shapes (padded to ``_MAX_DIMS``) of q, k and v, then the int
    codes of ``options()`` (``option_names`` -> (code, value shown): causal, layout, the scale's bits; read
    after ``local_check`` validated them), which must agree too. Every rank
    takes part whatever its inputs (any exception of the local checks, a non-tensor input included, is
    held until after the all-reduce), so a failure on one rank raises its error there and ValueError on
    the others instead of leaving them blocked in the next collective. Empty shards (n/P = 0) are refused, so
    the ring and Ulysses agree (neither returns an empty output for n/P = 0), as are a head width of 0
    and zero heads. The check is not part of the layer's
    traffic and is not recorded in a ``CommCounter``.
    """
    err: Exception | None = None
    try:
        for name, t in (("q", q), ("k", k), ("v", v)):  # before local_check: it reads .ndim, .shape
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{what}: {name} must be a torch.Tensor: got {type(t).__name__}")
        for name, t in (("q", q), ("k", k), ("v", v)):  # before local_check, which divides by the heads
            if t.ndim >= 1 and t.shape[-1] == 0 or t.ndim >= 3 and t.shape[-3] == 0:
                raise ValueError(f"{what} needs a head width and a head count >= 1: got {name} {_shape(t)}")
        local_check()
        if q.ndim >= 2 and q.shape[-2] == 0:  # ring and Ulysses alike: an empty shard is refused
            raise ValueError(
                f"{what} needs a non-empty shard on every rank: got q {_shape(q)} (n/P = 0 positions)"
            )
        if max(q.ndim, k.ndim, v.ndim) > _MAX_DIMS:
            raise ValueError(f"{what} takes tensors of at most {_MAX_DIMS} dims: got q {_shape(q)}")
        for name, t in (("q", q), ("k", k), ("v", v)):  # local_check found no NaN: amax |t| is inf or finite
            if t.numel() and torch.isinf(t.detach().abs().amax()):
                raise ValueError(f"{what}: {name} contains inf: got shape {_shape(t)}")
        opts = options()
        assert list(opts) == list(option_names), (list(opts), option_names)
    except Exception as e:  # any failure here must still reach the all-reduce below, or the others hang
        err = e
    vec = [1 if err is not None else 0]
    for t in (q, k, v):
        ok = err is None
        shape = list(t.shape) if ok else []
        vec += [len(shape), _DTYPE_CODES.get(t.dtype, 99) if ok else 0]
        vec += shape + [-1] * (_MAX_DIMS - len(shape))
    shape_len = len(vec)  # then one code per option name, 0 after an error (the length is fixed)
    vec += [opts[name][0] if err is None else 0 for name in option_names]
    try:
        device = _check_device(q, group)
    except Exception as e:  # pragma: no cover - no CUDA device under an NCCL group: raised after the others
        err, device = err or e, torch.device("cpu")
    loc = torch.tensor(vec, dtype=torch.int64, device=device)
    both = torch.cat([loc, -loc])
    dist.all_reduce(both, op=dist.ReduceOp.MAX, group=group)
    hi, lo = both[: len(vec)].cpu(), -both[len(vec) :].cpu()
    if err is not None:
        raise err
    if int(hi[0]):
        raise ValueError(f"{what}: the inputs of another rank failed a check (its error is raised there)")
    if torch.equal(hi, lo):
        return
    width = 2 + _MAX_DIMS
    meta = [
        (int(lo[1 + width * i]), int(hi[1 + width * i]), int(lo[2 + width * i]), int(hi[2 + width * i]))
        for i in range(3)
    ]
    if any(a != b or c != d for a, b, c, d in meta):
        raise ValueError(
            f"{what} needs the same ndim and dtype on every rank: this rank has q {_shape(q)} {q.dtype}, "
            f"k {_shape(k)} {k.dtype}, v {_shape(v)} {v.dtype}; ndim (q, k, v) ranges over "
            f"{[(a, b) for a, b, _, _ in meta]}, dtype codes over {[(c, d) for _, _, c, d in meta]}"
        )
    if torch.equal(hi[:shape_len], lo[:shape_len]):  # the shapes agree (reported first): an option differs
        differ = [n for i, n in enumerate(option_names) if int(hi[shape_len + i]) != int(lo[shape_len + i])]
        verb = "differs" if len(differ) == 1 else "differ"
        raise ValueError(
            f"{what} needs the same {', '.join(option_names)} on every rank: {', '.join(differ)} {verb} "
            f"across ranks (this rank: {', '.join(f'{n}={opts[n][1]!r}' for n in option_names)})"
        )
    at = next(i for i in range(shape_len) if int(hi[i]) != int(lo[i]))  # the first entry that differs
    which, dim = divmod(at - 1, width)
    name, dim = "qkv"[which], dim - 2  # ndim and dtype agree (checked above): a shape entry differs
    t = (q, k, v)[which]
    seq = dim == t.ndim - 2
    raise ValueError(
        f"{what} needs equal shards on every rank: {name}'s dim {dim - t.ndim} "
        f"({'the shard length' if seq else 'not the sequence'}) ranges over "
        f"[{int(lo[at])}, {int(hi[at])}] across ranks "
        f"(this rank: q {_shape(q)}, k {_shape(k)}, v {_shape(v)})"
        + ("; pad the sequence to a multiple of the shard count" if seq else "")
    )


def _check_qkv_heads(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    """``check_qkv``, also when k, v have fewer (K/V) heads than q in dim -3 (GQA, 4-D tensors)."""
    if q.ndim == 4 and k.ndim == 4 and v.ndim == 4 and q.shape[1] != k.shape[1]:
        check_qkv(q, k[:, :1], v[:, :1])  # q's values and dtypes
        check_qkv(q[:, :1], k, v)  # k's and v's
    else:
        check_qkv(q, k, v)


def _ring_forward(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool,
    layout: str,
    scale: float,
    group: Any,
    counter: CommCounter | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """O (..., h, n/P, d) and L (..., h, n/P) in the accumulation dtype; K/V travel round the ring.

    Each block is computed in float32 for 16-bit inputs (``accumulation_dtype``), the partials are merged in
    float32 and the caller casts once; what travels is K/V in the input dtype, h_kv heads.
    """
    rank, world = _world(group)
    n = q.shape[-2] * world
    acc_t = accumulation_dtype(q.dtype)
    rep = q.shape[-3] // k.shape[-3] if q.ndim >= 3 else 1  # query heads per K/V head (GQA)
    q32 = q.to(acc_t)
    q_segs = _local_segments(shard_positions(n, rank, world, layout))
    partials: list[tuple[list[torch.Tensor], list[torch.Tensor]]] = [([], []) for _ in q_segs]
    kv = torch.stack([k, v])  # (2, ..., h_kv, n/P, d), input dtype
    for step in range(world):
        src = (rank - step) % world  # the rank whose K/V shard we hold now
        k32, v32 = (_repeat_kv(t.to(acc_t), rep) if rep > 1 else t.to(acc_t) for t in (kv[0], kv[1]))
        for (ql, qa, qn), (outs, lses) in zip(q_segs, partials, strict=True):
            for kl, ka, kn in _local_segments(shard_positions(n, src, world, layout)):
                kind = _pair_kind(qa, qn, ka, kn, causal)
                if kind is None:
                    continue
                o, lse = _forward(
                    q32[..., ql : ql + qn, :],
                    k32[..., kl : kl + kn, :],
                    v32[..., kl : kl + kn, :],
                    kind == "diag",
                    max(qn, kn),
                    scale,
                )
                outs.append(o)
                lses.append(lse)
                if counter is not None:
                    counter.work += qn * kn
        if step < world - 1:
            kv = _exchange(kv, (rank + 1) % world, kv, (rank - 1) % world, group, counter)
    merged = [merge_attention_partials(outs, lses) for outs, lses in partials]
    return torch.cat([m[0] for m in merged], dim=-2), torch.cat([m[1] for m in merged], dim=-1)


def _fold_kv(g: torch.Tensor, rep: int) -> torch.Tensor:
    """Gradient w.r.t. repeated K/V heads (..., h, n, d) -> w.r.t. the h_kv = h / rep originals."""
    return g if rep == 1 else g.unflatten(-3, (g.shape[-3] // rep, rep)).sum(-3)


class _RingAttention(torch.autograd.Function):
    """Forward: ring of K/V. Backward: a second ring carries K, V and dK, dV; dK, dV end at their owner.

    For 16-bit inputs O, L, the merge and dQ, dK, dV (also the travelling dK, dV) are float32; O and the
    gradients are cast to the input dtype once, at the end.
    """

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        causal: bool,
        layout: str,
        scale: float,
        group: Any,
        counter: Any,
    ) -> torch.Tensor:
        out, lse = _ring_forward(q, k, v, causal, layout, scale, group, counter)
        ctx.save_for_backward(q, k, v, out, lse)  # out, lse in the accumulation dtype
        ctx.args = (causal, layout, scale, group, counter)
        return out.to(q.dtype)

    @staticmethod
    @once_differentiable  # hand-written, L treated as a constant: a second derivative raises on every rank
    def backward(ctx: Any, d_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        q, k, v, out, lse = ctx.saved_tensors
        causal, layout, scale, group, counter = ctx.args
        rank, world = _world(group)
        n = q.shape[-2] * world
        acc_t = out.dtype
        rep = q.shape[-3] // k.shape[-3] if q.ndim >= 3 else 1
        q32, d_out = q.to(acc_t), d_out.to(acc_t).contiguous()
        dq = torch.zeros_like(q32)
        kv = torch.stack([k, v])  # (2, ..., h_kv, n/P, d): K, V in the input dtype
        dkv = torch.zeros_like(kv, dtype=acc_t)  # (2, ..., h_kv, n/P, d): dK, dV accumulators, float32+
        q_segs = _local_segments(shard_positions(n, rank, world, layout))
        nxt, prv = (rank + 1) % world, (rank - 1) % world
        for step in range(world):
            src = (rank - step) % world
            k32, v32 = (_repeat_kv(t.to(acc_t), rep) if rep > 1 else t.to(acc_t) for t in (kv[0], kv[1]))
            for ql, qa, qn in q_segs:
                qs = slice(ql, ql + qn)
                for kl, ka, kn in _local_segments(shard_positions(n, src, world, layout)):
                    kind = _pair_kind(qa, qn, ka, kn, causal)
                    if kind is None:
                        continue
                    ks = slice(kl, kl + kn)
                    gq, gk, gv = _backward(
                        q32[..., qs, :],
                        k32[..., ks, :],
                        v32[..., ks, :],
                        out[..., qs, :],
                        lse[..., qs],
                        d_out[..., qs, :],
                        kind == "diag",
                        max(qn, kn),
                        scale,
                    )
                    dq[..., qs, :] += gq
                    dkv[0][..., ks, :] += _fold_kv(gk, rep)
                    dkv[1][..., ks, :] += _fold_kv(gv, rep)
            if step < world - 1:
                kv = _exchange(kv, nxt, kv, prv, group, counter)
            if world > 1:  # dK, dV follow their K, V; after the last block they go one more hop, home
                dkv = _exchange(dkv, nxt, dkv, prv, group, counter)
        return dq.to(q.dtype), dkv[0].to(k.dtype), dkv[1].to(v.dtype), None, None, None, None, None


def ring_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    group: dist.ProcessGroup | None = None,
    causal: bool = False,
    layout: str = "contiguous",
    scale: float | None = None,
    counter: CommCounter | None = None,
) -> torch.Tensor:
    """This rank's shards q (B, h, n/P, d_k), k, v (B, h_kv, n/P, d_k) -> its attention (B, h, n/P, d_k).

    softmax(q k^T scale) v over the whole sequence. ``layout`` says which positions each rank holds
    (``shard_positions``); it matters only when ``causal``. Grouped-query attention: k, v may have h_kv heads
    (h_kv divides h; only those travel); v must have the width of k (d_v = d_k). Exact, forward and backward
    (custom backward, a second ring; once differentiable). float16 / bfloat16 inputs accumulate in float32.
    Shards must be equal on every rank (checked by one small all-reduce): n divisible by P (by 2P for zigzag).
    """

    def local_check() -> None:
        _check_qkv_heads(q, k, v)
        gqa = q.ndim == 4 and k.shape == v.shape and k.ndim == 4 and k.shape[1] != q.shape[1]
        if gqa and (q.shape[1] % k.shape[1] or q.shape[0] != k.shape[0] or q.shape[2:] != k.shape[2:]):
            raise ValueError(
                f"ring_attention with grouped K/V heads needs q (B, h, n/P, d), k = v (B, h_kv, n/P, d), "
                f"h_kv dividing h: got q {_shape(q)}, k {_shape(k)}, v {_shape(v)}"
            )
        if not gqa and (q.shape != k.shape or k.shape != v.shape):
            raise ValueError(
                f"ring_attention needs q, k, v shards of one shape (..., n/P, d), or k = v (B, h_kv, n/P, d) "
                f"with h_kv dividing h: got q {_shape(q)}, k {_shape(k)}, v {_shape(v)}"
            )
        if not isinstance(causal, bool):
            raise ValueError(f"causal must be a bool: got {causal!r}")
        if not isinstance(layout, str) or layout not in _LAYOUTS:  # as shard_positions says it
            raise ValueError(f"layout must be 'contiguous' or 'zigzag': got {layout!r}")
        if scale is not None and (
            isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale)
        ):  # as core's and flash's: NaN or inf would make every score row NaN (a "fully masked" zero output)
            raise ValueError(f"scale must be a finite number: got {scale!r}")

    def options() -> dict[str, tuple[int, object]]:
        s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
        return {
            "causal": (int(causal), causal),
            "layout": (_LAYOUTS.index(layout), layout),
            "scale": (_float_bits(s), s),
        }

    _, world = _world(group)
    _check_on_every_rank(
        q, k, v, group, "ring_attention", local_check, options, ("causal", "layout", "scale")
    )
    shard_positions(q.shape[-2] * world, 0, world, layout)  # the length for this layout (n divisible by 2P)
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if counter is not None:
        counter.calls["ring_attention"] += 1
    out = _RingAttention.apply(q, k, v, causal, layout, s, group, counter)
    assert isinstance(out, torch.Tensor)
    return out


# ---------------------------------------------------------------- Ulysses (sequence <-> head all-to-all)


class _AllToAll(torch.autograd.Function):
    """Split ``x`` along split_dim into P parts, exchange, concatenate along cat_dim; backward the reverse."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, x: torch.Tensor, split_dim: int, cat_dim: int, group: Any, counter: Any
    ) -> torch.Tensor:
        ctx.args = (split_dim, cat_dim, group, counter)
        _, world = _world(group)
        return torch.cat(all_to_all(list(torch.chunk(x, world, dim=split_dim)), group, counter), dim=cat_dim)

    @staticmethod
    @once_differentiable  # the received parts are not in the graph
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        split_dim, cat_dim, group, counter = ctx.args
        _, world = _world(group)
        parts = all_to_all(list(torch.chunk(grad, world, dim=cat_dim)), group, counter)
        return torch.cat(parts, dim=split_dim), None, None, None, None


def ulysses_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    group: dist.ProcessGroup | None = None,
    causal: bool = False,
    counter: CommCounter | None = None,
) -> torch.Tensor:
    """Contiguous shards q (B, h, n/P, d_k), k, v (B, h_kv, n/P, d_k) -> this rank's (B, h, n/P, d_k).

    One all-to-all turns q into all n positions of h/P heads, one turns the stacked k, v into all n positions
    of h_kv/P heads (grouped-query attention: h_kv divides h; h_kv = h without it); attention runs there; one
    all-to-all turns the output back into n/P positions of all h heads. Each rank owns whole heads and this
    implementation (as the paper) splits them evenly, so P must divide h_kv (and h). Shards must be equal on
    every rank (checked by one small all-reduce).
    """

    def local_check() -> None:
        _check_qkv_heads(q, k, v)
        if (
            q.ndim != 4
            or k.shape != v.shape
            or k.ndim != 4
            or q.shape[0] != k.shape[0]
            or q.shape[2:] != k.shape[2:]
            or q.shape[1] % k.shape[1]
        ):
            raise ValueError(
                f"ulysses_attention needs q (B, h, n/P, d_k) and k, v of one shape (B, h_kv, n/P, d_k), h_kv "
                f"dividing h: got q {_shape(q)}, k {_shape(k)}, v {_shape(v)}"
            )
        if not isinstance(causal, bool):  # as ring_attention: "False" would run causal attention
            raise ValueError(f"causal must be a bool: got {causal!r}")

    _, world = _world(group)
    _check_on_every_rank(
        q,
        k,
        v,
        group,
        "ulysses_attention",
        local_check,
        lambda: {"causal": (int(causal), causal)},
        ("causal",),
    )
    h, h_kv = q.shape[1], k.shape[1]
    if h_kv % world:
        raise ValueError(
            f"this Ulysses splits whole heads evenly, so it needs the (key/value) heads divisible by the "
            f"world size: got h={h}, h_kv={h_kv}, P={world} (the hard bound is P <= heads)"
        )
    qh = _AllToAll.apply(q, 1, 2, group, counter)  # (B, h/P, n, d_k)
    kv = _AllToAll.apply(torch.stack([k, v]), 2, 3, group, counter)  # (2, B, h_kv/P, n, d_k)
    assert isinstance(qh, torch.Tensor) and isinstance(kv, torch.Tensor)
    rep = h // h_kv
    kh, vh = _repeat_kv(kv[0], rep), _repeat_kv(kv[1], rep)  # (B, h/P, n, d_k): rank j's K/V heads
    mask = causal_mask(qh.shape[-2], device=q.device) if causal else None
    o = scaled_dot_product_attention(qh, kh, vh, mask=mask)  # (B, h/P, n, d_k)
    out = _AllToAll.apply(o, 2, 1, group, counter)  # (B, h, n/P, d_k)
    assert isinstance(out, torch.Tensor)
    return out


# ---------------------------------------------------------------- closed forms and a launcher


def comm_bytes_formula(
    scheme: str,
    n: int,
    d_model: int,
    world: int,
    batch: int = 1,
    bytes_per_element: int = 4,
    backward: bool = False,
    num_heads: int = 1,
    kv_heads: int | None = None,
    grad_bytes_per_element: int | None = None,
) -> float:
    """Bytes one rank sends per attention layer (forward, or backward only); d_model = h d_k.

    Grouped-query attention: ``kv_heads`` = h_kv of ``num_heads`` = h (default h_kv = h, no GQA); K and V are
    then (B, n, d_kv) with d_kv = h_kv d_k = d h_kv / h. With e = bytes_per_element:

    head: ring all-reduce of the (B, n, d) output: 2(P-1)/P B n d e (backward: the same, for dX).
    ring: P-1 hops of a K and a V shard: 2(P-1)/P B n d_kv e. Backward: P-1 hops of K, V and P hops of the
        dK, dV accumulators of e_acc bytes: (2(P-1) e + 2P e_acc)/P B n d_kv. e_acc =
        ``grad_bytes_per_element``; by default max(e, 4), float32 for 16-bit inputs, as ``ring_attention``
        sends them (pass e_acc = e for an implementation that sends 16-bit dK, dV).
    ulysses: all-to-alls of q (h heads), k, v (h_kv heads) and O (h heads), each sending (P-1)/P of its
        1/P shard: (P-1)/P^2 B n (2d + 2d_kv) e; backward the same (the reverse all-to-alls).
    """
    e, p = bytes_per_element, world
    h_kv = num_heads if kv_heads is None else kv_heads
    bnd = batch * n * d_model
    bnd_kv = bnd * h_kv / num_heads
    if scheme == "head":
        return 2 * (p - 1) / p * bnd * e
    if scheme == "ring":
        if not backward:
            return 2 * (p - 1) / p * bnd_kv * e
        e_acc = max(e, 4) if grad_bytes_per_element is None else grad_bytes_per_element
        return (2 * (p - 1) * e + (2 * p * e_acc if p > 1 else 0)) / p * bnd_kv
    if scheme == "ulysses":
        return (p - 1) / p**2 * (2 * bnd + 2 * bnd_kv) * e
    raise ValueError(f"scheme must be 'head', 'ring' or 'ulysses': got {scheme!r}")


def comm_bytes_per_step(
    scheme: str,
    n: int,
    d_model: int,
    world: int,
    recompute: bool = False,
    **kwargs: Any,
) -> float:
    """Bytes one rank sends per attention layer in one training step: forward + backward.

    ``recompute``: full activation checkpointing re-runs the layer's whole forward in the backward pass, so
    its communication is sent twice: 2 forward + backward. (``torch.utils.checkpoint`` by default stops
    recomputing once the saved tensors are back: Ulysses' output all-to-all, which saves nothing, is then
    not re-sent; ``set_checkpoint_early_stop(False)`` re-runs it all.) ``kwargs`` go to
    ``comm_bytes_formula`` (batch, bytes_per_element, num_heads, kv_heads, grad_bytes_per_element).
    """
    fwd = comm_bytes_formula(scheme, n, d_model, world, backward=False, **kwargs)
    bwd = comm_bytes_formula(scheme, n, d_model, world, backward=True, **kwargs)
    return (2 if recompute else 1) * fwd + bwd


def _free_port() -> int:
    """A TCP port on the loopback that is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _refuse_threads(n: int) -> None:
    """``torch.set_num_threads`` in a forked child: only 1 (GNU OpenMP is not fork-safe)."""
    if int(n) != 1:
        raise RuntimeError(
            f"torch.set_num_threads({n}) in a forked child of run_on_processes: a forked child that starts "
            "an OpenMP thread team after its parent used one can hang (GNU libgomp is not fork-safe); keep "
            "one thread or pass start_method='spawn' or 'forkserver'"
        )


def _worker(
    rank: int,
    world: int,
    port: int,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    queue: Any,
    forked: bool = False,
) -> None:
    """One process: join the gloo group on the loopback, run fn(rank, world, *args), report its result.

    One intra-op thread; a forked child also refuses ``torch.set_num_threads(k)`` for k > 1 (see
    ``run_on_processes``), and fails if it ends with more than one thread (a call the patch could not
    intercept: a reference to the builtin bound before the fork).
    """
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    if forked:
        torch.set_num_threads = _refuse_threads  # type: ignore[assignment]
        torch._C.set_num_threads = _refuse_threads  # type: ignore[attr-defined]
    try:
        dist.init_process_group("gloo", rank=rank, world_size=world)
        try:
            result = fn(rank, world, *args)
            if forked and torch.get_num_threads() != 1:
                raise RuntimeError(
                    f"a forked child of run_on_processes ended with {torch.get_num_threads()} intra-op "
                    "threads: torch.set_num_threads was called through a reference bound before the fork "
                    "(e.g. `from torch import set_num_threads`), which the guard cannot intercept; GNU "
                    "OpenMP is not fork-safe, so such a child can hang: keep one thread or pass "
                    "start_method='spawn' or 'forkserver'"
                )
            queue.put((rank, True, result))
        finally:
            dist.destroy_process_group()
    except BaseException:  # report, the parent raises
        queue.put((rank, False, traceback.format_exc()))


def _default_start_method() -> str:
    """'fork' where it is safe and cheaper (Linux, no CUDA, no process group here), else 'spawn'."""
    if sys.platform != "linux" or torch.cuda.is_initialized() or dist.is_initialized():
        return "spawn"
    return "fork"


def run_on_processes(
    fn: Callable[..., Any],
    world: int,
    *args: Any,
    timeout: float = 120.0,
    start_method: str | None = None,
) -> list[Any]:
    """Run ``fn(rank, world, *args)`` on ``world`` CPU processes in one gloo group; results by rank.

    ``start_method``: 'fork' (children inherit the imported torch: no re-import) or 'spawn' (fresh
    interpreters; ``fn`` must be importable, a module-level function). None picks 'fork' on Linux when this
    process has neither CUDA nor a process group initialised, else 'spawn'. Every child runs with one
    intra-op thread. A forked child must keep it: GNU OpenMP (libgomp) is not fork-safe, and a child that
    starts a thread team after the parent used one hangs, so ``torch.set_num_threads(k)`` with k > 1 raises
    RuntimeError there (reported as a failure of that rank); a call the guard cannot intercept (through a
    reference to the builtin bound before the fork) is caught when ``fn`` returns: a child that ends with
    more than one thread fails too (if it hung first, ``timeout`` ends the wait). Use 'spawn' or
    'forkserver' for more threads per process. A failure on any rank raises
    RuntimeError with its traceback; a child that dies without reporting raises RuntimeError naming its rank
    and exit code; ``timeout`` seconds without any result raises TimeoutError.
    """
    import queue as queue_mod

    import torch.multiprocessing as mp

    world = check_positive_int(world, "world")
    method = _default_start_method() if start_method is None else start_method
    if method not in ("fork", "spawn", "forkserver"):
        raise ValueError(f"start_method must be 'fork', 'spawn' or 'forkserver': got {start_method!r}")
    ctx = mp.get_context(method)
    queue = ctx.Queue()
    port = _free_port()
    procs = [
        ctx.Process(target=_worker, args=(r, world, port, fn, args, queue, method == "fork"), daemon=True)
        for r in range(world)
    ]
    for p in procs:
        p.start()
    results: dict[int, Any] = {}
    errors = []
    try:
        deadline = time.monotonic() + timeout
        while len(results) < world and not errors:
            try:
                rank, ok, value = queue.get(timeout=0.2)
            except queue_mod.Empty:
                dead = [
                    (r, p.exitcode)
                    for r, p in enumerate(procs)
                    if r not in results and p.exitcode not in (None, 0)
                ]
                if dead:
                    r, code = dead[0]
                    errors.append(f"rank {r} died without reporting a result (exit code {code})")
                elif time.monotonic() > deadline:
                    missing = [r for r in range(world) if r not in results]
                    raise TimeoutError(f"no result from ranks {missing} within {timeout} s") from None
                continue
            if ok:
                results[rank] = value
            else:
                errors.append(f"rank {rank}:\n{value}")
    finally:
        for p in procs:
            p.join(timeout=5 if not errors else 0.5)
            if p.is_alive():
                p.terminate()
                p.join()
    if errors:
        raise RuntimeError("a process failed: " + "\n".join(errors))
    return [results[r] for r in range(world)]


def compare_schemes(
    rank: int,
    world: int,
    n: int = 16,
    d_model: int = 16,
    h: int = 4,
    batch: int = 1,
    seed: int = 0,
    group: dist.ProcessGroup | None = None,
) -> dict[str, Any]:
    """Run every scheme on this rank against one process with the same weights (float64); errors and counts.

    Returns max |error| of outputs and gradients against ``MultiHeadAttention`` / full attention computed
    here alone, bytes this rank sent per scheme (forward; backward for the ring; a whole training step with
    the forward recomputed in full, for the ring and Ulysses), the all-reduce count of one
    head-parallel forward, and score entries computed by causal ring attention per layout.
    """
    rank, world = _world(group)  # the position in ``group``, not in the default group
    gen = torch.Generator().manual_seed(seed)
    d_k = d_model // h
    x = torch.randn(batch, n, d_model, generator=gen, dtype=torch.float64)
    q, k, v = (torch.randn(batch, h, n, d_k, generator=gen, dtype=torch.float64) for _ in range(3))
    d_y = torch.randn(batch, n, d_model, generator=gen, dtype=torch.float64)
    d_o = torch.randn(batch, h, n, d_k, generator=gen, dtype=torch.float64)
    torch.manual_seed(seed)
    mha = MultiHeadAttention(d_model, h).double()
    res: dict[str, Any] = {}

    xr = x.clone().requires_grad_()  # head parallel vs one process
    (mha(xr) * d_y).sum().backward()
    c = CommCounter()
    tp = HeadParallelAttention(mha, group, counter=c)
    xt = x.clone().requires_grad_()
    y = tp(xt)
    res["head_all_reduces"] = c.calls["all_reduce"]
    res["head_bytes"] = c.bytes_sent
    c.reset()
    (y * d_y).sum().backward()
    res["head_bwd"] = (c.calls["all_reduce"], c.bytes_sent)  # all-reduces and bytes of the backward
    res["head_err"] = (y - mha(x)).abs().max().item()
    rows = slice(rank * (h // world) * d_k, (rank + 1) * (h // world) * d_k)
    assert mha.q_proj.weight.grad is not None and mha.out_proj.weight.grad is not None and xr.grad is not None
    pairs = [
        (xt.grad, xr.grad),
        (tp.out_proj.weight.grad, mha.out_proj.weight.grad[:, rows]),
        (tp.out_bias.grad, mha.out_proj.bias.grad),
    ]  # dX, W_O's columns, b_O
    for mine, full in ((tp.q_proj, mha.q_proj), (tp.k_proj, mha.k_proj), (tp.v_proj, mha.v_proj)):
        pairs += [(mine.weight.grad, full.weight.grad[rows]), (mine.bias.grad, full.bias.grad[rows])]
    res["head_grad_err"] = max((a - b).abs().max().item() for a, b in pairs)  # type: ignore[operator]

    for name, causal, layout in (
        ("ring", False, "contiguous"),
        ("ring_causal", True, "contiguous"),
        ("ring_zigzag", True, "zigzag"),
    ):
        qf, kf, vf = (t.clone().requires_grad_() for t in (q, k, v))
        mask = causal_mask(n) if causal else None
        ref = scaled_dot_product_attention(qf, kf, vf, mask=mask)
        assert isinstance(ref, torch.Tensor)
        (ref * d_o).sum().backward()
        qs, ks, vs = (shard_sequence(t, rank, world, layout).requires_grad_() for t in (q, k, v))
        c = CommCounter()
        o = ring_attention(qs, ks, vs, group, causal=causal, layout=layout, counter=c)
        res[f"{name}_bytes"], res[f"{name}_work"] = c.bytes_sent, c.work
        c.bytes_sent = 0
        (o * shard_sequence(d_o, rank, world, layout)).sum().backward()
        res[f"{name}_bytes_backward"] = c.bytes_sent
        res[f"{name}_err"] = (o - shard_sequence(ref, rank, world, layout)).abs().max().item()
        res[f"{name}_grad_err"] = max(
            (g.grad - shard_sequence(f.grad, rank, world, layout)).abs().max().item()  # type: ignore[operator]
            for g, f in ((qs, qf), (ks, kf), (vs, vf))
        )

    qf, kf, vf = (t.clone().requires_grad_() for t in (q, k, v))  # Ulysses, causal
    ref = scaled_dot_product_attention(qf, kf, vf, mask=causal_mask(n))
    assert isinstance(ref, torch.Tensor)
    (ref * d_o).sum().backward()
    qs, ks, vs = (shard_sequence(t, rank, world).requires_grad_() for t in (q, k, v))
    c = CommCounter()
    o = ulysses_attention(qs, ks, vs, group, causal=True, counter=c)
    res["ulysses_bytes"] = c.bytes_sent
    c.bytes_sent = 0
    (o * shard_sequence(d_o, rank, world)).sum().backward()
    res["ulysses_bytes_backward"] = c.bytes_sent
    res["ulysses_err"] = (o - shard_sequence(ref, rank, world)).abs().max().item()
    res["ulysses_grad_err"] = max(
        (g.grad - shard_sequence(f.grad, rank, world)).abs().max().item()  # type: ignore[operator]
        for g, f in ((qs, qf), (ks, kf), (vs, vf))
    )

    # one training step with full recomputation (activation checkpointing): the forward without autograd
    # (its activations dropped), the same forward again with autograd in the backward pass, the backward
    c = CommCounter()
    for name, attn in (("ring", ring_attention), ("ulysses", ulysses_attention)):
        qs, ks, vs = (shard_sequence(t, rank, world).requires_grad_() for t in (q, k, v))
        c.reset()
        with torch.no_grad():
            attn(qs, ks, vs, group, counter=c)
        o = attn(qs, ks, vs, group, counter=c)
        (o * shard_sequence(d_o, rank, world)).sum().backward()
        res[f"{name}_bytes_step_recompute"] = c.bytes_sent

    q3 = torch.randn(batch, 3, n, d_k, generator=gen, dtype=torch.float64)  # 3 heads: P must divide 3
    try:
        o3 = ulysses_attention(*(shard_sequence(q3, rank, world),) * 3, group)
        ref3 = scaled_dot_product_attention(q3, q3, q3)
        assert isinstance(ref3, torch.Tensor)
        err3 = (o3 - shard_sequence(ref3, rank, world)).abs().max().item()
        res["ulysses_h3"] = f"ran, max |error| {'< 1e-12' if err3 < 1e-12 else f'{err3:.0e}'}"
    except ValueError as e:
        res["ulysses_h3"] = f"ValueError: {e}"
    return res


def compare_on_groups(
    rank: int, world: int, sizes: Sequence[int] = (1, 2, 4), **kwargs: Any
) -> dict[int, Any]:
    """``compare_schemes`` on groups of each size in ``sizes`` (consecutive ranks) in one world."""
    out: dict[int, Any] = {}
    for size in sizes:
        if world % size:
            raise ValueError(f"group sizes must divide the world size: got {size} for world {world}")
        groups = [
            dist.new_group(list(range(s, s + size))) for s in range(0, world, size)
        ]  # every rank joins all
        mine = groups[rank // size]
        out[size] = compare_schemes(rank, world, group=None if size == world else mine, **kwargs)
    return out
