"""Speculative decoding: the accept/reject rule keeps the target distribution; greedy equals target greedy."""

from __future__ import annotations

import itertools

import pytest
import torch

from selfattention import DecoderOnlyLM, causal_mask, one_cpu_thread, set_seed
from selfattention.sampling import generate, lm_forward_cached, new_caches, sample_probs
from selfattention.speculative import expected_tokens_per_pass, speculative_decode, verify_draft


@pytest.fixture(autouse=True)
def _one_thread():
    with one_cpu_thread():  # tiny models: thread start-up costs more than the work
        yield


def _lm(seed: int, vocab: int = 4, d: int = 8, layers: int = 1, max_len: int = 48) -> DecoderOnlyLM:
    set_seed(seed)
    return DecoderOnlyLM(vocab, d, layers, 2, max_len=max_len).double().eval()


def _chi2(counts: torch.Tensor, probs: torch.Tensor) -> float:
    exp = counts.sum() * probs
    return float(((counts - exp) ** 2 / exp).sum())


def test_verify_draft_first_token_follows_the_target() -> None:
    p1 = torch.tensor([0.5, 0.3, 0.15, 0.05], dtype=torch.float64)
    q1 = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    r = 100000
    g = torch.Generator().manual_seed(0)
    draft = torch.multinomial(q1.expand(r, -1), 1, replacement=True, generator=g)  # (R, 1)
    p = torch.stack([p1, torch.full((4,), 0.25, dtype=torch.float64)])[None].expand(r, -1, -1)
    acc, nxt = verify_draft(p, q1[None, None].expand(r, 1, -1), draft, generator=g)
    first = torch.where(acc > 0, draft[:, 0], nxt)  # the token emitted at the first position
    counts = torch.bincount(first, minlength=4).double()
    assert _chi2(counts, p1) < 21.1  # df 3, p = 1e-4
    assert _chi2(counts, q1) > 1000  # and not the draft's distribution
    alpha = float(torch.minimum(p1, q1).sum())  # acceptance rate 1 - TV(p, q)
    assert abs(float(acc.double().mean()) - alpha) < 4 * (alpha * (1 - alpha) / r) ** 0.5


def test_expected_tokens_per_pass_matches_simulation() -> None:
    p1 = torch.tensor([0.6, 0.3, 0.1], dtype=torch.float64)
    q1 = torch.tensor([0.3, 0.4, 0.3], dtype=torch.float64)
    alpha = float(torch.minimum(p1, q1).sum())
    k, r = 4, 50000
    g = torch.Generator().manual_seed(1)
    draft = torch.multinomial(q1.expand(r * k, -1), 1, True, generator=g).reshape(r, k)
    acc, _ = verify_draft(p1.expand(r, k + 1, -1), q1.expand(r, k, -1), draft, generator=g)
    measured = float((acc + 1).double().mean())
    assert abs(measured - expected_tokens_per_pass(alpha, k)) < 0.03
    assert expected_tokens_per_pass(0.0, k) == 1.0 and expected_tokens_per_pass(1.0, k) == k + 1


def test_greedy_speculative_output_is_the_target_greedy_output() -> None:
    target, draft = _lm(0, vocab=7, layers=2), _lm(1, vocab=7)
    for prompt, k in (([1, 2, 3], 1), ([4], 3), ([5, 0], 5)):
        out, stats = speculative_decode(target, draft, prompt, k, 20, temperature=0)
        assert out == generate(target, prompt, 20, temperature=0)
        assert stats["target_passes"] < 20 or stats["accepted"] == 0
    same, stats = speculative_decode(target, target, [1, 2], 4, 20, temperature=0)
    assert same == generate(target, [1, 2], 20, temperature=0)
    assert stats["accepted"] == stats["drafted"]  # a draft equal to the target is always accepted


def _sequence_probs(model: DecoderOnlyLM, prompt: list[int], new: int, temperature: float) -> torch.Tensor:
    """Exact probability of every continuation of length ``new`` (in itertools.product order)."""
    out = []
    with torch.no_grad():
        for seq in itertools.product(range(model.vocab_size), repeat=new):
            lp = torch.log_softmax(model(torch.tensor([prompt + list(seq)]))[0] / temperature, -1)
            out.append(float(sum(lp[len(prompt) - 1 + i, t] for i, t in enumerate(seq)).exp()))
    return torch.tensor(out, dtype=torch.float64)


def test_speculative_sampling_distribution_equals_target_sampling() -> None:
    # k = 2 with 3 new tokens: the first pass drafts 2 tokens, so a wrong residual at draft position 2 changes
    # the emitted text, and a pass that accepts both drafts emits its bonus token third, inside the compared
    # window (with k = 3 and 4 new tokens the bonus fell on the summed-out fourth token: a wrong bonus passed)
    target, draft = _lm(3, vocab=3), _lm(5, vocab=3)
    prompt, new, k, runs, temp = [1, 2], 3, 2, 1000, 4.0  # temperature 4 flattens the random models' logits
    p = _sequence_probs(target, prompt, new, temp)  # (27,): every continuation, all three tokens
    q = _sequence_probs(draft, prompt, new, temp)
    assert abs(float(p.sum()) - 1) < 1e-12 and float(p.min()) * runs > 10
    g = torch.Generator().manual_seed(0)
    counts = torch.zeros(27, dtype=torch.float64)
    drafted = passes = bonus = 0
    for _ in range(runs):
        out, stats = speculative_decode(target, draft, prompt, k, new, temperature=temp, generator=g)
        counts[out[0] * 9 + out[1] * 3 + out[2]] += 1
        drafted, passes = drafted + stats["drafted"], passes + stats["target_passes"]
        bonus += stats["accepted"] == k and stats["target_passes"] == 1  # 2 drafts + the bonus token
    assert drafted / passes > 1.5  # most first passes draft 2 tokens
    assert bonus > runs / 2  # the bonus token is drawn in most runs and lies inside the window
    assert _chi2(counts, p) < 54.1  # df 26, p = 1e-3: the target's distribution is accepted
    assert _chi2(counts, q) > 150  # the draft's own distribution is rejected


def test_verify_draft_bonus_token_is_drawn_from_the_last_target_row() -> None:
    # q = p at both drafted positions: every draft is accepted, so the next token is the bonus, drawn from
    # p_3 (not p_2, and not from a residual p_3 - q_2); p_2 != p_3 tells the three apart
    p12 = torch.tensor([0.7, 0.2, 0.1], dtype=torch.float64)
    p3 = torch.tensor([0.1, 0.2, 0.7], dtype=torch.float64)
    r = 20000
    g = torch.Generator().manual_seed(2)
    draft = torch.multinomial(p12.expand(r * 2, -1), 1, True, generator=g).reshape(r, 2)
    p = torch.stack([p12, p12, p3])[None].expand(r, -1, -1)
    acc, nxt = verify_draft(p, p[:, :2], draft, generator=g)
    assert bool((acc == 2).all())  # p / q = 1: always accepted
    counts = torch.bincount(nxt, minlength=3).double()
    assert _chi2(counts, p3) < 18.4  # df 2, p = 1e-4
    assert _chi2(counts, p12) > 1000 and bool((counts > 0).all())  # not p_2, not the residual [0, 0, 1]


def test_verify_pass_uses_the_bottom_right_causal_mask() -> None:
    target = _lm(4, vocab=9, layers=2)
    tokens = torch.tensor([[1, 5, 2, 8, 3, 3, 0]])
    caches = new_caches(target)
    lm_forward_cached(target, tokens[:, :4], caches)
    verify = lm_forward_cached(target, tokens[:, 4:], caches)  # 3 queries over 4 cached + 3 new keys
    torch.testing.assert_close(verify, target(tokens)[:, 4:], rtol=1e-10, atol=1e-12)
    # the other alignment (query i sees keys 0..i, top-left) reads the wrong keys: different logits
    top_left = torch.ones(3, 7, dtype=torch.bool).tril()
    assert not torch.equal(top_left, causal_mask(3, 7))
    x = target.tok_emb(tokens) + target.pos_emb(torch.arange(7))
    for block in target.blocks:
        x = block(x, mask=torch.cat([torch.ones(4, 7, dtype=torch.bool).tril(), top_left]))
    wrong = torch.nn.functional.linear(target.norm_f(x), target.tok_emb.weight)[:, 4:]
    assert (wrong - target(tokens)[:, 4:]).abs().max() > 1e-3


def test_filters_apply_to_both_models_and_inputs_are_checked() -> None:
    target, draft = _lm(5), _lm(6)
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        logits = target(torch.tensor([[1, 2]]))[0, -1]
    allowed = sample_probs(logits, top_k=1)
    assert float(sample_probs(logits).max()) < 0.95  # unfiltered, the target's argmax is not certain
    outs = [speculative_decode(target, draft, [1, 2], 3, 1, top_k=1, generator=g)[0][0] for _ in range(200)]
    assert all(allowed[t] == 1.0 for t in outs)  # top-k 1 is greedy whatever the draft proposes
    # (a version that drops the target's filters emits another token in about 1 run in 10)
    with pytest.raises(ValueError, match="vocabulary"):
        speculative_decode(target, _lm(7, vocab=5), [1], 2, 3)
    with pytest.raises(ValueError, match="max_len"):
        speculative_decode(target, draft, [1], 2, 60)
