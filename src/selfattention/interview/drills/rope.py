"""The checks of the 'rope' drill (their names: ``checks_index.NAMES['rope']``)."""

from __future__ import annotations

from types import ModuleType

import torch

from selfattention.positional import rope_rotate as ref_rope

from ._common import (
    CheckFailed,
    _call,
    _close,
    _get,
    _shape,
    _tensor,
    seed_of,
    seeded,
)


def _rope_in(seed: int, n: int = 6, d: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    g = seeded(seed)
    return torch.randn(2, 3, n, d, generator=g), torch.arange(n)


def _rope_variant(
    x: torch.Tensor, pos: torch.Tensor, half: bool = False, sign: float = 1.0, expo: float = 2.0
) -> torch.Tensor:
    d = x.shape[-1]
    theta = 10000.0 ** (-expo * torch.arange(d // 2, dtype=torch.float64) / d)
    ang = pos.double()[:, None] * theta
    cos, sin = torch.cos(ang).to(x.dtype), (sign * torch.sin(ang)).to(x.dtype)
    x1, x2 = (x[..., : d // 2], x[..., d // 2 :]) if half else (x[..., 0::2], x[..., 1::2])
    a, b = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    if half:
        return torch.cat([a, b], -1)
    out = torch.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a, b
    return out


def rope_shape(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, pos = _rope_in(40)
    got = _shape("rope(x, positions)", _call("rope", f, x, pos), (2, 3, 6, 8))
    if got.dtype != x.dtype:
        raise CheckFailed(f"rope changed the dtype: x is {x.dtype}, the output is {got.dtype}")


def rope_zero(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, _ = _rope_in(41, n=3)
    _close(
        "rope at position 0",
        _tensor("rope", _call("rope", f, x, torch.zeros(3, dtype=torch.long))),
        x,
        f"seed {seed_of(41)}, x (2, 3, 3, 8), positions all 0 (angle 0: identity)",
    )


def rope_reference(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, pos = _rope_in(42)
    got = _tensor("rope", _call("rope", f, x, pos))
    _close(
        "rope(x, positions)",
        got,
        ref_rope(x, pos),
        f"seed {seed_of(42)}, x (2, 3, 6, 8), positions 0..5",
        atol=1e-5,
        hints=(
            (
                "it rotates the halves (x[:d/2], x[d/2:]) (the GPT-NeoX layout); this drill pairs neighbours "
                "(x[2i], x[2i+1])",
                _rope_variant(x, pos, half=True),
            ),
            ("the rotation runs the wrong way (sin sign flipped)", _rope_variant(x, pos, sign=-1.0)),
            ("theta_i uses base^(-i/d); the exponent is -2i/d", _rope_variant(x, pos, expo=1.0)),
        ),
    )


def rope_norm(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, pos = _rope_in(43)
    got = _tensor("rope", _call("rope", f, x, pos))
    _close(
        "row norms after rope",
        got.norm(dim=-1),
        x.norm(dim=-1),
        f"seed {seed_of(43)} (a rotation keeps lengths)",
        atol=1e-4,
    )


def rope_relative(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    g = seeded(44)
    q, k = torch.randn(1, 1, 1, 16, generator=g), torch.randn(1, 1, 1, 16, generator=g)
    offset = int(torch.randint(1, 6, (1,), generator=g))
    starts = [0, 3, 10] + sorted(int(t) for t in torch.randint(11, 90, (2,), generator=g))
    pairs = [(n + offset, n) for n in starts]
    dots = []
    for m, n in pairs:
        qm = _tensor("rope", _call("rope", f, q, torch.tensor([m])))
        kn = _tensor("rope", _call("rope", f, k, torch.tensor([n])))
        dots.append(float((qm * kn).sum()))
    spread = max(dots) - min(dots)
    if spread > 1e-3:
        raise CheckFailed(
            f"rope(q, m) . rope(k, n) changes with the absolute position at a fixed offset m - n = {offset}: "
            f"{[round(x, 4) for x in dots]} for (m, n) = {', '.join(map(str, pairs))} (seed {seed_of(44)})"
        )


def _rope64(x: torch.Tensor, pos: torch.Tensor, base: float) -> torch.Tensor:
    """The rotation in float64 (the reference for low-precision inputs), via the package's rope_rotate."""
    return ref_rope(x.double(), pos, base=base)


def rope_precision(mod: ModuleType) -> None:
    """Another base, positions far beyond the first few, and float16 / bfloat16 inputs."""
    f = _get(mod, "rope")
    g = seeded(45)
    base = (500.0, 1e6)[int(torch.randint(0, 2, (1,), generator=g))]
    n, d = 6, 16
    pos = torch.sort(torch.randint(13, 4096, (n,), generator=g)).values
    x = torch.randn(2, 2, n, d, generator=g)
    tol = {torch.float32: 1e-3, torch.float16: 2e-2, torch.bfloat16: 1e-1}
    for dtype, atol in tol.items():
        xd = x.to(dtype)
        case = f"seed {seed_of(45)}, x {tuple(x.shape)} in {dtype}, base {base:g}, positions {pos.tolist()}"
        got = _tensor("rope", _call("rope", f, xd, pos.clone(), base=base))
        ref = _rope64(xd, pos, base)
        if got.dtype != dtype:
            raise CheckFailed(f"rope returned {got.dtype} for {dtype} inputs; keep the dtype of x ({case})")
        hints = (("it ignores the base argument (uses 10000)", _rope64(xd, pos, 10000.0)),)
        _close(
            "rope(x, positions, base)",
            got.double(),
            ref,
            case,
            atol=atol,
            hints=tuple((h, r.to(dtype).double()) for h, r in hints),
        )
