"""What the value projection and input-dependent mixing buy: two small, exact experiments.

- ``fit_without_value_projection``: with the attention pattern fixed, refit W_O for a layer whose values
  are the raw input (no W_V). One head loses nothing (W_V folds into W_O); with several heads the function
  class is strictly smaller, because head i can then only move its own slice of the input's channels, so
  generic weights lose something (a block-diagonal W_V, each head reading only its own slice, loses nothing).
- ``FixedTokenMixing``: a fully-connected layer across positions (an n × n learned matrix), the baseline
  attention is compared with: its mixing weights do not depend on the input and need a fixed n.
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import _shape, check_positive_int
from .multi_head import MultiHeadAttention, split_heads

__all__ = ["FixedTokenMixing", "fit_without_value_projection"]


def fit_without_value_projection(mha: MultiHeadAttention, x: torch.Tensor) -> tuple[torch.Tensor, float]:
    """Best W_O (least squares) for ``mha`` with its value projection removed, and the relative residual.

    x (B, n, d_model). We fit ``concat_i(A_i X_i) W + b`` to the layer's own output ``mha(x)`` (biases
    included: b_V folds into b because the rows of A sum to 1), where A_i are mha's attention weights and X_i
    head i's slice of the input channels (what V_i becomes when W_V = I). Returns (W of shape
    (d_model + 1, d_model), residual), residual = ||fit − target|| / ||target||.
    """
    if not isinstance(mha, MultiHeadAttention) or mha.num_kv_heads != mha.num_heads:
        raise ValueError("mha must be a MultiHeadAttention with num_kv_heads == num_heads")
    if not isinstance(x, torch.Tensor) or x.ndim != 3 or x.shape[-1] != mha.d_model:
        raise ValueError(f"x must be (B, n, d_model={mha.d_model}): got {_shape(x)}")
    with torch.no_grad():
        target, A = mha(x, return_weights=True)  # (B, n, d), (B, h, n, n)
        xs = split_heads(x, mha.num_heads)  # (B, h, n, d_k): head i's channels of x
        mixed = (A @ xs).transpose(1, 2).reshape(x.shape)  # (B, n, d): concat_i A_i X_i
        feats = torch.cat([mixed, torch.ones_like(mixed[..., :1])], dim=-1).reshape(-1, mha.d_model + 1)
        y = target.reshape(-1, mha.d_model)
        W = torch.linalg.lstsq(feats, y).solution  # (d_model + 1, d_model)
        resid = float((feats @ W - y).norm() / y.norm())
    return W, resid


class FixedTokenMixing(nn.Module):
    """Mixes positions with a learned, input-independent matrix: x (B, n, d) -> W_mix x, W_mix (n, n)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = check_positive_int(n, "n")
        self.weight = nn.Parameter(torch.softmax(torch.randn(self.n, self.n), dim=-1))  # rows sum to 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d) -> (B, n, d); n must equal the n it was built for."""
        if not isinstance(x, torch.Tensor) or x.ndim != 3 or x.shape[1] != self.n:
            raise ValueError(
                f"x must be (B, n={self.n}, d): a fixed mixing matrix needs that n, got {_shape(x)}"
            )
        return self.weight @ x  # (B, n, d)


