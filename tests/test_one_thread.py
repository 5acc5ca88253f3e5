"""one_cpu_thread: one CPU thread inside the block, the earlier count restored after (also on an exception),
and the training loops of toy_tasks, long_range and extrapolation really run inside it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch

from selfattention import extrapolation, long_range, toy_tasks
from selfattention.utils import one_cpu_thread

OTHER = 3  # a thread count that is neither 1 nor, on most machines, the default


@pytest.fixture
def three_threads() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(OTHER)
    assert torch.get_num_threads() == OTHER
    try:
        yield
    finally:
        torch.set_num_threads(before)


def test_one_thread_inside_and_restored_after(three_threads) -> None:
    with one_cpu_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == OTHER


def test_restored_when_the_block_raises(three_threads) -> None:
    with pytest.raises(KeyError, match="boom"), one_cpu_thread():
        assert torch.get_num_threads() == 1
        raise KeyError("boom")
    assert torch.get_num_threads() == OTHER


def test_restored_on_an_early_return_and_when_nested(three_threads) -> None:
    def first_even(xs: list[int]) -> int | None:
        with one_cpu_thread():
            for x in xs:
                if x % 2 == 0:
                    return x
        return None

    assert first_even([1, 4, 5]) == 4
    assert torch.get_num_threads() == OTHER
    with one_cpu_thread():
        with one_cpu_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 1  # the inner block restores the outer block's count, 1
    assert torch.get_num_threads() == OTHER


def _recording(fn: Callable[..., Any], seen: list[int]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        seen.append(torch.get_num_threads())
        return fn(*args, **kwargs)

    return wrapped


def test_toy_training_runs_on_one_thread(three_threads, monkeypatch) -> None:
    seen: list[int] = []
    monkeypatch.setattr(toy_tasks, "toy_loss", _recording(toy_tasks.toy_loss, seen))
    train = toy_tasks.make_partner_data(4, num_pairs=4, pairs_per_seq=2, num_payloads=4, seed=0)
    test = toy_tasks.make_partner_data(4, num_pairs=4, pairs_per_seq=2, num_payloads=4, seed=1)
    model = toy_tasks.ToyAttentionModel(num_tokens=8, num_payloads=4, seq_len=4, d_model=8)
    toy_tasks.train_toy_model(model, train, test, steps=3)
    assert seen == [1, 1, 1]
    assert torch.get_num_threads() == OTHER


def test_recall_training_runs_on_one_thread(three_threads, monkeypatch) -> None:
    seen: list[int] = []
    monkeypatch.setattr(long_range, "make_recall_data", _recording(long_range.make_recall_data, seen))
    model = long_range.make_classifier("attention", 8, 8, max_len=5).double()
    long_range.train_recall(model, 3, steps=2, batch_size=4)
    assert seen == [1, 1] and torch.get_num_threads() == OTHER
    seen.clear()
    steps, history = long_range.steps_to_solve("attention", 3, max_steps=4, eval_every=2, threshold=1.0,
                                                d_model=8, batch_size=4, num_eval=8)
    assert seen[0] == OTHER  # the held-out set is drawn before the loop
    assert seen[1:] == [1] * (len(seen) - 1) and len(seen) >= 3
    assert torch.get_num_threads() == OTHER


def test_key_recall_training_and_accuracy_run_on_one_thread(three_threads, monkeypatch) -> None:
    seen: list[int] = []
    monkeypatch.setattr(extrapolation, "make_key_recall_data",
                        _recording(extrapolation.make_key_recall_data, seen))
    model = extrapolation.KeyRecallModel(8, 8, 2, 6, "none")
    extrapolation.train_key_recall(model, 6, steps=2, batch_size=4)
    assert seen == [1, 1] and torch.get_num_threads() == OTHER
    forward_threads: list[int] = []
    model.forward = _recording(model.forward, forward_threads)  # type: ignore[method-assign]
    tokens, labels, key_pos = extrapolation.make_key_recall_data(5, 6)
    extrapolation.key_recall_accuracy(model, tokens, labels, key_pos)
    assert forward_threads == [1] and torch.get_num_threads() == OTHER
