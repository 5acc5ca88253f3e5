"""Cross-attention beyond translation: Flamingo's gated cross-attention and target attention (DIN).

- ``GatedCrossAttention``: text tokens (queries) read visual tokens (keys/values) through a tanh gate that
  starts at 0, so a frozen language model is unchanged at initialisation (Alayrac et al. 2022, §2.2).
- ``TargetAttention``: the candidate item is the one query over a user's behaviour sequence (Zhou et al.
  2018, DIN). In the paper (§4.3) DIN's weights are *not* softmax-normalised, so the pooled interest keeps its
  intensity; the authors' public demo code keeps a softmax over scores scaled by 1/√H (issues #74 and #91 of
  zhougr1993/DeepInterestNetwork). ``normalise=True`` applies a softmax (without that scale).
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import _shape, check_positive_int
from .multi_head import MultiHeadAttention
from .transformer import FeedForward

__all__ = ["GatedCrossAttention", "TargetAttention"]


class GatedCrossAttention(nn.Module):
    """Flamingo's GATED XATTN-DENSE: x (B, n, d), media (B, m, d) -> (B, n, d).

    y = x + tanh(α)·CrossAttn(LN(x), media);  out = y + tanh(β)·FFN(LN(y));  α = β = 0 at initialisation.
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int | None = None) -> None:
        super().__init__()
        d_model = check_positive_int(d_model, "d_model")
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.ffn = FeedForward(d_model, 4 * d_model if d_ff is None else d_ff, activation="gelu")
        self.norm_attn, self.norm_ffn = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.alpha_attn = nn.Parameter(torch.zeros(()))  # tanh(0) = 0: the gate starts closed
        self.alpha_ffn = nn.Parameter(torch.zeros(()))

    def forward(self, x: torch.Tensor, media: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, n, d) text, media (B, m, d) visual tokens, mask True = may attend -> (B, n, d)."""
        y = x + torch.tanh(self.alpha_attn) * self.attn(self.norm_attn(x), context=media, mask=mask)
        return y + torch.tanh(self.alpha_ffn) * self.ffn(self.norm_ffn(y))  # (B, n, d)


class TargetAttention(nn.Module):
    """Candidate (B, d) attends over behaviours (B, T, d) -> pooled interest (B, d).

    ``scorer``: "mlp" (DIN's activation unit on [e, c, e − c, e ⊙ c]) or "dot" (c·e/√d).
    ``normalise``: softmax over the behaviours (ordinary attention) or the DIN paper's raw weights.
    ``pad`` (B, T) bool, True = a real behaviour; padded behaviours get weight 0 either way.
    """

    def __init__(self, d: int, scorer: str = "mlp", normalise: bool = False, hidden: int = 36) -> None:
        super().__init__()
        self.d = check_positive_int(d, "d")
        if scorer not in ("mlp", "dot"):
            raise ValueError(f"scorer must be 'mlp' or 'dot': got {scorer!r}")
        self.scorer, self.normalise = scorer, bool(normalise)
        if scorer == "mlp":
            hidden = check_positive_int(hidden, "hidden")
            self.unit = nn.Sequential(nn.Linear(4 * d, hidden), nn.PReLU(), nn.Linear(hidden, 1))

    def weights(
        self, candidate: torch.Tensor, behaviours: torch.Tensor, pad: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, T) attention weights of each behaviour for the candidate."""
        if not isinstance(candidate, torch.Tensor) or candidate.ndim != 2 or candidate.shape[-1] != self.d:
            raise ValueError(f"candidate must be (B, d={self.d}): got {_shape(candidate)}")
        if (
            not isinstance(behaviours, torch.Tensor)
            or behaviours.ndim != 3
            or behaviours.shape[0] != candidate.shape[0]
            or behaviours.shape[-1] != self.d
        ):
            raise ValueError(
                f"behaviours must be (B, T, d={self.d}) with candidate's B: got {_shape(behaviours)}"
            )
        if pad is not None and (
            not isinstance(pad, torch.Tensor) or pad.dtype != torch.bool or pad.shape != behaviours.shape[:2]
        ):
            raise ValueError(
                f"pad must be a boolean (B, T) = {tuple(behaviours.shape[:2])}: got {_shape(pad)}"
            )
        c = candidate[:, None, :].expand_as(behaviours)  # (B, T, d)
        if self.scorer == "dot":
            s = (behaviours * c).sum(-1) / self.d**0.5  # (B, T)
        else:
            feats = torch.cat([behaviours, c, behaviours - c, behaviours * c], dim=-1)  # (B, T, 4d)
            s = self.unit(feats).squeeze(-1)  # (B, T)
        if self.normalise:
            if pad is not None:
                s = s.masked_fill(~pad, float("-inf"))
            w = torch.softmax(s, dim=-1)
            return torch.nan_to_num(w, nan=0.0) if pad is not None else w  # no real behaviour: zeros
        return s if pad is None else s.masked_fill(~pad, 0.0)  # DIN: raw weights, padding weighs 0

    def forward(
        self, candidate: torch.Tensor, behaviours: torch.Tensor, pad: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Pooled interest (B, d) = Σ_t w_t · behaviours_t."""
        w = self.weights(candidate, behaviours, pad)  # (B, T)
        return (w[..., None] * behaviours).sum(1)  # (B, d)


