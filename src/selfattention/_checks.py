"""Input validation at the door: each helper raises ``ValueError`` naming the argument and its shapes."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import torch

__all__ = [
    "check_tensor",
    "check_rank",
    "check_finite",
    "check_qkv",
    "check_mask",
    "check_bias",
    "check_positive_int",
    "check_divisible",
    "broadcastable_to",
    "broadcast_shape",
]


def _shape(x: object) -> tuple[int, ...]:
    """Shape of a tensor/array as a plain tuple (for error messages)."""
    return tuple(getattr(x, "shape", ()))


def check_tensor(x: object, name: str) -> torch.Tensor:
    """Raise unless ``x`` is a floating-point ``torch.Tensor``; return it."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor: got {type(x).__name__}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor: got dtype {x.dtype}, shape {_shape(x)}")
    return x


def check_rank(x: object, name: str, min_rank: int = 1, max_rank: int | None = None) -> None:
    """Raise unless ``min_rank <= x.ndim <= max_rank``."""
    nd = len(_shape(x))
    if nd < min_rank or (max_rank is not None and nd > max_rank):
        want = f"{min_rank}" if max_rank == min_rank else f">= {min_rank}" if max_rank is None else (
            f"{min_rank}..{max_rank}"
        )
        raise ValueError(f"{name} must have rank {want}: got rank {nd} with shape {_shape(x)}")


def check_finite(x: torch.Tensor, name: str) -> None:
    """Raise if ``x`` contains NaN (``amax`` propagates NaN: one cheap reduction, no boolean copy)."""
    if x.numel() > 0 and torch.isnan(x.detach().amax()):
        raise ValueError(f"{name} contains NaN: got shape {_shape(x)}")


def check_qkv(q: object, k: object, v: object) -> None:
    """Check q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v): types, ranks, dims, dtypes, NaN."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(t, name)
        check_rank(t, name, min_rank=2)
    assert isinstance(q, torch.Tensor) and isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must have the same last dim (d_k): got q {_shape(q)} and k {_shape(k)}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of keys (n_k, dim -2): got k {_shape(k)} and v {_shape(v)}"
        )
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError(f"q, k, v must share one dtype: got q {q.dtype}, k {k.dtype}, v {v.dtype}")
    if broadcast_shape(q.shape[:-2], k.shape[:-2], v.shape[:-2]) is None:
        raise ValueError(
            f"batch dims of q, k, v are not broadcastable: got q {_shape(q)}, k {_shape(k)}, v {_shape(v)}"
        )
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_finite(t, name)


def check_has_keys(k: torch.Tensor) -> None:
    """Raise unless there is at least one key: with n_k = 0 every output row would have to be invented."""
    if k.shape[-2] == 0:
        raise ValueError(f"k and v must hold at least one key (n_k >= 1): got k {_shape(k)}")


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy broadcasting of ``shapes``; None if they do not broadcast (pure Python, fast)."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, start=n - len(s)):
            if d != 1:
                if out[i] not in (1, d):
                    return None
                out[i] = d
    return tuple(out)


def broadcastable_to(shape: Sequence[int], target: Sequence[int]) -> bool:
    """True if an array of ``shape`` broadcasts to exactly ``target`` (without growing it)."""
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(target), strict=False))


def check_mask(mask: object, target: Sequence[int], name: str = "mask") -> torch.Tensor:
    """Raise unless ``mask`` is a boolean tensor broadcastable to ``target`` (..., n_q, n_k)."""
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"{name} must be a boolean tensor (True = may attend): got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise ValueError(
            f"{name} must be boolean (True = may attend): got dtype {mask.dtype} with shape {_shape(mask)}"
        )
    if not broadcastable_to(mask.shape, target):
        raise ValueError(
            f"{name} must be broadcastable to (..., n_q, n_k) = {tuple(target)}: got {name} {_shape(mask)}"
        )
    return mask


def check_bias(bias: object, target: Sequence[int], name: str = "bias") -> torch.Tensor:
    """Raise unless ``bias`` is a float tensor broadcastable to ``target`` (..., n_q, n_k) without NaN."""
    check_tensor(bias, name)
    assert isinstance(bias, torch.Tensor)
    if not broadcastable_to(bias.shape, target):
        raise ValueError(
            f"{name} must be broadcastable to (..., n_q, n_k) = {tuple(target)}: got {name} {_shape(bias)}"
        )
    check_finite(bias, name)
    return bias


def check_positive_int(value: object, name: str) -> int:
    """Raise unless ``value`` is an int > 0; return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive int: got {value!r}")
    return int(value)


def check_divisible(numerator: int, denominator: int, num_name: str, den_name: str) -> None:
    """Raise unless ``numerator % denominator == 0``."""
    if numerator % denominator != 0:
        raise ValueError(
            f"{num_name} must be divisible by {den_name}: "
            f"got {num_name}={numerator}, {den_name}={denominator}"
        )
