"""Long inputs for a fixed-length encoder: overlapping chunks with a stride, and pooling them back.

BERT-style encoders take at most 512 positions. Beyond truncation, the usual fix is to cut the sequence
into windows of ``window`` tokens that start every ``stride`` tokens, encode each window on its own and
average the representations of the tokens that fall in several windows. Attention then scores
sum(len(chunk)^2) pairs, about n·window·(window/stride), instead of n^2.
"""

from __future__ import annotations

import torch

from ._checks import _shape, check_positive_int

__all__ = ["sliding_chunks", "chunk_coverage", "chunk_attention_pairs", "pool_chunks"]


def sliding_chunks(n: int, window: int, stride: int) -> list[tuple[int, int]]:
    """Spans [start, end) of at most ``window`` tokens, starting every ``stride``, covering 0..n-1.

    The last span ends at n (it may be shorter than ``window``); no span is contained in the previous one.
    """
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
    stride = check_positive_int(stride, "stride")
    if stride > window:
        raise ValueError(f"stride must be <= window, or tokens fall between chunks: got stride={stride}, "
                         f"window={window}")
    spans, start = [], 0
    while True:
        end = min(start + window, n)
        spans.append((start, end))
        if end == n:
            return spans
        start += stride


def chunk_coverage(spans: list[tuple[int, int]], n: int) -> torch.Tensor:
    """(n,) int64: in how many spans each token lies."""
    n = check_positive_int(n, "n")
    counts = torch.zeros(n, dtype=torch.int64)
    for start, end in spans:
        if not 0 <= start < end <= n:
            raise ValueError(f"span ({start}, {end}) is not inside [0, {n})")
        counts[start:end] += 1
    return counts


def chunk_attention_pairs(spans: list[tuple[int, int]]) -> int:
    """Query-key pairs one attention layer scores over all chunks: sum of len(chunk)^2."""
    return sum((end - start) ** 2 for start, end in spans)


def pool_chunks(outputs: list[torch.Tensor], spans: list[tuple[int, int]], n: int) -> torch.Tensor:
    """Chunk outputs [(B, len_i, d)] -> (B, n, d): each token's mean over the chunks that contain it."""
    if len(outputs) != len(spans) or not outputs:
        raise ValueError(f"need one output per span: got {len(outputs)} outputs, {len(spans)} spans")
    counts = chunk_coverage(spans, n)
    if (counts == 0).any():
        raise ValueError(f"the spans leave {int((counts == 0).sum())} of {n} tokens uncovered")
    first = outputs[0]
    total = first.new_zeros(first.shape[0], n, first.shape[-1])  # (B, n, d)
    for out, (start, end) in zip(outputs, spans, strict=True):
        if out.ndim != 3 or out.shape[1] != end - start or out.shape[::2] != first.shape[::2]:
            raise ValueError(f"output for span ({start}, {end}) must be (B, {end - start}, d): "
                             f"got {_shape(out)}")
        total[:, start:end] += out
    return total / counts.to(total.dtype)[None, :, None]
