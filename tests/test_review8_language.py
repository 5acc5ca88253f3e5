"""Round-8 reviews, language level: the speaker's "I would say / I suppose" is a hedge, not a condition; an
exception or an instrument before the comma ("Apart from the gain, …", "Using FSDP, …", "有了 ZeRO，…") opens its
clause; "usually X, but here Y" sets X up to be corrected."""

from __future__ import annotations

import pytest

from selfattention.interview.language import clauses
from selfattention.interview.matcher import Tell, check_answer


@pytest.mark.parametrize("lead", ["I would say", "I'd say", "I would think", "I suppose", "We would argue"])
def test_the_speakers_hedge_is_not_a_condition(lead: str) -> None:
    tell = [Tell(("temperatur + chang + argmax",), myth="m")]
    assert check_answer(f"{lead} temperature changes the argmax.", [], tell).stated
    assert not any(c.conditional for c in clauses(f"{lead} temperature changes the argmax."))


def test_a_real_condition_still_is_one() -> None:
    assert any(c.conditional for c in clauses("If you suppose the logits are fixed, it would change."))


@pytest.mark.parametrize("text", ["Apart from the gain, RMSNorm has no learned parameters.",
                                  "Using FSDP, data parallelism saves memory per device.",
                                  "有了 ZeRO，数据并行也能省显存。"])
def test_an_exception_or_instrument_opens_its_clause(text: str) -> None:
    assert len(clauses(text)) == 1, [c.text for c in clauses(text)]


def test_unlike_stays_a_clause_of_its_own() -> None:  # its concepts are contrasted, not claimed
    assert len(clauses("Unlike approximate methods, FlashAttention is exact.")) == 2


@pytest.mark.parametrize("text", ["Usually recomputation slows training down, but here it speeds it up.",
                                  "通常重算会让训练变慢，但 FlashAttention 的重算反而更快。"])
def test_usually_then_but_frames_the_general_case(text: str) -> None:
    first, *rest = clauses(text)
    assert first.framed and rest and not rest[-1].framed


def test_usually_alone_is_claimed() -> None:
    assert not any(c.framed for c in clauses("I think we usually divide by d_k."))
