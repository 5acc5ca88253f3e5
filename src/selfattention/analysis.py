"""Measurements behind chapters 2-4: score variance, softmax entropy and Jacobian, diagonal dominance and
parameter counts (FLOP and KV-cache formulas live in ``complexity``). Everything random is drawn from a
``torch.Generator`` seeded by the caller."""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import check_positive_int, check_rank, check_tensor

__all__ = [
    "random_scores",
    "row_entropy",
    "softmax_jacobian",
    "diagonal_argmax_rate",
    "self_scores",
    "init_score_stats",
    "mha_param_count",
    "logit_step_change",
]


def random_scores(
    num_rows: int,
    num_keys: int,
    d_k: int,
    scale: float = 1.0,
    seed: int = 0,
    correlation: float = 0.0,
) -> torch.Tensor:
    """Scores ``scale * q . k`` (num_rows, num_keys) for q, k with N(0, 1) components.

    With ``correlation=0`` every key is independent of the query. Otherwise each component of the row's
    first key has that correlation with the same component of the query (a trained query aligned with the
    key it looks for); the other keys stay independent.
    """
    for name, value in (("num_rows", num_rows), ("num_keys", num_keys), ("d_k", d_k)):
        check_positive_int(value, name)
    if not scale > 0:
        raise ValueError(f"scale must be > 0: got {scale!r}")
    if not -1.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be in [-1, 1]: got {correlation!r}")
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(num_rows, 1, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(num_rows, num_keys, d_k, generator=g, dtype=torch.float64)
    if correlation:  # first key: rho q + sqrt(1 - rho^2) z keeps unit variance, corr(q_t, k_t) = rho
        k[:, 0] = correlation * q[:, 0] + math.sqrt(1 - correlation**2) * k[:, 0]
    return (q * k).sum(-1) * scale  # (num_rows, num_keys): every row has its own query and keys


def row_entropy(p: torch.Tensor) -> torch.Tensor:
    """Entropy in nats of each row of probabilities p (..., n) -> (...), with 0 log 0 = 0."""
    check_tensor(p, "p")
    check_rank(p, "p", min_rank=1)
    return -(p * torch.log(p.clamp_min(torch.finfo(p.dtype).tiny))).sum(-1)


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """Jacobian d softmax(s) / d s = diag(p) - p p^T for probability rows p (..., n) -> (..., n, n)."""
    check_tensor(p, "p")
    check_rank(p, "p", min_rank=1)
    return torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)


def diagonal_argmax_rate(scores: torch.Tensor) -> float:
    """Fraction of rows of square score matrices (..., n, n) whose largest entry is on the diagonal."""
    check_tensor(scores, "scores")
    check_rank(scores, "scores", min_rank=2)
    if scores.shape[-1] != scores.shape[-2]:
        raise ValueError(f"scores must be square in the last two dims (..., n, n): got {tuple(scores.shape)}")
    n = scores.shape[-1]
    return (scores.argmax(-1) == torch.arange(n)).double().mean().item()


def self_scores(
    num_matrices: int, n: int, d_model: int, d_k: int, shared: bool, seed: int = 0
) -> torch.Tensor:
    """Self-attention scores X W_Q (X W_K)^T (num_matrices, n, n), random X (n, d_model), W (d_model, d_k).

    Entries of X are N(0, 1), of W are N(0, 1/d_model); ``shared=True`` uses W_K = W_Q (one matrix).
    """
    for name, value in (("num_matrices", num_matrices), ("n", n), ("d_model", d_model), ("d_k", d_k)):
        check_positive_int(value, name)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(num_matrices, n, d_model, generator=g, dtype=torch.float64)
    w_q = torch.randn(num_matrices, d_model, d_k, generator=g, dtype=torch.float64) / math.sqrt(d_model)
    w_k = w_q if shared else torch.randn_like(w_q).normal_(generator=g) / math.sqrt(d_model)
    return (x @ w_q) @ (x @ w_k).transpose(-2, -1)


@torch.no_grad()
def init_score_stats(
    d_model: int, d_k: int, n: int = 64, num_layers: int = 32, seed: int = 0
) -> dict[str, float]:
    """Scores q . k at initialisation: LayerNorm-ed random inputs through fresh ``nn.Linear(d_model, d_k)``.

    Returns the variance of the off-diagonal scores (different tokens, pooled over ``num_layers`` fresh
    layers) and the mean of the diagonal ones (a token with itself) for separate and for shared W_Q = W_K.
    """
    for name, value in (("d_model", d_model), ("d_k", d_k), ("n", n), ("num_layers", num_layers)):
        check_positive_int(value, name)
    norm = nn.LayerNorm(d_model)
    off, diag_sep, diag_shared = [], [], []
    eye = torch.eye(n, dtype=torch.bool)
    with torch.random.fork_rng(devices=[]):  # nn.Linear draws from the global RNG: seed it, then restore it
        torch.manual_seed(seed)
        for _ in range(num_layers):
            x = norm(torch.randn(n, d_model))  # (n, d_model): each row mean 0, variance 1
            q_proj, k_proj = nn.Linear(d_model, d_k), nn.Linear(d_model, d_k)
            s = q_proj(x) @ k_proj(x).T  # (n, n)
            off.append(s[~eye])
            diag_sep.append(s[eye])
            diag_shared.append((q_proj(x) ** 2).sum(-1))
    return {
        "var_offdiag": torch.cat(off).var().item(),
        "mean_diag_separate": torch.cat(diag_sep).mean().item(),
        "mean_diag_shared": torch.cat(diag_shared).mean().item(),
    }


def mha_param_count(d_model: int, num_heads: int, num_kv_heads: int | None = None, bias: bool = True) -> int:
    """Parameters of W_Q, W_K, W_V, W_O (and their biases) in a multi-head (or GQA/MQA) attention layer."""
    check_positive_int(d_model, "d_model")
    check_positive_int(num_heads, "num_heads")
    g = num_heads if num_kv_heads is None else check_positive_int(num_kv_heads, "num_kv_heads")
    if d_model % num_heads or num_heads % g:
        raise ValueError(f"need d_model % num_heads == 0 and num_heads % num_kv_heads == 0: got "
                         f"d_model={d_model}, num_heads={num_heads}, num_kv_heads={g}")
    d_kv = g * (d_model // num_heads)
    weights = 2 * d_model * d_model + 2 * d_model * d_kv
    biases = 2 * d_model + 2 * d_kv if bias else 0
    return weights + biases


def logit_step_change(
    d_k: int, optimizer: str = "adam", scale: str = "sqrt_dk", d_model: int = 32, n: int = 16,
    lr: float = 1e-3, seed: int = 0,
) -> float:
    """Mean |change| of the logits after ONE optimiser step on W_Q, at initialisation (float64).

    Logits ``s = (X W_Q)(X W_K)^T · c`` with ``c = 1/sqrt(d_k)`` (``scale="sqrt_dk"``) or ``1/d_k``
    (``scale="dk"``); X (n, d_model) has N(0, 1) entries and W_Q, W_K (d_model, d_k) N(0, 1/d_model), so q
    and k have unit-variance components. The loss is a cross-entropy pointing each query at a random key;
    only W_Q moves, by one ``torch.optim.Adam`` or ``torch.optim.SGD`` step of size ``lr``. A gradient step on
    W_Q is aligned with the keys, so the change is not that of a random step. How the change scales with d_k
    depends on what else is held fixed: with d_model and lr fixed, an SGD step leaves the 1/sqrt(d_k) change
    flat; with d_model growing along with d_k, it grows too.
    """
    for name, value in (("d_k", d_k), ("d_model", d_model), ("n", n)):
        check_positive_int(value, name)
    if optimizer not in ("adam", "sgd"):
        raise ValueError(f"optimizer must be 'adam' or 'sgd': got {optimizer!r}")
    if scale not in ("sqrt_dk", "dk"):
        raise ValueError(f"scale must be 'sqrt_dk' or 'dk': got {scale!r}")
    if not lr > 0:
        raise ValueError(f"lr must be > 0: got {lr!r}")
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_model, generator=g, dtype=torch.float64)  # (n, d_model)
    w_q = torch.randn(d_model, d_k, generator=g, dtype=torch.float64) / math.sqrt(d_model)
    k = x @ (torch.randn(d_model, d_k, generator=g, dtype=torch.float64) / math.sqrt(d_model))  # (n, d_k)
    target = torch.randint(n, (n,), generator=g)  # the key each query should point at
    c = d_k**-0.5 if scale == "sqrt_dk" else 1.0 / d_k
    w_q.requires_grad_(True)
    opt = torch.optim.Adam([w_q], lr=lr) if optimizer == "adam" else torch.optim.SGD([w_q], lr=lr)
    before = (x @ w_q) @ k.T * c  # (n, n) logits
    nn.functional.cross_entropy(before, target).backward()
    opt.step()
    with torch.no_grad():
        after = (x @ w_q) @ k.T * c
    return (after - before.detach()).abs().mean().item()
