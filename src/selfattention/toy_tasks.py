"""Toy look-up tasks and tiny trainable attention models for chapters 2-4 (deterministic given a seed).

The *partner look-up*: a sequence of ``n = 2 * pairs_per_seq`` tokens holds both members of a few random
pairs (tokens ``2p`` and ``2p + 1`` are partners), each position also carries a random *payload*; the target
at each position is the payload at its partner's position (and, for chapter 4, also the payload at the
previous position, cyclically). One attention layer solves it when queries and keys are separate; with one
shared matrix (Q = K) Cauchy-Schwarz stops it (chapter 2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from ._checks import check_positive_int
from .utils import one_cpu_thread

__all__ = [
    "PartnerData",
    "make_partner_data",
    "ToyAttentionModel",
    "TrainResult",
    "train_toy_model",
    "toy_accuracy",
    "TARGETS",
    "toy_loss",
]

TARGETS = ("partner", "prev")
SCALES = ("sqrt_dk", "none", "learned")


@dataclass(frozen=True)
class PartnerData:
    """A batch of the partner look-up task; every tensor is ``(batch, n)`` of dtype long."""

    tokens: torch.Tensor
    payloads: torch.Tensor
    partner: torch.Tensor  # position of each token's partner
    num_tokens: int
    num_payloads: int

    @property
    def target_partner(self) -> torch.Tensor:
        """(batch, n): the payload at the partner's position."""
        return self.payloads.gather(1, self.partner)

    @property
    def target_prev(self) -> torch.Tensor:
        """(batch, n): the payload at the previous position (position 0 reads the last one)."""
        return self.payloads.roll(1, dims=1)

    def target(self, name: str) -> torch.Tensor:
        """(batch, n): the target named ``name`` (one of ``TARGETS``)."""
        if name not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}: got {name!r}")
        return self.target_partner if name == "partner" else self.target_prev

    @property
    def seq_len(self) -> int:
        return int(self.tokens.shape[1])


def make_partner_data(
    num_sequences: int,
    num_pairs: int = 16,
    pairs_per_seq: int = 4,
    num_payloads: int = 16,
    seed: int = 0,
) -> PartnerData:
    """Sample ``num_sequences`` partner look-up sequences of length ``2 * pairs_per_seq`` from ``seed``."""
    for name, value in (("num_sequences", num_sequences), ("num_pairs", num_pairs),
                        ("pairs_per_seq", pairs_per_seq), ("num_payloads", num_payloads)):
        check_positive_int(value, name)
    if pairs_per_seq > num_pairs:
        raise ValueError(f"pairs_per_seq must be <= num_pairs: got pairs_per_seq={pairs_per_seq}, "
                         f"num_pairs={num_pairs}")
    g = torch.Generator().manual_seed(seed)
    b, n = num_sequences, 2 * pairs_per_seq
    pairs = torch.rand(b, num_pairs, generator=g).argsort(dim=1)[:, :pairs_per_seq]  # (b, pairs_per_seq)
    slots = torch.stack([2 * pairs, 2 * pairs + 1], dim=-1).reshape(b, n)  # (b, n): partners side by side
    perm = torch.rand(b, n, generator=g).argsort(dim=1)  # position i holds slot perm[i]
    tokens = slots.gather(1, perm)  # (b, n)
    inv = perm.argsort(dim=1)  # slot s sits at position inv[s]
    partner = inv.gather(1, perm ^ 1)  # (b, n): the partner of slot s is slot s ^ 1
    payloads = torch.randint(num_payloads, (b, n), generator=g)
    return PartnerData(tokens, payloads, partner, 2 * num_pairs, num_payloads)


class ToyAttentionModel(nn.Module):
    """One attention layer on token + payload (+ position) embeddings, read out by a linear layer per target.

    ``shared_qk=True`` uses one matrix for queries and keys (Q = K = XW); ``scale`` is ``"sqrt_dk"``
    (divide by sqrt(d_k)), ``"none"`` or ``"learned"`` (a learned inverse temperature per layer, initialised
    at 1/sqrt(d_k)). ``forward`` returns logits ``(batch, num_targets, n, num_payloads)`` and weights
    ``(batch, heads, n, n)``. Each head has ``head_dim`` dims (default ``d_model // num_heads``).
    Parameters are initialised from ``seed`` (in float32, as PyTorch draws them) and then held in ``dtype``.
    """

    def __init__(
        self,
        num_tokens: int,
        num_payloads: int,
        seq_len: int,
        d_model: int = 32,
        num_heads: int = 1,
        shared_qk: bool = False,
        positions: bool = False,
        residual: bool = False,
        num_targets: int = 1,
        scale: str = "sqrt_dk",
        head_dim: int | None = None,
        seed: int = 0,
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        for name, value in (("num_tokens", num_tokens), ("num_payloads", num_payloads), ("seq_len", seq_len),
                            ("d_model", d_model), ("num_heads", num_heads), ("num_targets", num_targets)):
            check_positive_int(value, name)
        if head_dim is None and d_model % num_heads:
            raise ValueError(f"d_model must be divisible by num_heads: got d_model={d_model}, "
                             f"num_heads={num_heads}")
        if scale not in SCALES:
            raise ValueError(f"scale must be one of {SCALES}: got {scale!r}")
        self.d_model, self.num_heads = d_model, num_heads
        self.d_k = d_model // num_heads if head_dim is None else check_positive_int(head_dim, "head_dim")
        d_inner = num_heads * self.d_k
        self.shared_qk, self.residual, self.scale_mode = shared_qk, residual, scale
        self.num_targets, self.num_payloads = num_targets, num_payloads
        with torch.random.fork_rng(devices=[]):  # seed the layers without touching the global RNG
            torch.manual_seed(seed)
            self.tok_emb = nn.Embedding(num_tokens, d_model)
            self.pay_emb = nn.Embedding(num_payloads, d_model)
            self.pos_emb = nn.Embedding(seq_len, d_model) if positions else None
            self.norm = nn.LayerNorm(d_model)
            self.q_proj = nn.Linear(d_model, d_inner, bias=False)
            self.k_proj = self.q_proj if shared_qk else nn.Linear(d_model, d_inner, bias=False)
            self.v_proj = nn.Linear(d_model, d_inner, bias=False)
            self.out_proj = nn.Linear(d_inner, d_model)
            self.readout = nn.Linear(d_model, num_targets * num_payloads)
        init = math.log(1 / math.sqrt(self.d_k))
        self.log_inv_temp = nn.Parameter(torch.tensor(init)) if scale == "learned" else None
        # float64 by default: training a toy model in float32 amplifies the last-bit differences between
        # CPU kernels (AVX2 vs AVX-512 vs SSE) into different accuracies; in float64 they stay far below
        # the precision any result is quoted at, so stored outputs match on every machine.
        self.to(dtype)

    def score_scale(self) -> torch.Tensor:
        """The factor the scores are multiplied by (1/sqrt(d_k), 1, or the learned value)."""
        if self.log_inv_temp is not None:
            return self.log_inv_temp.exp()
        return torch.tensor(1 / math.sqrt(self.d_k) if self.scale_mode == "sqrt_dk" else 1.0)

    def forward(self, tokens: torch.Tensor, payloads: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens, payloads (B, n) -> logits (B, num_targets, n, num_payloads), weights (B, h, n, n)."""
        if tokens.shape != payloads.shape or tokens.ndim != 2:
            raise ValueError(f"tokens and payloads must both be (batch, n): got tokens {tuple(tokens.shape)} "
                             f"and payloads {tuple(payloads.shape)}")
        B, n = tokens.shape
        h, d_k = self.num_heads, self.d_k
        x = self.tok_emb(tokens) + self.pay_emb(payloads)  # (B, n, d_model)
        if self.pos_emb is not None:
            x = x + self.pos_emb(torch.arange(n))
        z = self.norm(x)
        q = self.q_proj(z).view(B, n, h, d_k).transpose(1, 2)  # (B, h, n, d_k)
        k = self.k_proj(z).view(B, n, h, d_k).transpose(1, 2)  # (B, h, n, d_k)
        v = self.v_proj(z).view(B, n, h, d_k).transpose(1, 2)  # (B, h, n, d_k)
        weights = torch.softmax(q @ k.transpose(-2, -1) * self.score_scale(), dim=-1)  # (B, h, n, n)
        o = (weights @ v).transpose(1, 2).reshape(B, n, h * d_k)  # (B, n, h * d_k)
        y = self.out_proj(o)
        if self.residual:
            y = y + x
        logits = self.readout(y).view(B, n, self.num_targets, self.num_payloads).transpose(1, 2)
        return logits, weights


@dataclass
class TrainResult:
    """Loss after every step and the final accuracy per target on held-out data."""

    losses: list[float] = field(default_factory=list)
    accuracy: dict[str, float] = field(default_factory=dict)


def toy_loss(
    model: ToyAttentionModel, data: PartnerData, targets: Sequence[str] = ("partner",)
) -> torch.Tensor:
    """Mean cross-entropy over positions and targets of ``model`` on ``data``."""
    logits, _ = model(data.tokens, data.payloads)  # (B, T, n, P)
    loss = torch.zeros(())
    for t, name in enumerate(targets):
        loss = loss + nn.functional.cross_entropy(logits[:, t].reshape(-1, model.num_payloads),
                                                  data.target(name).reshape(-1))
    return loss / len(targets)


@torch.no_grad()
def toy_accuracy(
    model: ToyAttentionModel, data: PartnerData, targets: Sequence[str] = ("partner",)
) -> dict[str, float]:
    """Fraction of positions whose arg-max prediction equals each target, on ``data``."""
    logits, _ = model(data.tokens, data.payloads)
    return {name: (logits[:, t].argmax(-1) == data.target(name)).float().mean().item()
            for t, name in enumerate(targets)}


def train_toy_model(
    model: ToyAttentionModel,
    train: PartnerData,
    test: PartnerData,
    targets: Sequence[str] = ("partner",),
    steps: int = 400,
    lr: float = 1e-2,
    optimizer: str = "adam",
) -> TrainResult:
    """Full-batch training on ``train`` (Adam or plain SGD); return the loss curve and ``test`` accuracy."""
    check_positive_int(steps, "steps")
    if len(targets) != model.num_targets:
        raise ValueError(f"targets must name one target per model output: got {len(targets)} targets "
                         f"for num_targets={model.num_targets}")
    if optimizer not in ("adam", "sgd"):
        raise ValueError(f"optimizer must be 'adam' or 'sgd': got {optimizer!r}")
    opt_cls = torch.optim.Adam if optimizer == "adam" else torch.optim.SGD
    opt = opt_cls(model.parameters(), lr=lr)
    result = TrainResult()
    with one_cpu_thread():  # bit-identical results run to run
        for _ in range(steps):
            opt.zero_grad()
            loss = toy_loss(model, train, targets)
            loss.backward()
            opt.step()
            result.losses.append(loss.item())
        result.accuracy = toy_accuracy(model, test, targets)
    return result
