"""Round-6 review of chapter 14 (decoding): the reviewer's sentences and code findings."""

from __future__ import annotations

import functools

import pytest

from selfattention.interview.matcher import Tell, check_answer


@functools.lru_cache(maxsize=1)
def _cards():
    from selfattention.interview.bank import load_cards

    return {c.id: c for c in load_cards()}


def _stated(card: str, text: str) -> bool:
    return bool(_cards()[card].check(text).stated)


# M1: a condition written first, before a comma (or as an "if …" clause), makes the statement true
M1_CORRECT = [
    ("decoding-to-text", "Without a cache, each new token re-runs the whole sequence."),
    ("decoding-to-text", "Without a KV cache, each new token re-runs the whole sequence."),
    ("decoding-to-text", "Without a cache, each step recomputes the whole sequence."),
    ("decoding-to-text", "Naively, every step recomputes the entire prefix; the KV cache avoids that."),
    ("decoding-to-text", "If there is no KV cache, each new token re-runs the whole sequence."),
    ("decoding-to-text", "没有 KV cache 时，每生成一个 token 都要把整个序列重新过一遍。"),
    ("decoding-to-text", "如果没有 KV cache，每生成一个 token 都要把整个序列重新过一遍。"),
    ("decoding-budget", "Once compute-bound, time per token grows in proportion to the batch."),
    ("decoding-budget", "When the step is compute-bound, time per token grows in proportion to the batch."),
    ("decoding-budget", "In the compute-bound regime, doubling the batch doubles the latency."),
    ("decoding-budget", "If the step is compute-bound, token latency grows in proportion to batch size."),
    ("decoding-budget", "一旦受算力限制，每个 token 的时间就和 batch 成正比。"),
    ("decoding-budget", "如果受算力限制，每个 token 的时间就和 batch 成正比。"),
]
M1_MYTH = [
    ("decoding-to-text", "Each new token re-runs the whole sequence through the model."),
    ("decoding-to-text", "I think each new token re-runs the whole sequence through the model."),
    ("decoding-to-text", "If I remember right, each new token re-runs the whole sequence through the model."),
    ("decoding-to-text", "每生成一个新 token 都要把整个序列重新过一遍模型。"),
    ("decoding-budget", "Doubling the batch doubles the time per token."),
    ("decoding-budget", "Time per token grows in proportion to the batch size."),
    ("decoding-budget", "I'm not sure, but time per token grows in proportion to the batch size."),
    ("decoding-budget", "If I remember right, time per token grows in proportion to the batch size."),
]

# M2: Medusa's typical acceptance is lossy, and bf16 rounding can flip a greedy token: both true
M2_CORRECT = [
    "Speculative decoding with typical acceptance approximates the target.",
    "Medusa's typical acceptance makes speculative decoding approximate.",
    "With Medusa's typical acceptance, speculative decoding approximates the target.",
    "Speculative decoding's greedy output can differ slightly in bf16 because of rounding.",
    "In bf16, speculative decoding's greedy output can differ slightly from the target's because of rounding.",
    "Speculative decoding's greedy output can differ slightly from the target's only through bf16 rounding.",
    "使用 Medusa 的典型接受时，投机解码只是近似。",
]
M2_MYTH = [
    "Speculative decoding approximates the target model.",
    "I think speculative decoding approximates the target model.",
    "Speculative decoding gives slightly worse outputs than the target alone.",
    "投机解码是对目标模型的近似。",
    "投机解码的输出和目标模型差不多，但不完全一样。",
]


@pytest.mark.parametrize("card,text", M1_CORRECT + [("decoding-speculative", s) for s in M2_CORRECT])
def test_conditioned_correct_statements_are_not_flagged(card: str, text: str) -> None:
    assert not _stated(card, text), text


@pytest.mark.parametrize("card,text", M1_MYTH + [("decoding-speculative", s) for s in M2_MYTH])
def test_the_myths_are_still_caught(card: str, text: str) -> None:
    assert _stated(card, text), text


def test_a_triple_bang_condition_reaches_into_an_if_clause_and_a_double_bang_does_not() -> None:
    cond = [Tell(("@token + re run + whole + !!!no cach",), myth="m")]
    qual = [Tell(("@token + re run + whole + !!no cach",), myth="m")]
    s = "If there is no cache, each token re-runs the whole sequence."
    assert not check_answer(s, [], cond).stated
    assert check_answer(s, [], qual).stated  # '!!' leaves an "if …" to the myth ("if you mask …, BN works")
    assert not check_answer("With no cache, each token re-runs the whole sequence.", [], cond).stated
    assert check_answer("Each token re-runs the whole sequence, with no cache.", [], cond).stated  # after it
    assert check_answer("Each token re-runs the whole sequence.", [], cond).stated


# L2: apply_penalties refuses token ids outside [0, V), non-integer ids and non-finite penalties
def test_apply_penalties_validates_its_inputs() -> None:
    import numpy as np
    import torch

    from selfattention.sampling import apply_penalties

    z = torch.tensor([1.0, -1.0, 2.0, 0.5])
    for prev, msg in (([1, 4], r"\[0, 4\)"), ([-1, 2], r"\[0, 4\)"), ([1.7, 0.2], "integer token ids"),
                      ([True], "integer token ids"), (torch.tensor([1.0]), "integer token ids"),
                      (torch.tensor([0, 9]), r"\[0, 4\)")):
        with pytest.raises(ValueError, match=msg):
            apply_penalties(z, prev, 1.5)
    for kw in ({"repetition_penalty": float("nan")}, {"repetition_penalty": float("inf")},
               {"frequency_penalty": float("nan")}, {"presence_penalty": float("-inf")},
               {"frequency_penalty": True}, {"repetition_penalty": 0.0}):
        with pytest.raises(ValueError, match="penalty"):
            apply_penalties(z, [0, 1], **kw)
    # valid inputs still work, numpy integers and an empty history included
    out = apply_penalties(z, [np.int64(0), 2, 2], 2.0, 0.5, 0.25)
    assert torch.allclose(out, torch.tensor([0.5 - 0.75, -1.0, 1.0 - 1.25, 0.5]))
    assert torch.equal(apply_penalties(z, [], 2.0), z)
    assert torch.equal(apply_penalties(z, torch.tensor([], dtype=torch.long), 2.0), z)


# L5: the card's and the chapter's serving numbers, asserted tightly enough to catch a wrong one
def test_budget_numbers_of_the_card_are_tight() -> None:
    from selfattention.serving import H100_SXM, LLAMA3_70B, decode_cost

    one8k = decode_cost(LLAMA3_70B, H100_SXM, 1, 8192, devices=8)
    assert 250 < one8k["t_memory"] / one8k["t_compute"] < 300  # "over two hundred times less compute"
    one = decode_cost(LLAMA3_70B, H100_SXM, 1, 1024, devices=8)
    many = decode_cost(LLAMA3_70B, H100_SXM, 32, 1024, devices=8)
    assert 1.05 < many["t_step"] / one["t_step"] < 1.10  # "about 7 percent longer"
    assert 29 < many["tokens_per_s"] / one["tokens_per_s"] < 30  # "almost 30-fold"


# L3: memory-bound decode is a small-batch statement, compute-bound prefill a long-prompt one
def test_regime_claims_carry_their_conditions() -> None:
    c = _cards()
    flat = {k: " ".join(c[k].spoken["en"].split()) for k in ("decoding-speculative", "decoding-to-text",
                                                               "decoding-batching")}
    assert flat["decoding-speculative"].startswith("At small batch, decoding a big model is memory-bound")
    assert "Prefill of a long prompt is compute-bound" in flat["decoding-to-text"]
    assert "prefill of long prompts is compute-bound and decode at small batch memory-bound" in flat["decoding-batching"]
    zh = "".join(c["decoding-speculative"].spoken["zh"].split())
    assert zh.startswith("小batch时大模型解码受内存带宽限制")
    assert "长提示的prefill是算力受限的" in "".join(c["decoding-to-text"].spoken["zh"].split())
