"""Long-range dependencies: a recall task, tiny attention / RNN / GRU / LSTM classifiers, gradients.

The task: a sequence ``[target, d_1, ..., d_n, ?]`` of tokens from a vocabulary of ``vocab_size``
(``?`` is an extra query token); the model must output ``target`` after reading ``?``. The answer sits
n + 1 steps before the place where it is asked for: a recurrent model has to carry it through n updates
of its state, one attention layer reads it in one step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import torch
from torch import nn

from selfattention._checks import check_positive_int, check_rank, check_tensor
from selfattention.positional import LearnedPositionalEmbedding, sinusoidal_positions
from selfattention.utils import one_cpu_thread

__all__ = [
    "make_recall_data",
    "AttentionClassifier",
    "RecurrentClassifier",
    "make_classifier",
    "Adam",
    "train_recall",
    "recall_accuracy",
    "run_recall",
    "steps_to_solve",
    "gradient_norm_by_position",
    "graph_depth",
    "saved_tensor_bytes",
]

ModelKind = Literal["attention", "rnn", "gru", "lstm"]
_RNN_CELLS = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}


def make_recall_data(
    num_samples: int, n_distractors: int, vocab_size: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Recall task: tokens (N, n_distractors + 2) = [target, distractors..., ?], labels (N,); N = num_samples.

    Targets and distractors are uniform over ``0..vocab_size-1``; the query token ``?`` is ``vocab_size``.
    """
    num_samples = check_positive_int(num_samples, "num_samples")
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if isinstance(n_distractors, bool) or not isinstance(n_distractors, int) or n_distractors < 0:
        raise ValueError(f"n_distractors must be a non-negative int: got {n_distractors!r}")
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be >= 2 (one token leaves nothing to recall): got {vocab_size}")
    tokens = torch.randint(0, vocab_size, (num_samples, n_distractors + 2), generator=generator)
    tokens[:, -1] = vocab_size  # the query token "?"
    labels = tokens[:, 0].clone()
    return tokens, labels


class AttentionClassifier(nn.Module):
    """Token + position embeddings, one single-head attention read from the last position, a linear head.

    ``positions`` is ``"sinusoidal"`` (fixed table) or ``"learned"`` (one trained vector per position).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int,
        positions: Literal["sinusoidal", "learned"] = "sinusoidal",
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        self.embed = nn.Embedding(self.vocab_size + 1, self.d_model)  # +1: the query token
        if positions == "sinusoidal":
            self.register_buffer("pos_table", sinusoidal_positions(max_len, self.d_model))
            self.pos: Callable[[int], torch.Tensor] = self._sinusoidal
        elif positions == "learned":
            self.pos = LearnedPositionalEmbedding(max_len, self.d_model)
        else:
            raise ValueError(f"positions must be 'sinusoidal' or 'learned': got {positions!r}")
        self.q_proj = nn.Linear(self.d_model, self.d_model)
        self.k_proj = nn.Linear(self.d_model, self.d_model)
        self.v_proj = nn.Linear(self.d_model, self.d_model)
        self.head = nn.Linear(self.d_model, self.vocab_size)

    def _sinusoidal(self, n: int) -> torch.Tensor:
        if n > self.pos_table.shape[0]:
            max_len = self.pos_table.shape[0]
            raise ValueError(f"sequence length must be <= max_len: got n={n}, max_len={max_len}")
        return self.pos_table[:n]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, n) -> logits (B, vocab_size), read at the last position."""
        _check_tokens(tokens, self.vocab_size)
        B, n = tokens.shape
        x = self.embed(tokens) + self.pos(n)  # (B, n, d)
        q = self.q_proj(x[:, -1:])  # (B, 1, d): only the last position asks
        k, v = self.k_proj(x), self.v_proj(x)  # (B, n, d)
        scores = q @ k.transpose(-2, -1) / self.d_model**0.5  # (B, 1, n)
        out = torch.softmax(scores, dim=-1) @ v  # (B, 1, d)
        return self.head(out[:, 0])  # (B, vocab)


class RecurrentClassifier(nn.Module):
    """Token embeddings, a tanh RNN, a GRU or an LSTM (``torch.nn``), a linear head on the last state."""

    def __init__(
        self, vocab_size: int, d_model: int, cell: Literal["rnn", "gru", "lstm"] = "rnn"
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        if cell not in _RNN_CELLS:
            raise ValueError(f"cell must be 'rnn', 'gru' or 'lstm': got {cell!r}")
        self.cell = cell
        self.embed = nn.Embedding(self.vocab_size + 1, self.d_model)
        self.rnn = _RNN_CELLS[cell](self.d_model, self.d_model, batch_first=True)
        self.head = nn.Linear(self.d_model, self.vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, n) -> logits (B, vocab_size), read from the last hidden state."""
        _check_tokens(tokens, self.vocab_size)
        _, state = self.rnn(self.embed(tokens))  # h_last: (1, B, d); an LSTM also returns c_last
        h_last = state[0] if self.cell == "lstm" else state
        return self.head(h_last[0])


def _check_tokens(tokens: object, vocab_size: int) -> None:
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.long or tokens.ndim != 2:
        raise ValueError(
            f"tokens must be a long tensor of shape (batch, n): got {type(tokens).__name__} "
            f"{tuple(getattr(tokens, 'shape', ()))} {getattr(tokens, 'dtype', '')}"
        )
    if tokens.numel() and (tokens.min() < 0 or tokens.max() > vocab_size):
        raise ValueError(
            f"tokens must lie in 0..{vocab_size} (vocab_size + query token): got {tuple(tokens.shape)}"
        )


def make_classifier(kind: ModelKind, vocab_size: int, d_model: int, max_len: int) -> nn.Module:
    """Build one of the four classifiers by name: 'attention', 'rnn', 'gru' or 'lstm'."""
    if kind == "attention":
        return AttentionClassifier(vocab_size, d_model, max_len)
    if kind in _RNN_CELLS:
        return RecurrentClassifier(vocab_size, d_model, cell=kind)  # type: ignore[arg-type]
    raise ValueError(f"kind must be 'attention', 'rnn', 'gru' or 'lstm': got {kind!r}")


class Adam:
    """Plain Adam (Kingma & Ba) with bias correction: the same updates as ``torch.optim.Adam`` defaults.

    Written out because the first ``torch.optim`` optimizer imports ``torch._dynamo``, which costs
    seconds per notebook; ``tests/test_long_range.py`` checks it step for step against ``torch.optim.Adam``.
    """

    def __init__(
        self,
        params: list[nn.Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def zero_grad(self) -> None:
        """Drop the stored gradients."""
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One update: m <- b1 m + (1-b1) g, v <- b2 v + (1-b2) g^2, p -= lr m_hat / (sqrt(v_hat) + eps)."""
        self.t += 1
        b1, b2 = self.betas
        for p, m, v in zip(self.params, self.m, self.v, strict=True):
            if p.grad is None:
                continue
            m.mul_(b1).add_(p.grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
            denom = (v / (1 - b2**self.t)).sqrt_().add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / (1 - b1**self.t))


def _recall_step(
    model: nn.Module, opt: Adam, n_distractors: int, batch_size: int, vocab_size: int, gen: torch.Generator
) -> float:
    """One Adam step on a fresh recall batch drawn from ``gen`` (gradients clipped to norm 1); the loss."""
    tokens, labels = make_recall_data(batch_size, n_distractors, vocab_size, generator=gen)
    loss = nn.functional.cross_entropy(model(tokens), labels)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item()


def train_recall(
    model: nn.Module,
    n_distractors: int,
    steps: int = 300,
    batch_size: int = 64,
    lr: float = 3e-3,
    vocab_size: int = 8,
    seed: int = 0,
) -> list[float]:
    """Train ``model`` with Adam on fresh recall batches (one thread, seeded); return the losses."""
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
    gen = torch.Generator().manual_seed(seed)
    with one_cpu_thread():  # same reduction order on every machine load
        opt = Adam(list(model.parameters()), lr=lr)
        losses = []
        model.train()
        for _ in range(steps):
            losses.append(_recall_step(model, opt, n_distractors, batch_size, vocab_size, gen))
    return losses


@torch.no_grad()
def recall_accuracy(model: nn.Module, tokens: torch.Tensor, labels: torch.Tensor) -> float:
    """Fraction of sequences whose argmax prediction equals the label."""
    model.eval()
    return (model(tokens).argmax(-1) == labels).float().mean().item()


def run_recall(
    kind: ModelKind,
    n_distractors: int,
    seed: int = 0,
    steps: int = 300,
    d_model: int = 64,
    vocab_size: int = 8,
    batch_size: int = 64,
    lr: float = 3e-3,
    num_test: int = 512,
    dtype: torch.dtype = torch.float64,
) -> float:
    """Build, train and test one model on the recall task; return its test accuracy (chance 1/vocab_size).

    The model trains in ``dtype`` (float64 by default, so that the result does not depend on which CPU
    kernels ran: float32 rounding differences between machines grow into different accuracies).
    """
    torch.manual_seed(seed)
    model = make_classifier(kind, vocab_size, d_model, max_len=n_distractors + 2).to(dtype)
    train_recall(
        model, n_distractors, steps=steps, batch_size=batch_size, lr=lr, vocab_size=vocab_size, seed=seed
    )
    test_gen = torch.Generator().manual_seed(10_000 + seed)  # a stream the training batches never use
    tokens, labels = make_recall_data(num_test, n_distractors, vocab_size, generator=test_gen)
    return recall_accuracy(model, tokens, labels)


def steps_to_solve(
    kind: ModelKind,
    n_distractors: int,
    seed: int = 0,
    max_steps: int = 600,
    eval_every: int = 25,
    threshold: float = 0.9,
    d_model: int = 16,
    vocab_size: int = 8,
    batch_size: int = 32,
    lr: float = 1e-2,
    num_eval: int = 256,
    dtype: torch.dtype = torch.float64,
) -> tuple[int | None, list[float]]:
    """Train until held-out accuracy >= ``threshold`` (checked every ``eval_every`` steps).

    Returns (steps taken, or None if the budget ``max_steps`` ran out; held-out accuracy at every check).
    The held-out set (``num_eval`` sequences) comes from a stream the training batches never use.
    """
    max_steps = check_positive_int(max_steps, "max_steps")
    eval_every = check_positive_int(eval_every, "eval_every")
    batch_size = check_positive_int(batch_size, "batch_size")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must lie in (0, 1]: got {threshold!r}")
    torch.manual_seed(seed)
    model = make_classifier(kind, vocab_size, d_model, max_len=n_distractors + 2).to(dtype)
    eval_gen = torch.Generator().manual_seed(10_000 + seed)
    eval_tokens, eval_labels = make_recall_data(num_eval, n_distractors, vocab_size, generator=eval_gen)
    gen = torch.Generator().manual_seed(seed)
    opt = Adam(list(model.parameters()), lr=lr)
    history: list[float] = []
    with one_cpu_thread():  # same reduction order on every machine load
        for step in range(1, max_steps + 1):
            model.train()
            _recall_step(model, opt, n_distractors, batch_size, vocab_size, gen)
            if step % eval_every == 0:
                history.append(recall_accuracy(model, eval_tokens, eval_labels))
                if history[-1] >= threshold:
                    return step, history
    return None, history


def gradient_norm_by_position(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """||d fn(x)[0, -1] / d x[0, t]|| (Frobenius norm of a Jacobian block) for each t: x (1, n, d_in) -> (n,).

    ``fn`` maps (1, n, d_in) to (1, n, d_out); the last output row is differentiated. Entry t of the result
    belongs to distance n - 1 - t from the output.
    """
    check_tensor(x, "x")
    check_rank(x, "x", min_rank=3, max_rank=3)
    if x.shape[0] != 1:
        raise ValueError(f"x must have batch size 1: got x {tuple(x.shape)}")
    x = x.detach()

    def last_row(inp: torch.Tensor) -> torch.Tensor:
        out = fn(inp)
        if out.ndim != 3 or out.shape[:2] != inp.shape[:2]:
            raise ValueError(
                f"fn must map (1, n, d_in) to (1, n, d_out): got {tuple(inp.shape)} -> {tuple(out.shape)}"
            )
        return out[0, -1]  # (d_out,)

    jac = torch.autograd.functional.jacobian(last_row, x)  # (d_out, 1, n, d_in)
    return jac[:, 0].pow(2).sum(dim=(0, 2)).sqrt()  # (n,)


def graph_depth(t: torch.Tensor) -> int:
    """Longest chain of autograd nodes from ``t`` back to the inputs (0 for a tensor without history).

    That is the number of operations that must run one after another to produce ``t``.
    """
    check_tensor(t, "t")
    root = t.grad_fn
    if root is None:
        return 0
    depth: dict[int, int] = {}
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:  # iterative post-order DFS: an RNN graph is thousands of nodes deep
        node, expanded = stack.pop()
        key = id(node)
        if key in depth:
            continue
        children = [fn for fn, _ in getattr(node, "next_functions", ()) if fn is not None]
        if expanded:
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in depth)
    return depth[id(root)]


def saved_tensor_bytes(fn: Callable[..., object], *args: object, **kwargs: object) -> int:
    """Bytes autograd saves for the backward pass while ``fn(*args, **kwargs)`` runs (each storage once).

    Measured with ``torch.autograd.graph.saved_tensors_hooks``: every tensor the forward pass stashes for
    backward goes through the pack hook; a storage saved by several operations is counted once.
    """
    seen: dict[tuple[int, int], int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        seen[(storage.data_ptr(), storage.nbytes())] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(*args, **kwargs)
    return sum(seen.values())
