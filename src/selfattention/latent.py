"""Multi-head latent attention (DeepSeek-V2, 2024): cache one small latent per token, not per-head K and V.

Per token t: c_t = W_DKV x_t (d_latent numbers) is the only content cache; keys and values of every head are
k_i = W_UK_i c_t and v_i = W_UV_i c_t. Position enters through a separate RoPE key k_R = RoPE(W_KR x_t)
(d_rope numbers) shared by all heads, concatenated to each head's key:
q_i . k_i = q_C_i . W_UK_i c + q_R_i . k_R.
So the cache holds d_latent + d_rope numbers per token per layer. At decode time W_UK_i can be folded into the
query (q_C_i W_UK_i, a d_latent vector) and W_UV_i into the output projection: attention runs directly on the
cached latents, like multi-query attention with one shared head of width d_latent + d_rope.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import _shape, check_finite, check_positive_int, check_rank, check_tensor
from .core import _attend
from .masks import causal_mask
from .multi_head import _merge_heads, _split_heads
from .positional import rope_rotate

__all__ = ["MultiHeadLatentAttention", "LatentKVCache"]


class LatentKVCache:
    """What MLA stores per layer: latents c (B, n, d_latent) and shared RoPE keys k_rope (B, n, d_rope)."""

    def __init__(self) -> None:
        self.c: torch.Tensor | None = None
        self.k_rope: torch.Tensor | None = None

    def append(self, c: torch.Tensor, k_rope: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append c (B, n_new, d_latent), k_rope (B, n_new, d_rope); return everything cached so far."""
        for name, t in (("c", c), ("k_rope", k_rope)):
            check_tensor(t, name)
            check_rank(t, name, 3, 3)
        if k_rope.shape[:2] != c.shape[:2] or k_rope.dtype != c.dtype:
            raise ValueError(f"k_rope must be (B, n_new, d_rope) with c's (B, n_new) and dtype: got c "
                             f"{_shape(c)} {c.dtype}, k_rope {_shape(k_rope)} {k_rope.dtype}")
        if self.c is None or self.k_rope is None:
            self.c, self.k_rope = c, k_rope
        else:
            if (c.shape[0], c.shape[2], k_rope.shape[2]) != (self.c.shape[0], self.c.shape[2],
                                                             self.k_rope.shape[2]) or c.dtype != self.c.dtype:
                raise ValueError(f"c, k_rope must match the cache in (B, d_latent), d_rope and dtype: got c "
                                 f"{_shape(c)} {c.dtype}, k_rope {_shape(k_rope)}, cache {_shape(self.c)} "
                                 f"{self.c.dtype}, {_shape(self.k_rope)}")
            self.c = torch.cat([self.c, c], dim=1)  # (B, n, d_latent)
            self.k_rope = torch.cat([self.k_rope, k_rope], dim=1)  # (B, n, d_rope)
        return self.c, self.k_rope

    def __len__(self) -> int:
        """Cached positions n."""
        return 0 if self.c is None else self.c.shape[1]

    def numbers_per_token(self) -> int:
        """Numbers stored per token (this layer), read off the tensors: d_latent + d_rope."""
        if self.c is None or self.k_rope is None:
            return 0
        B, n = self.c.shape[:2]
        return (self.c.numel() + self.k_rope.numel()) // (B * n)

    def nbytes(self) -> int:
        """Bytes held by the cached tensors."""
        if self.c is None or self.k_rope is None:
            return 0
        return self.c.numel() * self.c.element_size() + self.k_rope.numel() * self.k_rope.element_size()


class MultiHeadLatentAttention(nn.Module):
    """Causal MLA self-attention: x (B, n, d_model) -> (B, n, d_model), optional ``LatentKVCache``.

    ``d_head`` (default d_model / num_heads) is the per-head width of the content query/key and of the value;
    ``d_q_latent`` (default None: no query compression) is DeepSeek-V2's query low-rank d_c'. Scores are
    scaled by 1 / sqrt(d_head + d_rope). No biases, no norms on the latents (DeepSeek-V2 adds RMSNorm there).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_latent: int,
        d_rope: int,
        d_head: int | None = None,
        d_q_latent: int | None = None,
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        self.d_model = check_positive_int(d_model, "d_model")
        self.num_heads = check_positive_int(num_heads, "num_heads")
        self.d_latent = check_positive_int(d_latent, "d_latent")
        self.d_rope = check_positive_int(d_rope, "d_rope")
        if self.d_rope % 2:
            raise ValueError(f"d_rope must be even (RoPE rotates pairs): got d_rope={d_rope}")
        if d_head is None:
            if d_model % num_heads:
                raise ValueError(f"d_model must be divisible by num_heads when d_head is not given: "
                                 f"got d_model={d_model}, num_heads={num_heads}")
            d_head = d_model // num_heads
        self.d_head = check_positive_int(d_head, "d_head")
        self.d_q_latent = None if d_q_latent is None else check_positive_int(d_q_latent, "d_q_latent")
        self.rope_base = rope_base
        h, dh = self.num_heads, self.d_head
        self.w_dkv = nn.Linear(d_model, d_latent, bias=False)  # W^DKV: down-projection to the cached latent
        self.w_uk = nn.Linear(d_latent, h * dh, bias=False)  # W^UK: latent -> per-head content keys
        self.w_uv = nn.Linear(d_latent, h * dh, bias=False)  # W^UV: latent -> per-head values
        self.w_kr = nn.Linear(d_model, d_rope, bias=False)  # W^KR: the shared RoPE key
        q_in = d_model if self.d_q_latent is None else self.d_q_latent
        self.w_dq = None if self.d_q_latent is None else nn.Linear(d_model, q_in, bias=False)  # W^DQ
        self.w_uq = nn.Linear(q_in, h * dh, bias=False)  # W^UQ: content queries
        self.w_qr = nn.Linear(q_in, h * d_rope, bias=False)  # W^QR: per-head RoPE queries
        self.w_o = nn.Linear(h * dh, d_model, bias=False)  # W^O

    def _queries(self, x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, n, d_model) -> q_C (B, h, n, d_head), q_R (B, h, n, d_rope) (rotated at ``pos``)."""
        c_q = x if self.w_dq is None else self.w_dq(x)  # (B, n, d_q_latent or d_model)
        q_c = _split_heads(self.w_uq(c_q), self.num_heads)  # (B, h, n, d_head)
        q_r = _split_heads(self.w_qr(c_q), self.num_heads)  # (B, h, n, d_rope)
        q_r = rope_rotate(q_r, pos, self.rope_base)  # rotated at the absolute positions
        return q_c, q_r

    def forward(
        self, x: torch.Tensor, cache: LatentKVCache | None = None, absorbed: bool = False
    ) -> torch.Tensor:
        """x (B, n, d_model) -> (B, n, d_model); with ``cache`` the new tokens sit after the cached ones.

        ``absorbed=True`` attends on the latents directly (W_UK folded into the query, W_UV into W_O).
        """
        check_tensor(x, "x")
        check_rank(x, "x", 3, 3)
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x must have last dim d_model={self.d_model}: got x {_shape(x)}")
        check_finite(x, "x")
        if cache is not None and not isinstance(cache, LatentKVCache):
            raise ValueError(f"cache must be a LatentKVCache: got {type(cache).__name__}")
        B, n, _ = x.shape
        start = 0 if cache is None else len(cache)
        pos = torch.arange(start, start + n, device=x.device)  # (n,) absolute positions
        c_new = self.w_dkv(x)  # (B, n, d_latent)
        kr_new = rope_rotate(self.w_kr(x), pos, self.rope_base)  # (B, n, d_rope)
        c, k_r = (c_new, kr_new) if cache is None else cache.append(c_new, kr_new)  # (B, n_k, ·)
        n_k = c.shape[1]
        q_c, q_r = self._queries(x, pos)  # (B, h, n, d_head), (B, h, n, d_rope)
        mask = causal_mask(n, n_k, device=x.device)  # (n, n_k), end-aligned
        scale = 1.0 / math.sqrt(self.d_head + self.d_rope)
        h, dh = self.num_heads, self.d_head
        if not absorbed:  # decompress: per-head keys and values from the latents
            k_c = _split_heads(self.w_uk(c), h)  # (B, h, n_k, d_head)
            v = _split_heads(self.w_uv(c), h)  # (B, h, n_k, d_head)
            k = torch.cat([k_c, k_r[:, None].expand(B, h, n_k, self.d_rope)], dim=-1)  # (B, h, n_k, dh+dr)
            q = torch.cat([q_c, q_r], dim=-1)  # (B, h, n, d_head + d_rope)
            res = _attend(q, k, v, mask=mask, scale=scale)
            assert isinstance(res, torch.Tensor)
            return self.w_o(_merge_heads(res))  # (B, n, d_model)
        w_uk = self.w_uk.weight.view(h, dh, self.d_latent)  # k_C_i = W_UK_i c
        q_lat = torch.einsum("bhnd,hdc->bhnc", q_c, w_uk)  # (B, h, n, d_latent): q_C_i W_UK_i
        q = torch.cat([q_lat, q_r], dim=-1)  # (B, h, n, d_latent + d_rope)
        k = torch.cat([c, k_r], dim=-1)[:, None]  # (B, 1, n_k, d_latent + d_rope): one head for all
        o_lat = _attend(q, k, c[:, None], mask=mask, scale=scale)  # (B, h, n, d_latent)
        assert isinstance(o_lat, torch.Tensor)
        w_ov = torch.einsum("mhd,hdc->hcm", self.w_o.weight.view(self.d_model, h, dh),
                            self.w_uv.weight.view(h, dh, self.d_latent))  # (h, d_latent, d_model)
        return torch.einsum("bhnc,hcm->bnm", o_lat, w_ov)  # (B, n, d_model)

    def extra_repr(self) -> str:
        """Shown by ``print(module)``."""
        return (f"d_model={self.d_model}, num_heads={self.num_heads}, d_latent={self.d_latent}, "
                f"d_rope={self.d_rope}, d_head={self.d_head}, d_q_latent={self.d_q_latent}")
