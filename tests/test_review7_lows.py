"""Review round 7, low findings of the package and the prose (``/work/reviews7/*.md``):

- ch01-05 L5: ``differential_attention`` with a float64 (h, 1, 1) λ and float32 inputs;
- ch15 L4: ``ulysses_attention`` refuses a non-bool ``causal`` as the ring does (and "differs" for one option);
- ch15 L3: the rank check's device under NCCL and multi-backend groups;
- ch10-12 L6: the ``src_lengths`` message for a list;
- ch06-09 L2: ``linear_attention``'s docstring states the underflow threshold on the log-features;
- ch10-12 L1, ch13-14 L5: prose caveats (ch12 cell 19, ch14 cell 24), and the mutation test behind ch14's.

The distributed checks run on one gloo world of 2 CPU processes (``run_on_processes``, as in
``test_parallel.py``; every child runs with one intra-op thread).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import torch

from selfattention import parallel, speculative
from selfattention.efficient import linear_attention
from selfattention.parallel import ring_attention, run_on_processes, ulysses_attention
from selfattention.transformer import DecoderOnlyLM, EncoderDecoder
from selfattention.utils import set_seed
from selfattention.variants import differential_attention

ROOT = Path(__file__).resolve().parents[1]


def _markdown(chapter: str, cell_id: str) -> str:
    nb = json.loads((ROOT / "chapters" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in nb["cells"] if c.get("id") == cell_id]
    return " ".join("".join(cell["source"]).split())


# ---------------------------------------------------------------- ch01-05 L5: λ of another dtype


def test_differential_lambda_of_another_dtype_is_cast_to_the_weights_dtype() -> None:
    """Old code: a float64 (h, 1, 1) λ with float32 q/k/v passed the checks, then `w @ v` raised
    RuntimeError (expected scalar type Double but found Float)."""
    g = torch.Generator().manual_seed(0)
    q1, k1, q2, k2, v = (torch.randn(2, 3, 5, 8, generator=g) for _ in range(5))
    lam64 = torch.tensor([0.1, 0.5, 0.8], dtype=torch.float64).view(3, 1, 1)
    out, w = differential_attention(q1, k1, q2, k2, v, lam64, return_weights=True)
    assert out.dtype == w.dtype == torch.float32
    ref = differential_attention(q1, k1, q2, k2, v, lam64.float())
    torch.testing.assert_close(out, ref, rtol=0, atol=0)
    torch.testing.assert_close(w.sum(-1), (1 - lam64.float())[:, 0].expand(2, 3, 5))  # rows sum to 1 - λ
    lam = lam64.clone().requires_grad_()  # the cast keeps λ in the graph (a learnable λ)
    differential_attention(q1, k1, q2, k2, v, lam).sum().backward()
    assert lam.grad is not None and lam.grad.dtype == torch.float64 and bool(lam.grad.abs().sum() > 0)
    half = differential_attention(q1.double(), k1.double(), q2.double(), k2.double(), v.double(), lam64.float())
    assert half.dtype == torch.float64  # a float32 λ with float64 inputs: the computation stays float64


# ---------------------------------------------------------------- ch15 L4: Ulysses' causal must be a bool


def _ulysses_causal(rank: int, world: int) -> dict[str, object]:
    torch.manual_seed(0)  # the same full q on every rank
    qf = torch.randn(1, 2, 8, 4, dtype=torch.float64)
    q = qf[:, :, 4 * rank : 4 * rank + 4]  # contiguous shards, n = 8, P = 2
    out: dict[str, object] = {}
    calls = {
        "uly_causal_str": lambda: ulysses_attention(q, q, q, causal="False"),  # type: ignore[arg-type]
        "uly_causal_str_one": lambda: ulysses_attention(q, q, q, causal="False" if rank else True),  # type: ignore[arg-type]
        "uly_causal_int": lambda: ulysses_attention(q, q, q, causal=1),  # type: ignore[arg-type]
        "ring_causal_str": lambda: ring_attention(q, q, q, causal="False"),  # type: ignore[arg-type]
        "uly_causal_one": lambda: ulysses_attention(q, q, q, causal=bool(rank)),
    }
    for name, call in calls.items():
        try:
            call()
            out[name] = None
        except ValueError as e:
            out[name] = f"ValueError: {e}"
    ref = torch.nn.functional.scaled_dot_product_attention(qf, qf, qf, is_causal=True)
    got = ulysses_attention(q, q, q, causal=True)  # a bool still runs
    out["err"] = (got - ref[:, :, 4 * rank : 4 * rank + 4]).abs().max().item()
    return out


@pytest.fixture(scope="module")
def ulysses_runs() -> list[dict[str, object]]:
    return run_on_processes(_ulysses_causal, 2)


def test_ulysses_refuses_a_non_bool_causal_as_the_ring_does(ulysses_runs) -> None:
    """Old code: causal="False" ran causal attention (bool("False") is True), and "False" on one rank agreed
    with True on the other."""
    for r in ulysses_runs:
        for name in ("uly_causal_str", "uly_causal_int", "ring_causal_str"):
            assert "causal must be a bool" in str(r[name]), (name, r[name])
        assert r["err"] < 1e-12, r["err"]
    r0, r1 = (r["uly_causal_str_one"] for r in ulysses_runs)
    assert "another rank" in str(r0) and "causal must be a bool: got 'False'" in str(r1), (r0, r1)


def test_one_differing_option_reads_differs(ulysses_runs) -> None:
    for r in ulysses_runs:
        assert "causal differs across ranks" in str(r["uly_causal_one"]), r["uly_causal_one"]


# ---------------------------------------------------------------- ch15 L3: the rank check's device


class _FakeCuda(torch.Tensor):
    """A CPU tensor that reports a CUDA device (no CUDA here): what ``_check_device`` reads."""

    @property
    def is_cuda(self) -> bool:  # type: ignore[override]
        return True

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return torch.device("cuda", 1)


@pytest.mark.parametrize("backend", ["nccl", "cuda:nccl", "cpu:gloo,cuda:nccl"])
def test_nccl_checks_on_a_cuda_inputs_own_device(monkeypatch, backend) -> None:
    """Old code: a plain "nccl" group took the current CUDA device even for q on cuda:1, so ranks that placed
    their shards with .to(f"cuda:{local_rank}") without set_device all ran the check on cuda:0."""
    monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None: backend)
    monkeypatch.setattr(parallel.torch.cuda, "current_device", lambda: 0)
    q = torch.zeros(1).as_subclass(_FakeCuda)
    assert q.is_cuda and q.device == torch.device("cuda", 1)
    assert parallel._check_device(q, None) == torch.device("cuda", 1)


def test_the_check_device_for_cpu_and_non_tensor_inputs(monkeypatch) -> None:
    monkeypatch.setattr(parallel.torch.cuda, "current_device", lambda: 3)
    for backend in ("nccl", "cuda:nccl"):  # NCCL only: CUDA tensors only, the current device
        monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None, b=backend: b)
        assert parallel._check_device(torch.zeros(1), None) == torch.device("cuda", 3)
        assert parallel._check_device("not a tensor", None) == torch.device("cuda", 3)
    for backend in ("gloo", "cpu:gloo,cuda:nccl"):  # a CPU backend: q's device, the CPU for a non-tensor
        monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None, b=backend: b)
        assert parallel._check_device(torch.zeros(1), None) == torch.device("cpu")
        assert parallel._check_device("not a tensor", None) == torch.device("cpu")
    doc = " ".join((parallel._check_device.__doc__ or "").split())
    assert "must pass q on the same device type" in doc and "block" in doc  # the multi-backend caveat


# ---------------------------------------------------------------- ch10-12 L6: src_lengths message


def test_src_lengths_message_names_a_lists_type_without_a_shape() -> None:
    """Old code: "got list ()" for a list."""
    model = EncoderDecoder(30, d_model=16, num_heads=2, num_layers=1, d_ff=32, max_len=12).eval()
    src, tgt = torch.randint(0, 30, (2, 7)), torch.randint(0, 30, (2, 5))
    with pytest.raises(ValueError) as e:
        model(src, tgt, src_lengths=[3, 3])
    assert str(e.value).endswith("got list"), str(e.value)
    with pytest.raises(ValueError) as e:
        model(src, tgt, src_lengths=torch.tensor([2.5, 3.0]))
    assert str(e.value).endswith("got torch.float32 (2,)"), str(e.value)


# ---------------------------------------------------------------- ch06-09 L2: linear_attention docstring


def test_linear_attention_docstring_puts_the_threshold_on_the_log_features() -> None:
    doc = " ".join((linear_attention.__doc__ or "").split())
    assert "log-feature log(elu(k) + 1)" in doc and "about 100 below the largest one" in doc
    assert "below the largest key feature" not in doc  # the old units: a feature is at most 1
    # the docstring's example: keys 0-2 at -110 (log-features -110), later keys ordinary -> NaN rows
    g = torch.Generator().manual_seed(0)
    k = torch.randn(1, 6, 4, generator=g)
    k[:, :3] = -110.0
    out = linear_attention(torch.randn(1, 6, 4, generator=g), k, torch.randn(1, 6, 4, generator=g), causal=True)
    assert bool(out[:, :3].isnan().all()) and bool(out[:, 3:].isfinite().all())
    k[:, :3] = -90.0  # within about 100 of the largest log-feature: finite
    out = linear_attention(torch.randn(1, 6, 4, generator=g), k, torch.randn(1, 6, 4, generator=g), causal=True)
    assert bool(out.isfinite().all())


# ---------------------------------------------------------------- ch10-12 L1: the H800's practical ridge


def test_ch12_states_flashmlas_practical_ridge() -> None:
    text = _markdown("12_attention_at_scale", "a45506b9")
    assert "just under the ridge" not in text
    assert "865 TFLOPS" in text and "$h_q s_q = 128$" in text and "sit right at it" in text
    assert 865 / 3.35 / 2 == pytest.approx(128, abs=1.5)  # FlashMLA's ½ · 865 / 3.35 ≈ 128


# ---------------------------------------------------------------- ch13-14 L5: what 600 runs can catch


def _lm(seed: int) -> DecoderOnlyLM:
    set_seed(seed)  # as chapter 14's tiny_lm(seed, vocab=3, d=8, layers=1)
    return DecoderOnlyLM(3, 8, 1, 4, max_len=128).double().eval()


def _mutant(kind: str):
    """``verify_draft`` with one error: B bonus from p_k, G bonus residual against q_k, A argmax bonus,
    P a rejection corrected from p instead of the residual, R1 a rejection at draft position 2 corrected from
    position 1's target distribution."""

    def verify(p, q, draft, generator=None):
        r, k, v = q.shape
        p, q = p.double(), q.double()
        idx = draft[..., None]
        ok = torch.rand(r, k, generator=generator, dtype=torch.float64) * q.gather(-1, idx)[..., 0] < (
            p[:, :k].gather(-1, idx)[..., 0]
        )
        acc = ok.long().cumprod(-1).sum(-1)
        rows = torch.arange(r)
        p_next = p[rows, acc]
        q_next = torch.cat([q, torch.zeros(r, 1, v, dtype=q.dtype)], 1)[rows, acc]
        bonus = (acc == k)[:, None]
        if kind == "B":
            p_next = torch.where(bonus, p[rows, k - 1], p_next)
        if kind == "G":
            q_next = torch.where(bonus, q[rows, k - 1], q_next)
        if kind == "R1":
            p_next = torch.where((acc == 1)[:, None], p[rows, 0], p_next)
        if kind == "P":  # a rejection corrected from the target's own distribution, not the residual
            q_next = torch.zeros_like(q_next)
        res = (p_next - q_next).clamp_min(0)
        mass = res.sum(-1, keepdim=True)
        res = torch.where(mass > 0, res / mass.clamp_min(1e-300), p_next)
        nxt = torch.multinomial(res, 1, generator=generator)[:, 0]
        if kind == "A":
            nxt = torch.where(acc == k, p_next.argmax(-1), nxt)
        return acc, nxt

    return verify


def _chi2_of_cell_25(monkeypatch, kind: str | None) -> float:
    """Chapter 14 cell 25's test: 600 runs, k = 2, three new tokens, temperature 4, seed 0."""
    if kind is not None:
        monkeypatch.setattr(speculative, "verify_draft", _mutant(kind))
    t3, d3 = _lm(3), _lm(5)
    probs = []
    with torch.no_grad():
        for y in itertools.product(range(3), repeat=3):
            lp = torch.log_softmax(t3(torch.tensor([[1, 2, *y]]))[0] / 4.0, -1)
            probs.append(float(sum(lp[1 + i, t] for i, t in enumerate(y)).exp()))
    p = torch.tensor(probs, dtype=torch.float64)
    counts = torch.zeros(27, dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    for _ in range(600):
        y, _ = speculative.speculative_decode(t3, d3, [1, 2], 2, 3, temperature=4.0, generator=g)
        counts[9 * y[0] + 3 * y[1] + y[2]] += 1
    return float(((counts - 600 * p) ** 2 / (600 * p)).sum())


def test_ch14_chi_square_catches_the_wrong_bonus_but_not_a_subtle_position_2_error(monkeypatch) -> None:
    """Cell 24 said "a wrong correction at draft position 2 would show"; a position-2 residual built from the
    first position's target distribution passes. The wrong-bonus mutants are caught (~113, 530, 480)."""
    assert _chi2_of_cell_25(monkeypatch, None) < 54.1  # the real rule passes (cell 26's assert)
    for kind in ("B", "G", "A"):
        assert _chi2_of_cell_25(monkeypatch, kind) > 100, kind  # df 26, critical value 54.1 at p = 0.001
    assert _chi2_of_cell_25(monkeypatch, "P") > 54.1  # a correction not drawn from the residual
    assert _chi2_of_cell_25(monkeypatch, "R1") < 54.1  # the subtle error the prose now says is not caught
    text = _markdown("14_decoding", "c14-24")
    assert "a wrong correction at draft position 2 or a wrong bonus would show" not in text
    assert "A subtle error does not show" in text and "a wrong bonus token" in text


def test_a_group_with_no_backend_named_is_read_from_its_config(monkeypatch) -> None:
    """Old code: init_process_group() with no backend gives get_backend() == "undefined", so a CPU q under
    its "cuda:nccl" config was checked on the CPU, which NCCL refuses."""
    monkeypatch.setattr(parallel.dist, "get_backend", lambda group=None: "undefined")
    monkeypatch.setattr(parallel.torch.cuda, "current_device", lambda: 2)
    monkeypatch.setattr(parallel.dist, "get_backend_config", lambda group=None: "cuda:nccl")
    assert parallel._check_device(torch.zeros(1), None) == torch.device("cuda", 2)
    monkeypatch.setattr(parallel.dist, "get_backend_config", lambda group=None: "cpu:gloo")
    assert parallel._check_device(torch.zeros(1), None) == torch.device("cpu")
