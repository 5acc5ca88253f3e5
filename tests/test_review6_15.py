"""Review round 6, chapter 15 (``/work/reviews6/ch15.md``): the checker's findings M1-M3, L1, L2 and the
package's M4 (the rank check's device) and L5 (scale validated; causal, layout and scale agree across ranks).

The distributed checks run on one gloo world of 2 CPU processes (``run_on_processes``, as in
``test_parallel.py``)."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention import parallel
from selfattention.interview.bank import load_cards
from selfattention.parallel import ring_attention, run_on_processes, ulysses_attention

CARDS = {c.id: c for c in load_cards()}

# (card, sentence, flagged?)
SENTENCES = [
    # M1 not flagged
    ("parallel-ulysses", "环形注意力的卡数和头数无关。", False),
    ("parallel-ulysses", "环形的并行度与头数无关。", False),
    ("parallel-ulysses", "环形注意力可扩展的卡数与头数无关，而 Ulysses 不能超过头数。", False),
    ("parallel-ulysses", "环形的卡数与头数无关，Ulysses 的卡数受头数限制。", False),
    ("parallel-ulysses", "Ulysses 的通信量与头数无关。", False),
    (
        "parallel-ulysses",
        "The ring's number of devices does not depend on the number of heads, unlike Ulysses.",
        False,
    ),
    ("parallel-ulysses", "Ring attention's group size does not depend on the number of heads.", False),
    (
        "parallel-ulysses",
        "Ulysses' bytes do not depend on the number of heads at a fixed model width.",
        False,
    ),
    # M1/L1 flagged
    ("parallel-ulysses", "Ulysses 的卡数与头数无关。", True),
    ("parallel-ulysses", "Ulysses 的并行度和头数无关。", True),
    ("parallel-ulysses", "The number of devices for Ulysses does not depend on the number of heads.", True),
    ("parallel-ulysses", "Ulysses works for any number of devices.", True),
    ("parallel-ulysses", "Ulysses 适用于任意卡数。", True),
    ("parallel-ulysses", "Ulysses works for any number of GPUs.", True),
    ("parallel-ulysses", "Ulysses works on any number of GPUs.", True),
    ("parallel-ulysses", "Ulysses can use any number of GPUs.", True),
    ("parallel-ulysses", "You can run Ulysses on any number of GPUs.", True),
    ("parallel-ulysses", "Ulysses has no limit on the number of devices.", True),
    ("parallel-ulysses", "Ulysses 对卡数没有限制。", True),
    # M2
    ("parallel-bytes", "Llama 3 用 all-gather 把整个序列的 K、V 发给每张卡。", False),
    ("parallel-bytes", "Llama 3 把整个序列的 key 和 value 发给每张卡。", False),
    ("parallel-bytes", "all-gather 式 CP 把整个序列的 K/V 收集后发给每张卡。", False),
    ("parallel-bytes", "Llama 3 广播整个序列的 K、V。", False),
    ("parallel-bytes", "每张卡一次收到整个序列的 K、V（all-gather）。", False),
    ("parallel-bytes", "环形注意力把整个序列发给每张卡。", True),
    ("parallel-bytes", "我觉得环形注意力把整个序列发给每张卡。", True),
    ("parallel-bytes", "Ring attention sends the whole sequence to every device.", True),
    # M3
    (
        "parallel-ring-backward",
        "If each shift is wrapped in an autograd Function with the reverse shift as its backward, "
        "autograd handles the ring.",
        False,
    ),
    ("parallel-ring-backward", "给每次移位配上反向移位，autograd 就能自动处理通信。", False),
    (
        "parallel-ring-backward",
        "把每次移位包装成反向是反向移位的 autograd 函数，autograd 就能自动处理收发。",
        False,
    ),
    (
        "parallel-ring-backward",
        "One could instead wrap each shift in an autograd Function whose backward is the reverse shift; "
        "then autograd handles the ring.",
        False,
    ),
    ("parallel-ring-backward", "Autograd can simply differentiate through the sends and receives.", True),
    (
        "parallel-ring-backward",
        "I think autograd can simply differentiate through the sends and receives.",
        True,
    ),
    ("parallel-ring-backward", "autograd 可以直接对收发操作求导。", True),
    ("parallel-ring-backward", "我觉得 autograd 可以直接对收发操作求导。", True),
    ("parallel-ring-backward", "Autograd handles the ring communication automatically.", True),
    ("parallel-ring-backward", "autograd 会自动处理通信。", True),
    # L2
    ("parallel-ring-backward", "Ring attention approximates attention over far-away blocks.", True),
    ("parallel-ring-backward", "I think ring attention approximates attention over far-away blocks.", True),
    ("parallel-ring-backward", "Ring attention is approximate.", True),
    ("parallel-ring-backward", "环形注意力对远处的块做近似。", True),
    ("parallel-ring-backward", "我觉得环形注意力对远处的块做近似。", True),
    (
        "parallel-ring-backward",
        "Ring attention does not approximate distant blocks; every block is computed exactly.",
        False,
    ),
    (
        "parallel-ring-backward",
        "Ring attention is exact, unlike sparse attention which approximates far-away blocks.",
        False,
    ),
    ("parallel-ring-backward", "环形注意力是精确的，不是近似。", False),
    ("parallel-ring-backward", "Ring attention loses no accuracy: it is exact up to rounding.", False),
]


@pytest.mark.parametrize("card, text, flagged", SENTENCES, ids=[f"{c}:{t[:40]}" for c, t, _ in SENTENCES])
def test_checker_flags_the_myth_and_spares_the_corrections(card, text, flagged):
    r = CARDS[card].check(text)
    assert bool(r.stated) is flagged, (card, text, r.stated)


# ---------------------------------------------------------------- M4: the check's all-reduce is on q's device


class _Stop(Exception):
    pass


def test_the_rank_check_all_reduces_on_the_inputs_device(monkeypatch):
    """Old code built the check vector on the CPU whatever the group, which NCCL refuses ("No backend type
    associated with device type cpu"). Here (no CUDA): a gloo group takes q's device, an NCCL group the
    current CUDA device."""
    seen: list[torch.device] = []

    def fake_all_reduce(t, op=None, group=None):
        seen.append(t.device)
        raise _Stop

    monkeypatch.setattr(parallel.dist, "all_reduce", fake_all_reduce)
    monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None: "gloo")
    q = torch.zeros(1, 2, 4, 8, device="meta")  # a device that is not the CPU
    with pytest.raises(_Stop):
        parallel._check_on_every_rank(q, q, q, None, "ring_attention", lambda: None)
    assert seen == [torch.device("meta")], seen
    monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None: "nccl")
    monkeypatch.setattr(parallel.torch.cuda, "current_device", lambda: 3)
    assert parallel._check_device(torch.zeros(1), None) == torch.device("cuda", 3)
    assert parallel._check_device("not a tensor", None) == torch.device("cuda", 3)
    monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None: "gloo")
    assert parallel._check_device("not a tensor", None) == torch.device("cpu")


# ---------------------------------------------------------------- L5: scale, and options agree across ranks


def _options(rank: int, world: int) -> dict[str, object]:
    torch.manual_seed(0)  # the same full q, k, v on every rank
    qf = torch.randn(1, 2, 8, 4, dtype=torch.float64)
    q = qf[:, :, 4 * rank : 4 * rank + 4]  # contiguous shards, n = 8, P = 2
    out: dict[str, object] = {}
    calls = {
        "nan_all": lambda: ring_attention(q, q, q, scale=math.nan),
        "inf_all": lambda: ring_attention(q, q, q, scale=math.inf),
        "str_all": lambda: ring_attention(q, q, q, scale="0.5"),
        "inf_one": lambda: ring_attention(q, q, q, scale=math.inf if rank else 0.5),
        "causal_one": lambda: ring_attention(q, q, q, causal=bool(rank)),
        "layout_one": lambda: ring_attention(q, q, q, layout="zigzag" if rank else "contiguous"),
        "layout_bad": lambda: ring_attention(q, q, q, layout="striped" if rank else "contiguous"),
        "scale_one": lambda: ring_attention(q, q, q, scale=0.25 if rank else 0.5),
        "ulysses_causal_one": lambda: ulysses_attention(q, q, q, causal=bool(rank)),
    }
    for name, call in calls.items():
        try:
            call()
            out[name] = None
        except ValueError as e:
            out[name] = f"ValueError: {e}"
    ref = torch.nn.functional.scaled_dot_product_attention(qf, qf, qf, is_causal=True, scale=0.5)
    got = ring_attention(q, q, q, causal=True, scale=0.5)  # the check passes when the options agree
    out["err"] = (got - ref[:, :, 4 * rank : 4 * rank + 4]).abs().max().item()
    return out


@pytest.fixture(scope="module")
def options_runs() -> list[dict[str, object]]:
    return run_on_processes(_options, 2)


def test_a_nan_or_inf_scale_is_refused_on_every_rank(options_runs):
    """Old code: scale = NaN or inf gave an all-zero output with no error, "0.5" was accepted."""
    for r in options_runs:
        for name in ("nan_all", "inf_all", "str_all"):
            assert "scale must be a finite number" in str(r[name]), (name, r[name])
    r0, r1 = (r["inf_one"] for r in options_runs)
    assert "another rank" in str(r0) and "scale must be a finite number" in str(r1), (r0, r1)


@pytest.mark.parametrize(
    "name, says", [("causal_one", "causal"), ("layout_one", "layout"), ("scale_one", "scale")]
)
def test_causal_layout_and_scale_must_agree_across_ranks(options_runs, name, says):
    """Old code: ranks passing different causal, layout or scale got silently inconsistent results."""
    for r in options_runs:
        assert "needs the same causal, layout, scale on every rank" in str(r[name]), r[name]
        assert f"{says} differ" in str(r[name]), r[name]
    r0, r1 = (r["layout_bad"] for r in options_runs)
    assert "another rank" in str(r0) and "layout must be 'contiguous' or 'zigzag'" in str(r1), (r0, r1)


def test_ulysses_causal_must_agree_and_agreeing_options_still_run(options_runs):
    for r in options_runs:
        assert "needs the same causal on every rank" in str(r["ulysses_causal_one"]), r["ulysses_causal_one"]
        assert r["err"] < 1e-12, r["err"]
