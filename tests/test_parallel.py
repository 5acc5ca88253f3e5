"""Attention across processes: head-parallel, ring and Ulysses attention on real gloo process groups.

One world of 4 CPU processes (groups of 1, 2 and 4 ranks inside it) serves every check: starting processes is
what costs time. Expected values come from one process (``MultiHeadAttention``,
``scaled_dot_product_attention``) and from closed forms written out here.
"""

from __future__ import annotations

import os

import pytest
import torch
import torch.distributed as dist
from torch.utils.checkpoint import checkpoint, set_checkpoint_early_stop

from selfattention import MultiHeadAttention
from selfattention.parallel import (
    CommCounter,
    HeadParallelAttention,
    all_to_all,
    comm_bytes_formula,
    comm_bytes_per_step,
    compare_on_groups,
    ring_all_reduce,
    ring_attention,
    run_on_processes,
    shard_positions,
    shard_sequence,
    ulysses_attention,
)

N, D_MODEL, H, E = 16, 16, 4, 8  # the compare_on_groups defaults; float64
SIZES = (1, 2, 4)


def _errors(rank: int, world: int) -> dict[str, object]:
    """Primitives against torch.distributed's own collectives, and the refusals, on this rank."""
    out: dict[str, object] = {}
    x = torch.arange(10, dtype=torch.float64) * (rank + 1)  # 10 not divisible by 4: uneven chunks
    ref = x.clone()
    dist.all_reduce(ref)
    out["all_reduce_err"] = (ring_all_reduce(x) - ref).abs().max().item()
    parts = [torch.full((2, 3), float(10 * rank + j)) for j in range(world)]  # part j goes to rank j
    got = all_to_all(parts)
    out["all_to_all_ok"] = all(
        torch.equal(g, torch.full((2, 3), float(10 * j + rank))) for j, g in enumerate(got)
    )
    q = torch.randn(1, 3, 4, 2)  # 3 heads
    for name, call in (
        ("ulysses_heads", lambda: ulysses_attention(q, q, q)),
        ("ring_shapes", lambda: ring_attention(q, q[..., :2, :], q[..., :2, :])),
        ("zigzag_n", lambda: ring_attention(q[..., :1, :], q[..., :1, :], q[..., :1, :], layout="zigzag")),
    ):
        try:
            call()
            out[name] = None
        except ValueError as e:
            out[name] = str(e)
    singles = [dist.new_group([r]) for r in range(world)]  # every rank joins every group
    q64 = q.double()
    ref = torch.nn.functional.scaled_dot_product_attention(q64, q64, q64)
    out["ulysses_h3_p1_err"] = (ulysses_attention(q64, q64, q64, singles[rank]) - ref).abs().max().item()
    torch.manual_seed(1)  # the same weights on every rank
    gqa = MultiHeadAttention(16, 4, num_kv_heads=2).double()  # 2 query heads share each K/V head
    x = torch.randn(2, 6, 16, dtype=torch.float64)
    pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]  # P = 2 divides the 2 K/V heads
    mask = torch.ones(6, 6, dtype=torch.bool).tril()
    tp = HeadParallelAttention(gqa, pairs[rank // 2])
    out["gqa_p2_err"] = (tp(x, causal=True) - gqa(x, mask=mask)).abs().max().item()
    try:
        HeadParallelAttention(gqa)  # P = 4 does not divide 2 K/V heads
        out["gqa_p4"] = None
    except ValueError as e:
        out["gqa_p4"] = str(e)
    out.update(_more(rank, world))
    return out


def _sdpa_grads(q, k, v, d_o, causal):
    qf, kf, vf = (t.clone().requires_grad_() for t in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=causal)
    (o * d_o).sum().backward()
    return [o.detach(), qf.grad, kf.grad, vf.grad]


def _more(rank: int, world: int) -> dict[str, object]:
    """GQA ring / Ulysses, unequal shards, mismatches on one rank, double backward, head-parallel backward,
    16-bit ring (P = 2, 4)."""
    out: dict[str, object] = {}
    pairs = [dist.new_group([0, 1]), dist.new_group([2, 3])]
    pair, pr = pairs[rank // 2], rank % 2
    gen = torch.Generator().manual_seed(3)
    n, h, h_kv, d = 16, 4, 2, 4
    q = torch.randn(1, h, n, d, generator=gen, dtype=torch.float64)
    k, v = (torch.randn(1, h_kv, n, d, generator=gen, dtype=torch.float64) for _ in range(2))
    d_o = torch.randn(1, h, n, d, generator=gen, dtype=torch.float64)
    ref = _sdpa_grads(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), d_o, True)
    ref[2] = ref[2].unflatten(1, (h_kv, 2)).sum(2)  # dK of the shared heads
    ref[3] = ref[3].unflatten(1, (h_kv, 2)).sum(2)
    for name, layout in (("ring", "zigzag"), ("ulysses", "contiguous")):
        sh = [shard_sequence(t, pr, 2, layout).requires_grad_() for t in (q, k, v)]
        c = CommCounter()
        if name == "ring":
            o = ring_attention(*sh, pair, causal=True, layout=layout, counter=c)
        else:
            o = ulysses_attention(*sh, pair, causal=True, counter=c)
        out[f"gqa_{name}_bytes"], c.bytes_sent = c.bytes_sent, 0
        (o * shard_sequence(d_o, pr, 2, layout)).sum().backward()
        out[f"gqa_{name}_bytes_backward"] = c.bytes_sent
        got = [o, *(t.grad for t in sh)]
        out[f"gqa_{name}_err"] = max(
            (g - shard_sequence(r, pr, 2, layout)).abs().max().item() for g, r in zip(got, ref, strict=True)
        )
        sh = [t.detach().requires_grad_() for t in sh]  # double backward: refused on every rank
        o = ring_attention(*sh, pair) if name == "ring" else ulysses_attention(*sh, pair)
        (gq,) = torch.autograd.grad((o**2).sum(), sh[0], create_graph=True)  # dO = 2 O: in the graph
        try:
            gq.sum().backward()
            out[f"{name}_double_backward"] = None
        except RuntimeError as e:
            out[f"{name}_double_backward"] = str(e)
    for name, call in (  # unequal shards at P = 2: rank 0 holds 4 positions, rank 1 holds 2
        ("ring_unequal", lambda t: ring_attention(t, t, t, pair)),
        ("ulysses_unequal", lambda t: ulysses_attention(t, t, t, pair)),
    ):
        try:
            call(q[..., : 4 - 2 * pr, :])
            out[name] = None
        except ValueError as e:
            out[name] = str(e)
    for name, attn in (("ring", ring_attention), ("ulysses", ulysses_attention)):  # n/P = 0 on both ranks
        try:
            attn(q[..., :0, :], q[..., :0, :], q[..., :0, :], pair)
            out[f"{name}_empty"] = None
        except ValueError as e:
            out[f"{name}_empty"] = str(e)
        for tag, x in (("width0", q[..., :0]), ("heads0", q[..., :0, :, :])):  # d_k = 0, h = 0
            try:
                attn(x, x, x, pair)
                out[f"{name}_{tag}"] = None
            except ValueError as e:
                out[f"{name}_{tag}"] = str(e)
    q4 = q[..., :4, :]
    bad = {  # rank 1 of each pair differs: a NaN, an inf, another dtype, ndim, width, not a tensor
        "nan": torch.where(torch.arange(4)[:, None] == 0, float("nan"), q4) if pr else q4,
        "inf": torch.where(torch.arange(4)[:, None] == 0, -float("inf"), q4) if pr else q4,
        "dtype": q4.float() if pr else q4,
        "ndim": q4[0] if pr else q4,
        "width": q4[..., :2] if pr else q4,  # d_k 2 against 4: dim -1 differs, not the shard length
        "list": q4.tolist() if pr else q4,
    }
    for kind, t in bad.items():
        for name, attn in (("ring", ring_attention), ("ulysses", ulysses_attention)):
            try:
                attn(t, t, t, pair)
                out[f"{name}_{kind}"] = None
            except (TypeError, ValueError) as e:
                out[f"{name}_{kind}"] = f"{type(e).__name__}: {e}"
    c = CommCounter()  # torch.utils.checkpoint (P = 2): without and with its default early stop
    for name, attn in (("ring", ring_attention), ("ulysses", ulysses_attention)):
        for early in (False, True):
            sh = [shard_sequence(t, pr, 2).requires_grad_() for t in (q, q, q)]
            c.reset()
            with set_checkpoint_early_stop(early):
                o = checkpoint(
                    lambda a, b, v_, f=attn: f(a, b, v_, pair, counter=c), *sh, use_reentrant=False
                )
                (o * shard_sequence(d_o, pr, 2)).sum().backward()
            out[f"{name}_checkpoint_bytes_{'early' if early else 'full'}"] = c.bytes_sent
    torch.manual_seed(1)  # head parallel: backward costs one all-reduce of dX, the bytes of the forward
    mha = MultiHeadAttention(16, 4).double()
    c = CommCounter()
    tp = HeadParallelAttention(mha, pair, counter=c)
    x = torch.randn(1, 6, 16, dtype=torch.float64, requires_grad=True)
    y = tp(x)
    fwd = (c.calls["all_reduce"], c.bytes_sent)
    c.reset()
    y.sum().backward()
    out["head_fwd_bwd"] = (fwd, (c.calls["all_reduce"], c.bytes_sent))
    # 16-bit ring on P = 4, causal zigzag (8 chunks, up to 8 partials per query chunk), against SDPA in the
    # same dtype, both vs float64
    n4 = 512
    q3, k3, v3, do3 = (torch.randn(1, 2, n4, 32, generator=gen, dtype=torch.float64) for _ in range(4))
    ref = _sdpa_grads(q3, k3, v3, do3, True)
    for dt in (torch.float16, torch.bfloat16):
        sd = _sdpa_grads(*(t.to(dt) for t in (q3, k3, v3, do3)), True)
        sh = [shard_sequence(t.to(dt), rank, world, "zigzag").requires_grad_() for t in (q3, k3, v3)]
        c16 = CommCounter()  # the bytes of the 16-bit ring: K, V in 16 bits, dK, dV in float32
        o = ring_attention(*sh, causal=True, layout="zigzag", counter=c16)
        fwd16 = c16.bytes_sent
        (o * shard_sequence(do3.to(dt), rank, world, "zigzag")).sum().backward()
        out[f"ring_{dt}_bytes"] = (fwd16, c16.bytes_sent - fwd16)
        got = [o, *(t.grad for t in sh)]
        out[f"ring_{dt}_err"] = [
            (g.double() - shard_sequence(r, rank, world, "zigzag")).abs().max().item()
            for g, r in zip(got, ref, strict=True)
        ]
        out[f"sdpa_{dt}_err"] = [
            (shard_sequence(s_.double() - r, rank, world, "zigzag")).abs().max().item()
            for s_, r in zip(sd, ref, strict=True)
        ]
        out[f"ring_{dt}_dtypes"] = [g.dtype for g in got]
        # the same layer in float32 from the same 16-bit inputs, cast once: the ring must round to within
        # one unit in the last place (spacing <= eps |x|) of it; 16-bit accumulation is many units off
        f32 = [t.to(dt).float() for t in (q3, k3, v3, do3)]
        r32 = [shard_sequence(t.to(dt).double(), rank, world, "zigzag") for t in _sdpa_grads(*f32, True)]
        fi = torch.finfo(dt)
        out[f"ring_{dt}_ulps"] = [
            ((g.double() - r).abs() / (fi.eps * r.abs().clamp_min(fi.tiny))).max().item()
            for g, r in zip(got, r32, strict=True)
        ]
    return out


def _both(rank: int, world: int) -> tuple[dict[int, dict[str, object]], dict[str, object]]:
    return compare_on_groups(rank, world, SIZES), _errors(rank, world)


@pytest.fixture(scope="module")
def runs() -> tuple[list[dict[int, dict[str, object]]], list[dict[str, object]]]:
    """compare_on_groups and _errors on every rank of one world of 4 (starting processes is the cost)."""
    q = torch.ones(1, requires_grad=True)  # torch.utils.checkpoint's first call imports ~800 modules:
    checkpoint(torch.exp, q, use_reentrant=False).backward()  # here once, not in every forked child
    res = run_on_processes(_both, 4)
    return [r[0] for r in res], [r[1] for r in res]


def _all(runs, size: int, key: str) -> list[object]:
    return [r[size][key] for r in runs[0]]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scheme", ["head", "ring", "ring_causal", "ring_zigzag", "ulysses"])
def test_equals_one_process_forward_and_backward(runs, size, scheme):
    """Outputs and every gradient equal the single-process computation with the same weights (float64)."""
    for key in (f"{scheme}_err", f"{scheme}_grad_err"):
        errs = _all(runs, size, key)
        assert max(errs) < 1e-10, (key, errs)  # type: ignore[type-var]


@pytest.mark.parametrize("size", SIZES)
def test_one_all_reduce_per_head_parallel_forward(runs, size):
    assert _all(runs, size, "head_all_reduces") == [1] * 4


@pytest.mark.parametrize("size", SIZES)
def test_bytes_equal_closed_forms(runs, size):
    """Bytes each rank sent = the closed forms in B n d, P (B = 1, float64 = 8 bytes)."""
    p, bnd = size, N * D_MODEL
    expected = {
        "head_bytes": 2 * (p - 1) * bnd * E // p,  # ring all-reduce of the (n, d) output
        "ring_bytes": 2 * (p - 1) * bnd * E // p,  # P-1 hops of a K and a V shard
        "ring_causal_bytes": 2 * (p - 1) * bnd * E // p,
        "ring_zigzag_bytes": 2 * (p - 1) * bnd * E // p,
        "ring_bytes_backward": (4 * (p - 1) + 2 * (p > 1)) * bnd * E // p,  # K, V, dK, dV; dK, dV home
        "ulysses_bytes": 4 * (p - 1) * bnd * E // p**2,  # all-to-all of q, k, v and of O
    }
    for key, value in expected.items():
        assert _all(runs, size, key) == [value] * 4, key
    for scheme, key in (("head", "head_bytes"), ("ring", "ring_bytes"), ("ulysses", "ulysses_bytes")):
        assert comm_bytes_formula(scheme, N, D_MODEL, p, bytes_per_element=E) == expected[key]
    assert (
        comm_bytes_formula("ring", N, D_MODEL, p, bytes_per_element=E, backward=True)
        == expected["ring_bytes_backward"]
    )


def test_zigzag_balances_causal_work(runs):
    """Causal ring, P = 4: contiguous shards do (r+1) (n/P)^2 score entries, zigzag (2P+1) (n/2P)^2 each."""
    assert _all(runs, 4, "ring_causal_work") == [(r + 1) * (N // 4) ** 2 for r in range(4)]
    assert _all(runs, 4, "ring_zigzag_work") == [9 * (N // 8) ** 2] * 4
    assert _all(runs, 4, "ring_work") == [N * N // 4] * 4  # non-causal: n^2 / P each


def test_primitives_match_torch_distributed(runs):
    for r in runs[1]:
        assert r["all_reduce_err"] == 0.0
        assert r["all_to_all_ok"] is True


def test_refusals_name_the_problem(runs):
    for r in runs[1]:
        assert "heads divisible by the world size" in str(r["ulysses_heads"])  # h = 3, P = 4
        assert "one shape" in str(r["ring_shapes"])
        assert "divisible by 2 x world size" in str(r["zigzag_n"])  # n = 4, 2P = 8


def test_head_parallel_with_grouped_kv_heads(runs):
    """GQA, causal: P = 2 divides the 2 K/V heads and equals one process; P = 4 is refused."""
    for r in runs[1]:
        assert r["gqa_p2_err"] < 1e-12
        assert "(key/value) heads divisible by the world size" in str(r["gqa_p4"])


def test_ulysses_with_heads_divisible_is_accepted(runs):
    """The other side of the refusal: a group of one rank divides h = 3 and runs."""
    for r in runs[1]:
        assert r["ulysses_h3_p1_err"] < 1e-12


def test_sharding_layouts():
    assert shard_positions(16, 1, 4) == [(4, 8)]
    assert shard_positions(16, 1, 4, "zigzag") == [(2, 4), (12, 14)]
    x = torch.arange(16)[:, None]  # (n, 1)
    assert shard_sequence(x, 0, 4, "zigzag").flatten().tolist() == [0, 1, 14, 15]
    with pytest.raises(ValueError, match="n divisible by the world size"):
        shard_positions(10, 0, 4)
    with pytest.raises(ValueError, match="layout"):
        shard_positions(16, 0, 4, "striped")


def test_counter_reset_and_no_group():
    c = CommCounter(bytes_sent=3, work=2)
    c.calls["all_reduce"] += 1
    c.reset()
    assert (c.bytes_sent, c.work, sum(c.calls.values())) == (0, 0, 0)
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match="not initialised"):
            ring_all_reduce(torch.zeros(2))


def test_gqa_ring_and_ulysses_equal_one_process_and_send_the_gqa_bytes(runs):
    """h = 4 query heads, h_kv = 2 K/V heads, P = 2, causal: exact, and the bytes of the GQA closed forms."""
    b_n_d, b_n_dkv, p = 16 * 16, 16 * 8, 2  # B n d (h d_k = 16) and B n d_kv (h_kv d_k = 8), float64
    for r in runs[1]:
        assert r["gqa_ring_err"] < 1e-12 and r["gqa_ulysses_err"] < 1e-12
        assert r["gqa_ring_bytes"] == 2 * (p - 1) * b_n_dkv * E // p  # only the h_kv heads travel
        assert r["gqa_ring_bytes_backward"] == (2 * (p - 1) + 2 * p) * b_n_dkv * E // p
        assert r["gqa_ulysses_bytes"] == (p - 1) * (2 * b_n_d + 2 * b_n_dkv) * E // p**2
        assert r["gqa_ulysses_bytes_backward"] == r["gqa_ulysses_bytes"]  # backward bytes = forward
        for scheme in ("ring", "ulysses"):
            kw = dict(bytes_per_element=E, num_heads=4, kv_heads=2)
            assert comm_bytes_formula(scheme, 16, 16, p, **kw) == r[f"gqa_{scheme}_bytes"]
        assert comm_bytes_formula("ring", 16, 16, p, backward=True, **kw) == r["gqa_ring_bytes_backward"]


def test_ring_vs_ulysses_bytes_the_winner_depends_on_gqa():
    """Without GQA Ulysses sends less for P > 2 (ratio P/2, equal at P = 2); with Llama 3 70B's GQA
    (h = 64, h_kv = 8) the ring sends less for every P that divides 8 (ratio P h_kv / (h + h_kv) = P/9)."""
    n, d, e, gib = 2**17, 8192, 2, 2**30
    for p in (2, 4, 8):
        ring = comm_bytes_formula("ring", n, d, p, bytes_per_element=e)
        uly = comm_bytes_formula("ulysses", n, d, p, bytes_per_element=e)
        assert abs(ring / uly - p / 2) < 1e-12  # MHA: 2(P-1)/P over 4(P-1)/P^2
        assert (ring > uly) == (p > 2)
        ring = comm_bytes_formula("ring", n, d, p, bytes_per_element=e, num_heads=64, kv_heads=8)
        uly = comm_bytes_formula("ulysses", n, d, p, bytes_per_element=e, num_heads=64, kv_heads=8)
        assert abs(ring / uly - p / 9) < 1e-12 and ring < uly
    expected = {2: (0.25, 1.125), 4: (0.375, 0.84375), 8: (0.4375, 0.4921875)}  # GiB, by hand
    for p, (r_gib, u_gib) in expected.items():
        kw = dict(bytes_per_element=e, num_heads=64, kv_heads=8)
        assert comm_bytes_formula("ring", n, d, p, **kw) / gib == r_gib
        assert comm_bytes_formula("ulysses", n, d, p, **kw) / gib == u_gib


@pytest.mark.parametrize("size", SIZES)
def test_a_recomputed_forward_is_sent_twice(runs, size):
    """torch.utils.checkpoint around the layer: one training step sends 2 forwards + 1 backward, counted."""
    for scheme in ("ring", "ulysses"):
        want = comm_bytes_per_step(scheme, N, D_MODEL, size, recompute=True, bytes_per_element=E)
        assert set(_all(runs, size, f"{scheme}_bytes_step_recompute")) == {want}, scheme
        if size > 1:
            assert want > comm_bytes_per_step(scheme, N, D_MODEL, size, bytes_per_element=E)
    if size == 2:  # torch.utils.checkpoint sends the same with early stop off; with its default early stop
        for scheme in ("ring", "ulysses"):  # Ulysses' output all-to-all (1/4 of its forward) is not re-sent
            full = comm_bytes_per_step(scheme, N, D_MODEL, 2, recompute=True, bytes_per_element=E)
            fwd = comm_bytes_formula(scheme, N, D_MODEL, 2, bytes_per_element=E)
            assert {r[f"{scheme}_checkpoint_bytes_full"] for r in runs[1]} == {full}
            early = full - fwd / 4 if scheme == "ulysses" else full
            assert {r[f"{scheme}_checkpoint_bytes_early"] for r in runs[1]} == {early}, scheme


def test_per_step_winner_needs_float32_dkdv_and_no_recomputation():
    """Llama 3 70B, 128k tokens, 16-bit, P = 4 (GiB per device per layer, by hand): Ulysses sends less per
    training step only while the ring's dK, dV travel in float32 and nothing is recomputed; with 16-bit
    dK, dV or a recomputed forward the ring sends less. At P = 8 Ulysses sends less in all four cases."""
    gib = 2**30
    kw = dict(bytes_per_element=2, num_heads=64, kv_heads=8)

    def step(scheme, p, **more):
        return comm_bytes_per_step(scheme, 2**17, 8192, p, **kw, **more) / gib

    assert (step("ring", 4), step("ulysses", 4)) == (1.75, 1.6875)  # float32 dK, dV: Ulysses less
    assert (step("ring", 4, grad_bytes_per_element=2), step("ulysses", 4)) == (1.25, 1.6875)
    assert (step("ring", 4, recompute=True), step("ulysses", 4, recompute=True)) == (2.125, 2.53125)
    for more in ({}, {"grad_bytes_per_element": 2}, {"recompute": True}):
        assert step("ring", 8, **more) > step("ulysses", 8, **more), more
    both = {"grad_bytes_per_element": 2, "recompute": True}
    assert step("ring", 8, **both) > step("ulysses", 8, **both)
    for p in (2, 4, 8):  # 16-bit dK, dV: the backward is the forward's K, V hops plus 2P/(P-1) of them
        fwd = comm_bytes_formula("ring", 2**17, 8192, p, **kw)
        bwd = comm_bytes_formula("ring", 2**17, 8192, p, backward=True, grad_bytes_per_element=2, **kw)
        assert abs(bwd / fwd - (1 + p / (p - 1))) < 1e-12


def test_ring_vs_ulysses_depends_on_the_head_ratio_and_p():
    """Llama 3 8B, 70B, 405B (8 K/V heads of 32, 64, 128: h/h_kv = 4, 8, 16), 128k tokens, 16-bit: the P
    in (2, 4, 8) at which Ulysses sends less than the ring. Not "few K/V heads": 405B has as few as 70B.
    The rules: forward, the ring sends less iff P < h/h_kv + 1; per step (float32 dK, dV, no forward
    re-run), Ulysses does iff h/h_kv + 1 < P(2P - 1)/(P - 1)."""
    models = {"8B": (4096, 32), "70B": (8192, 64), "405B": (16384, 128)}
    cases = {"fwd": None, "f32": {}, "dkv16": {"grad_bytes_per_element": 2}, "recompute": {"recompute": True}}
    want = {
        "8B": {"fwd": [8], "f32": [2, 4, 8], "dkv16": [4, 8], "recompute": [4, 8]},
        "70B": {"fwd": [], "f32": [4, 8], "dkv16": [8], "recompute": [8]},
        "405B": {"fwd": [], "f32": [8], "dkv16": [], "recompute": []},
    }
    for m, (d, h) in models.items():
        kw = {"bytes_per_element": 2, "num_heads": h, "kv_heads": 8}
        got = {}
        for c, more in cases.items():
            got[c] = []
            for p in (2, 4, 8):
                if more is None:
                    r, u = (comm_bytes_formula(s, 2**17, d, p, **kw) for s in ("ring", "ulysses"))
                else:
                    r, u = (comm_bytes_per_step(s, 2**17, d, p, **kw, **more) for s in ("ring", "ulysses"))
                assert r != u  # no ties here: each P has a winner
                got[c] += [p] if u < r else []
            g = h / 8
            assert got["fwd"] == [p for p in (2, 4, 8) if not p < g + 1]
            if "f32" in got:
                assert got["f32"] == [p for p in (2, 4, 8) if g + 1 < p * (2 * p - 1) / (p - 1)]
        assert got == want[m], (m, got)


def test_unequal_shards_are_refused_on_every_rank(runs):
    """P = 2, shards of 4 and 2 positions: a ValueError naming the lengths, on both ranks (no hang)."""
    for r in runs[1]:
        for key in ("ring_unequal", "ulysses_unequal"):
            assert "equal shards" in str(r[key]) and "[2, 4]" in str(r[key]), (key, r[key])
            assert "q's dim -2 (the shard length)" in str(r[key]), (key, r[key])


def test_empty_shards_are_refused_alike_by_ring_and_ulysses(runs):
    """P = 2, n/P = 0 on both ranks: both schemes raise the same ValueError (neither returns empty)."""
    for r in runs[1]:
        for name in ("ring", "ulysses"):
            msg = str(r[f"{name}_empty"])
            assert f"{name}_attention needs a non-empty shard" in msg and "(1, 4, 0, 4)" in msg, msg


@pytest.mark.parametrize("dtype", ["torch.float16", "torch.bfloat16"])
def test_16bit_ring_sends_float32_dkdv(runs, dtype):
    """P = 4, n = 512, h = 2, d_k = 32, 16-bit: the counter's forward and backward bytes equal the closed
    forms with e = 2 and e_acc = 4 (dK, dV travel in float32), not e_acc = 2."""
    kw = dict(bytes_per_element=2, num_heads=2)
    fwd = comm_bytes_formula("ring", 512, 64, 4, **kw)
    bwd = comm_bytes_formula("ring", 512, 64, 4, backward=True, **kw)
    assert bwd != comm_bytes_formula("ring", 512, 64, 4, backward=True, grad_bytes_per_element=2, **kw)
    for r in runs[1]:
        assert r[f"ring_{dtype}_bytes"] == (fwd, bwd), (r[f"ring_{dtype}_bytes"], fwd, bwd)


def test_double_backward_is_refused_on_every_rank(runs):
    for r in runs[1]:
        for key in ("ring_double_backward", "ulysses_double_backward"):
            assert "once_differentiable" in str(r[key]), (key, r[key])


def test_head_parallel_backward_is_one_all_reduce_of_dx(runs):
    """Forward: one all-reduce of the (1, 6, 16) output; backward: one of dX, the same bytes (P = 2)."""
    one = 2 * (2 - 1) * 6 * 16 * E // 2
    for r in runs[1]:
        assert r["head_fwd_bwd"] == ((1, one), (1, one))


def test_a_mismatch_on_one_rank_is_refused_on_every_rank(runs):
    """P = 2, rank 1 passes a NaN, an inf, a list, a float32 (rank 0: float64), a 3-D q or another width:
    an error on both ranks (the other rank's ValueError says so), and the message names the dim that
    differs."""
    for name in ("ring", "ulysses"):
        for kind, says in (("nan", "NaN"), ("inf", "contains inf"), ("list", "TypeError: ")):
            r0, r1 = (r[f"{name}_{kind}"] for r in runs[1][:2])
            assert "ValueError" in str(r0) and "another rank" in str(r0) and says in str(r1), (name, r0, r1)
        assert "must be a torch.Tensor: got list" in str(runs[1][1][f"{name}_list"])
        for r in runs[1][:2]:
            assert "q's dim -1 (not the sequence)" in str(r[f"{name}_width"]), r[f"{name}_width"]
            assert "[2, 4]" in str(r[f"{name}_width"]) and "pad the sequence" not in str(r[f"{name}_width"])
        for r in runs[1][:2]:
            assert "same ndim and dtype" in str(r[f"{name}_dtype"]), (name, r[f"{name}_dtype"])
        r0, r1 = (r[f"{name}_ndim"] for r in runs[1][:2])
        if name == "ring":  # any ndim is accepted locally: the ndims differ across ranks
            assert "same ndim and dtype" in str(r0) and "same ndim and dtype" in str(r1), (r0, r1)
        else:  # Ulysses needs 4-D: rank 1 fails its own check
            assert "another rank" in str(r0) and "(B, h, n/P, d_k)" in str(r1), (r0, r1)


@pytest.mark.parametrize("dtype", ["torch.float16", "torch.bfloat16"])
def test_ring_16bit_error_is_within_sdpa_error(runs, dtype):
    """P = 4, n = 512, causal zigzag: the ring's 16-bit output and gradients (vs float64) are within 1.5 x
    of PyTorch's SDPA in the same dtype (float32 accumulators, one cast at the end), and keep the dtype."""
    for r in runs[1]:
        ring, sdpa = r[f"ring_{dtype}_err"], r[f"sdpa_{dtype}_err"]
        for what, a, b in zip(("out", "dq", "dk", "dv"), ring, sdpa, strict=True):
            assert a <= 1.5 * b, (what, a, b)
        assert {str(t) for t in r[f"ring_{dtype}_dtypes"]} == {dtype}


@pytest.mark.parametrize("dtype", ["torch.float16", "torch.bfloat16"])
def test_ring_16bit_rounds_like_one_float32_layer(runs, dtype):
    """P = 4, n = 512, causal zigzag: output and gradients within 64 units in the last place (eps |x|) of
    the float32 layer on the same 16-bit inputs cast once (measured: at most 31); accumulating in the 16-bit
    dtype instead is at least 487 units off (measured once, by breaking the ring)."""
    for r in runs[1]:
        for what, u in zip(("out", "dq", "dk", "dv"), r[f"ring_{dtype}_ulps"], strict=True):
            assert u <= 64, (what, u)


def _dies(rank: int, world: int) -> int:
    if rank == 1:
        os._exit(3)
    return rank


def _ranks(rank: int, world: int) -> tuple[int, int, bool]:
    return rank, world, dist.is_initialized()


def test_a_child_that_dies_is_named():
    with pytest.raises(RuntimeError, match=r"rank 1 died without reporting a result \(exit code 3\)"):
        run_on_processes(_dies, 2, timeout=60)


def test_spawn_start_method_still_works():
    assert run_on_processes(_ranks, 2, start_method="spawn") == [(0, 2, True), (1, 2, True)]
    with pytest.raises(ValueError, match="start_method"):
        run_on_processes(_ranks, 2, start_method="thread")


_SET_THREADS = torch.set_num_threads  # bound at import, before any fork: the guard cannot replace it


def _two_threads_prebound(rank: int, world: int) -> int:
    _SET_THREADS(2)  # no parallel work after it: the child must not hang, only fail
    return rank


def test_a_forked_child_that_bypasses_the_thread_guard_still_fails():
    """A reference to torch.set_num_threads bound before the fork is not the patched name: the child ends
    with 2 threads, and run_on_processes reports that as a failure instead of returning."""
    with pytest.raises(RuntimeError, match=r"ended with 2 intra-op threads"):
        run_on_processes(_two_threads_prebound, 2, timeout=30, start_method="fork")


def _two_threads(rank: int, world: int) -> float:
    torch.set_num_threads(2)
    return float(torch.randn(4_000_000).exp().sum())


def test_a_forked_child_refuses_more_threads_instead_of_hanging():
    """The parent has used OpenMP; a forked child asking for 2 intra-op threads could hang (libgomp is not
    fork-safe): it raises instead, naming the cause; spawned children may use 2 threads."""
    float(torch.randn(4_000_000).exp().sum())  # the parent's OpenMP thread team exists now
    with pytest.raises(RuntimeError, match=r"set_num_threads\(2\) in a forked child"):
        run_on_processes(_two_threads, 2, timeout=30, start_method="fork")
    assert len(run_on_processes(_two_threads, 2, timeout=60, start_method="spawn")) == 2


def test_zero_head_width_and_zero_heads_are_refused_by_ring_and_ulysses(runs):
    """d_k = 0 or h = 0: a ValueError naming the input, not a ZeroDivisionError."""
    for r in runs[1]:
        for name in ("ring", "ulysses"):
            for tag in ("width0", "heads0"):
                msg = str(r[f"{name}_{tag}"])
                assert "needs a head width and a head count >= 1" in msg, (name, tag, msg)
