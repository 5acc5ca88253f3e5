"""Removing W_V with several heads, and attention vs a fixed fully-connected token mixing."""

from __future__ import annotations

import pytest
import torch

from selfattention import FixedTokenMixing, MultiHeadAttention, fit_without_value_projection


@pytest.mark.parametrize("h", [1, 2, 4])
def test_value_projection_folds_into_w_o_only_with_one_head(h: int) -> None:
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, h).double()
    x = torch.randn(4, 6, 8, dtype=torch.float64)
    _, resid = fit_without_value_projection(mha, x)
    if h == 1:
        assert resid < 1e-10  # W_V W_O is one d x d matrix: any W_O' = W_V W_O reproduces it exactly
    else:
        assert resid > 0.05  # head i can only move its own d/h input channels


def test_fit_without_value_projection_one_head_equals_folding_by_hand() -> None:
    torch.manual_seed(1)
    mha = MultiHeadAttention(6, 1).double()
    x = torch.randn(2, 5, 6, dtype=torch.float64)
    W, _ = fit_without_value_projection(mha, x)
    with torch.no_grad():
        fold = mha.v_proj.weight.T @ mha.out_proj.weight.T  # (d, d): x W_V^T W_O^T
        bias = mha.v_proj.bias @ mha.out_proj.weight.T + mha.out_proj.bias  # rows of A sum to 1
    torch.testing.assert_close(W[:-1], fold, rtol=0, atol=1e-9)
    torch.testing.assert_close(W[-1], bias, rtol=0, atol=1e-9)


def test_fit_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="num_kv_heads"):
        fit_without_value_projection(MultiHeadAttention(8, 4, num_kv_heads=2), torch.randn(1, 3, 8))
    with pytest.raises(ValueError, match="x must be"):
        fit_without_value_projection(MultiHeadAttention(8, 2), torch.randn(1, 3, 6))


def test_fixed_token_mixing_is_input_independent_and_length_bound() -> None:
    torch.manual_seed(0)
    mix, att = FixedTokenMixing(5).double(), MultiHeadAttention(4, 1).double()
    x = torch.randn(1, 5, 4, dtype=torch.float64)
    perm = torch.tensor([1, 0, 2, 3, 4])  # swap the first two tokens
    with torch.no_grad():
        # attention is permutation-equivariant: the outputs swap with the inputs
        torch.testing.assert_close(att(x[:, perm]), att(x)[:, perm], rtol=0, atol=1e-12)
        # fixed mixing weights belong to positions, not contents: swapping tokens is not a swap of outputs
        assert float((mix(x[:, perm]) - mix(x)[:, perm]).abs().max()) > 1e-3
        _, A1 = att(x, return_weights=True)
        _, A2 = att(torch.randn(1, 5, 4, dtype=torch.float64), return_weights=True)
        assert float((A1 - A2).abs().max()) > 1e-3  # attention's mixing weights depend on the input
        att(torch.randn(1, 9, 4, dtype=torch.float64))  # any n
    with pytest.raises(ValueError, match="fixed mixing matrix"):
        mix(torch.randn(1, 9, 4, dtype=torch.float64))
