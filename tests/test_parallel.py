"""Attention across processes: head-parallel, ring and Ulysses attention on real gloo process groups.

One spawned world of 4 CPU processes (groups of 1, 2 and 4 ranks inside it) serves every check: the spawn is
what costs time. Expected values come from one process (``MultiHeadAttention``,
``scaled_dot_product_attention``) and from closed forms written out here.
"""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from selfattention import MultiHeadAttention
from selfattention.parallel import (
    CommCounter,
    HeadParallelAttention,
    all_to_all,
    comm_bytes_formula,
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
    return out


def _both(rank: int, world: int) -> tuple[dict[int, dict[str, object]], dict[str, object]]:
    return compare_on_groups(rank, world, SIZES), _errors(rank, world)


@pytest.fixture(scope="module")
def runs() -> tuple[list[dict[int, dict[str, object]]], list[dict[str, object]]]:
    """compare_on_groups and _errors on every rank of one spawned world of 4 (the spawn is the cost)."""
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
