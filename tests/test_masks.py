"""Masks on small hand-written cases (True = may attend)."""

from __future__ import annotations

import pytest
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


def test_block_diagonal_mask_hand_written() -> None:
    from selfattention import block_diagonal_mask

    expected = torch.tensor(
        [[T, T, F_, F_, F_], [T, T, F_, F_, F_], [F_, F_, T, T, T], [F_, F_, T, T, T], [F_, F_, T, T, T]]
    )
    assert torch.equal(block_diagonal_mask([2, 3]), expected)
    causal = torch.tensor(
        [[T, F_, F_, F_, F_], [T, T, F_, F_, F_], [F_, F_, T, F_, F_], [F_, F_, T, T, F_], [F_, F_, T, T, T]]
    )
    assert torch.equal(block_diagonal_mask([2, 3], causal=True), causal)
    assert torch.equal(block_diagonal_mask([4], causal=True), causal_mask(4))
    for bad in ([], [2, 0], [2.0], [True]):
        with pytest.raises(ValueError, match="lengths"):
            block_diagonal_mask(bad)


def test_packed_sequences_equal_running_each_alone() -> None:
    from selfattention import MultiHeadAttention, block_diagonal_mask

    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4)
    lengths = [3, 5, 2]
    xs = [torch.randn(1, n, 16) for n in lengths]
    with torch.no_grad():
        packed = mha(torch.cat(xs, dim=1), mask=block_diagonal_mask(lengths, causal=True))
        alone = torch.cat([mha(x, mask=causal_mask(x.shape[1])) for x in xs], dim=1)
        leaky = mha(torch.cat(xs, dim=1), mask=causal_mask(sum(lengths)))
    torch.testing.assert_close(packed, alone, rtol=1e-5, atol=1e-6)
    assert float((leaky[:, 3:] - alone[:, 3:]).abs().max()) > 1e-2  # a plain causal mask leaks across


def test_position_ids_left_and_right_padding() -> None:
    from selfattention import position_ids

    left = torch.tensor([[F_, F_, T, T], [T, T, T, T], [F_, F_, F_, T]])
    assert position_ids(left).tolist() == [[0, 0, 0, 1], [0, 1, 2, 3], [0, 0, 0, 0]]
    right = torch.tensor([[T, T, F_, F_]])
    assert position_ids(right).tolist() == [[0, 1, 0, 0]]
    with pytest.raises(ValueError, match="pad"):
        position_ids(torch.ones(2, 3))
