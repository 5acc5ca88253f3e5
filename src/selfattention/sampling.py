"""From logits to text: next-token filters and sampling, penalties, generation with a KV cache, beam search.

``sample_probs`` is the definition every sampler here uses: temperature, then top-k, top-p, min-p, each
on the renormalised result of the one before, computed in float64. Ties at a cut-off are kept (a filter never
separates tokens of equal probability), so top-k may keep more than k tokens and top-p more than its smallest
prefix when the last token of that prefix ties with the next ones.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

from ._checks import _shape, check_positive_int, check_tensor
from .caches import KVCache
from .transformer import DecoderOnlyLM

__all__ = [
    "sample_probs",
    "sample",
    "apply_penalties",
    "lm_forward_cached",
    "truncate_caches",
    "new_caches",
    "generate",
    "beam_search",
    "lm_next_logprobs",
]


def _check_logits(logits: object) -> torch.Tensor:
    """Raise unless logits is a float tensor (V,) or (B, V)."""
    check_tensor(logits, "logits")
    assert isinstance(logits, torch.Tensor)
    if logits.ndim not in (1, 2) or logits.shape[-1] == 0:
        raise ValueError(f"logits must be (V,) or (B, V) with V > 0: got shape {_shape(logits)}")
    return logits


def sample_probs(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    min_p: float | None = None,
) -> torch.Tensor:
    """logits (..., V) -> float64 probabilities (..., V) after temperature, top-k, top-p and min-p.

    ``temperature`` 0 is greedy: all mass on the argmax (the first index among equal maxima). top-k keeps the
    tokens whose probability is at least the k-th largest; top-p keeps the smallest prefix of the sorted
    tokens whose mass is >= p (to 1e-12), plus any token tied with its last one; min-p keeps tokens
    with p_i >= min_p * max_j p_j.
    """
    logits = _check_logits(logits)
    if (not isinstance(temperature, numbers.Real) or isinstance(temperature, bool) or not temperature >= 0
            or not math.isfinite(temperature)):
        raise ValueError(f"temperature must be a finite number >= 0: got {temperature!r}")
    z = logits.to(torch.float64)
    if bool((z.isnan() | (z == math.inf)).any()):
        raise ValueError("logits must be finite or -inf: got NaN or +inf")
    if bool((z == -math.inf).all(-1).any()):
        raise ValueError("every logit of a row is -inf: no token can be sampled")
    if temperature == 0:
        return F.one_hot(z.argmax(-1), z.shape[-1]).to(torch.float64)  # (..., V)
    probs = torch.softmax(z / temperature, dim=-1)  # (..., V)
    if bool(probs.isnan().any()):  # a subnormal T: logits / T overflow to +-inf
        raise ValueError(f"temperature {temperature!r} is too small: logits / T overflow")
    if top_k is not None:
        k = check_positive_int(top_k, "top_k")
        kth = probs.topk(min(k, probs.shape[-1]), dim=-1).values[..., -1:]  # (..., 1) the k-th largest
        probs = _renormalise(probs * (probs >= kth))
    if top_p is not None:
        if not isinstance(top_p, numbers.Real) or isinstance(top_p, bool) or not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]: got {top_p!r}")
    if top_p is not None and top_p < 1:  # top_p = 1 keeps every token
        sorted_p = probs.sort(dim=-1, descending=True).values  # (..., V)
        before = sorted_p.cumsum(-1) - sorted_p  # mass of the tokens ranked above each one
        inside = before < top_p - 1e-12  # not yet reached p (1e-12: a sum that rounds below p reached it)
        inside[..., 0] = True  # the most probable token is always kept (top_p <= 1e-12 kept none)
        last = (sorted_p * inside).masked_fill(~inside, math.inf)  # the prefix, others inf
        cut = last.min(dim=-1, keepdim=True).values  # (..., 1) probability of the prefix's last token
        probs = _renormalise(probs * (probs >= cut))
    if min_p is not None:
        if not isinstance(min_p, numbers.Real) or isinstance(min_p, bool) or not 0 <= min_p <= 1:
            raise ValueError(f"min_p must be in [0, 1]: got {min_p!r}")
        top = probs.max(dim=-1, keepdim=True).values
        probs = _renormalise(probs * (probs >= min_p * top))
    return probs


def _renormalise(p: torch.Tensor) -> torch.Tensor:
    """p (..., V) >= 0 -> p / p.sum(-1)."""
    return p / p.sum(-1, keepdim=True)


def sample(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    min_p: float | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """logits (V,) or (B, V) -> token ids () or (B,), drawn from ``sample_probs`` (T = 0: greedy)."""
    probs = sample_probs(logits, temperature, top_k, top_p, min_p)
    if temperature == 0:
        return probs.argmax(-1)
    flat = probs.reshape(-1, probs.shape[-1])  # (B, V)
    ids = torch.multinomial(flat, 1, generator=generator)[:, 0]  # (B,)
    return ids.reshape(probs.shape[:-1])


def apply_penalties(
    logits: torch.Tensor,
    previous: Sequence[int] | torch.Tensor,
    repetition_penalty: float = 1.0,
    frequency_penalty: float = 0.0,
    presence_penalty: float = 0.0,
) -> torch.Tensor:
    """logits (V,) and the tokens generated so far -> penalised logits (V,).

    Repetition penalty: CTRL (Keskar et al. 2019) divides a seen token's logit by the penalty; dividing a
    negative logit would raise it, so, as Hugging Face's ``RepetitionPenaltyLogitsProcessor`` does, a
    negative one is multiplied instead. Frequency / presence penalties (OpenAI API): subtract
    ``frequency * count + presence * [count > 0]``.
    """
    logits = _check_logits(logits)
    if logits.ndim != 1:
        raise ValueError(f"apply_penalties takes one row of logits (V,): got {_shape(logits)}")
    for name, value in (("repetition_penalty", repetition_penalty), ("frequency_penalty", frequency_penalty),
                        ("presence_penalty", presence_penalty)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number: got {value!r}")
    if repetition_penalty <= 0:
        raise ValueError(f"repetition_penalty must be > 0: got {repetition_penalty!r}")
    if isinstance(previous, torch.Tensor):
        if previous.is_floating_point() or previous.is_complex() or previous.dtype == torch.bool:
            raise ValueError(f"previous must hold integer token ids: got dtype {previous.dtype}")
        ids = previous.reshape(-1).to(torch.long)
    else:
        previous = list(previous)
        bad = [t for t in previous if isinstance(t, bool) or not isinstance(t, numbers.Integral)]
        if bad:
            raise ValueError(f"previous must hold integer token ids: got {bad[0]!r}")
        ids = torch.tensor([int(t) for t in previous], dtype=torch.long)
    v = logits.shape[0]
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= v):
        lo, hi = ids.min().item(), ids.max().item()
        raise ValueError(f"token ids in previous must be in [0, {v}): got {lo} .. {hi}")
    counts = torch.bincount(ids, minlength=logits.shape[0]).to(logits.dtype)  # (V,)
    seen = counts > 0
    out = torch.where(seen & (logits > 0), logits / repetition_penalty,
                      torch.where(seen, logits * repetition_penalty, logits))
    return out - frequency_penalty * counts - presence_penalty * seen.to(logits.dtype)


def new_caches(model: DecoderOnlyLM) -> list[KVCache]:
    """One empty KVCache per layer of ``model``."""
    return [KVCache() for _ in model.blocks]


def lm_forward_cached(model: DecoderOnlyLM, tokens: torch.Tensor, caches: list[KVCache]) -> torch.Tensor:
    """New tokens (B, n_new) after the cached ones -> logits (B, n_new, V); appends to ``caches``.

    Each layer's attention sees cache + new tokens under the end-aligned (bottom-right) causal mask, so a
    prefill, a chunk of a prefill, one decode step or a k+1-token verify pass all give the logits of the
    full forward.
    """
    if not isinstance(model, DecoderOnlyLM):
        raise ValueError(f"model must be a DecoderOnlyLM: got {type(model).__name__}")
    if len(caches) != len(model.blocks):
        raise ValueError(f"need one cache per layer ({len(model.blocks)}): got {len(caches)}")
    start = len(caches[0])
    if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 or tokens.is_floating_point():
        raise ValueError(f"tokens must be a (B, n_new) integer tensor: got {_shape(tokens)}")
    if start + tokens.shape[1] > model.max_len:
        raise ValueError(f"cache {start} + {tokens.shape[1]} new tokens exceeds max_len={model.max_len}")
    x = model.tok_emb(tokens)  # (B, n_new, d_model)
    if model.pos_emb is not None:
        x = x + model.pos_emb(torch.arange(start, start + tokens.shape[1], device=tokens.device))
    for block, cache in zip(model.blocks, caches, strict=True):
        x = x + block.self_attn(block.norm1(x), kv_cache=cache)  # end-aligned causal over cache + new
        x = x + block.ffn(block.norm2(x))  # (B, n_new, d_model)
    x = model.norm_f(x)
    weight = model.tok_emb.weight if model.lm_head is None else model.lm_head.weight  # (V, d_model)
    return F.linear(x, weight)  # (B, n_new, V)


def truncate_caches(caches: list[KVCache], n: int) -> None:
    """Keep the first n cached positions of every layer (undo rejected draft tokens)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an int >= 0: got {n!r}")
    for cache in caches:
        if cache.k is not None and cache.v is not None:
            if n > cache.k.shape[2]:
                raise ValueError(f"cannot truncate a cache of {cache.k.shape[2]} positions to {n}")
            cache.k, cache.v = cache.k[:, :, :n], cache.v[:, :, :n]


@torch.no_grad()
def generate(
    model: DecoderOnlyLM,
    prompt: Sequence[int],
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    min_p: float | None = None,
    eos: int | None = None,
    repetition_penalty: float = 1.0,
    generator: torch.Generator | None = None,
) -> list[int]:
    """Prefill the prompt once, then decode one token per step with the KV cache; stop at eos or the budget.

    Returns the new tokens (eos included when it is drawn).
    """
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    if len(prompt) == 0:
        raise ValueError("prompt must hold at least one token")
    caches = new_caches(model)
    logits = lm_forward_cached(model, torch.tensor([list(prompt)]), caches)[0, -1]  # prefill: (V,)
    out: list[int] = []
    for _ in range(max_new_tokens):
        if repetition_penalty != 1.0:
            logits = apply_penalties(logits, list(prompt) + out, repetition_penalty)
        token = int(sample(logits, temperature, top_k, top_p, min_p, generator))
        out.append(token)
        if token == eos or len(prompt) + len(out) >= model.max_len:
            break
        logits = lm_forward_cached(model, torch.tensor([[token]]), caches)[0, -1]  # decode step: (V,)
    return out


def lm_next_logprobs(model: DecoderOnlyLM) -> Callable[[Sequence[int]], torch.Tensor]:
    """A function prefix -> float64 log-probabilities (V,) of the next token under ``model`` (no cache)."""

    @torch.no_grad()
    def next_logprobs(prefix: Sequence[int]) -> torch.Tensor:
        logits = model(torch.tensor([list(prefix)]))[0, -1]  # (V,)
        return torch.log_softmax(logits.to(torch.float64), -1)

    return next_logprobs


def beam_search(
    next_logprobs: Callable[[Sequence[int]], torch.Tensor],
    prompt: Sequence[int],
    beam_width: int,
    max_new_tokens: int,
    eos: int | None = None,
    length_penalty: float = 0.0,
    length_form: str = "power",
) -> tuple[list[int], float]:
    """Beam search -> (best continuation, score); score = log p(y | prompt) / lp(len(y)).

    ``length_form`` "power": lp(n) = n ** length_penalty, plain length normalisation (Hugging Face's
    ``length_penalty``); "gnmt": lp(n) = ((5 + n) / 6) ** length_penalty, the length penalty of Wu et al.
    (2016), without their coverage penalty.

    Every step expands each live beam by every token; a continuation ending in ``eos`` (or reaching
    ``max_new_tokens``) is finished; the ``beam_width`` best live continuations by log-probability go on. The
    answer is the finished continuation with the highest length-penalised score (len counts eos). With
    ``beam_width`` >= V ** (max_new_tokens - 1) nothing is pruned and the answer is the exhaustive optimum.
    """
    beam_width = check_positive_int(beam_width, "beam_width")
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    if length_form not in ("power", "gnmt"):
        raise ValueError(f"length_form must be 'power' or 'gnmt': got {length_form!r}")

    def penalty(n: int) -> float:
        return (n if length_form == "power" else (5 + n) / 6) ** length_penalty

    live: list[tuple[list[int], float]] = [([], 0.0)]
    finished: list[tuple[list[int], float]] = []
    for step in range(max_new_tokens):
        candidates = []
        for seq, lp in live:
            logp = next_logprobs(list(prompt) + seq)  # (V,)
            for tok in range(logp.shape[0]):
                candidates.append((seq + [tok], lp + float(logp[tok])))
        last = step == max_new_tokens - 1
        live = []
        for seq, lp in sorted(candidates, key=lambda c: -c[1]):  # stable: ties keep token order
            if seq[-1] == eos or last:
                finished.append((seq, lp / penalty(len(seq))))
            elif len(live) < beam_width:
                live.append((seq, lp))
        if not live:
            break
    best = max(finished, key=lambda c: c[1])  # first of equal scores
    return best
