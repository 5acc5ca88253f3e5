"""Boolean attention masks, True = may attend: causal (end-aligned), padding, and how to combine them."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._checks import _shape, broadcast_shape, check_positive_int

__all__ = [
    "causal_mask",
    "sliding_window_mask",
    "streaming_mask",
    "padding_mask",
    "key_padding_to_attn_mask",
    "combine_masks",
    "block_diagonal_mask",
    "position_ids",
    "to_torch_mha_masks",
]


def causal_mask(n_q: int, n_k: int | None = None, device: torch.device | str | None = None) -> torch.Tensor:
    """(n_q, n_k) bool, True where key j <= query position; queries sit at the END: i -> n_k - n_q + i.

    With n_q < n_k this is decoding with a cache (``causal_mask(1, 5)`` is all True). With n_q > n_k the first
    n_q - n_k rows are fully masked.
    """
    n_q = check_positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k")
    q_pos = torch.arange(n_q, device=device)[:, None] + (n_k - n_q)  # (n_q, 1) absolute positions
    k_pos = torch.arange(n_k, device=device)[None, :]  # (1, n_k)
    return k_pos <= q_pos  # (n_q, n_k)


def sliding_window_mask(
    n_q: int, n_k: int | None = None, window: int = 1, device: torch.device | str | None = None
) -> torch.Tensor:
    """(n_q, n_k) bool, True where 0 <= query position - j < window (end-aligned like ``causal_mask``).

    Each query sees itself and the ``window - 1`` keys before it (Longformer / Mistral local attention).
    """
    n_q = check_positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k")
    window = check_positive_int(window, "window")
    q_pos = torch.arange(n_q, device=device)[:, None] + (n_k - n_q)  # (n_q, 1) absolute positions
    k_pos = torch.arange(n_k, device=device)[None, :]  # (1, n_k)
    dist = q_pos - k_pos  # (n_q, n_k) how far back key j lies
    return (dist >= 0) & (dist < window)  # (n_q, n_k)


def streaming_mask(
    n_q: int, n_k: int | None = None, num_sinks: int = 4, window: int = 1,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """(n_q, n_k) bool: causal keys j < num_sinks (attention sinks) or within the window (StreamingLLM)."""
    n_q = check_positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k")
    if isinstance(num_sinks, bool) or not isinstance(num_sinks, int) or num_sinks < 0:
        raise ValueError(f"num_sinks must be a non-negative int: got {num_sinks!r}")
    local = sliding_window_mask(n_q, n_k, window, device=device)  # (n_q, n_k)
    sinks = torch.arange(n_k, device=device)[None, :] < num_sinks  # (1, n_k)
    return local | (sinks & causal_mask(n_q, n_k, device=device))  # (n_q, n_k)


def padding_mask(lengths: Sequence[int] | torch.Tensor, max_len: int | None = None) -> torch.Tensor:
    """lengths (B,) -> (B, max_len) bool, True at real tokens (position < length)."""
    if isinstance(lengths, torch.Tensor):
        if lengths.ndim != 1 or lengths.is_floating_point() or lengths.dtype == torch.bool:
            raise ValueError(
                f"lengths must be a 1-D integer tensor: got dtype {lengths.dtype}, shape {_shape(lengths)}"
            )
        lens = lengths.to(torch.long)
    else:
        seq = list(lengths)
        if any(isinstance(n, bool) or not isinstance(n, int) for n in seq):
            raise ValueError(f"lengths must be ints: got {seq!r}")
        lens = torch.tensor(seq, dtype=torch.long)
    if lens.numel() == 0:
        raise ValueError("lengths must be non-empty: got 0 sequences")
    if max_len is None:
        max_len = int(lens.max())
    max_len = check_positive_int(max_len, "max_len")
    if bool((lens < 0).any()) or bool((lens > max_len).any()):
        raise ValueError(f"lengths must lie in [0, max_len={max_len}]: got {lens.tolist()}")
    pos = torch.arange(max_len, device=lens.device)[None, :]  # (1, max_len)
    return pos < lens[:, None]  # (B, max_len)


def key_padding_to_attn_mask(pad: torch.Tensor) -> torch.Tensor:
    """(B, n_k) bool (True = real key) -> (B, 1, 1, n_k), broadcastable to (B, h, n_q, n_k)."""
    if not isinstance(pad, torch.Tensor) or pad.dtype != torch.bool or pad.ndim != 2:
        raise ValueError(
            "pad must be a 2-D boolean tensor (B, n_k), True = real key: "
            f"got {getattr(pad, 'dtype', type(pad))} with shape {_shape(pad)}"
        )
    return pad[:, None, None, :]  # (B, 1, 1, n_k)


def combine_masks(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """Logical AND of boolean masks (broadcast together); ``None`` entries are ignored; all None -> None."""
    out: torch.Tensor | None = None
    for i, m in enumerate(masks):
        if m is None:
            continue
        if not isinstance(m, torch.Tensor) or m.dtype != torch.bool:
            raise ValueError(
                f"masks[{i}] must be a boolean tensor: "
                f"got {getattr(m, 'dtype', type(m))} with shape {_shape(m)}"
            )
        if out is None:
            out = m
            continue
        if broadcast_shape(out.shape, m.shape) is None:
            raise ValueError(
                f"masks[{i}] is not broadcastable with the masks before it: got {_shape(m)} and {_shape(out)}"
            )
        out = out & m  # broadcast shape
    return out


def block_diagonal_mask(lengths: Sequence[int], causal: bool = False) -> torch.Tensor:
    """lengths (S,) of packed sequences -> (N, N) bool, N = sum(lengths): True only within one sequence.

    Token i may attend to token j iff both belong to the same sequence (and, with ``causal``, j <= i).
    """
    seq = list(lengths) if not isinstance(lengths, torch.Tensor) else lengths.tolist()
    if not seq or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in seq):
        raise ValueError(f"lengths must be a non-empty list of positive ints: got {seq!r}")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be a bool: got {causal!r}")
    doc = torch.repeat_interleave(torch.arange(len(seq)), torch.tensor(seq))  # (N,) sequence id per token
    mask = doc[:, None] == doc[None, :]  # (N, N)
    if causal:
        mask = mask & torch.ones_like(mask).tril_()  # (N, N)
    return mask


def position_ids(pad: torch.Tensor) -> torch.Tensor:
    """(B, n) bool, True = real token (left or right padded) -> (B, n) long: 0, 1, 2, ... over real tokens.

    Padded slots get 0. With left padding this gives each sequence the positions it has when run alone.
    """
    if not isinstance(pad, torch.Tensor) or pad.dtype != torch.bool or pad.ndim != 2:
        raise ValueError(
            "pad must be a 2-D boolean tensor (B, n), True = real token: "
            f"got {getattr(pad, 'dtype', type(pad))} with shape {_shape(pad)}"
        )
    return (pad.long().cumsum(dim=-1) - 1).clamp(min=0) * pad  # (B, n)


def to_torch_mha_masks(
    mask: torch.Tensor | None = None, pad: torch.Tensor | None = None, num_heads: int = 1
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Our masks (True = may attend) as ``torch.nn.MultiheadAttention``'s ``(attn_mask, key_padding_mask)``.

    nn.MultiheadAttention reads a boolean mask as True = *blocked*, takes ``attn_mask`` as (L, S) or
    (B·num_heads, L, S) — batch-major: row ``b·num_heads + head`` — and ``key_padding_mask`` as (B, S).
    ``mask``: (L, S), (B, L, S) or (B, h or 1, L, S); ``pad``: (B, S), True = real key.
    A mask shared by the batch and the heads, (1, L, S) or (1, 1, L, S) (e.g. ``causal_mask(L)[None, None]``),
    becomes a 2-D (L, S) ``attn_mask``, which nn.MultiheadAttention accepts for any batch size. Any other 3-D
    or 4-D mask becomes (B·num_heads, L, S), so its leading dim must be the real batch size.

    A 3-D mask is read here as (B, L, S), one pattern per *sequence*, while ``MultiHeadAttention`` and
    ``check_mask`` broadcast the same tensor against (B, h, L, S), as one pattern per *head* (h, L, S): with
    B == h both run silently and disagree. For the same meaning pass our layer ``mask[:, None]`` (B, 1, L, S),
    or use 4-D masks throughout.
    """
    num_heads = check_positive_int(num_heads, "num_heads")
    attn = None
    if mask is not None:
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.ndim not in (2, 3, 4):
            raise ValueError(
                "mask must be a boolean tensor (L, S), (B, L, S) or (B, h, L, S), True = may attend: "
                f"got {getattr(mask, 'dtype', type(mask))} with shape {_shape(mask)}"
            )
        if mask.ndim == 2:
            attn = ~mask  # (L, S)
        else:
            m = mask[:, None] if mask.ndim == 3 else mask  # (B, 1 or h, L, S)
            if m.shape[1] not in (1, num_heads):
                raise ValueError(f"mask's head dim must be 1 or num_heads={num_heads}: got {_shape(mask)}")
            B, _, L, S = m.shape
            if m.shape[:2] == (1, 1):
                attn = ~m[0, 0]  # shared by batch and heads: (L, S) broadcasts over any batch
            else:
                attn = (~m).expand(B, num_heads, L, S).reshape(B * num_heads, L, S)  # (B·h, L, S)
    kpm = None
    if pad is not None:
        if not isinstance(pad, torch.Tensor) or pad.dtype != torch.bool or pad.ndim != 2:
            raise ValueError(
                "pad must be a 2-D boolean tensor (B, S), True = real key: "
                f"got {getattr(pad, 'dtype', type(pad))} with shape {_shape(pad)}"
            )
        kpm = ~pad  # (B, S), True = ignore this key
    return attn, kpm
