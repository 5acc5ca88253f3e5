"""Baselines: additive (Bahdanau) and multiplicative (Luong) scoring; a vanilla RNN and a GRU (step loops)."""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import _shape, check_finite, check_mask, check_positive_int, check_rank, check_tensor
from .core import softmax

__all__ = ["AdditiveAttention", "MultiplicativeAttention", "VanillaRNN", "GRUBaseline"]


def _check_qkv_dims(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, d_q: int, d_k: int) -> None:
    """Validate q (..., n_q, d_q), k (..., n_k, d_k), v (..., n_k, d_v) for a scoring module."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(t, name)
        check_rank(t, name, 2)
        check_finite(t, name)
    if q.shape[-1] != d_q:
        raise ValueError(f"q must have last dim d_q={d_q}: got q {_shape(q)}")
    if k.shape[-1] != d_k:
        raise ValueError(f"k must have last dim d_k={d_k}: got k {_shape(k)}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of keys (n_k, dim -2): got k {_shape(k)} and v {_shape(v)}"
        )


def _attend(
    scores: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None, return_weights: bool
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """scores (..., n_q, n_k) -> masked stable softmax -> out (..., n_q, d_v) [, weights]."""
    if mask is not None:
        check_mask(mask, scores.shape)
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., n_q, n_k)
    weights = softmax(scores, dim=-1)  # (..., n_q, n_k); fully masked rows -> 0
    out = weights @ v  # (..., n_q, d_v)
    return (out, weights) if return_weights else out


class _ScoredAttention(nn.Module):
    """Attention with a learned scoring function: subclasses define ``scores(q, k)`` and set d_q, d_k."""

    d_q: int
    d_k: int

    def scores(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None = None,
        return_weights: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """-> out (..., n_q, d_v) [, weights (..., n_q, n_k)]; mask bool, True = may attend."""
        _check_qkv_dims(q, k, v, self.d_q, self.d_k)
        return _attend(self.scores(q, k), v, mask, return_weights)


class AdditiveAttention(_ScoredAttention):
    """Bahdanau s(q, k) = w^T tanh(W_q q + W_k k): q (..., n_q, d_q), k (..., n_k, d_k) -> (..., n_q, d_v)."""

    def __init__(self, d_q: int, d_k: int, d_hidden: int) -> None:
        super().__init__()
        self.d_q = check_positive_int(d_q, "d_q")
        self.d_k = check_positive_int(d_k, "d_k")
        d_hidden = check_positive_int(d_hidden, "d_hidden")
        self.W_q = nn.Linear(d_q, d_hidden, bias=False)
        self.W_k = nn.Linear(d_k, d_hidden, bias=False)
        self.w_v = nn.Linear(d_hidden, 1, bias=False)

    def scores(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q (..., n_q, d_q), k (..., n_k, d_k) -> scores (..., n_q, n_k)."""
        hq = self.W_q(q)[..., :, None, :]  # (..., n_q, 1, d_hidden)
        hk = self.W_k(k)[..., None, :, :]  # (..., 1, n_k, d_hidden)
        return self.w_v(torch.tanh(hq + hk)).squeeze(-1)  # (..., n_q, n_k, 1) -> (..., n_q, n_k)


class MultiplicativeAttention(_ScoredAttention):
    """Luong "general" scoring s(q, k) = q^T W k: q (..., n_q, d_q), k (..., n_k, d_k) -> (..., n_q, d_v)."""

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__()
        self.d_q = check_positive_int(d_q, "d_q")
        self.d_k = check_positive_int(d_k, "d_k")
        self.W = nn.Linear(d_k, d_q, bias=False)  # W k: (d_k,) -> (d_q,)

    def scores(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """q (..., n_q, d_q), k (..., n_k, d_k) -> scores (..., n_q, n_k)."""
        return q @ self.W(k).transpose(-2, -1)  # (..., n_q, d_q) @ (..., d_q, n_k) -> (..., n_q, n_k)


class _StepRNN(nn.Module):
    """Shared parameters and checks of the step-loop RNNs; ``gates`` = 1 (vanilla) or 3 (GRU)."""

    gates = 1

    def __init__(self, d_in: int, d_hidden: int) -> None:
        super().__init__()
        self.d_in = check_positive_int(d_in, "d_in")
        self.d_hidden = check_positive_int(d_hidden, "d_hidden")
        G, H = self.gates, self.d_hidden
        self.weight_ih = nn.Parameter(torch.empty(G * H, d_in))  # (G*H, d_in)
        self.weight_hh = nn.Parameter(torch.empty(G * H, H))  # (G*H, H)
        self.bias_ih = nn.Parameter(torch.empty(G * H))
        self.bias_hh = nn.Parameter(torch.empty(G * H))
        bound = 1.0 / math.sqrt(H)  # torch's default init
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def _check(self, x: torch.Tensor, h0: torch.Tensor | None) -> torch.Tensor:
        """Validate x (B, n, d_in) and h0 (B, H); return h0 (zeros if None)."""
        check_tensor(x, "x")
        check_rank(x, "x", 3, 3)
        if x.shape[-1] != self.d_in:
            raise ValueError(f"x must be (B, n, d_in={self.d_in}): got x {_shape(x)}")
        check_finite(x, "x")
        if h0 is None:
            return x.new_zeros(x.shape[0], self.d_hidden)  # (B, H)
        check_tensor(h0, "h0")
        if tuple(h0.shape) != (x.shape[0], self.d_hidden):
            raise ValueError(f"h0 must be (B, H) = {(x.shape[0], self.d_hidden)}: got h0 {_shape(h0)}")
        return h0

    def step(self, x_t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """x_t (B, d_in), h (B, H) -> new h (B, H)."""
        raise NotImplementedError

    def forward(self, x: torch.Tensor, h0: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, n, d_in) -> (all hidden states (B, n, H), last hidden state (B, H)); a Python loop over n."""
        h = self._check(x, h0)  # (B, H)
        states = []
        for t in range(x.shape[1]):  # strictly sequential: step t needs h from step t-1
            h = self.step(x[:, t, :], h)  # (B, H)
            states.append(h)
        return torch.stack(states, dim=1), h  # (B, n, H), (B, H)

    @classmethod
    def from_torch(cls, rnn: nn.RNNBase) -> _StepRNN:
        """Copy the layer-0 weights of a single-layer, unidirectional ``torch.nn.RNN`` / ``torch.nn.GRU``."""
        want = nn.GRU if cls.gates == 3 else nn.RNN
        if not isinstance(rnn, want):
            raise ValueError(f"rnn must be a torch.nn.{want.__name__}: got {type(rnn).__name__}")
        if rnn.num_layers != 1 or rnn.bidirectional or getattr(rnn, "proj_size", 0):
            raise ValueError(
                f"rnn must be single-layer and unidirectional: got num_layers={rnn.num_layers}, "
                f"bidirectional={rnn.bidirectional}"
            )
        if isinstance(rnn, nn.RNN) and rnn.nonlinearity != "tanh":
            raise ValueError(f"rnn must use tanh: got nonlinearity={rnn.nonlinearity!r}")
        ref = rnn.weight_ih_l0
        m = cls(rnn.input_size, rnn.hidden_size).to(device=ref.device, dtype=ref.dtype)
        with torch.no_grad():
            m.weight_ih.copy_(rnn.weight_ih_l0)
            m.weight_hh.copy_(rnn.weight_hh_l0)
            if rnn.bias:
                m.bias_ih.copy_(rnn.bias_ih_l0)
                m.bias_hh.copy_(rnn.bias_hh_l0)
            else:
                m.bias_ih.zero_()
                m.bias_hh.zero_()
        return m


class VanillaRNN(_StepRNN):
    """h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh); x (B, n, d_in) -> ((B, n, H), (B, H))."""

    gates = 1

    def step(self, x_t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """x_t (B, d_in), h (B, H) -> (B, H)."""
        return torch.tanh(x_t @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)


class GRUBaseline(_StepRNN):
    """GRU with torch's gate order (r, z, n); x (B, n, d_in) -> ((B, n, H), (B, H))."""

    gates = 3

    def step(self, x_t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """x_t (B, d_in), h (B, H) -> (B, H)."""
        gi = x_t @ self.weight_ih.T + self.bias_ih  # (B, 3H)
        gh = h @ self.weight_hh.T + self.bias_hh  # (B, 3H)
        i_r, i_z, i_n = gi.chunk(3, dim=-1)  # each (B, H)
        h_r, h_z, h_n = gh.chunk(3, dim=-1)  # each (B, H)
        r = torch.sigmoid(i_r + h_r)  # reset gate
        z = torch.sigmoid(i_z + h_z)  # update gate
        n = torch.tanh(i_n + r * h_n)  # candidate state
        return (1 - z) * n + z * h
