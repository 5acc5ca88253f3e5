"""The checks behind ``attention-rehearse grade``: a drill solution against the package's own implementation.

A check is ``fn(module) -> None`` that raises `CheckFailed` with a plain-words reason: a wrong shape (expected
vs got), rows that don't sum to 1, a future leak (output at position i changes when a later token changes),
a mismatch with the reference (seed, shapes and max abs error of the failing case), or the exception the code
raised. Most checks also try to name the likely bug (missing scale, softmax over the wrong axis, ...).
These run inside the grader's worker process, never in the CLI process.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch
from torch import nn

import selfattention as sa
from selfattention.bias import alibi_bias as ref_alibi_bias
from selfattention.bias import alibi_slopes as ref_alibi_slopes
from selfattention.decoding import KVCache
from selfattention.multi_head import MultiHeadAttention as RefMHA
from selfattention.positional import rope_rotate as ref_rope

from .checks_index import NAMES

__all__ = ["CheckFailed", "CHECKS", "user_file"]

user_file: list[str] = [""]  # set by the worker: path of the file under test (for line numbers)
Check = Callable[[ModuleType], None]


class CheckFailed(Exception):
    """A check did not pass; the message says why, in plain words."""


# -- helpers -----------------------------------------------------------------------------------------------
def where(exc: BaseException) -> str:
    """' (line N of your file)' for the last frame of ``exc`` in the user's file, else ''."""
    return _where(exc)


def _where(exc: BaseException) -> str:
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == user_file[0]]
    return f" (line {lines[-1]} of your file)" if lines else ""


def _call(label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call user code on copies of the tensors; turn any exception into a CheckFailed naming it."""
    args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)  # in-place edits stay local
    try:
        with torch.no_grad():
            return fn(*args, **kwargs)
    except CheckFailed:
        raise
    except NotImplementedError as exc:
        where = _where(exc).strip(" ()")
        raise CheckFailed(
            f"{label} is not implemented yet (NotImplementedError" + (f" at {where})" if where else ")")
        ) from None
    except Exception as exc:
        raise CheckFailed(f"{label} raises {type(exc).__name__}: {exc}{_where(exc)}") from None


def _get(mod: ModuleType, name: str) -> Any:
    if not hasattr(mod, name):
        raise CheckFailed(f"your file defines no {name!r} (keep the scaffold's names)")
    return getattr(mod, name)


def _tensor(label: str, x: Any) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise CheckFailed(f"{label} must be a torch.Tensor, got {type(x).__name__}")
    return x


def _shape(label: str, x: Any, expected: tuple[int, ...]) -> torch.Tensor:
    x = _tensor(label, x)
    if tuple(x.shape) != tuple(expected):
        raise CheckFailed(f"shape wrong: {label} expected {tuple(expected)}, got {tuple(x.shape)}")
    return x


def _pair(label: str, res: Any, n: int = 2) -> tuple[Any, ...]:
    if not isinstance(res, tuple | list) or len(res) != n:
        what = f"a {type(res).__name__}" if not isinstance(res, tuple | list) else f"{len(res)} values"
        raise CheckFailed(f"{label} must return {n} values, got {what}")
    return tuple(res)


def _err(got: torch.Tensor, ref: torch.Tensor) -> float:
    if not torch.isfinite(got).all():
        return math.inf
    return float((got.double() - ref.double()).abs().max())


def _close(
    label: str,
    got: torch.Tensor,
    ref: torch.Tensor,
    case: str,
    atol: float = 1e-5,
    hints: tuple[tuple[str, torch.Tensor], ...] = (),
) -> None:
    """Raise unless got ~ ref; name the case, the max abs error and (if one fits) the likely bug."""
    _shape(label, got, tuple(ref.shape))
    err = _err(got, ref)
    if err <= atol:
        return
    if not torch.isfinite(got).all():
        msg = f"{label} contains NaN or inf for {case}"
    else:
        msg = f"{label} doesn't match the reference for {case}: max abs error {err:.3g} (tolerance {atol:g})"
    for hint, alt in hints:
        if tuple(alt.shape) == tuple(got.shape) and _err(got, alt) <= atol:
            msg += f"; {hint}"
            break
    raise CheckFailed(msg)


def _qkv(seed: int, B: int, h: int, n_q: int, n_k: int, d_k: int, d_v: int, scale: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, h, n_q, d_k, generator=g) * scale
    k = torch.randn(B, h, n_k, d_k, generator=g) * scale
    v = torch.randn(B, h, n_k, d_v, generator=g)
    return q, k, v


def _case(seed: int, **tensors: torch.Tensor) -> str:
    return f"seed {seed}, " + ", ".join(f"{n} {tuple(t.shape)}" for n, t in tensors.items())


def _ref(q, k, v, mask=None, bias=None, scale=None):
    out, w = sa.scaled_dot_product_attention(q, k, v, mask=mask, bias=bias, scale=scale, return_weights=True)
    return out, w


def _random_mask(seed: int, shape: tuple[int, ...]) -> torch.Tensor:
    """Bool mask with a True and a False in every row (so an inverted mask is also valid)."""
    g = torch.Generator().manual_seed(seed + 1000)
    m = torch.rand(*shape, generator=g) > 0.5
    m[..., 0] = True
    m[..., -1] = False
    return m


def _future_leak(
    label: str,
    fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    seq_dim: int = -2,
) -> None:
    """Change token j in q, k, v: outputs at positions < j must not move."""
    base = _tensor(label, _call(label, fn, q, k, v))
    n = q.shape[seq_dim]
    for j in range(n - 1, 0, -1):
        q2, k2, v2 = q.clone(), k.clone(), v.clone()
        for t in (q2, k2, v2):
            t.select(seq_dim, j).add_(3.0)
        out = _tensor(label, _call(label, fn, q2, k2, v2))
        diff = (out.narrow(seq_dim, 0, j) - base.narrow(seq_dim, 0, j)).abs()
        if float(diff.max()) > 1e-6:
            i = int(diff.amax(dim=tuple(d for d in range(diff.ndim) if d != diff.ndim + seq_dim)).argmax())
            raise CheckFailed(
                f"future leaks: {label} at position {i} changes (by {float(diff.max()):.3g}) when the later "
                f"token {j} changes; query i may only attend to keys 0..i"
            )


# -- sdpa --------------------------------------------------------------------------------------------------
def sdpa_shapes(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(0, 2, 3, 5, 7, 8, 6)
    out, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    _shape("out", out, (2, 3, 5, 6))
    _shape("weights", w, (2, 3, 5, 7))


def sdpa_rows(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(1, 2, 3, 5, 7, 8, 6)
    _, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    w = _shape("weights", w, (2, 3, 5, 7))
    rows = w.sum(-1)
    dev = float((rows - 1).abs().max())
    if dev > 1e-5 or bool((w < 0).any()):
        msg = f"rows of weights don't sum to 1 (max deviation {dev:.3g})"
        if float((w.sum(-2) - 1).abs().max()) < 1e-5:
            msg += "; the columns do: the softmax runs over the queries (dim -2) instead of the keys (dim -1)"
        raise CheckFailed(msg)


def sdpa_reference(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    for seed, (B, h, n_q, n_k, d_k, d_v) in enumerate(
        [(2, 3, 5, 7, 8, 6), (1, 2, 4, 4, 64, 16), (3, 1, 6, 3, 2, 5)]
    ):
        q, k, v = _qkv(seed, B, h, n_q, n_k, d_k, d_v)
        out, w = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
        ref_out, ref_w = _ref(q, k, v)
        hints = (
            ("the 1/sqrt(d_k) scale looks missing", _ref(q, k, v, scale=1.0)),
            ("it divides by d_k instead of sqrt(d_k)", _ref(q, k, v, scale=1.0 / d_k)),
            ("it scales by sqrt(d_k) instead of dividing by it", _ref(q, k, v, scale=math.sqrt(d_k))),
        )
        case = _case(seed, q=q, k=k, v=v)
        _close("weights", _tensor("weights", w), ref_w, case, hints=tuple((h_, r[1]) for h_, r in hints))
        _close("out", _tensor("out", out), ref_out, case, hints=tuple((h_, r[0]) for h_, r in hints))


def sdpa_mask(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    for seed, mshape in ((3, (2, 1, 5, 7)), (4, (5, 7))):
        q, k, v = _qkv(seed, 2, 3, 5, 7, 8, 6)
        mask = _random_mask(seed, mshape)
        out, w = _pair(
            "scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v, mask)
        )
        w = _shape("weights", w, (2, 3, 5, 7))
        ref_out, ref_w = _ref(q, k, v, mask=mask)
        case = _case(seed, q=q, k=k, v=v, mask=mask)
        leaked = float(w.masked_select(~mask.expand(2, 3, 5, 7)).abs().max())
        inv = _ref(q, k, v, mask=~mask)[1]
        if not leaked <= 1e-7:
            hint = "; the mask looks inverted: True must mean 'may attend'" if _err(w, inv) <= 1e-5 else ""
            raise CheckFailed(
                f"masked positions (mask False) get weight up to {leaked:.3g}, expected 0 for {case}{hint}"
            )
        after = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1) * mask
        hint = (
            "the mask is applied after the softmax: the rows no longer sum to 1; set the hidden scores to "
            "-inf before the softmax",
        )
        _close("weights", w, ref_w, case, hints=((hint[0], after),))
        _close("out", _tensor("out", out), ref_out, case, hints=((hint[0], after @ v),))


def sdpa_fp16(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = (t.half() for t in _qkv(14, 1, 2, 4, 6, 8, 8))
    mask = _random_mask(14, (4, 6))
    case = _case(14, q=q, k=k, v=v, mask=mask) + " in float16"
    try:
        res = _call("scaled_dot_product_attention", f, q, k, v, mask)
    except CheckFailed as exc:
        msg = str(exc)
        if "Half" in msg and "overflow" in msg:
            msg += (
                "; a finite fill such as -1e9 does not fit in float16 (largest 65504): use float('-inf') "
                "(or torch.finfo(scores.dtype).min)"
            )
        raise CheckFailed(msg) from None
    out, w = _pair("scaled_dot_product_attention", res)
    ref_out, ref_w = _ref(q.float(), k.float(), v.float(), mask=mask)
    _close("weights", _tensor("weights", w).float(), ref_w, case, atol=2e-3)
    _close("out", _tensor("out", out).float(), ref_out, case, atol=1e-2)


def sdpa_padding(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(5, 3, 2, 4, 6, 8, 8)
    pad = sa.padding_mask([6, 2, 4], 6)[:, None, None, :]  # (B, 1, 1, n_k)
    out, _ = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v, pad))
    _close("out", _tensor("out", out), _ref(q, k, v, mask=pad)[0], _case(5, q=q, k=k, v=v, mask=pad))


def sdpa_large(mod: ModuleType) -> None:
    f = _get(mod, "scaled_dot_product_attention")
    q, k, v = _qkv(6, 1, 2, 4, 4, 8, 4, scale=40.0)  # scores ~ 1e3 .. 1e4
    out, _ = _pair("scaled_dot_product_attention", _call("scaled_dot_product_attention", f, q, k, v))
    _close(
        "out",
        _tensor("out", out),
        _ref(q, k, v)[0],
        _case(6, q=q, k=k, v=v) + " (scores up to ~1e4)",
        atol=1e-4,
    )


# -- causal ------------------------------------------------------------------------------------------------
def causal_mask_check(mod: ModuleType) -> None:
    f = _get(mod, "causal_mask")
    m = _shape("causal_mask(5)", _call("causal_mask(5)", f, 5), (5, 5))
    if m.dtype != torch.bool:
        raise CheckFailed(f"causal_mask(5) must be bool (True = may attend), got dtype {m.dtype}")
    ref = sa.causal_mask(5)
    if torch.equal(m, ref):
        return
    if torch.equal(m, ~ref) or torch.equal(m, ref.T):
        raise CheckFailed(
            "causal_mask is True above the diagonal: that lets token i see later tokens "
            "(use torch.tril, True where j <= i)"
        )
    if torch.equal(m, torch.tril(torch.ones(5, 5, dtype=torch.bool), -1)):
        raise CheckFailed("causal_mask has False on the diagonal: a token must attend to itself (j <= i)")
    bad = (m != ref).nonzero()[0].tolist()
    raise CheckFailed(
        f"causal_mask(5) is wrong at (i={bad[0]}, j={bad[1]}): expected {bool(ref[bad[0], bad[1]])}"
    )


def softmax_basic(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = torch.Generator().manual_seed(7)
    x = torch.randn(3, 4, 6, generator=g) * 3
    got = _tensor("stable_softmax", _call("stable_softmax", f, x))
    ref = torch.softmax(x, dim=-1)
    _close(
        "stable_softmax",
        got,
        ref,
        "seed 7, scores (3, 4, 6)",
        hints=(("it normalises over dim -2 instead of the last dim", torch.softmax(x, dim=-2)),),
    )


def softmax_overflow(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    x = torch.tensor([[1e4, 1e4 - 1.0, 0.0, -1e4], [2e4, 1e4, 1e4, 1e4]])
    got = _tensor("stable_softmax", _call("stable_softmax", f, x))
    if not torch.isfinite(got).all():
        raise CheckFailed(
            "stable_softmax gives NaN/inf for scores around 1e4: exp overflows; subtract the "
            "row max before exp (softmax is shift-invariant)"
        )
    _close(
        "stable_softmax", got, torch.softmax(x.double(), -1).float(), "scores [[1e4, 1e4-1, 0, -1e4], ...]"
    )


def softmax_mask(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = torch.Generator().manual_seed(8)
    x = torch.randn(2, 5, 6, generator=g)
    mask = _random_mask(8, (2, 5, 6))
    got = _tensor("stable_softmax", _call("stable_softmax", f, x, mask))
    ref = sa.softmax(x.masked_fill(~mask, float("-inf")))
    _shape("stable_softmax", got, (2, 5, 6))
    leaked = float(got.masked_select(~mask).abs().max())
    if not leaked <= 1e-7:
        raise CheckFailed(
            f"positions where the mask is False get weight up to {leaked:.3g}, expected exactly 0"
        )
    _close("stable_softmax", got, ref, "seed 8, scores (2, 5, 6) with a random mask")


def softmax_fully_masked(mod: ModuleType) -> None:
    f = _get(mod, "stable_softmax")
    g = torch.Generator().manual_seed(9)
    x = torch.randn(3, 4, generator=g)
    mask = torch.tensor([[True, True, False, False], [False] * 4, [True, False, True, True]])
    got = _tensor("stable_softmax", _call("stable_softmax", f, x, mask))
    _shape("stable_softmax", got, (3, 4))
    if not torch.isfinite(got).all():
        raise CheckFailed("a fully masked row gives NaN (0/0 or -inf - -inf): return zeros for that row")
    if float(got[1].abs().max()) > 1e-7:
        raise CheckFailed(
            f"a fully masked row should be all zeros, got {[round(float(t), 4) for t in got[1]]}"
        )
    _close(
        "stable_softmax", got, sa.softmax(x.masked_fill(~mask, float("-inf"))), "scores (3, 4), row 1 masked"
    )


def causal_attention_check(mod: ModuleType) -> None:
    f = _get(mod, "causal_attention")
    q, k, v = _qkv(10, 2, 2, 6, 6, 4, 5)
    out = _call("causal_attention", f, q, k, v)
    ref = _ref(q, k, v, mask=sa.causal_mask(6))[0]
    _close(
        "causal_attention",
        _tensor("causal_attention", out),
        ref,
        _case(10, q=q, k=k, v=v),
        hints=(
            ("it doesn't apply the causal mask", _ref(q, k, v)[0]),
            ("the 1/sqrt(d_k) scale looks missing", _ref(q, k, v, mask=sa.causal_mask(6), scale=1.0)[0]),
        ),
    )


def causal_leak(mod: ModuleType) -> None:
    f = _get(mod, "causal_attention")
    q, k, v = _qkv(11, 1, 2, 6, 6, 4, 4)
    _future_leak("causal_attention output", f, q, k, v)


# -- mha ---------------------------------------------------------------------------------------------------
def _copy_to_ref(user: nn.Module, d_model: int, h: int, q_gain: float = 1.0) -> RefMHA:
    ref = RefMHA(d_model, h)
    with torch.no_grad():
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            src = getattr(user, name)
            dst = getattr(ref, name)
            gain = q_gain if name == "q_proj" else 1.0
            dst.weight.copy_(src.weight * gain)
            dst.bias.copy_(src.bias * gain)
    return ref.eval()


def _make_mha(mod: ModuleType, d_model: int, h: int, seed: int) -> nn.Module:
    cls = _get(mod, "MultiHeadAttention")
    torch.manual_seed(seed)
    m = _call(f"MultiHeadAttention({d_model}, {h})", cls, d_model, h)
    if not isinstance(m, nn.Module):
        raise CheckFailed("MultiHeadAttention must be an nn.Module subclass")
    for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
        lin = getattr(m, name, None)
        if not isinstance(lin, nn.Linear) or lin.weight.shape != (d_model, d_model) or lin.bias is None:
            raise CheckFailed(
                f"MultiHeadAttention({d_model}, {h}).{name} must be nn.Linear({d_model}, {d_model}) "
                f"with bias, got {lin!r}"
            )
    return m.eval()


def mha_init(mod: ModuleType) -> None:
    _make_mha(mod, 16, 4, 0)
    cls = _get(mod, "MultiHeadAttention")
    try:
        cls(10, 3)
    except (ValueError, AssertionError):
        return
    except Exception as exc:
        raise CheckFailed(
            f"MultiHeadAttention(10, 3) should raise ValueError (10 % 3 != 0), "
            f"raised {type(exc).__name__}: {exc}"
        ) from None
    raise CheckFailed("MultiHeadAttention(10, 3) should raise ValueError: 10 is not divisible by 3 heads")


def mha_shape(mod: ModuleType) -> None:
    m = _make_mha(mod, 16, 4, 0)
    x = torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(0))
    _shape("forward(x) for x (2, 5, 16)", _call("forward", m, x), (2, 5, 16))


def _mha_variant(
    m: nn.Module, x: torch.Tensor, h: int, mask: torch.Tensor | None, scale: float | None = None,
    axis: int = -1, out_proj: bool = True,
) -> torch.Tensor:
    """Multi-head attention with the user's weights and one deliberate bug (for naming the bug)."""
    B, n, D = x.shape
    d_k = D // h

    def split(t: torch.Tensor) -> torch.Tensor:
        return t.view(B, n, h, d_k).transpose(1, 2)

    q, k, v = split(m.q_proj(x)), split(m.k_proj(x)), split(m.v_proj(x))
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(d_k) if scale is None else scale)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    o = (torch.softmax(s, axis) @ v).transpose(1, 2).reshape(B, n, D)
    return m.out_proj(o) if out_proj else o


def _mha_compare(mod: ModuleType, h: int, seeds: range, mask: torch.Tensor | None = None) -> None:
    d_model = 16
    for seed in seeds:
        m = _make_mha(mod, d_model, h, seed)
        x = torch.randn(2, 5, d_model, generator=torch.Generator().manual_seed(seed))
        got = _tensor("forward", _call("forward", m, x) if mask is None else _call("forward", m, x, mask))
        with torch.no_grad():
            ref = _copy_to_ref(m, d_model, h)(x, mask=mask)
            hints = (
                ("the 1/sqrt(d_k) scale looks missing", _mha_variant(m, x, h, mask, scale=1.0)),
                (
                    "it divides by sqrt(d_model) instead of sqrt(d_k): that is sqrt(h * d_k), the full width",
                    _mha_variant(m, x, h, mask, scale=1 / math.sqrt(d_model)),
                ),
                (
                    "the softmax runs over the queries (dim -2) instead of the keys (dim -1)",
                    _mha_variant(m, x, h, mask, axis=-2),
                ),
                (
                    "the output projection out_proj is missing: apply it after merging the heads",
                    _mha_variant(m, x, h, mask, out_proj=False),
                ),
            )
        case = f"seed {seed}, x (2, 5, {d_model}), num_heads={h}" + (
            "" if mask is None else ", causal mask (5, 5)"
        )
        _close("forward(x)", got, ref, case, hints=hints)


def mha_one_head(mod: ModuleType) -> None:
    _mha_compare(mod, 1, range(2))


def mha_heads(mod: ModuleType) -> None:
    try:
        _mha_compare(mod, 4, range(3))
    except CheckFailed as exc:
        msg = str(exc)
        if "hint" not in msg and "looks" not in msg and "instead" not in msg:
            try:
                _mha_compare(mod, 1, range(1))
                msg += (
                    "; one head matches but 4 don't: check the head split (B, n, h, d_k).transpose(1, 2) "
                    "and the merge back transpose(1, 2).reshape(B, n, d_model)"
                )
            except CheckFailed:
                pass
        raise CheckFailed(msg) from None


def mha_mask(mod: ModuleType) -> None:
    _mha_compare(mod, 4, range(2), mask=sa.causal_mask(5))


def mha_leak(mod: ModuleType) -> None:
    m = _make_mha(mod, 16, 4, 3)
    x = torch.randn(1, 6, 16, generator=torch.Generator().manual_seed(3))
    mask = sa.causal_mask(6)
    _future_leak("forward(x, causal_mask) output", lambda a, b, c: m(a, mask), x, x, x)


# -- kv cache ----------------------------------------------------------------------------------------------
def _kv_inputs(seed: int, t: int):
    g = torch.Generator().manual_seed(seed)
    B, h, d = 2, 2, 8
    new = [torch.randn(B, h, 1, d, generator=g) for _ in range(3)]
    k_cache = torch.randn(B, h, t, d, generator=g)
    v_cache = torch.randn(B, h, t, d, generator=g)
    return new[0], new[1], new[2], k_cache, v_cache


def kv_shapes(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v, kc, vc = _kv_inputs(0, 4)
    out, k2, v2 = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
    _shape("out", out, (2, 2, 1, 8))
    _shape("k_cache_new", k2, (2, 2, 5, 8))
    _shape("v_cache_new", v2, (2, 2, 5, 8))


def kv_append(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v, kc, vc = _kv_inputs(1, 4)
    _, k2, v2 = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
    cache = KVCache()
    cache.append(kc, vc)
    ref_k, ref_v = cache.append(k, v)
    for label, got, ref, alt in (
        ("k_cache_new", k2, ref_k, torch.cat([k, kc], 2)),
        ("v_cache_new", v2, ref_v, torch.cat([v, vc], 2)),
    ):
        _close(
            label,
            _tensor(label, got),
            ref,
            "seed 1, cache t=4",
            hints=(("the new token is put first; append it at the end (dim 2)", alt),),
        )


def kv_output(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    for seed, t in ((2, 4), (3, 0)):
        q, k, v, kc, vc = _kv_inputs(seed, t)
        out, _, _ = _pair("decode_step", _call("decode_step", f, q, k, v, kc, vc), 3)
        K, V = torch.cat([kc, k], 2), torch.cat([vc, v], 2)
        hints = [("the 1/sqrt(d_k) scale looks missing", _ref(q, K, V, scale=1.0)[0])]
        if t > 0:
            hints.append(
                ("the new token doesn't attend to itself (include it in the keys)", _ref(q, kc, vc)[0])
            )
        _close(
            "out",
            _tensor("out", out),
            _ref(q, K, V)[0],
            f"seed {seed}, cache t={t}" + (" (first step, empty cache)" if t == 0 else ""),
            hints=tuple(hints),
        )


def kv_sequence(mod: ModuleType) -> None:
    f = _get(mod, "decode_step")
    q, k, v = _qkv(4, 2, 2, 6, 6, 8, 8)
    kc, vc = k[:, :, :0], v[:, :, :0]
    outs = []
    for t in range(6):
        out, kc, vc = _pair(
            "decode_step",
            _call("decode_step", f, q[:, :, t : t + 1], k[:, :, t : t + 1], v[:, :, t : t + 1], kc, vc),
            3,
        )
        outs.append(_shape(f"out at step {t}", out, (2, 2, 1, 8)))
    full = _ref(q, k, v, mask=sa.causal_mask(6))[0]
    _close(
        "token-by-token outputs",
        torch.cat(outs, 2),
        full,
        "seed 4, q/k/v (2, 2, 6, 8) decoded from an empty cache vs full causal attention",
    )


# -- alibi -------------------------------------------------------------------------------------------------
def alibi_pow2(mod: ModuleType) -> None:
    f = _get(mod, "alibi_slopes")
    got = _tensor("alibi_slopes(8)", _call("alibi_slopes(8)", f, 8)).float()
    ref = ref_alibi_slopes(8)
    _close(
        "alibi_slopes(8)",
        got,
        ref,
        "h=8 (expected 1/2, 1/4, ..., 1/256)",
        atol=1e-6,
        hints=(("the order is reversed: head 1 gets the steepest slope 2^(-8/h)", ref.flip(0)),),
    )


def alibi_non_pow2(mod: ModuleType) -> None:
    f = _get(mod, "alibi_slopes")
    for h in (6, 12):
        got = _tensor(f"alibi_slopes({h})", _call(f"alibi_slopes({h})", f, h)).float()
        _close(
            f"alibi_slopes({h})",
            got,
            ref_alibi_slopes(h),
            f"h={h} (not a power of 2: the paper's "
            "recipe takes the slopes for the power of 2 below h, then every other slope of twice that)",
            atol=1e-6,
        )


def alibi_bias_check(mod: ModuleType) -> None:
    f = _get(mod, "alibi_bias")
    got = _shape("alibi_bias(8, 5)", _call("alibi_bias(8, 5)", f, 8, 5), (8, 5, 5)).float()
    ref = ref_alibi_bias(8, 5, 5)
    lower = sa.causal_mask(5)
    err = float((got - ref).abs().masked_select(lower).max())
    if err > 1e-6:
        msg = f"alibi_bias(8, 5) is wrong on or below the diagonal (j <= i): max abs error {err:.3g}"
        if float((got + ref).abs().masked_select(lower).max()) <= 1e-6:
            msg += "; the sign is flipped: ALiBi penalises distance, bias = -m_h * (i - j) <= 0"
        raise CheckFailed(msg)
    if not torch.isfinite(got).all():
        raise CheckFailed(
            "alibi_bias contains inf/NaN above the diagonal: use a finite value there; the causal "
            "mask does the hiding"
        )


def alibi_attention_check(mod: ModuleType) -> None:
    f = _get(mod, "alibi_attention")
    q, k, v = _qkv(12, 2, 4, 6, 6, 8, 8)
    ref = _ref(q, k, v, mask=sa.causal_mask(6), bias=ref_alibi_bias(4, 6, 6))[0]
    _close(
        "alibi_attention",
        _tensor("alibi_attention", _call("alibi_attention", f, q, k, v)),
        ref,
        _case(12, q=q, k=k, v=v),
        hints=(
            ("the ALiBi bias is missing", _ref(q, k, v, mask=sa.causal_mask(6))[0]),
            ("the causal mask is missing", _ref(q, k, v, bias=ref_alibi_bias(4, 6, 6))[0]),
            (
                "the bias is divided by sqrt(d_k) together with the scores: add it after the scaling",
                _ref(q, k, v, mask=sa.causal_mask(6), bias=ref_alibi_bias(4, 6, 6) / math.sqrt(8))[0],
            ),
        ),
    )


def alibi_leak(mod: ModuleType) -> None:
    f = _get(mod, "alibi_attention")
    q, k, v = _qkv(13, 1, 4, 6, 6, 8, 8)
    _future_leak("alibi_attention output", f, q, k, v)


# -- gqa ---------------------------------------------------------------------------------------------------
def _gqa_inputs(seed: int, h: int, g: int, n_q: int = 5, n_k: int = 6, d: int = 8):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(2, h, n_q, d, generator=gen)
    k = torch.randn(2, g, n_k, d, generator=gen)
    v = torch.randn(2, g, n_k, d, generator=gen)
    return q, k, v


def _gqa_ref(q, k, v, mask=None, tile: bool = False):
    rep = q.shape[1] // k.shape[1]
    if tile:  # the classic bug: head i gets kv head i % g
        k, v = k.repeat(1, rep, 1, 1), v.repeat(1, rep, 1, 1)
    else:
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    return _ref(q, k, v, mask=mask)[0]


def _gqa_case(mod: ModuleType, seed: int, h: int, g: int, mask: torch.Tensor | None = None) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(seed, h, g)
    got = _call("gqa_attention", f, q, k, v) if mask is None else _call("gqa_attention", f, q, k, v, mask)
    hints: tuple[tuple[str, torch.Tensor], ...] = ()
    if 1 < g < h:
        hints = (
            (
                "query head i uses key/value head i % g (repeat / tiling); the groups are consecutive: use "
                "repeat_interleave, so head i uses kv head i // (h/g)",
                _gqa_ref(q, k, v, mask, tile=True),
            ),
        )
    hints += (("the 1/sqrt(d_k) scale looks missing", _gqa_ref(q * math.sqrt(q.shape[-1]), k, v, mask)),)
    case = _case(seed, q=q, k=k, v=v) + (f", mask {tuple(mask.shape)}" if mask is not None else "")
    _close("gqa_attention", _shape("gqa_attention output", got, (2, h, 5, 8)), _gqa_ref(q, k, v, mask), case,
           hints=hints)


def gqa_shape(mod: ModuleType) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(20, 4, 2, n_q=3, n_k=7, d=8)
    v = torch.randn(2, 2, 7, 5, generator=torch.Generator().manual_seed(21))
    _shape("gqa_attention output", _call("gqa_attention", f, q, k, v), (2, 4, 3, 5))


def gqa_mha(mod: ModuleType) -> None:
    _gqa_case(mod, 22, 4, 4)


def gqa_mqa(mod: ModuleType) -> None:
    _gqa_case(mod, 23, 4, 1)


def gqa_groups(mod: ModuleType) -> None:
    _gqa_case(mod, 24, 8, 2)


def gqa_mask(mod: ModuleType) -> None:
    _gqa_case(mod, 25, 6, 3, mask=_random_mask(25, (5, 6)))


def gqa_rejects(mod: ModuleType) -> None:
    f = _get(mod, "gqa_attention")
    q, k, v = _gqa_inputs(26, 6, 4)
    try:
        with torch.no_grad():
            f(q, k, v)
    except ValueError:
        return
    except NotImplementedError as exc:
        where = _where(exc).strip(" ()")
        raise CheckFailed(
            "gqa_attention is not implemented yet (NotImplementedError" + (f" at {where})" if where else ")")
        ) from None
    except Exception as exc:
        raise CheckFailed(
            f"gqa_attention with h=6, g=4 should raise ValueError (6 % 4 != 0), raised "
            f"{type(exc).__name__}: {exc}{_where(exc)}"
        ) from None
    raise CheckFailed("gqa_attention with h=6 query heads and g=4 kv heads should raise ValueError")


# -- kv_chunk ----------------------------------------------------------------------------------------------
def _chunk_inputs(seed: int, n: int):
    return _qkv(seed, 2, 2, n, n, 8, 8)


def _chunk_call(mod: ModuleType, q, k, v, kc, vc):
    f = _get(mod, "decode_chunk")
    return _pair("decode_chunk", _call("decode_chunk", f, q, k, v, kc, vc), 3)


def _chunk_hints(q, K, V, p: int) -> tuple[tuple[str, torch.Tensor], ...]:
    m = q.shape[-2]
    top_left = torch.tril(torch.ones(m, p + m, dtype=torch.bool))
    return (
        (
            "the causal mask is aligned top-left (torch.tril on the m x (p + m) scores, or is_causal=True): "
            "align it bottom-right, new token i sits at position p + i",
            _ref(q, K, V, mask=top_left)[0],
        ),
        ("the new tokens see each other freely: mask the later new tokens", _ref(q, K, V)[0]),
        ("the 1/sqrt(d_k) scale looks missing", _ref(q, K, V, mask=sa.causal_mask(m, p + m), scale=1.0)[0]),
    )


def chunk_shapes(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(30, 7)
    out, k2, v2 = _chunk_call(mod, q[:, :, 4:], k[:, :, 4:], v[:, :, 4:], k[:, :, :4], v[:, :, :4])
    _shape("out", out, (2, 2, 3, 8))
    _shape("k_cache_new", k2, (2, 2, 7, 8))
    _shape("v_cache_new", v2, (2, 2, 7, 8))


def chunk_append(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(31, 7)
    _, k2, v2 = _chunk_call(mod, q[:, :, 4:], k[:, :, 4:], v[:, :, 4:], k[:, :, :4], v[:, :, :4])
    for label, got, ref in (("k_cache_new", k2, k), ("v_cache_new", v2, v)):
        alt = torch.cat([ref[:, :, 4:], ref[:, :, :4]], 2)
        _close(label, _tensor(label, got), ref, "seed 31, p = 4, m = 3",
               hints=(("the new tokens are put first; append them at the end (dim 2)", alt),))


def _chunk_full(mod: ModuleType, seed: int, p: int, m: int) -> None:
    q, k, v = _chunk_inputs(seed, p + m)
    out, _, _ = _chunk_call(mod, q[:, :, p:], k[:, :, p:], v[:, :, p:], k[:, :, :p], v[:, :, :p])
    full = _ref(q, k, v, mask=sa.causal_mask(p + m))[0][:, :, p:]
    _close("out", _tensor("out", out), full, f"seed {seed}, cache p = {p}, m = {m} new tokens",
           hints=_chunk_hints(q[:, :, p:], k, v, p))


def chunk_last_rows(mod: ModuleType) -> None:
    _chunk_full(mod, 32, 4, 3)


def chunk_empty_cache(mod: ModuleType) -> None:
    _chunk_full(mod, 33, 0, 5)


def chunk_sequence(mod: ModuleType) -> None:
    q, k, v = _chunk_inputs(34, 6)
    kc, vc = k[:, :, :0], v[:, :, :0]
    outs, start = [], 0
    for m in (2, 3, 1):
        s = slice(start, start + m)
        out, kc, vc = _chunk_call(mod, q[:, :, s], k[:, :, s], v[:, :, s], kc, vc)
        outs.append(_shape(f"out for new tokens {start}..{start + m - 1}", out, (2, 2, m, 8)))
        start += m
    _close("chunked outputs", torch.cat(outs, 2), _ref(q, k, v, mask=sa.causal_mask(6))[0],
           "seed 34, q/k/v (2, 2, 6, 8) in chunks of 2, 3, 1 from an empty cache vs full causal attention")


# -- rope --------------------------------------------------------------------------------------------------
def _rope_in(seed: int, n: int = 6, d: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(2, 3, n, d, generator=g), torch.arange(n)


def _rope_variant(x: torch.Tensor, pos: torch.Tensor, half: bool = False, sign: float = 1.0,
                  expo: float = 2.0) -> torch.Tensor:
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
    _close("rope at position 0", _tensor("rope", _call("rope", f, x, torch.zeros(3, dtype=torch.long))), x,
           "seed 41, x (2, 3, 3, 8), positions all 0 (angle 0: identity)")


def rope_reference(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, pos = _rope_in(42)
    got = _tensor("rope", _call("rope", f, x, pos))
    _close("rope(x, positions)", got, ref_rope(x, pos), "seed 42, x (2, 3, 6, 8), positions 0..5", atol=1e-5,
           hints=(
               ("it rotates the halves (x[:d/2], x[d/2:]) (the GPT-NeoX layout); this drill pairs neighbours "
                "(x[2i], x[2i+1])", _rope_variant(x, pos, half=True)),
               ("the rotation runs the wrong way (sin sign flipped)", _rope_variant(x, pos, sign=-1.0)),
               ("theta_i uses base^(-i/d); the exponent is -2i/d", _rope_variant(x, pos, expo=1.0)),
           ))


def rope_norm(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    x, pos = _rope_in(43)
    got = _tensor("rope", _call("rope", f, x, pos))
    _close("row norms after rope", got.norm(dim=-1), x.norm(dim=-1), "seed 43 (a rotation keeps lengths)",
           atol=1e-4)


def rope_relative(mod: ModuleType) -> None:
    f = _get(mod, "rope")
    g = torch.Generator().manual_seed(44)
    q, k = torch.randn(1, 1, 1, 16, generator=g), torch.randn(1, 1, 1, 16, generator=g)
    dots = []
    for m, n in ((3, 1), (7, 5), (12, 10)):  # the same offset m - n = 2
        qm = _tensor("rope", _call("rope", f, q, torch.tensor([m])))
        kn = _tensor("rope", _call("rope", f, k, torch.tensor([n])))
        dots.append(float((qm * kn).sum()))
    spread = max(dots) - min(dots)
    if spread > 1e-4:
        raise CheckFailed(
            f"rope(q, m) . rope(k, n) changes with the absolute position at a fixed offset m - n = 2: "
            f"{[round(x, 4) for x in dots]} for (m, n) = (3, 1), (7, 5), (12, 10)"
        )


# -- online softmax ----------------------------------------------------------------------------------------
def _online_no_rescale(q, k, v, block: int) -> torch.Tensor:
    """The classic bug: the running sum and output are not rescaled when the max grows."""
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"))
    l = torch.zeros(q.shape[:-1] + (1,))  # noqa: E741
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],))
    for s0 in range(0, k.shape[-2], block):
        s = q @ k[..., s0 : s0 + block, :].transpose(-2, -1) * scale
        m = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m)
        l = l + p.sum(-1, keepdim=True)  # noqa: E741
        o = o + p @ v[..., s0 : s0 + block, :]
    return o / l


def _online_case(mod: ModuleType, seed: int, n_k: int, block: int, scale: float = 1.0) -> None:
    f = _get(mod, "online_attention")
    q, k, v = _qkv(seed, 2, 2, 5, n_k, 8, 6, scale=scale)
    got = _tensor("online_attention", _call("online_attention", f, q, k, v, block))
    ref = _ref(q, k, v)[0]
    hints = (
        ("when the running max grows, rescale the running sum and the output by exp(m_old - m_new)",
         _online_no_rescale(q, k, v, block)),
        ("the 1/sqrt(d) scale looks missing", _ref(q, k, v, scale=1.0)[0]),
    )
    _close("online_attention", got, ref, _case(seed, q=q, k=k, v=v) + f", block_size {block}",
           atol=1e-4 if scale > 1 else 1e-5, hints=hints)


def online_shape(mod: ModuleType) -> None:
    f = _get(mod, "online_attention")
    q, k, v = _qkv(50, 2, 2, 5, 8, 8, 6)
    _shape("online_attention output", _call("online_attention", f, q, k, v, 4), (2, 2, 5, 6))


def online_divides(mod: ModuleType) -> None:
    _online_case(mod, 51, 12, 4)


def online_ragged(mod: ModuleType) -> None:
    _online_case(mod, 52, 10, 4)


def online_extremes(mod: ModuleType) -> None:
    _online_case(mod, 53, 7, 1)
    _online_case(mod, 54, 7, 64)


def online_large(mod: ModuleType) -> None:
    _online_case(mod, 55, 9, 3, scale=40.0)


_FUNCS: dict[str, list[Check]] = {
    "sdpa": [sdpa_shapes, sdpa_rows, sdpa_reference, sdpa_mask, sdpa_padding, sdpa_large, sdpa_fp16],
    "causal": [
        causal_mask_check,
        softmax_basic,
        softmax_overflow,
        softmax_mask,
        softmax_fully_masked,
        causal_attention_check,
        causal_leak,
    ],
    "mha": [mha_init, mha_shape, mha_one_head, mha_heads, mha_mask, mha_leak],
    "kv_cache": [kv_shapes, kv_append, kv_output, kv_sequence],
    "alibi": [alibi_pow2, alibi_non_pow2, alibi_bias_check, alibi_attention_check, alibi_leak],
    "gqa": [gqa_shape, gqa_mha, gqa_mqa, gqa_groups, gqa_mask, gqa_rejects],
    "kv_chunk": [chunk_shapes, chunk_append, chunk_last_rows, chunk_empty_cache, chunk_sequence],
    "rope": [rope_shape, rope_zero, rope_reference, rope_norm, rope_relative],
    "online_softmax": [online_shape, online_divides, online_ragged, online_extremes, online_large],
}
CHECKS: dict[str, list[tuple[str, Check]]] = {
    d: list(zip(NAMES[d], fns, strict=True)) for d, fns in _FUNCS.items()
}
