"""BERT's MLM corruption: 15 % of eligible tokens chosen, 80/10/10 among them (within binomial bounds),
labels only at chosen positions, deterministic under a seeded generator."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from selfattention import mlm_corrupt
from selfattention.mlm import IGNORE_INDEX

V, MASK = 1000, 3


def _tokens(n=200_000, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(4, V, (n,), generator=g)  # ids 0-3 reserved for specials


def _within(count: int, n: int, p: float, z: float = 5.0) -> bool:
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p))


def test_proportions_within_binomial_bounds() -> None:
    x = _tokens()
    out, labels = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(0))
    chosen = labels != IGNORE_INDEX
    n, k = x.numel(), int(chosen.sum())
    assert _within(k, n, 0.15)
    masked = int((out[chosen] == MASK).sum())
    kept = int((out[chosen] == x[chosen]).sum())
    replaced = k - masked - kept  # random token different from the original (and from [MASK])
    # a random draw equals the original, or [MASK], with probability 1/V each
    assert _within(masked, k, 0.8 + 0.1 / V)
    assert _within(kept, k, 0.1 + 0.1 / V)
    assert _within(replaced, k, 0.1 * (1 - 2 / V))


def test_labels_only_at_chosen_positions_and_rest_unchanged() -> None:
    x = _tokens(50_000)
    out, labels = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(2))
    chosen = labels != IGNORE_INDEX
    assert torch.equal(labels[chosen], x[chosen])  # the original token is the target
    assert torch.equal(out[~chosen], x[~chosen])  # not chosen: untouched
    assert ((out >= 0) & (out < V)).all()
    # a changed position is always a chosen one
    assert not ((out != x) & ~chosen).any()
    # cross_entropy ignores the -100 labels: only chosen positions contribute
    logits = torch.zeros(x.numel(), V)
    loss = F.cross_entropy(logits, labels, reduction="sum")
    assert math.isclose(float(loss), int(chosen.sum()) * math.log(V), rel_tol=1e-5)


def test_deterministic_under_a_seed_and_different_across_seeds() -> None:
    x = _tokens(10_000)
    a = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(5))
    b = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(5))
    c = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(6))
    assert all(torch.equal(s, t) for s, t in zip(a, b, strict=True))
    assert not torch.equal(a[1], c[1])


def test_maskable_keeps_padding_and_specials() -> None:
    x = _tokens(20_000).view(100, 200)
    maskable = torch.ones_like(x, dtype=torch.bool)
    maskable[:, 150:] = False  # padding
    maskable[:, 0] = False  # [CLS]
    out, labels = mlm_corrupt(x, MASK, V, generator=torch.Generator().manual_seed(3), maskable=maskable)
    assert (labels[~maskable] == IGNORE_INDEX).all() and torch.equal(out[~maskable], x[~maskable])
    assert _within(int((labels != IGNORE_INDEX).sum()), int(maskable.sum()), 0.15)


def test_p_zero_and_one() -> None:
    x = _tokens(1000)
    out, labels = mlm_corrupt(x, MASK, V, p=0.0, generator=torch.Generator().manual_seed(0))
    assert torch.equal(out, x) and (labels == IGNORE_INDEX).all()
    out, labels = mlm_corrupt(x, MASK, V, p=1.0, generator=torch.Generator().manual_seed(0))
    assert torch.equal(labels, x)


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        ({"mask_id": V}, "mask_id"),
        ({"p": 1.5}, "p must"),
        ({"vocab_size": 0}, "vocab_size"),
        ({"mask_frac": 0.95, "random_frac": 0.1}, "mask_frac"),
    ],
)
def test_bad_arguments(kwargs: dict, msg: str) -> None:
    args = {"mask_id": MASK, "vocab_size": V, **kwargs}
    with pytest.raises(ValueError, match=msg):
        mlm_corrupt(_tokens(10), **args)


def test_rejects_float_tokens_and_out_of_range() -> None:
    with pytest.raises(ValueError, match="integer"):
        mlm_corrupt(torch.zeros(4), MASK, V)
    with pytest.raises(ValueError, match="tokens must lie"):
        mlm_corrupt(torch.tensor([V]), MASK, V)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.bool])
def test_unsigned_tokens_are_refused(dtype: torch.dtype) -> None:
    # -100 does not fit an unsigned dtype: uint8 labels would silently hold 156 at the unchosen positions
    x = torch.randint(0, 2, (4, 8)).to(dtype)
    with pytest.raises(ValueError, match="signed integer"):
        mlm_corrupt(x, 1, 2)
