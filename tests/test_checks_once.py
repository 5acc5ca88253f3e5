"""Inputs are validated once, at the public door: internal calls do not re-run the checks."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
import torch

from selfattention import KVCache, MultiHeadAttention, MultiHeadLatentAttention, set_seed

CHECKS = ("check_tensor", "check_rank", "check_finite", "check_qkv", "check_mask", "check_positive_int")
MODULES = ("core", "multi_head", "latent", "caches", "masks", "positional")


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """Count every call of the _checks helpers, wherever a module imported them."""
    counter: Counter = Counter()
    for name in MODULES:
        mod = importlib.import_module(f"selfattention.{name}")
        for check in CHECKS:
            original = getattr(mod, check, None)
            if original is None:
                continue

            def counted(*args, _original=original, _check=check, **kwargs):
                counter[_check] += 1
                return _original(*args, **kwargs)

            monkeypatch.setattr(mod, check, counted)
    return counter


def test_multi_head_forward_checks_x_once(calls) -> None:
    set_seed(0)
    mha = MultiHeadAttention(16, 4, num_kv_heads=2)
    x = torch.randn(2, 5, 16)
    calls.clear()
    mha(x)
    assert calls["check_finite"] == 1  # the NaN scan of x, nothing else
    assert calls["check_tensor"] == 1 and calls["check_qkv"] == 0
    assert calls["check_rank"] == 1  # split/repeat/merge heads no longer re-check


def test_multi_head_with_mask_and_cache_checks_each_input_once(calls) -> None:
    set_seed(0)
    mha = MultiHeadAttention(16, 4)
    cache = KVCache()
    calls.clear()
    mha(torch.randn(1, 3, 16), kv_cache=cache)
    assert calls["check_finite"] == 1 and calls["check_qkv"] == 0
    calls.clear()
    mask = torch.ones(1, 1, 1, 4, dtype=torch.bool)
    mha(torch.randn(1, 1, 16), mask=mask, kv_cache=cache)
    assert calls["check_mask"] == 1 and calls["check_finite"] == 1 and calls["check_qkv"] == 0


def test_latent_forward_checks_x_once(calls) -> None:
    set_seed(0)
    mla = MultiHeadLatentAttention(16, 4, d_latent=8, d_rope=4)
    calls.clear()
    mla(torch.randn(2, 5, 16))
    assert calls["check_finite"] == 1 and calls["check_qkv"] == 0


def test_public_helpers_still_check(calls) -> None:
    from selfattention import merge_heads, repeat_kv, split_heads

    with pytest.raises(ValueError, match="rank"):
        split_heads(torch.randn(2, 3), 2)
    with pytest.raises(ValueError, match="n_rep"):
        repeat_kv(torch.randn(1, 2, 3, 4), 0)
    with pytest.raises(ValueError, match="rank"):
        merge_heads(torch.randn(2, 3, 4))
    with pytest.raises(ValueError, match="divisible"):
        split_heads(torch.randn(1, 3, 10), 4)
