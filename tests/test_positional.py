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
    rope_max_angles,
    rope_permute_for_half,
    rope_rotate,
    sinusoidal_positions,
    yarn_attention_factor,
    yarn_correction_range,
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


# ---------------------------------------------------------------- sinusoidal: shift = rotation


def _shift_rotation(k: int, d: int, base: float = 10000.0) -> torch.Tensor:
    """R_k from the angle-addition formulas, built from the paper's frequencies 1 / base^(2i/d): (d, d)."""
    r = torch.zeros(d, d, dtype=torch.float64)
    for i in range(d // 2):
        w = k / base ** (2 * i / d)
        c, s = math.cos(w), math.sin(w)
        # [sin(p+k)w, cos(p+k)w] = [[cos kw, sin kw], [-sin kw, cos kw]] [sin pw, cos pw]
        r[2 * i, 2 * i], r[2 * i, 2 * i + 1] = c, s
        r[2 * i + 1, 2 * i], r[2 * i + 1, 2 * i + 1] = -s, c
    return r


@pytest.mark.parametrize("k", [1, 3, 17])
def test_sinusoidal_shift_is_the_same_rotation_for_every_position(k: int) -> None:
    d, n = 12, 64
    pe = sinusoidal_positions(n + k, d).double()
    r = _shift_rotation(k, d)
    torch.testing.assert_close(r @ r.T, torch.eye(d, dtype=torch.float64), rtol=0, atol=1e-12)  # a rotation
    torch.testing.assert_close(pe[k:], pe[:-k] @ r.T, rtol=0, atol=1e-6)  # PE[p + k] = R_k PE[p], all p
    assert not torch.allclose(pe[k:], pe[:-k], atol=1e-2)  # and it is not the identity


# ---------------------------------------------------------------- RoPE: layouts and scalings

_SCALINGS = [
    dict(),
    dict(scaling="linear", factor=4.0),
    dict(scaling="ntk", factor=4.0),
    dict(scaling="yarn", factor=4.0, original_max_position=64),
]


def _rope_complex_theta(x: torch.Tensor, positions: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    """Pairs (x[2i], x[2i+1]) as complex numbers times exp(i p theta_i): (..., n, d)."""
    d = x.shape[-1]
    z = torch.complex(x[..., 0::2].double(), x[..., 1::2].double())
    rot = torch.polar(
        torch.ones(len(positions), d // 2, dtype=torch.float64), positions.double()[:, None] * theta
    )
    w = z * rot
    return torch.stack([w.real, w.imag], dim=-1).flatten(-2)


def _rotate_half_reference(x: torch.Tensor, positions: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    """GPT-NeoX / Llama form: x * cos + rotate_half(x) * sin with cos, sin repeated over both halves."""
    angles = positions.double()[:, None] * theta
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


@pytest.mark.parametrize("kw", _SCALINGS, ids=["none", "linear", "ntk", "yarn"])
def test_rope_matches_complex_form_for_every_scaling(kw: dict) -> None:
    torch.manual_seed(3)
    x = torch.randn(2, 3, 9, 16, dtype=torch.float64)
    pos = torch.arange(9) * 7
    theta = rope_frequencies(16, **kw)
    mscale = yarn_attention_factor(kw["factor"]) if kw.get("scaling") == "yarn" else 1.0
    expected = mscale * _rope_complex_theta(x, pos, theta)
    torch.testing.assert_close(rope_rotate(x, pos, **kw), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kw", _SCALINGS, ids=["none", "linear", "ntk", "yarn"])
def test_rope_layouts_agree_up_to_a_fixed_permutation(kw: dict) -> None:
    torch.manual_seed(4)
    d = 12
    x = torch.randn(5, 7, d, dtype=torch.float64)
    pos = torch.arange(7) * 3
    perm = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # interleaved -> halves
    inter = rope_rotate(x, pos, **kw)
    half = rope_rotate(x[..., perm], pos, layout="half", **kw)
    torch.testing.assert_close(half, inter[..., perm], rtol=0, atol=1e-12)
    mscale = yarn_attention_factor(kw["factor"]) if kw.get("scaling") == "yarn" else 1.0
    ref = mscale * _rotate_half_reference(x[..., perm], pos, rope_frequencies(d, **kw))
    torch.testing.assert_close(half, ref, rtol=0, atol=1e-12)
    assert not torch.allclose(rope_rotate(x, pos, layout="half", **kw), inter, atol=1e-3)  # layouts differ


@settings(max_examples=20, deadline=None)
@given(
    m=st.integers(0, 3000),
    n=st.integers(0, 3000),
    shift=st.integers(-1000, 1000),
    which=st.integers(0, len(_SCALINGS) - 1),
    seed=st.integers(0, 2**16),
)
def test_scaled_rope_dot_product_depends_only_on_offset(
    m: int, n: int, shift: int, which: int, seed: int
) -> None:
    kw = _SCALINGS[which]
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, 32, generator=g, dtype=torch.float64).unbind(0)

    def dot(a: int, b: int) -> float:
        return (
            (rope_rotate(q, torch.tensor([a]), **kw) * rope_rotate(k, torch.tensor([b]), **kw)).sum().item()
        )

    assert dot(m, n) == pytest.approx(dot(m + shift, n + shift), abs=1e-8)


def test_linear_scaling_maps_s_times_l_onto_l_exactly() -> None:
    torch.manual_seed(5)
    s, L, d = 4.0, 64, 16
    x = torch.randn(L, d, dtype=torch.float64)
    pos = torch.arange(L)
    stretched = rope_rotate(x, s * pos, scaling="linear", factor=s)  # positions 0, 4, ..., 4 (L - 1)
    torch.testing.assert_close(stretched, rope_rotate(x, pos), rtol=0, atol=1e-12)
    torch.testing.assert_close(
        rope_frequencies(d, scaling="linear", factor=s), rope_frequencies(d) / s, rtol=1e-15, atol=0
    )
    assert not torch.allclose(rope_rotate(x, s * pos), rope_rotate(x, pos), atol=1e-3)  # unscaled: not so


@pytest.mark.parametrize(("d", "s"), [(8, 2.0), (64, 8.0), (128, 32.0)])
def test_ntk_keeps_the_highest_frequency_and_divides_the_lowest_by_the_factor(d: int, s: float) -> None:
    theta = rope_frequencies(d)
    ntk = rope_frequencies(d, scaling="ntk", factor=s)
    assert ntk[0].item() == 1.0 == theta[0].item()  # i = 0: base^0, whatever the base
    assert ntk[-1].item() == pytest.approx(theta[-1].item() / s, rel=1e-12)
    i = torch.arange(d // 2, dtype=torch.float64)
    torch.testing.assert_close(ntk, theta * s ** (-2 * i / (d - 2)), rtol=1e-12, atol=0)  # geometric
    assert (ntk[1:] < theta[1:]).all()


def test_yarn_correction_range_hand_values() -> None:
    # Llama 2 (d = 128, base 1e4, L = 4096): 128 ln(4096 / (64 pi)) / (2 ln 1e4) = 20.94 -> 20;
    # 128 ln(4096 / (2 pi)) / (2 ln 1e4) = 45.03 -> 46.
    assert yarn_correction_range(128, 10000.0, 4096) == (20, 46)
    # d = 16, L = 64: 16 ln(64 / (64 pi)) / (2 ln 1e4) < 0 -> 0; 16 ln(64 / (2 pi)) / (2 ln 1e4) = 2.02 -> 3.
    assert yarn_correction_range(16, 10000.0, 64) == (0, 3)


@pytest.mark.parametrize(("d", "L", "s"), [(128, 4096, 16.0), (64, 512, 4.0), (32, 1024, 8.0)])
def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_blends_between(d: int, L: int, s: float) -> None:
    theta = rope_frequencies(d)
    yarn = rope_frequencies(d, scaling="yarn", factor=s, original_max_position=L)
    turns = L * theta / (2 * math.pi)  # how many full turns pair i makes over the original context
    fast, slow = turns > 32, turns < 1  # YaRN's beta = 32 and alpha = 1
    assert fast.any() and slow.any()
    mid = ~fast & ~slow
    assert torch.equal(yarn[fast], theta[fast])  # high frequencies: unchanged (extrapolated)
    torch.testing.assert_close(yarn[slow], theta[slow] / s, rtol=1e-15, atol=0)  # low: interpolated
    gamma = (theta[mid] - yarn[mid]) / (theta[mid] - theta[mid] / s)  # share of interpolation in between
    assert ((gamma >= 0) & (gamma <= 1)).all() and (gamma[1:] >= gamma[:-1]).all()  # a monotone ramp
    assert ((gamma > 0) & (gamma < 1)).any()  # at least one pair is a real blend


def test_yarn_temperature_follows_the_paper() -> None:
    for s in (2.0, 4.0, 16.0, 32.0):
        assert yarn_attention_factor(s) == pytest.approx(0.1 * math.log(s) + 1, abs=1e-15)
    assert yarn_attention_factor(1.0) == 1.0
    assert yarn_attention_factor(16.0) == pytest.approx(1.27726, abs=1e-5)  # sqrt(1/t) at s = 16
    torch.manual_seed(6)
    q, k = torch.randn(2, 10, 32, dtype=torch.float64).unbind(0)
    pos = torch.arange(10) * 50
    kw = dict(scaling="yarn", factor=16.0, original_max_position=256)
    logits = rope_rotate(q, pos, **kw) @ rope_rotate(k, pos, **kw).T
    theta = rope_frequencies(32, **kw)
    plain = _rope_complex_theta(q, pos, theta) @ _rope_complex_theta(k, pos, theta).T  # same angles, no scale
    torch.testing.assert_close(logits, (0.1 * math.log(16) + 1) ** 2 * plain, rtol=1e-12, atol=1e-12)


def test_scaled_rope_rejects_bad_arguments() -> None:
    x, pos = torch.randn(4, 8), torch.arange(4)
    with pytest.raises(ValueError, match="scaling must be None, 'linear', 'ntk' or 'yarn'.*'dynamic'"):
        rope_rotate(x, pos, scaling="dynamic", factor=2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="factor must be a number >= 1.*0.5"):
        rope_frequencies(8, scaling="linear", factor=0.5)
    with pytest.raises(ValueError, match="factor=4.0 needs a scaling"):
        rope_frequencies(8, factor=4.0)
    with pytest.raises(ValueError, match="needs original_max_position"):
        rope_rotate(x, pos, scaling="yarn", factor=2.0)
    with pytest.raises(ValueError, match="original_max_position must"):
        rope_frequencies(8, scaling="yarn", factor=2.0, original_max_position=0)
    with pytest.raises(ValueError, match="layout must be 'interleaved' or 'half'.*'pairs'"):
        rope_rotate(x, pos, layout="pairs")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="factor must be a positive number"):
        yarn_attention_factor(0.0)


# ---------------------------------------------------------------- angle ranges under context extension


def test_rope_max_angles_hand_values_llama2_shape() -> None:
    # d = 128, base 1e4, L = 4096, s = 8. Pair 46: theta = 1e4^(-92/128) = 10^(-2.875), so
    # L theta = 4096 * 10^(-2.875) = 5.462 rad; NTK: theta' = theta * 8^(-92/126), so 8 L theta'
    # = 5.462 * 8^(34/126) = 5.462 * 1.7527 = 9.573 rad. Pair 63: theta = 10^(-3.9375), L theta = 0.4730.
    trained, pi = rope_max_angles(128, 1e4, 4096, "linear", 8.0)
    _, ntk = rope_max_angles(128, 1e4, 4096, "ntk", 8.0)
    _, yarn = rope_max_angles(128, 1e4, 4096, "yarn", 8.0)
    _, plain = rope_max_angles(128, 1e4, 4096)
    assert trained[46].item() == pytest.approx(4096 * 10 ** (-2.875), rel=1e-12)
    assert trained[46].item() == pytest.approx(5.462, abs=1e-3)
    assert ntk[46].item() == pytest.approx(9.573, abs=1e-3)
    assert ntk[55].item() == pytest.approx(4096 * 1e4 ** (-110 / 128) * 8 ** (1 - 110 / 126), rel=1e-12)
    assert trained[63].item() == pytest.approx(0.4730, abs=1e-4)
    assert ntk[63].item() == pytest.approx(trained[63].item(), rel=1e-12)  # the one pair NTK fixes exactly
    torch.testing.assert_close(pi, trained, rtol=1e-14, atol=0)
    torch.testing.assert_close(plain, trained, rtol=1e-14, atol=0)  # s = 1: nothing stretched


def test_only_pi_and_yarn_keep_every_unturned_pair_in_its_trained_range() -> None:
    d, base, L, s = 128, 1e4, 4096, 8.0
    trained = rope_max_angles(d, base, L)[0]
    unturned = trained < 2 * math.pi  # no full turn within L
    assert int(unturned.sum()) == 18 and unturned.nonzero().min().item() == 46
    out = {}
    for scaling in (None, "linear", "ntk", "yarn"):
        extended = rope_max_angles(d, base, L, scaling, s if scaling else 1.0)[1]
        factor_out = extended / trained
        out[scaling] = int((factor_out[unturned] > 1 + 1e-12).sum())
    assert out == {None: 0, "linear": 0, "ntk": 17, "yarn": 0}
    # unscaled at 8L: every unturned pair reaches 8x its trained angle
    plain_8L = s * rope_max_angles(d, base, L)[1]
    torch.testing.assert_close(plain_8L / trained, torch.full((64,), s, dtype=torch.float64))
    # NTK: out by s^(1 - 2i/(d-2)), the geometric rule of the docstring
    i = torch.arange(d // 2, dtype=torch.float64)
    ntk = rope_max_angles(d, base, L, "ntk", s)[1]
    torch.testing.assert_close(ntk / trained, s ** (1 - 2 * i / (d - 2)), rtol=1e-12, atol=0)


def test_rope_permute_for_half_matches_hf_conversion_and_keeps_the_scores() -> None:
    torch.manual_seed(6)
    h, dh, d_in, n = 3, 8, 10, 7
    w = torch.arange(h * dh, dtype=torch.float64)[:, None].expand(h * dh, 2)
    rows = rope_permute_for_half(w, h)[:, 0].long().tolist()
    assert rows[:dh] == [0, 2, 4, 6, 1, 3, 5, 7]  # head 0: even rows, then odd rows
    assert rows[dh : 2 * dh] == [8, 10, 12, 14, 9, 11, 13, 15]  # per head, not across heads
    W_Q, W_K = torch.randn(2, h * dh, d_in, dtype=torch.float64).unbind(0)
    x = torch.randn(n, d_in, dtype=torch.float64)
    pos = torch.arange(n) * 5

    def scores(wq: torch.Tensor, wk: torch.Tensor, layout: str) -> torch.Tensor:
        q = (x @ wq.T).view(n, h, dh).transpose(0, 1)  # (h, n, dh)
        k = (x @ wk.T).view(n, h, dh).transpose(0, 1)
        return rope_rotate(q, pos, layout=layout) @ rope_rotate(k, pos, layout=layout).transpose(-2, -1)

    meta = scores(W_Q, W_K, "interleaved")
    hf = scores(rope_permute_for_half(W_Q, h), rope_permute_for_half(W_K, h), "half")
    torch.testing.assert_close(hf, meta, rtol=0, atol=1e-12)  # permuted weights: the same model
    assert (scores(W_Q, W_K, "half") - meta).abs().max() > 0.5  # unpermuted: silently another model
    with pytest.raises(ValueError, match="d_head even"):
        rope_permute_for_half(torch.zeros(9, 4), 3)


def test_rope_frequencies_override() -> None:
    torch.manual_seed(7)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    pos = torch.arange(5) * 3
    theta = rope_frequencies(8, 100.0)
    same = rope_rotate(x, pos, frequencies=theta)
    torch.testing.assert_close(same, rope_rotate(x, pos, 100.0), rtol=0, atol=0)
    one = theta.clone()
    one[2] /= 4  # pair 2 only
    out, ref = rope_rotate(x, pos, frequencies=one), rope_rotate(x, pos, 100.0)
    torch.testing.assert_close(out[..., [0, 1, 2, 3, 6, 7]], ref[..., [0, 1, 2, 3, 6, 7]], rtol=0, atol=0)
    # a single pair (d = 2) has theta_0 = 1: rotating it at p * theta_2 / 4 is the expected rotation
    angle = pos.double() * theta[2] / 4
    torch.testing.assert_close(out[..., 4:6], rope_rotate(x[..., 4:6], angle), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="frequencies replaces the scaling"):
        rope_rotate(x, pos, scaling="linear", factor=2.0, frequencies=theta)
    with pytest.raises(ValueError, match="shape \\(d/2,\\)"):
        rope_rotate(x, pos, frequencies=theta[:3])
    # a factor (or L) next to explicit frequencies would be silently ignored: it is refused
    with pytest.raises(ValueError, match="frequencies replaces the scaling"):
        rope_rotate(x, pos, factor=4.0, frequencies=theta)
    with pytest.raises(ValueError, match="frequencies replaces the scaling"):
        rope_rotate(x, pos, original_max_position=16, frequencies=theta)


def test_ntk_scaling_needs_more_than_one_pair() -> None:
    # d = 2: the only pair is theta_0 = 1, which NTK keeps, so no pair would be divided by s
    with pytest.raises(ValueError, match="NTK-aware scaling needs d > 2"):
        rope_frequencies(2, 10000.0, "ntk", 8.0)
    with pytest.raises(ValueError, match="NTK-aware scaling needs d > 2"):
        rope_rotate(torch.zeros(3, 2), torch.arange(3), scaling="ntk", factor=8.0)
    assert torch.equal(rope_frequencies(2, 10000.0, "ntk", 1.0), rope_frequencies(2, 10000.0))
    torch.testing.assert_close(  # d = 4: the slowest pair is divided by exactly s
        rope_frequencies(4, 100.0, "ntk", 8.0)[-1], rope_frequencies(4, 100.0)[-1] / 8, rtol=1e-12, atol=0
    )
