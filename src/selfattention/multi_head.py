"""Multi-head attention (self and cross), with MQA / GQA via ``num_kv_heads`` and an optional KV cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (
    _shape,
    check_divisible,
    check_finite,
    check_mask,
    check_positive_int,
    check_rank,
    check_tensor,
)
from .core import _at_least_2d, _attend
from .masks import causal_mask, sliding_window_mask, streaming_mask

if TYPE_CHECKING:
    from .caches import KVCache

__all__ = [
    "MultiHeadAttention",
    "split_heads",
    "merge_heads",
    "repeat_kv",
    "grouped_query_attention",
    "mean_pool_kv_heads",
    "windowed_receptive_field",
]


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, n, h*d) -> (B, h, n, d)."""
    check_rank(x, "x", 3, 3)
    num_heads = check_positive_int(num_heads, "num_heads")
    check_divisible(x.shape[-1], num_heads, "x.shape[-1]", "num_heads")
    return _split_heads(x, num_heads)


def _split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``split_heads`` without the checks (internal calls on shapes the module built itself)."""
    B, n, hd = x.shape
    return x.view(B, n, num_heads, hd // num_heads).transpose(1, 2)  # (B, h, n, d)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, h, n, d) -> (B, n, h*d); the inverse of ``split_heads``."""
    check_rank(x, "x", 4, 4)
    return _merge_heads(x)


def _merge_heads(x: torch.Tensor) -> torch.Tensor:
    """``merge_heads`` without the checks."""
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)  # (B, n, h*d)


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """(B, h_kv, n, d) -> (B, h_kv*n_rep, n, d): each K/V head serves ``n_rep`` consecutive query heads."""
    check_rank(x, "x", 4, 4)
    return _repeat_kv(x, check_positive_int(n_rep, "n_rep"))


def _repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """``repeat_kv`` without the checks."""
    return x if n_rep == 1 else x.repeat_interleave(n_rep, dim=1)  # (B, h_kv*n_rep, n, d)


def grouped_query_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """q (B, h, n_q, d_k), k (B, h_kv, n_k, d_k), v (B, h_kv, n_k, d_v) -> (B, h, n_q, d_v).

    SDPA's ``enable_gqa``: each K/V head serves h / h_kv consecutive query heads without being copied.
    ``mask``: bool, True = may attend, broadcastable to (B, h, n_q, n_k); fully masked rows give 0.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(t, name)
        check_rank(t, name, 4, 4)
    if k.shape[:3] != v.shape[:3] or q.shape[0] != k.shape[0] or q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q, k, v must be (B, h, n_q, d_k), (B, h_kv, n_k, d_k), (B, h_kv, n_k, d_v): "
            f"got q {_shape(q)}, k {_shape(k)}, v {_shape(v)}"
        )
    check_divisible(q.shape[1], k.shape[1], "q heads", "k heads")
    if mask is not None:
        check_mask(mask, (q.shape[0], q.shape[1], q.shape[2], k.shape[2]))
    return _grouped_query_attention(q, k, v, mask)


def _grouped_query_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None
) -> torch.Tensor:
    """`grouped_query_attention` without the input checks (for callers that checked at their door)."""
    row_ok = None
    mask = _at_least_2d(mask)
    if mask is not None:
        row_ok = mask.any(dim=-1, keepdim=True)  # (..., n_q, 1): does the query see any key?
        if bool(row_ok.all()):
            row_ok = None
        else:
            mask = mask | ~row_ok  # fully masked rows attend everywhere (finite), zeroed below
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)  # (B, h, n_q, d_v)
    if row_ok is not None:
        out = out * row_ok.to(out.dtype)
    return out


class MultiHeadAttention(nn.Module):
    """x (B, n_q, d_model) [, context (B, n_k, d_model)] -> (B, n_q, d_model) [, weights (B, h, n_q, n_k)]."""

    def __init__(
        self, d_model: int, num_heads: int, num_kv_heads: int | None = None, bias: bool = True
    ) -> None:
        super().__init__()
        d_model = check_positive_int(d_model, "d_model")
        num_heads = check_positive_int(num_heads, "num_heads")
        num_kv_heads = num_heads if num_kv_heads is None else check_positive_int(num_kv_heads, "num_kv_heads")
        check_divisible(d_model, num_heads, "d_model", "num_heads")
        check_divisible(num_heads, num_kv_heads, "num_heads", "num_kv_heads")
        self.d_model, self.num_heads, self.num_kv_heads = d_model, num_heads, num_kv_heads
        self.d_k = d_model // num_heads
        self.q_proj = nn.Linear(d_model, num_heads * self.d_k, bias=bias)
        self.k_proj = nn.Linear(d_model, num_kv_heads * self.d_k, bias=bias)
        self.v_proj = nn.Linear(d_model, num_kv_heads * self.d_k, bias=bias)
        self.out_proj = nn.Linear(num_heads * self.d_k, d_model, bias=bias)

    def _check_input(self, x: object, name: str) -> torch.Tensor:
        """Raise unless ``x`` is (B, n, d_model) float without NaN."""
        check_tensor(x, name)
        check_rank(x, name, 3, 3)
        assert isinstance(x, torch.Tensor)
        if x.shape[-1] != self.d_model:
            raise ValueError(f"{name} must have last dim d_model={self.d_model}: got {name} {_shape(x)}")
        check_finite(x, name)
        return x

    def forward(
        self,
        x: torch.Tensor,
        context: torch.Tensor | None = None,
        mask: torch.Tensor | None = None,
        return_weights: bool = False,
        kv_cache: KVCache | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """x (B, n_q, d_model) -> (B, n_q, d_model) [, weights (B, h, n_q, n_k)].

        Self-attention if ``context`` is None, else cross-attention: keys/values come from
        context (B, n_k, d_model). ``mask``: bool, True = may attend, broadcastable to (B, h, n_q, n_k).
        With ``kv_cache`` the new keys/values are appended to the cache and, if ``mask`` is None,
        an end-aligned causal mask (``causal_mask(n_q, n_k)``) is used. An explicit ``mask`` is
        the whole contract: it replaces the causal mask rather than adding to it, so a prefill
        with a padding mask must carry causality itself (``padding & causal_mask(n_q, n_k)``).
        """
        self._check_input(x, "x")
        B, n_q, _ = x.shape
        if context is not None:
            if kv_cache is not None:
                raise ValueError("kv_cache is for self-attention decoding: got both context and kv_cache")
            self._check_input(context, "context")
            if context.shape[0] != B:
                raise ValueError(
                    f"x and context must share batch size: got x {_shape(x)}, context {_shape(context)}"
                )
        src = x if context is None else context
        n_k = src.shape[1] + (len(kv_cache) if kv_cache is not None else 0)
        if mask is not None:  # validate before touching the cache
            check_mask(mask, (B, self.num_heads, n_q, n_k))
        # x and context were checked once above; the internal calls below do not check again
        q = _split_heads(self.q_proj(x), self.num_heads)  # (B, h, n_q, d_k)
        k = _split_heads(self.k_proj(src), self.num_kv_heads)  # (B, h_kv, n_src, d_k)
        v = _split_heads(self.v_proj(src), self.num_kv_heads)  # (B, h_kv, n_src, d_k)
        if kv_cache is not None:
            k, v = kv_cache.append(k, v)  # (B, h_kv, n_k, d_k), all tokens so far
            if mask is None:
                mask = causal_mask(n_q, n_k, device=x.device)  # (n_q, n_k), end-aligned
        n_rep = self.num_heads // self.num_kv_heads
        if n_rep > 1 and not return_weights:  # fast path: SDPA shares each K/V head, no copies
            out = _grouped_query_attention(q, k, v, mask)  # (B, h, n_q, d_k)
            return self.out_proj(_merge_heads(out))  # (B, n_q, d_model)
        k = _repeat_kv(k, n_rep)  # (B, h, n_k, d_k)
        v = _repeat_kv(v, n_rep)  # (B, h, n_k, d_k)
        res = _attend(q, k, v, mask=mask, return_weights=return_weights, batch=(B, self.num_heads))
        out, weights = res if isinstance(res, tuple) else (res, None)  # out (B, h, n_q, d_k)
        out = self.out_proj(_merge_heads(out))  # (B, n_q, d_model)
        return (out, weights) if return_weights else out

    @classmethod
    def from_torch(cls, mha: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy weights from a ``torch.nn.MultiheadAttention`` (any ``batch_first``; ours is batch-first)."""
        if not isinstance(mha, nn.MultiheadAttention):
            raise ValueError(f"mha must be a torch.nn.MultiheadAttention: got {type(mha).__name__}")
        if mha.bias_k is not None or mha.add_zero_attn:
            raise ValueError("mha with add_bias_kv or add_zero_attn is not supported")
        if mha.kdim != mha.embed_dim or mha.vdim != mha.embed_dim:
            raise ValueError(
                f"mha must have kdim = vdim = embed_dim: got {mha.kdim}, {mha.vdim}, {mha.embed_dim}"
            )
        E = mha.embed_dim
        has_bias = mha.in_proj_bias is not None
        if mha._qkv_same_embed_dim:
            w_q, w_k, w_v = mha.in_proj_weight.chunk(3, dim=0)  # each (E, E)
        else:
            w_q, w_k, w_v = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
        ref = mha.out_proj.weight
        m = cls(E, mha.num_heads, bias=has_bias).to(device=ref.device, dtype=ref.dtype)
        with torch.no_grad():
            for proj, w in ((m.q_proj, w_q), (m.k_proj, w_k), (m.v_proj, w_v)):
                proj.weight.copy_(w)
            m.out_proj.weight.copy_(mha.out_proj.weight)
            if has_bias:
                b_q, b_k, b_v = mha.in_proj_bias.chunk(3, dim=0)  # each (E,)
                for proj, b in ((m.q_proj, b_q), (m.k_proj, b_k), (m.v_proj, b_v)):
                    proj.bias.copy_(b)
                m.out_proj.bias.copy_(mha.out_proj.bias)
        return m

    def extra_repr(self) -> str:
        """Shown by ``print(module)``."""
        return (
            f"d_model={self.d_model}, num_heads={self.num_heads}, "
            f"num_kv_heads={self.num_kv_heads}, d_k={self.d_k}"
        )


def mean_pool_kv_heads(mha: MultiHeadAttention, num_kv_heads: int) -> MultiHeadAttention:
    """GQA layer from an MHA layer (Ainslie et al. 2023): each group's K/V heads mean-pooled, Q, O copied."""
    if not isinstance(mha, MultiHeadAttention):
        raise ValueError(f"mha must be a MultiHeadAttention: got {type(mha).__name__}")
    g = check_positive_int(num_kv_heads, "num_kv_heads")
    check_divisible(mha.num_kv_heads, g, "mha.num_kv_heads", "num_kv_heads")
    has_bias = mha.k_proj.bias is not None
    ref = mha.q_proj.weight
    out = MultiHeadAttention(mha.d_model, mha.num_heads, num_kv_heads=g, bias=has_bias)
    out = out.to(device=ref.device, dtype=ref.dtype)
    per_group, d_k, d = mha.num_kv_heads // g, mha.d_k, mha.d_model
    with torch.no_grad():
        out.q_proj.load_state_dict(mha.q_proj.state_dict())
        out.out_proj.load_state_dict(mha.out_proj.state_dict())
        for src, dst in ((mha.k_proj, out.k_proj), (mha.v_proj, out.v_proj)):
            # rows are heads-major: (h_kv * d_k, d) -> (g, per_group, d_k, d), mean over per_group
            dst.weight.copy_(src.weight.view(g, per_group, d_k, d).mean(dim=1).reshape(g * d_k, d))
            if has_bias:
                dst.bias.copy_(src.bias.view(g, per_group, d_k).mean(dim=1).reshape(g * d_k))
    return out


def windowed_receptive_field(
    num_layers: int,
    window: int,
    n: int = 24,
    d_model: int = 16,
    num_heads: int = 2,
    seed: int | None = None,
    num_sinks: int = 0,
) -> list[int]:
    """Positions j whose perturbation moves the last output of a residual stack of windowed attention layers.

    ``num_layers`` float64 ``MultiHeadAttention`` layers, each
    ``x = x + layer(x, mask=sliding_window_mask(n, n, window))``, on random x of shape (1, n, d_model);
    token j gets +1 in every feature, and j is listed when the last position's output changes by more than
    1e-9 (an intervention, not a formula). ``seed`` defaults to ``num_layers``. ``num_sinks`` > 0 uses
    ``streaming_mask(n, n, num_sinks, window)`` instead (StreamingLLM: the first tokens stay visible).
    """
    from .utils import set_seed

    layers = check_positive_int(num_layers, "num_layers")
    w = check_positive_int(window, "window")
    n = check_positive_int(n, "n")
    set_seed(layers if seed is None else seed)
    stack = [MultiHeadAttention(d_model, num_heads).double() for _ in range(layers)]
    if isinstance(num_sinks, bool) or not isinstance(num_sinks, int) or num_sinks < 0:
        raise ValueError(f"num_sinks must be a non-negative int: got {num_sinks!r}")
    mask = streaming_mask(n, n, num_sinks, w) if num_sinks else sliding_window_mask(n, n, w)

    def run(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            for layer in stack:
                x = x + layer(x, mask=mask)
        return x

    x = torch.randn(1, n, d_model, dtype=torch.float64)
    base = run(x)[0, -1]
    moved = []
    for j in range(n):
        x2 = x.clone()
        x2[0, j] += 1.0
        if (run(x2)[0, -1] - base).abs().max() > 1e-9:
            moved.append(j)
    return moved
