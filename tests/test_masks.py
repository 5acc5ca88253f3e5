"""Masks on small hand-written cases (True = may attend)."""

from __future__ import annotations

import torch

from selfattention import causal_mask, combine_masks, key_padding_to_attn_mask, padding_mask

T, F_ = True, False


def test_causal_square() -> None:
    expected = torch.tensor([[T, F_, F_], [T, T, F_], [T, T, T]])
    assert torch.equal(causal_mask(3), expected)
    assert torch.equal(causal_mask(3, 3), expected)
    assert causal_mask(3).dtype == torch.bool


def test_causal_is_end_aligned_for_decoding() -> None:
    assert torch.equal(causal_mask(1, 5), torch.ones(1, 5, dtype=torch.bool))
    expected = torch.tensor([[T, T, T, F_], [T, T, T, T]])  # queries at absolute positions 2 and 3
    assert torch.equal(causal_mask(2, 4), expected)


def test_causal_more_queries_than_keys() -> None:
    # queries at absolute positions -1, 0, 1: the first sees nothing
    assert torch.equal(causal_mask(3, 2), torch.tensor([[F_, F_], [T, F_], [T, T]]))


def test_causal_device() -> None:
    assert causal_mask(2, device="cpu").device.type == "cpu"


def test_padding_mask() -> None:
    expected = torch.tensor([[T, T, F_, F_], [F_, F_, F_, F_], [T, T, T, F_]])
    assert torch.equal(padding_mask([2, 0, 3], 4), expected)
    assert torch.equal(padding_mask(torch.tensor([2, 0, 3]), 4), expected)
    assert torch.equal(padding_mask([2, 3]), torch.tensor([[T, T, F_], [T, T, T]]))  # max_len = max(lengths)


def test_key_padding_to_attn_mask_broadcasts() -> None:
    pad = padding_mask([3, 1], 3)  # (2, 3)
    m = key_padding_to_attn_mask(pad)
    assert m.shape == (2, 1, 1, 3)
    full = combine_masks(causal_mask(3), m)  # (2, 1, 3, 3)
    assert full.shape == (2, 1, 3, 3)
    assert torch.equal(full[0, 0], torch.tensor([[T, F_, F_], [T, T, F_], [T, T, T]]))
    assert torch.equal(full[1, 0], torch.tensor([[T, F_, F_], [T, F_, F_], [T, F_, F_]]))


def test_combine_masks() -> None:
    a = torch.tensor([[T, T], [F_, T]])
    b = torch.tensor([[T, F_], [T, T]])
    assert torch.equal(combine_masks(a, None, b), torch.tensor([[T, F_], [F_, T]]))
    assert torch.equal(combine_masks(None, a), a)
    assert combine_masks(None, None) is None
    assert combine_masks() is None
