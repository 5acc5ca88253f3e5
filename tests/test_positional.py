"""Tests for selfattention.positional: sinusoidal table, learned table, RoPE."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from selfattention.positional import (
    LearnedPositionalEmbedding,
    rope_frequencies,
    rope_rotate,
    sinusoidal_positions,
)

# ---------------------------------------------------------------- sinusoidal


def test_sinusoidal_hand_values() -> None:
    pe = sinusoidal_positions(3, 4)  # frequencies 1 and 1/100 for d_model = 4, base 1e4
    expected = torch.tensor(
        [
            [0.0, 1.0, 0.0, 1.0],
            [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)],
            [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)],
        ]
    )
    torch.testing.assert_close(pe, expected, rtol=0, atol=1e-7)


def test_sinusoidal_matches_vaswani_formula_elementwise() -> None:
    n, d = 50, 16
    pe = sinusoidal_positions(n, d)
    assert pe.shape == (n, d)
    for p in (0, 7, 49):
        for i in range(d // 2):
            angle = p / 10000 ** (2 * i / d)
            assert pe[p, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_sinusoidal_shift_is_a_fixed_rotation() -> None:
    # PE[p + k] = R_k PE[p] with R_k independent of p: the property Vaswani et al. cite.
    pe = sinusoidal_positions(40, 8).double()
    k = 5
    x, y = pe[:-k], pe[k:]  # rows p and p + k
    r = torch.linalg.lstsq(x, y).solution  # best linear map from row p to row p + k
    torch.testing.assert_close(x @ r, y, rtol=0, atol=1e-6)


def test_sinusoidal_rows_have_norm_sqrt_half_d() -> None:
    pe = sinusoidal_positions(100, 32)
    torch.testing.assert_close(pe.norm(dim=-1), torch.full((100,), 4.0), rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    ("n", "d", "match"), [(0, 4, "n must"), (4, 5, "d_model must be even"), (4, 0, "d_model")]
)
def test_sinusoidal_rejects_bad_sizes(n: int, d: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        sinusoidal_positions(n, d)


# ---------------------------------------------------------------- learned


def test_learned_returns_first_rows_and_is_trainable() -> None:
    torch.manual_seed(0)
    emb = LearnedPositionalEmbedding(10, 6)
    out = emb(4)
    assert out.shape == (4, 6)
    torch.testing.assert_close(out, emb.weight[:4])
    out.sum().backward()
    assert emb.weight.grad is not None
    assert emb.weight.grad[:4].eq(1).all() and emb.weight.grad[4:].eq(0).all()


def test_learned_cannot_extrapolate() -> None:
    emb = LearnedPositionalEmbedding(8, 4)
    with pytest.raises(ValueError, match=r"max_len.*n=9, max_len=8"):
        emb(9)


# ---------------------------------------------------------------- RoPE


def _rope_complex(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Independent reference: pairs as complex numbers multiplied by exp(i p theta_j)."""
    d = x.shape[-1]
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    z = torch.complex(x[..., 0::2].double(), x[..., 1::2].double())
    rot = torch.polar(
        torch.ones(len(positions), d // 2, dtype=torch.float64), positions.double()[:, None] * theta
    )
    w = z * rot
    return torch.stack([w.real, w.imag], dim=-1).flatten(-2).to(x.dtype)


def test_rope_frequencies_hand_values() -> None:
    torch.testing.assert_close(
        rope_frequencies(6, base=100.0),
        torch.tensor([1.0, 100 ** (-1 / 3), 100 ** (-2 / 3)], dtype=torch.float64),
    )


def test_rope_matches_complex_reference() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 8)
    pos = torch.arange(7)
    torch.testing.assert_close(rope_rotate(x, pos), _rope_complex(x, pos), rtol=1e-5, atol=1e-6)


def test_rope_hand_value_one_pair() -> None:
    x = torch.tensor([[1.0, 0.0]])  # d = 2: theta_0 = 1, so position p rotates by p radians
    out = rope_rotate(x, torch.tensor([2.0]))
    torch.testing.assert_close(out, torch.tensor([[math.cos(2), math.sin(2)]]))


def test_rope_position_zero_is_identity_and_norms_are_kept() -> None:
    torch.manual_seed(1)
    x = torch.randn(5, 16)
    out = rope_rotate(x, torch.arange(5) * 3)
    torch.testing.assert_close(out[0], x[0])
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    assert not torch.allclose(out[1:], x[1:], atol=1e-3)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(0, 500), n=st.integers(0, 500), shift=st.integers(-200, 200), seed=st.integers(0, 2**16))
def test_rope_dot_product_depends_only_on_offset(m: int, n: int, shift: int, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    q, k = (
        torch.randn(1, 32, generator=g, dtype=torch.float64),
        torch.randn(1, 32, generator=g, dtype=torch.float64),
    )
    m2, n2 = m + shift, n + shift
    d1 = (rope_rotate(q, torch.tensor([m])) * rope_rotate(k, torch.tensor([n]))).sum()
    d2 = (rope_rotate(q, torch.tensor([m2])) * rope_rotate(k, torch.tensor([n2]))).sum()
    assert d1.item() == pytest.approx(d2.item(), abs=1e-9)


def test_rope_dot_product_changes_with_offset() -> None:
    torch.manual_seed(2)
    q, k = torch.randn(1, 16), torch.randn(1, 16)
    dots = [
        (rope_rotate(q, torch.tensor([0])) * rope_rotate(k, torch.tensor([t]))).sum().item() for t in range(4)
    ]
    assert max(dots) - min(dots) > 0.1


def test_rope_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match=r"even last dim.*\(4, 3\)"):
        rope_rotate(torch.randn(4, 3), torch.arange(4))
    with pytest.raises(ValueError, match=r"positions must have shape \(n,\).*\(5,\).*\(4, 8\)"):
        rope_rotate(torch.randn(4, 8), torch.arange(5))
    with pytest.raises(ValueError, match="positions must be a torch.Tensor"):
        rope_rotate(torch.randn(4, 8), [0, 1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="x must be a floating-point"):
        rope_rotate(torch.ones(4, 8, dtype=torch.long), torch.arange(4))
