"""Absolute and rotary position information: sinusoidal and learned embeddings, RoPE.

RoPE comes with the context-extension scalings: position interpolation, NTK-aware, YaRN.

Self-attention without positions is permutation equivariant; these are the ways to break that symmetry
by changing the *inputs* (absolute embeddings) or *queries and keys* (RoPE). The other family, a bias on
the scores (ALiBi, T5), lives in ``bias.py``.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn

from selfattention._checks import check_positive_int, check_rank, check_tensor

__all__ = [
    "sinusoidal_positions",
    "LearnedPositionalEmbedding",
    "rope_frequencies",
    "rope_max_angles",
    "rope_permute_for_half",
    "rope_rotate",
    "yarn_attention_factor",
    "yarn_correction_range",
    "yarn_ramp",
]


def _check_even_dim(d: int, name: str) -> int:
    d = check_positive_int(d, name)
    if d % 2 != 0:
        raise ValueError(f"{name} must be even (dimensions come in pairs): got {name}={d}")
    return d


def sinusoidal_positions(n: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """Vaswani et al.'s table (n, d_model): PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(same)."""
    n = check_positive_int(n, "n")
    d_model = _check_even_dim(d_model, "d_model")
    if not base > 1:
        raise ValueError(f"base must be > 1: got base={base!r}")
    pos = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    inv_freq = float(base) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (d/2,)
    angles = pos * inv_freq  # (n, d/2)
    pe = torch.empty(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe.to(torch.get_default_dtype())


class LearnedPositionalEmbedding(nn.Module):
    """One trained vector per position 0..max_len-1 (BERT/GPT-2 style); undefined beyond max_len."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = check_positive_int(max_len, "max_len")
        self.d_model = check_positive_int(d_model, "d_model")
        self.weight = nn.Parameter(torch.randn(self.max_len, self.d_model) * 0.02)

    def forward(self, n: int) -> torch.Tensor:
        """Embeddings of positions 0..n-1: (n, d_model). Raises if n > max_len (no extrapolation)."""
        n = check_positive_int(n, "n")
        if n > self.max_len:
            raise ValueError(
                f"n must be <= max_len: a learned table has no row for position {n - 1} "
                f"(got n={n}, max_len={self.max_len})"
            )
        return self.weight[:n]


RopeScaling = Literal["linear", "ntk", "yarn"]
_SCALINGS = ("linear", "ntk", "yarn")
YARN_BETA_FAST = 32.0  # YaRN's beta: pairs making more than 32 turns over the original context are kept
YARN_BETA_SLOW = 1.0  # YaRN's alpha: pairs making less than 1 turn are fully interpolated


def _check_scaling(
    scaling: str | None, factor: float, original_max_position: int | None
) -> tuple[str | None, float, int | None]:
    if scaling is not None and scaling not in _SCALINGS:
        raise ValueError(f"scaling must be None, 'linear', 'ntk' or 'yarn': got scaling={scaling!r}")
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor >= 1:
        raise ValueError(f"factor must be a number >= 1 (stretch, not shrink): got {factor!r}")
    if scaling is None and factor != 1:
        raise ValueError(f"factor={factor!r} needs a scaling ('linear', 'ntk' or 'yarn'): got scaling=None")
    if original_max_position is not None:
        original_max_position = check_positive_int(original_max_position, "original_max_position")
    if scaling == "yarn" and original_max_position is None:
        raise ValueError("scaling='yarn' needs original_max_position (the training context length L)")
    return scaling, float(factor), original_max_position


def yarn_correction_range(
    d: int, base: float, original_max_position: int,
    beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW,
) -> tuple[int, int]:
    """Pair indices (low, high) of YaRN's ramp: pairs i <= low are kept, i >= high are interpolated.

    Pair i turns r_i = L theta_i / (2 pi) times over the original context L; it makes exactly r turns at
    i = (d/2) ln(L / (2 pi r)) / ln(base). ``low`` is that index for r = beta_fast rounded down, ``high``
    the one for r = beta_slow rounded up (as in the reference implementation, jquesnelle/yarn).

    Very short L, where even pair 0 makes few turns, gives the reference code's clamped result, not the
    rule above: both ends clamp to 0 (L = 5, d = 8, base 100: r = 0.80, 0.25, 0.08, 0.03 turns, (0, 0)),
    and ``yarn_ramp`` then keeps pair 0 although it turns < 1 time; once L <= 2 pi base^(-2/d) the high end
    falls below 0 (d = 128, base 10000: L <= 5 gives high < 0) and every pair is kept, none interpolated.
    Such L (below 2 pi, one turn of pair 0) is outside what YaRN was designed for; no error is raised.
    """
    d = _check_even_dim(d, "d")
    original_max_position = check_positive_int(original_max_position, "original_max_position")

    def dim_for(turns: float) -> float:
        return d * math.log(original_max_position / (turns * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(dim_for(beta_fast)), 0)
    high = min(math.ceil(dim_for(beta_slow)), d - 1)
    return low, high


def yarn_ramp(d: int, base: float, original_max_position: int) -> torch.Tensor:
    """YaRN's blend per pair (d/2,): 0 = keep theta_i (extrapolate), 1 = theta_i / s (interpolate)."""
    low, high = yarn_correction_range(d, base, original_max_position)
    if low == high:
        high += 0.001  # avoid 0 / 0 (reference implementation)
    ramp = (torch.arange(d // 2, dtype=torch.float64) - low) / (high - low)
    return ramp.clamp(0.0, 1.0)


def yarn_attention_factor(factor: float) -> float:
    """YaRN's scale on q and k: sqrt(1/t) = 0.1 ln(s) + 1 for s > 1, else 1; logits grow by its square."""
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor > 0:
        raise ValueError(f"factor must be a positive number: got {factor!r}")
    return 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0


def rope_frequencies(
    d: int,
    base: float = 10000.0,
    scaling: RopeScaling | None = None,
    factor: float = 1.0,
    original_max_position: int | None = None,
) -> torch.Tensor:
    """Rotation frequencies theta_i = base^(-2i/d) of the d/2 pairs, optionally rescaled: (d/2,) float64.

    ``scaling`` stretches a context of length L = ``original_max_position`` by ``factor`` s:
    ``"linear"`` (position interpolation, Chen et al. 2023): theta_i / s;
    ``"ntk"`` (NTK-aware, bloc97 2023): base' = base * s^(d/(d-2)), so theta_0 = 1 stays and the lowest
    frequency is divided by s; ``"yarn"`` (Peng et al. 2023): (1 - g_i) theta_i + g_i theta_i / s with the
    ramp g_i of ``yarn_ramp`` (pairs turning fast are kept, slow ones interpolated, a blend between).
    """
    d = _check_even_dim(d, "d")
    if not base > 1:
        raise ValueError(f"base must be > 1: got base={base!r}")
    scaling, factor, original_max_position = _check_scaling(scaling, factor, original_max_position)
    exponents = torch.arange(0, d, 2, dtype=torch.float64) / d  # 2i/d
    if scaling == "ntk":
        if d == 2 and factor != 1:
            raise ValueError(
                "NTK-aware scaling needs d > 2: with one pair, theta_0 = 1 is kept and no pair is divided "
                f"by s; got d=2, factor={factor!r}"
            )
        base = float(base) * factor ** (d / (d - 2)) if d > 2 else float(base)
    theta = float(base) ** (-exponents)
    if scaling == "linear":
        theta = theta / factor
    elif scaling == "yarn":
        assert original_max_position is not None
        ramp = yarn_ramp(d, base, original_max_position)
        theta = (1 - ramp) * theta + ramp * (theta / factor)
    return theta


def rope_max_angles(
    d: int,
    base: float,
    original_max_position: int,
    scaling: RopeScaling | None = None,
    factor: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Largest angle of each pair, in training and over the stretched context: two (d/2,) float64 tensors.

    ``trained[i] = L theta_i``: pair i sees the angles [0, L theta_i) over positions 0..L-1 (L =
    ``original_max_position``). ``extended[i] = s L theta'_i``: the angles it reaches over s L positions
    with the frequencies ``rope_frequencies(d, base, scaling, factor, L)``. A pair with ``trained < 2 pi``
    (no full turn within L) meets angles never seen in training wherever ``extended > trained``. For
    ``"linear"`` (PI) the two are equal; ``"ntk"`` gives ``extended / trained = s^(1 - 2i/(d-2))`` (> 1 for
    every pair but the last); ``"yarn"`` equals PI on the pairs with less than one turn.
    """
    original_max_position = check_positive_int(original_max_position, "original_max_position")
    theta = rope_frequencies(d, base)
    kw = dict(original_max_position=original_max_position) if scaling == "yarn" else {}
    scaled = rope_frequencies(d, base, scaling, factor, **kw)
    return original_max_position * theta, float(factor) * original_max_position * scaled


def rope_permute_for_half(w: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Rows of a q or k projection (num_heads * d_head, d_in) reordered for ``layout="half"``; same shape.

    Within each head, rows (0, 2, 4, ...) come first and (1, 3, 5, ...) second, so the interleaved pair
    (2i, 2i+1) becomes the pair (i, i + d_head/2) of the rotate-half layout. This is the ``permute`` of
    Hugging Face's ``convert_llama_weights_to_hf.py`` (Meta's Llama code rotates interleaved pairs, HF's
    Llama rotates halves): with W_Q and W_K so permuted, the half layout gives the same scores.
    """
    check_tensor(w, "w")
    check_rank(w, "w", min_rank=2)
    num_heads = check_positive_int(num_heads, "num_heads")
    rows = w.shape[0]
    if w.ndim != 2 or rows % (2 * num_heads):
        raise ValueError(
            f"w must be (num_heads * d_head, d_in) with d_head even: got w {tuple(w.shape)}, "
            f"num_heads={num_heads}"
        )
    d_in = w.shape[1]
    # (h, d_head/2, 2, d_in) -> (h, 2, d_head/2, d_in): even rows, then odd rows, per head
    return w.view(num_heads, rows // num_heads // 2, 2, d_in).transpose(1, 2).reshape(rows, d_in)


def rope_rotate(
    x: torch.Tensor,
    positions: torch.Tensor,
    base: float = 10000.0,
    scaling: RopeScaling | None = None,
    factor: float = 1.0,
    original_max_position: int | None = None,
    layout: Literal["interleaved", "half"] = "interleaved",
    frequencies: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rotary embedding (Su et al.): rotate each pair of x (..., n, d) by angle p * theta_i; same shape.

    ``positions`` is (n,) (ints or floats), one position per row of x. ``layout="interleaved"`` pairs
    (x[2i], x[2i+1]) as in the RoFormer paper, Meta's Llama and GPT-J code; ``"half"`` pairs
    (x[i], x[i + d/2]) ("rotate_half", GPT-NeoX's layout, used by Hugging Face's Llama after the rows of
    W_Q and W_K are permuted: ``rope_permute_for_half``). Rotating q at m and k at n makes q_m . k_n
    depend on m - n only.
    ``scaling``, ``factor`` and ``original_max_position`` as in ``rope_frequencies``; with ``"yarn"`` the
    output is also multiplied by ``yarn_attention_factor(factor)`` (apply to q and k: the logits scale by
    its square). ``frequencies`` (d/2,) replaces theta_i outright (for experiments that rescale single
    pairs); it cannot be combined with ``scaling``, ``factor`` or ``original_max_position``.
    """
    check_tensor(x, "x")
    check_rank(x, "x", min_rank=2)
    d = x.shape[-1]
    if d % 2 != 0:
        raise ValueError(f"x must have an even last dim (rotation pairs): got x {tuple(x.shape)}")
    if not isinstance(positions, torch.Tensor):
        raise ValueError(f"positions must be a torch.Tensor of shape (n,): got {type(positions).__name__}")
    if positions.ndim != 1 or positions.shape[0] != x.shape[-2]:
        raise ValueError(
            f"positions must have shape (n,) with n = x.shape[-2]: got positions {tuple(positions.shape)} "
            f"and x {tuple(x.shape)}"
        )
    if layout not in ("interleaved", "half"):
        raise ValueError(f"layout must be 'interleaved' or 'half': got layout={layout!r}")
    if frequencies is None:
        theta = rope_frequencies(d, base, scaling, factor, original_max_position)  # (d/2,) float64
    else:
        if scaling is not None:
            raise ValueError(f"frequencies replaces the scaling: got scaling={scaling!r} as well")
        if factor != 1 or original_max_position is not None:
            raise ValueError(
                "frequencies replaces the scaling: got factor="
                f"{factor!r}, original_max_position={original_max_position!r} as well"
            )
        check_tensor(frequencies, "frequencies")
        if frequencies.shape != (d // 2,):
            raise ValueError(
                f"frequencies must have shape (d/2,) = ({d // 2},): got {tuple(frequencies.shape)}"
            )
        theta = frequencies.to(torch.float64)
    angles = positions.to(torch.float64)[:, None] * theta  # (n, d/2)
    mscale = yarn_attention_factor(factor) if scaling == "yarn" else 1.0
    cos = (torch.cos(angles) * mscale).to(x.dtype)
    sin = (torch.sin(angles) * mscale).to(x.dtype)
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) each: the two coordinates of every pair
    else:
        x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    r1, r2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos  # (..., n, d/2) each
    if layout == "interleaved":
        return torch.stack((r1, r2), dim=-1).flatten(-2)  # (..., n, d): pairs back in place
    return torch.cat((r1, r2), dim=-1)
