"""The rest of the Transformer block: normalisation statistics, residual gradient paths, mixture of experts.

- :func:`normalise_tokens` normalises a (B, n, d) batch the way BatchNorm, LayerNorm or RMSNorm would (no
  affine parameters), so the axes each one averages over can be compared on the same tensor.
- :func:`residual_gradient_norms` measures the gradient reaching every depth of an MLP stack with and without
  residual connections, at initialisation.
- :class:`MoE` is a top-k routed mixture of SwiGLU experts with an expert capacity (tokens over it are dropped
  and counted), optional shared experts, Switch's load-balancing loss and a selection-only bias for
  auxiliary-loss-free balancing; :meth:`MoE.dense_forward` is the readable path (every expert, every token).
- :func:`training_bytes` counts what a training step keeps per parameter: weights, gradients, master copies
  and optimizer state.

The FFN itself (ReLU, GELU, SiLU) and SwiGLU live in :mod:`selfattention.transformer`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import _shape, check_positive_int, check_rank, check_tensor
from .transformer import SwiGLU

__all__ = [
    "normalise_tokens",
    "residual_gradient_norms",
    "load_balancing_loss",
    "MoE",
    "MoEStats",
    "training_bytes",
]

_KINDS = ("batchnorm", "layernorm", "rmsnorm")


def normalise_tokens(
    x: torch.Tensor, kind: str, mask: torch.Tensor | None = None, eps: float = 1e-5
) -> torch.Tensor:
    """x (B, n, d) -> (B, n, d) normalised as ``kind`` does it in training, without weight or bias.

    "batchnorm": per feature, mean and (biased) variance over every token of the batch, B·n of them, or over
    the tokens where ``mask`` (B, n, True = real token) is True; padded positions are returned as 0. That is
    what ``nn.BatchNorm1d`` computes in training mode on (B, d, n), the statistics in float32 for 16-bit
    inputs, as PyTorch accumulates them, and the result cast back. "layernorm": per token, over its d
    features (``F.layer_norm``). "rmsnorm": per token, x / sqrt(mean(x²) + eps) (``F.rms_norm``): no mean
    subtracted, the statistic computed in float32 for 16-bit inputs as ``F.rms_norm`` does (x² overflows
    fp16 once |x| >= 256) and the result cast back.
    """
    check_tensor(x, "x")
    check_rank(x, "x", 3, 3)
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}: got {kind!r}")
    if mask is not None:
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.shape != x.shape[:2]:
            raise ValueError(f"mask must be a bool tensor of shape (B, n) = {tuple(x.shape[:2])}: got "
                             f"{getattr(mask, 'dtype', type(mask).__name__)} {_shape(mask)}")
        if not bool(mask.any()):
            raise ValueError("mask must keep at least one token")
    if kind == "layernorm":
        out = F.layer_norm(x, x.shape[-1:], eps=eps)
    elif kind == "rmsnorm":
        xf = x.to(torch.promote_types(x.dtype, torch.float32))  # fp16/bf16 -> fp32, as F.rms_norm
        out = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    else:
        # fp16/bf16 -> fp32, as F.batch_norm accumulates: in fp16 the sum over B·n tokens overflows once
        # B·n·mean(x) > 65504, and (x - mean)² once |x - mean| >= 256
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        w = torch.ones(x.shape[:2], dtype=xf.dtype, device=x.device) if mask is None else mask.to(xf.dtype)
        # w: (B, n)
        count = w.sum()
        mean = (w[..., None] * xf).sum((0, 1)) / count  # (d,): one mean per feature, over the batch
        var = (w[..., None] * (xf - mean).pow(2)).sum((0, 1)) / count  # (d,), biased as BatchNorm's
        out = ((xf - mean) * torch.rsqrt(var + eps)).to(x.dtype)
    if mask is not None:
        out = out * mask[..., None].to(x.dtype)  # padded positions: 0
    return out


def residual_gradient_norms(
    depth: int,
    residual: bool,
    gain: float = 1.0,
    branch_scale: float = 1.0,
    d: int = 64,
    batch: int = 32,
    seed: int = 0,
) -> torch.Tensor:
    """‖∂L/∂x_l‖ at the input x_l of every block, l = 0..depth: (depth + 1,) float64, at initialisation.

    Block l is F_l(x) = W2 relu(W1 x), W1 (4d, d) ~ N(0, gain²·2/d) (He), W2 (d, 4d) ~ N(0, gain²/(4d)), no
    norms, no biases. ``residual=True``: x_{l+1} = x_l + branch_scale·F_l(x_l); else x_{l+1} = F_l(x_l). The
    loss is a fixed random projection of x_depth, so the last entry is the gradient at the output. float64 and
    a seeded generator: the same numbers on every machine.
    """
    depth = check_positive_int(depth, "depth")
    d = check_positive_int(d, "d")
    batch = check_positive_int(batch, "batch")
    if not isinstance(residual, bool):
        raise ValueError(f"residual must be a bool: got {type(residual).__name__}")
    gen = torch.Generator().manual_seed(int(seed))
    f64 = torch.float64
    w1 = [torch.randn(4 * d, d, dtype=f64, generator=gen) * gain * math.sqrt(2 / d) for _ in range(depth)]
    w2 = [torch.randn(d, 4 * d, dtype=f64, generator=gen) * gain * math.sqrt(1 / (4 * d))
          for _ in range(depth)]
    x = torch.randn(batch, d, dtype=f64, generator=gen).requires_grad_(True)  # (batch, d)
    probe = torch.randn(batch, d, dtype=f64, generator=gen)
    inputs = [x]
    h = x
    for a, b in zip(w1, w2, strict=True):
        branch = F.relu(h @ a.T) @ b.T  # (batch, d)
        h = h + branch_scale * branch if residual else branch
        inputs.append(h)
    for t in inputs[1:]:
        t.retain_grad()
    (h * probe).sum().backward()
    return torch.stack([t.grad.norm() for t in inputs])  # (depth + 1,)


def load_balancing_loss(probs: torch.Tensor, expert_index: torch.Tensor) -> torch.Tensor:
    """Switch Transformer's auxiliary loss E · Σ_i f_i · P_i (without its coefficient α): a scalar.

    probs (T, E): the router's softmax per token; expert_index (T, k): the experts each token was sent to. f_i
    is the fraction of the T·k assignments that go to expert i (for k = 1, the fraction of tokens, as in Fedus
    et al.), P_i the mean router probability of expert i. Only P carries a gradient.
    """
    check_tensor(probs, "probs")
    check_rank(probs, "probs", 2, 2)
    if (
        not isinstance(expert_index, torch.Tensor)
        or expert_index.ndim != 2
        or expert_index.shape[0] != probs.shape[0]
        or expert_index.dtype not in (torch.int32, torch.int64)
    ):
        got = f"{getattr(expert_index, 'dtype', type(expert_index).__name__)} {_shape(expert_index)}"
        raise ValueError(f"expert_index must be an integer (T, k) tensor, T = {probs.shape[0]}: got {got}")
    num_experts = probs.shape[1]
    counts = torch.bincount(expert_index.reshape(-1), minlength=num_experts)  # (E,)
    f = counts.to(probs.dtype) / expert_index.numel()  # (E,)
    p = probs.mean(0)  # (E,)
    return num_experts * (f * p).sum()


@dataclass
class MoEStats:
    """What the last :meth:`MoE.forward` routed: loads, capacity, what was dropped, the aux loss."""

    tokens: int  # T, tokens in the batch
    capacity: int | None  # slots per expert (None: unlimited)
    load: torch.Tensor  # (E,) assignments each expert was chosen for, before the capacity cut
    kept: torch.Tensor  # (E,) assignments each expert processed
    dropped_assignments: int  # (token, expert) pairs over capacity
    dropped_tokens: int  # tokens whose every assignment was dropped (they pass through the residual only)
    aux_loss: torch.Tensor  # Switch load-balancing loss E·Σ f_i P_i, a scalar with a gradient


class MoE(nn.Module):
    """Top-k mixture of SwiGLU experts: x (..., d) -> (..., d).

    The router scores s = softmax(x W_r) (E,) per token; the k experts with the largest s + ``selection_bias``
    are chosen (the bias is zero unless :meth:`balance_step` moves it: DeepSeek-V3's auxiliary-loss-free
    balancing, which steers the choice and never the gate values). Gates: the chosen s renormalised to sum to
    1 for k > 1 (Mixtral's softmax over the top-k logits), s itself for k = 1 (Switch). With
    ``capacity_factor`` c each expert takes at most ceil(c·k·T/E) assignments per batch of T tokens, first
    choices before second ones and earlier tokens first; the rest are dropped (their expert output is 0: the
    token keeps its other experts' outputs, and the residual alone carries it if all k are dropped)
    and counted
    in ``self.last``. ``selection_bias`` stays float32 (or float64) whatever the module's dtype.
    ``shared_experts`` SwiGLUs are applied to every token and added (DeepSeekMoE).
    """

    def __init__(
        self,
        d: int,
        d_ff: int,
        num_experts: int,
        top_k: int = 2,
        capacity_factor: float | None = None,
        shared_experts: int = 0,
    ) -> None:
        super().__init__()
        self.d = check_positive_int(d, "d")
        d_ff = check_positive_int(d_ff, "d_ff")
        self.num_experts = check_positive_int(num_experts, "num_experts")
        self.top_k = check_positive_int(top_k, "top_k")
        if self.top_k > self.num_experts:
            raise ValueError(f"top_k must be <= num_experts: got top_k={top_k}, num_experts={num_experts}")
        if capacity_factor is not None and not (
            isinstance(capacity_factor, (int, float)) and capacity_factor > 0
        ):
            raise ValueError(f"capacity_factor must be a number > 0 or None: got {capacity_factor!r}")
        self.capacity_factor = capacity_factor
        if not isinstance(shared_experts, int) or isinstance(shared_experts, bool) or shared_experts < 0:
            raise ValueError(f"shared_experts must be an int >= 0: got {shared_experts!r}")
        self.router = nn.Linear(self.d, self.num_experts, bias=False)
        self.experts = nn.ModuleList(SwiGLU(self.d, d_ff) for _ in range(self.num_experts))
        self.shared = nn.ModuleList(SwiGLU(self.d, d_ff) for _ in range(shared_experts))
        self.register_buffer("selection_bias", torch.zeros(self.num_experts))
        self.last: MoEStats | None = None

    def capacity(self, tokens: int) -> int | None:
        """Slots per expert for a batch of ``tokens`` tokens: ceil(capacity_factor · k · T / E), or None."""
        if self.capacity_factor is None:
            return None
        return math.ceil(self.capacity_factor * self.top_k * tokens / self.num_experts)

    def route(self, x2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """x2 (T, d) -> probs (T, E), experts (T, k), gates (T, k), keep (T, k) (False: over capacity)."""
        probs = torch.softmax(self.router(x2), dim=-1)  # (T, E)
        bias = self.selection_bias  # fp32 or fp64 (see _apply)
        score = probs.detach().to(torch.promote_types(probs.dtype, bias.dtype)) + bias  # (T, E)
        experts = torch.topk(score, self.top_k, dim=-1).indices  # (T, k): bias steers only
        chosen = probs.gather(-1, experts)  # (T, k)
        gates = chosen / chosen.sum(-1, keepdim=True) if self.top_k > 1 else chosen
        cap = self.capacity(x2.shape[0])
        if cap is None:
            keep = torch.ones_like(experts, dtype=torch.bool)
        else:
            order = experts.T.reshape(-1)  # (k·T,): all first choices (token order), then all second ...
            onehot = F.one_hot(order, self.num_experts)  # (k·T, E)
            slot = (onehot.cumsum(0) * onehot).sum(-1) - 1  # (k·T,): arrival position at its expert
            keep = (slot < cap).reshape(self.top_k, -1).T  # (T, k)
        return probs, experts, gates, keep

    def _finish(self, x2: torch.Tensor, probs, experts, keep, y: torch.Tensor) -> torch.Tensor:
        """Add the shared experts and record the routing statistics."""
        for s in self.shared:
            y = y + s(x2)
        E = self.num_experts
        self.last = MoEStats(
            tokens=x2.shape[0],
            capacity=self.capacity(x2.shape[0]),
            load=torch.bincount(experts.reshape(-1), minlength=E),
            kept=torch.bincount(experts[keep], minlength=E),
            dropped_assignments=int((~keep).sum()),
            dropped_tokens=int((~keep).all(-1).sum()),
            aux_loss=load_balancing_loss(probs, experts),
        )
        return y

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(..., d) -> (..., d): each expert runs only on the tokens routed to it (and kept)."""
        x2 = self._flat(x)  # (T, d)
        probs, experts, gates, keep = self.route(x2)
        y = torch.zeros_like(x2)
        for e, expert in enumerate(self.experts):
            tok, slot = torch.nonzero((experts == e) & keep, as_tuple=True)  # its kept assignments
            if tok.numel():
                y = y.index_add(0, tok, gates[tok, slot, None] * expert(x2[tok]))
        return self._finish(x2, probs, experts, keep, y).reshape(x.shape)

    def dense_forward(self, x: torch.Tensor) -> torch.Tensor:
        """The readable path: every expert on every token, weighted by a (T, E) combine matrix (0: unused)."""
        x2 = self._flat(x)
        probs, experts, gates, keep = self.route(x2)
        combine = torch.zeros_like(probs).scatter_add(-1, experts, gates * keep)  # (T, E)
        outs = torch.stack([expert(x2) for expert in self.experts], dim=1)  # (T, E, d)
        y = (combine[..., None] * outs).sum(1)  # (T, d)
        return self._finish(x2, probs, experts, keep, y).reshape(x.shape)

    def _apply(self, fn, recurse=True):
        """As nn.Module, but ``selection_bias`` stays at least float32 when the module goes to fp16/bf16: a
        bf16 bias of 0.5 has spacing 2**-8 = 0.0039, so a step of 1e-3 would round away (DeepSeek-V3 keeps
        such state in fp32)."""
        old = self.selection_bias
        out = super()._apply(fn, recurse)
        new = self.selection_bias
        if new.dtype in (torch.float16, torch.bfloat16):
            self.selection_bias = old.to(device=new.device, dtype=torch.float32)
        return out

    def balance_step(self, rate: float = 1e-3) -> None:
        """Auxiliary-loss-free balancing: under-loaded experts' bias += ``rate``, over-loaded ones' -= it."""
        if self.last is None:
            raise ValueError("balance_step needs a forward pass first (it reads self.last.load)")
        load = self.last.load.to(self.selection_bias.dtype)
        with torch.no_grad():
            self.selection_bias += rate * torch.sign(load.mean() - load)

    def _flat(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor(x, "x")
        if x.ndim == 0 or x.shape[-1] != self.d:
            raise ValueError(f"x must have last dim d={self.d}: got x {_shape(x)}")
        return x.reshape(-1, self.d)

    def extra_repr(self) -> str:
        """Shown by ``print(module)``."""
        return (f"num_experts={self.num_experts}, top_k={self.top_k}, "
                f"capacity_factor={self.capacity_factor}, "
                f"shared_experts={len(self.shared)}")


def training_bytes(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """Bytes of training state, read from the tensors: {"weights", "gradients", "master", "optimizer",
    "step"}.

    "weights" and "gradients": the model's parameters and their ``.grad``; "master": the optimizer's
    parameters when they are not the model's (fp32 master copies in mixed precision); "optimizer": its
    per-parameter state tensors (Adam's exp_avg and exp_avg_sq); "step": the scalar step counters (one per
    parameter tensor). Call it after one ``optimizer.step()``: Adam creates its state lazily.
    """
    if not isinstance(model, nn.Module) or not isinstance(optimizer, torch.optim.Optimizer):
        raise ValueError(f"model must be an nn.Module and optimizer a torch.optim.Optimizer: got "
                         f"{type(model).__name__}, {type(optimizer).__name__}")

    def size(t: torch.Tensor) -> int:
        return t.numel() * t.element_size()

    own = {id(p) for p in model.parameters()}
    opt_params = [p for g in optimizer.param_groups for p in g["params"]]
    out = {"weights": 0, "gradients": 0, "master": 0, "optimizer": 0, "step": 0}
    for p in model.parameters():
        out["weights"] += size(p)
        out["gradients"] += 0 if p.grad is None else size(p.grad)
    for p in opt_params:
        if id(p) not in own:
            out["master"] += size(p)
        for key, t in optimizer.state.get(p, {}).items():
            if isinstance(t, torch.Tensor):  # by key: a 0-dim parameter's moments are 0-dim too
                out["step" if key == "step" else "optimizer"] += size(t)
    return out
