"""Next-token sampling (temperature, top-k, top-p, min-p), penalties, cached generation and beam search."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
import torch

from selfattention import DecoderOnlyLM, one_cpu_thread, set_seed
from selfattention.sampling import (
    apply_penalties,
    beam_search,
    generate,
    lm_forward_cached,
    lm_next_logprobs,
    new_caches,
    sample,
    sample_probs,
    truncate_caches,
)


@pytest.fixture(autouse=True)
def _one_thread():
    with one_cpu_thread():  # tiny models: thread start-up costs more than the work
        yield


def _tiny_lm(seed: int, vocab: int = 5, d: int = 8, layers: int = 2) -> DecoderOnlyLM:
    set_seed(seed)
    return DecoderOnlyLM(vocab, d, layers, 2, max_len=32).double().eval()


def _kept_by_definition(p: list[float], top_k=None, top_p=None, min_p=None) -> set[int]:
    """The kept set from the written definitions, one filter after another on renormalised mass (loops)."""
    keep = set(range(len(p)))
    q = list(p)
    if top_k is not None:
        kth = sorted(q, reverse=True)[top_k - 1]
        keep = {i for i in keep if q[i] >= kth}  # ties with the k-th are kept
        q = [q[i] / sum(q[j] for j in keep) if i in keep else 0.0 for i in range(len(q))]
    if top_p is not None:
        order = sorted(range(len(q)), key=lambda i: -q[i])
        mass, last = 0.0, None
        for i in order:  # the smallest prefix with mass >= p
            mass += q[i]
            last = q[i]
            if mass >= top_p:
                break
        keep = {i for i in keep if q[i] >= last}  # and every token tied with its last one
        q = [q[i] / sum(q[j] for j in keep) if i in keep else 0.0 for i in range(len(q))]
    if min_p is not None:
        keep = {i for i in keep if q[i] >= min_p * max(q)}
    return keep


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("filt", [dict(top_k=3), dict(top_p=0.7), dict(min_p=0.2),
                                  dict(top_k=4, top_p=0.5, min_p=0.1)])
def test_kept_set_and_probabilities_match_the_definitions(seed: int, filt: dict) -> None:
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(9, generator=g, dtype=torch.float64) * 2
    probs = sample_probs(logits, temperature=0.8, **filt)
    base = torch.softmax(logits / 0.8, -1)
    kept = _kept_by_definition(base.tolist(), **filt)
    assert set(torch.nonzero(probs).flatten().tolist()) == kept
    expected = torch.zeros_like(base)
    idx = torch.tensor(sorted(kept))
    expected[idx] = base[idx] / base[idx].sum()  # renormalised over the kept set
    torch.testing.assert_close(probs, expected, rtol=1e-12, atol=1e-15)


def test_ties_at_the_cut_are_kept() -> None:
    logits = torch.log(torch.tensor([0.4, 0.2, 0.2, 0.2], dtype=torch.float64))
    assert (sample_probs(logits, top_k=2) > 0).tolist() == [True] * 4  # 2nd largest ties with 3rd, 4th
    assert (sample_probs(logits, top_p=0.5) > 0).tolist() == [True] * 4  # prefix {0, 1} reaches 0.6
    assert (sample_probs(logits, top_p=0.4) > 0).tolist() == [True, False, False, False]  # mass 0.4 >= 0.4
    distinct = torch.log(torch.tensor([0.4, 0.3, 0.2, 0.1], dtype=torch.float64))
    assert (sample_probs(distinct, top_p=0.65) > 0).tolist() == [True, True, False, False]
    assert (sample_probs(distinct, top_p=0.75) > 0).tolist() == [True, True, True, False]


def test_sample_probs_edge_cases() -> None:
    tiny = torch.tensor([0.0, -28.0], dtype=torch.float64)  # p_2 about 7e-13
    assert torch.equal(sample_probs(tiny, top_p=1.0), sample_probs(tiny))  # top_p = 1 keeps every token
    assert float(sample_probs(tiny, top_p=1.0)[1]) > 0
    half = sample_probs(tiny, temperature=0.5)
    assert torch.allclose(sample_probs(tiny, temperature=np.float32(0.5)), half)
    with pytest.raises(ValueError, match="top_p"):
        sample_probs(tiny, top_p=True)
    with pytest.raises(ValueError, match="-inf"):
        sample_probs(torch.full((3,), -math.inf))


def test_temperature_to_zero_is_greedy() -> None:
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(4, 7, generator=g, dtype=torch.float64)
    for t in (1e-3, 1e-4):
        p = sample_probs(logits, temperature=t)
        assert p.max(-1).values.min() > 0.999
    assert torch.equal(sample(logits, temperature=0), logits.argmax(-1))
    assert torch.equal(sample_probs(logits, temperature=1e-3).argmax(-1), logits.argmax(-1))
    # the argmax never moves with temperature, the entropy does (rises with T)
    ent = [float(-(p * p.clamp_min(1e-300).log()).sum()) for p in
           (sample_probs(logits[0], temperature=t) for t in (0.5, 1.0, 2.0))]
    assert ent[0] < ent[1] < ent[2]


def _chi2(counts: torch.Tensor, probs: torch.Tensor) -> float:
    n = counts.sum()
    keep = probs > 0
    assert counts[~keep].sum() == 0, "drew a token outside the kept set"
    exp = n * probs[keep]
    return float(((counts[keep] - exp) ** 2 / exp).sum())


def test_empirical_frequencies_match_by_chi_square() -> None:
    logits = torch.log(torch.tensor([0.3, 0.25, 0.2, 0.1, 0.08, 0.05, 0.02], dtype=torch.float64))
    g = torch.Generator().manual_seed(0)
    draws = sample(logits.expand(40000, -1), temperature=0.9, top_p=0.8, generator=g)
    counts = torch.bincount(draws, minlength=7).double()
    target = sample_probs(logits, temperature=0.9, top_p=0.8)
    assert _chi2(counts, target) < 27.9  # df <= 6; p = 1e-4 critical value 27.9
    wrong = sample_probs(logits, temperature=0.9)  # the unfiltered distribution: rejected
    assert ((counts - 40000 * wrong) ** 2 / (40000 * wrong)).sum() > 500


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="temperature"):
        sample_probs(torch.zeros(3), temperature=-1)
    with pytest.raises(ValueError, match="top_p"):
        sample_probs(torch.zeros(3), top_p=0)
    with pytest.raises(ValueError, match="logits"):
        sample_probs(torch.zeros(2, 2, 2))


def test_penalties_follow_their_formulas() -> None:
    logits = torch.tensor([2.0, -1.0, 0.5, 3.0], dtype=torch.float64)
    out = apply_penalties(logits, [0, 1, 1], repetition_penalty=2.0)
    assert out.tolist() == [1.0, -2.0, 0.5, 3.0]  # positive / 2, negative * 2, unseen unchanged
    out = apply_penalties(logits, [0, 1, 1], frequency_penalty=0.5, presence_penalty=0.25)
    assert out.tolist() == [2.0 - 0.5 - 0.25, -1.0 - 1.0 - 0.25, 0.5, 3.0]


def test_cached_forward_equals_full_forward_in_any_chunks() -> None:
    model = _tiny_lm(0, vocab=11)
    tokens = torch.randint(0, 11, (2, 13), generator=torch.Generator().manual_seed(3))
    full = model(tokens)
    for chunks in ([13], [5, 8], [1] * 13, [4, 4, 4, 1]):
        caches, outs, start = new_caches(model), [], 0
        for c in chunks:
            outs.append(lm_forward_cached(model, tokens[:, start:start + c], caches))
            start += c
        torch.testing.assert_close(torch.cat(outs, 1), full, rtol=1e-10, atol=1e-12)


def test_generate_greedy_equals_argmax_of_full_recompute() -> None:
    model = _tiny_lm(1, vocab=11)
    prompt = [3, 1, 4]
    out = generate(model, prompt, 12, temperature=0)
    seq = list(prompt)
    for _ in range(12):
        seq.append(int(model(torch.tensor([seq]))[0, -1].argmax()))
    assert out == seq[3:]
    assert generate(model, prompt, 12, temperature=0, eos=out[2]) == out[: out.index(out[2]) + 1]


def _exhaustive(next_lp, prompt, vocab, steps, eos, alpha, form="power"):
    best = None
    for n in range(1, steps + 1):
        for seq in itertools.product(range(vocab), repeat=n):
            if eos in seq[:-1] or (n < steps and seq[-1] != eos):
                continue  # a finished sequence: ends in eos, or reaches the length limit
            lp = sum(float(next_lp(list(prompt) + list(seq[:i]))[t]) for i, t in enumerate(seq))
            score = lp / (n if form == "power" else (5 + n) / 6) ** alpha
            if best is None or score > best[1] + 1e-12:
                best = (list(seq), score)
    return best


@pytest.mark.parametrize(("alpha", "form"), [(0.0, "power"), (1.0, "power"), (1.0, "gnmt"), (3.0, "gnmt")])
def test_beam_search_equals_exhaustive_search_without_pruning(alpha: float, form: str) -> None:
    vocab, steps, eos = 3, 4, 0
    for seed in range(3):
        raw = functools.lru_cache(maxsize=None)(lm_next_logprobs(_tiny_lm(seed, vocab=vocab)))

        def next_lp(prefix, raw=raw):
            return raw(tuple(prefix))

        best = _exhaustive(next_lp, [1], vocab, steps, eos, alpha, form)
        seq, score = beam_search(next_lp, [1], vocab ** (steps - 1), steps, eos=eos, length_penalty=alpha,
                                 length_form=form)
        assert seq == best[0] and math.isclose(score, best[1], rel_tol=1e-12)
        for width in (1, 2):  # pruned beams can only do worse
            assert beam_search(next_lp, [1], width, steps, eos=eos, length_penalty=alpha,
                               length_form=form)[1] <= score + 1e-12


def test_gnmt_length_penalty_is_wu_et_al_form() -> None:
    # one step, two tokens: eos (log p = -1, length 1) or 1 then eos at the limit (log p = -1.2, length 2);
    # GNMT alpha = 1 divides by 1 and 7/6, the power form by 1 and 2: only the power form prefers length 2
    table = {(): [-1.0, -0.5, -9.0], (1,): [-0.7, -9.0, -9.0]}

    def next_lp(prefix):
        return torch.tensor(table.get(tuple(prefix), [-0.1, -9.0, -9.0]), dtype=torch.float64)

    assert beam_search(next_lp, [], 3, 2, eos=0, length_penalty=1.0) == ([1, 0], -0.6)
    seq, score = beam_search(next_lp, [], 3, 2, eos=0, length_penalty=1.0, length_form="gnmt")
    assert seq == [0] and math.isclose(score, -1.0 / 1.0)
    with pytest.raises(ValueError, match="length_form"):
        beam_search(next_lp, [], 3, 2, eos=0, length_form="gnmt2")


def test_beam_width_one_is_greedy() -> None:
    model = _tiny_lm(2, vocab=6)
    seq, _ = beam_search(lm_next_logprobs(model), [2, 3], 1, 6)
    assert seq == generate(model, [2, 3], 6, temperature=0)


def test_truncate_caches_rejects_a_negative_length() -> None:
    model = _tiny_lm(0)
    caches = new_caches(model)
    lm_forward_cached(model, torch.tensor([[1, 2, 3]]), caches)
    with pytest.raises(ValueError, match=">= 0"):
        truncate_caches(caches, -1)
    assert caches[0].k.shape[2] == 3
    truncate_caches(caches, 2)
    assert caches[0].k.shape[2] == 2


def test_non_finite_inputs_and_a_tiny_top_p_raise_or_keep_the_argmax() -> None:
    logits = torch.tensor([2.0, 1.0, 0.5, -1.0], dtype=torch.float64)
    argmax = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    for tiny in (1e-12, 1e-15):  # the 1e-12 tolerance once left no token inside: 0 / 0 = NaN
        assert torch.equal(sample_probs(logits, top_p=tiny), argmax)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="finite or -inf"):
            sample_probs(torch.tensor([0.0, bad, 1.0]))
    with pytest.raises(ValueError, match="finite number"):
        sample_probs(logits, temperature=math.inf)
    with pytest.raises(ValueError, match="too small"):
        sample_probs(logits, temperature=1e-320)
    assert torch.isfinite(sample_probs(torch.tensor([0.0, -math.inf, 1.0]))).all()  # -inf stays allowed
