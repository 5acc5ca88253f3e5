"""Length extrapolation on a toy: train one attention layer at length L, test it at 2L and 4L.

The task (key recall): a sequence of ``n`` tokens, ``n - 2`` fillers from ``V..2V-1``, one key from
``0..V-1`` at a uniform position ``0..n-2``, and a query token ``2V`` last; the model must output the key.
It is a pure content lookup: position is not needed to solve it, so what a position encoding does at an
unseen length shows up as damage (or none). The key's distance from the query tells whether the model
still *uses* a token farther back than anything it saw in training.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from selfattention._checks import check_positive_int
from selfattention.bias import alibi_slopes
from selfattention.long_range import Adam
from selfattention.positional import (
    LearnedPositionalEmbedding,
    RopeScaling,
    rope_rotate,
    sinusoidal_positions,
)
from selfattention.utils import one_cpu_thread

__all__ = [
    "PositionKind",
    "make_key_recall_data",
    "KeyRecallModel",
    "train_key_recall",
    "key_recall_accuracy",
]

PositionKind = Literal["none", "sinusoidal", "learned", "rope", "alibi"]
_KINDS = ("none", "sinusoidal", "learned", "rope", "alibi")


def make_key_recall_data(
    num_samples: int, n: int, vocab_size: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Key recall: tokens (N, n), labels (N,) in 0..V-1, key positions (N,) in 0..n-2; N = num_samples."""
    num_samples = check_positive_int(num_samples, "num_samples")
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    n = check_positive_int(n, "n")
    if n < 3:
        raise ValueError(f"n must be >= 3 (a key, a filler and the query): got n={n}")
    tokens = torch.randint(vocab_size, 2 * vocab_size, (num_samples, n), generator=generator)  # fillers
    labels = torch.randint(0, vocab_size, (num_samples,), generator=generator)
    key_pos = torch.randint(0, n - 1, (num_samples,), generator=generator)
    tokens[torch.arange(num_samples), key_pos] = labels
    tokens[:, -1] = 2 * vocab_size  # the query token
    return tokens, labels, key_pos


class KeyRecallModel(nn.Module):
    """Embeddings, one multi-head attention read at the last position, a linear head: (B, n) -> (B, V).

    ``positions``: ``"none"`` (NoPE), ``"sinusoidal"`` or ``"learned"`` (added to the embeddings, tables of
    ``max_len`` rows), ``"rope"`` (q and k rotated, frequencies ``rope_base^(-2i/d_head)``) or ``"alibi"``
    (bias -m_h * distance on the scores).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_heads: int,
        max_len: int,
        positions: PositionKind,
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        self.num_heads = check_positive_int(num_heads, "num_heads")
        self.max_len = check_positive_int(max_len, "max_len")
        if d_model % num_heads or (d_model // num_heads) % 2:
            raise ValueError(
                f"d_model / num_heads must be an even integer: got d_model={d_model}, num_heads={num_heads}"
            )
        if positions not in _KINDS:
            raise ValueError(f"positions must be one of {', '.join(_KINDS)}: got {positions!r}")
        self.positions, self.rope_base = positions, float(rope_base)
        self.d_head = d_model // num_heads
        self.embed = nn.Embedding(2 * vocab_size + 1, d_model)  # key tokens, fillers, the query token
        if positions == "learned":
            self.pos_table = LearnedPositionalEmbedding(max_len, d_model)
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(d_model, d_model) for _ in range(3))
        self.head = nn.Linear(d_model, vocab_size)

    def forward(
        self,
        tokens: torch.Tensor,
        scaling: RopeScaling | None = None,
        factor: float = 1.0,
        frequencies: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, V) read at the last position; ``scaling``/``factor`` stretch RoPE (L = max_len).

        ``frequencies`` (d_head/2,) replaces RoPE's theta_i (for instance to rescale one pair only).
        """
        if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.long or tokens.ndim != 2:
            raise ValueError(
                f"tokens must be a long tensor (batch, n): got {tuple(getattr(tokens, 'shape', ()))}"
            )
        if (scaling is not None or frequencies is not None) and self.positions != "rope":
            raise ValueError(
                f"scaling and frequencies apply to positions='rope' only: got positions={self.positions!r}"
            )
        B, n = tokens.shape
        x = self.embed(tokens)  # (B, n, d_model)
        if self.positions == "sinusoidal":
            x = x + sinusoidal_positions(n, self.d_model).to(x.dtype)  # defined at any n
        elif self.positions == "learned":
            x = x + self.pos_table(n)  # raises beyond max_len
        h, dh = self.num_heads, self.d_head
        q = self.q_proj(x[:, -1:]).view(B, 1, h, dh).transpose(1, 2)  # (B, h, 1, dh): only the last asks
        k = self.k_proj(x).view(B, n, h, dh).transpose(1, 2)  # (B, h, n, dh)
        v = self.v_proj(x).view(B, n, h, dh).transpose(1, 2)  # (B, h, n, dh)
        if self.positions == "rope":
            kw = dict(base=self.rope_base, scaling=scaling, factor=factor, frequencies=frequencies)
            if scaling == "yarn":
                kw["original_max_position"] = self.max_len
            q = rope_rotate(q, torch.tensor([n - 1]), **kw)
            k = rope_rotate(k, torch.arange(n), **kw)
        scores = q @ k.transpose(-2, -1) / dh**0.5  # (B, h, 1, n)
        if self.positions == "alibi":
            distance = (n - 1 - torch.arange(n)).to(scores.dtype)  # (n,): how far back each key is
            scores = scores - alibi_slopes(h).to(scores.dtype)[:, None, None] * distance
        out = torch.softmax(scores, dim=-1) @ v  # (B, h, 1, dh)
        return self.head(out.transpose(1, 2).reshape(B, self.d_model))  # (B, V)


def train_key_recall(
    model: KeyRecallModel, n: int, steps: int = 300, batch_size: int = 64, lr: float = 1e-2, seed: int = 0
) -> list[float]:
    """Train with Adam on fresh batches of length ``n`` (one thread, seeded data); return the losses."""
    steps = check_positive_int(steps, "steps")
    gen = torch.Generator().manual_seed(seed)
    with one_cpu_thread():
        opt = Adam(list(model.parameters()), lr=lr)
        losses = []
        model.train()
        dtype = next(model.parameters()).dtype
        for _ in range(steps):
            tokens, labels, _ = make_key_recall_data(batch_size, n, model.vocab_size, generator=gen)
            loss = nn.functional.cross_entropy(model(tokens).to(dtype), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def key_recall_accuracy(
    model: KeyRecallModel,
    tokens: torch.Tensor,
    labels: torch.Tensor,
    key_pos: torch.Tensor,
    scaling: RopeScaling | None = None,
    factor: float = 1.0,
    frequencies: torch.Tensor | None = None,
) -> dict[str, float]:
    """Accuracy: ``all``, keys within the training distance (``near``), beyond it (``far``; NaN if none)."""
    model.eval()
    with one_cpu_thread():  # tiny tensors: one thread is faster, and the same on every machine
        logits = model(tokens, scaling=scaling, factor=factor, frequencies=frequencies)
    correct = (logits.argmax(-1) == labels).double()
    distance = tokens.shape[1] - 1 - key_pos  # (N,)
    far = distance > model.max_len - 1  # training at n = max_len puts keys 1..max_len-1 back
    return {
        "all": correct.mean().item(),
        "near": correct[~far].mean().item() if (~far).any() else float("nan"),
        "far": correct[far].mean().item() if far.any() else float("nan"),
    }
