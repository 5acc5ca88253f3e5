"""Speculative decoding (Leviathan et al. 2023; Chen et al. 2023): a draft proposes k tokens, the target
verifies them in one (k + 1)-query pass, and the accept/reject rule keeps the target's distribution exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._checks import _shape, check_positive_int
from .sampling import lm_forward_cached, new_caches, sample_probs, truncate_caches
from .transformer import DecoderOnlyLM

__all__ = ["verify_draft", "expected_tokens_per_pass", "speculative_decode"]


def verify_draft(
    p: torch.Tensor, q: torch.Tensor, draft: torch.Tensor, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The accept/reject rule for R independent drafts -> (accepted (R,), next token (R,)).

    p (R, k + 1, V): the target's distributions after each draft prefix (the last one after all k drafts);
    q (R, k, V): the draft's distributions the draft tokens (R, k) were sampled from. Token i is accepted with
    probability min(1, p_i(x_i) / q_i(x_i)); at the first rejection the next token is drawn from
    norm(max(0, p_i - q_i)); if all k are accepted it is drawn from p_{k+1} (the bonus token).
    """
    if p.ndim != 3 or q.ndim != 3 or draft.ndim != 2:
        raise ValueError(f"need p (R, k+1, V), q (R, k, V), draft (R, k): got {_shape(p)}, {_shape(q)}, "
                         f"{_shape(draft)}")
    r, k, v = q.shape
    if p.shape != (r, k + 1, v) or draft.shape != (r, k):
        raise ValueError(f"need p (R, k+1, V), q (R, k, V), draft (R, k): got {_shape(p)}, {_shape(q)}, "
                         f"{_shape(draft)}")
    p, q = p.to(torch.float64), q.to(torch.float64)
    idx = draft[..., None]  # (R, k, 1)
    p_x = p[:, :k].gather(-1, idx)[..., 0]  # (R, k) target probability of each draft token
    q_x = q.gather(-1, idx)[..., 0]  # (R, k), > 0: each token was drawn from q
    u = torch.rand(r, k, generator=generator, dtype=torch.float64)  # (R, k)
    ok = u * q_x < p_x  # u < p/q without dividing; p = q = one-hot (greedy) accepts iff the argmax agrees
    accepted = ok.to(torch.long).cumprod(-1).sum(-1)  # (R,) number accepted before the first rejection
    rows = torch.arange(r)
    p_next = p[rows, accepted]  # (R, V) target distribution at the first rejected position (or bonus)
    q_pad = torch.cat([q, torch.zeros(r, 1, v, dtype=q.dtype)], dim=1)  # (R, k + 1, V): no draft after k
    residual = (p_next - q_pad[rows, accepted]).clamp_min(0)  # (R, V); equals p_next for the bonus
    mass = residual.sum(-1, keepdim=True)
    residual = torch.where(mass > 0, residual / mass.clamp_min(1e-300), p_next)  # p = q: never used
    nxt = torch.multinomial(residual, 1, generator=generator)[:, 0]  # (R,)
    return accepted, nxt


def expected_tokens_per_pass(alpha: float, k: int) -> float:
    """Tokens per target pass when each draft token is accepted independently with probability alpha:
    1 + alpha + ... + alpha^k = (1 - alpha^(k+1)) / (1 - alpha) (Leviathan et al. 2023, eq. 1)."""
    k = check_positive_int(k, "k")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1]: got {alpha!r}")
    return float(k + 1) if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


@torch.no_grad()
def speculative_decode(
    target: DecoderOnlyLM,
    draft: DecoderOnlyLM,
    prompt: Sequence[int],
    k: int,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    min_p: float | None = None,
    generator: torch.Generator | None = None,
) -> tuple[list[int], dict[str, int]]:
    """Generate ``max_new_tokens`` from ``target`` with ``draft`` proposing k at a time -> (tokens, stats).

    Both models keep KV caches of the accepted text; the target scores the last accepted token and the k
    drafts in one pass of k + 1 queries over its cache (end-aligned causal mask); rejected positions are cut
    from the caches. Output distribution: that of ``target`` sampled alone with the same filters
    (temperature 0: its greedy output). stats: target_passes, draft_steps, drafted, accepted.
    """
    k = check_positive_int(k, "k")
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    if len(prompt) == 0:
        raise ValueError("prompt must hold at least one token")
    if target.vocab_size != draft.vocab_size:
        raise ValueError(f"target and draft need one vocabulary: got {target.vocab_size}, {draft.vocab_size}")
    filt = dict(temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p)
    seq = list(prompt)
    t_cache, d_cache = new_caches(target), new_caches(draft)
    lm_forward_cached(target, torch.tensor([seq[:-1]]), t_cache) if len(seq) > 1 else None
    stats = dict(target_passes=0, draft_steps=0, drafted=0, accepted=0)
    end = len(prompt) + max_new_tokens
    if end > min(target.max_len, draft.max_len):
        raise ValueError(f"prompt + max_new_tokens = {end} exceeds the models' max_len")
    while len(seq) < end:
        kk = min(k, end - len(seq) - 1) or 1  # never draft past the budget (one extra token is free)
        # draft: feed what its cache lacks, then k - 1 more single-token steps
        pending = seq[len(d_cache[0]):]
        drafts, q_rows = [], []
        for _ in range(kk):
            logits = lm_forward_cached(draft, torch.tensor([pending]), d_cache)[0, -1]  # (V,)
            stats["draft_steps"] += 1
            q_i = sample_probs(logits, **filt)  # (V,)
            tok = int(torch.multinomial(q_i, 1, generator=generator)) if temperature else int(q_i.argmax())
            drafts.append(tok)
            q_rows.append(q_i)
            pending = [tok]
        # target: one pass of kk + 1 queries (last accepted token + drafts) over its cache
        n_before = len(t_cache[0])
        logits = lm_forward_cached(target, torch.tensor([[seq[-1]] + drafts]), t_cache)[0]  # (kk+1, V)
        stats["target_passes"] += 1
        p = sample_probs(logits, **filt)  # (kk + 1, V)
        acc, nxt = verify_draft(p[None], torch.stack(q_rows)[None], torch.tensor([drafts]), generator)
        n_acc = int(acc[0])
        stats["drafted"] += kk
        stats["accepted"] += n_acc
        seq += drafts[:n_acc] + [int(nxt[0])]
        truncate_caches(t_cache, n_before + 1 + n_acc)  # keep seq[-2] and the accepted drafts
        truncate_caches(d_cache, min(len(d_cache[0]), len(seq) - 1))
    return seq[len(prompt):end], stats
