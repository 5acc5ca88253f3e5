"""Sliding chunks for long inputs: every token covered, overlaps counted, attention pairs n·window-ish,
pooling averages the overlapping chunks and equals the input when the encoder is per-token."""

from __future__ import annotations

import pytest
import torch

from selfattention import sliding_chunks
from selfattention.long_inputs import chunk_attention_pairs, chunk_coverage, pool_chunks


@pytest.mark.parametrize(
    ("n", "window", "stride"), [(1300, 512, 256), (1024, 512, 512), (10, 4, 3), (5, 8, 2)]
)
def test_spans_cover_every_token(n: int, window: int, stride: int) -> None:
    spans = sliding_chunks(n, window, stride)
    counts = chunk_coverage(spans, n)
    assert (counts >= 1).all() and spans[0][0] == 0 and spans[-1][1] == n
    assert all(e - s <= window for s, e in spans)
    assert all(b[0] - a[0] == stride for a, b in zip(spans, spans[1:], strict=False))
    assert all(b[1] > a[1] for a, b in zip(spans, spans[1:], strict=False))  # each adds new tokens


def test_overlap_counts_and_pairs() -> None:
    spans = sliding_chunks(1300, 512, 256)
    assert spans == [(0, 512), (256, 768), (512, 1024), (768, 1280), (1024, 1300)]
    counts = chunk_coverage(spans, 1300)
    assert counts[:256].eq(1).all() and counts[256:1280].eq(2).all() and counts[1280:].eq(1).all()
    assert chunk_attention_pairs(spans) == 4 * 512**2 + 276**2
    # no overlap: exactly n * window pairs when window divides n, far below n^2
    flat = sliding_chunks(2048, 512, 512)
    assert chunk_attention_pairs(flat) == 2048 * 512 < 2048**2


def test_pooling_is_the_mean_over_chunks() -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 10, 3, dtype=torch.float64, generator=g)
    spans = sliding_chunks(10, 4, 3)  # (0,4) (3,7) (6,10)
    same = [x[:, s:e] for s, e in spans]  # a per-token encoder: chunks agree on shared tokens
    torch.testing.assert_close(pool_chunks(same, spans, 10), x, rtol=0, atol=1e-15)
    shifted = [x[:, s:e] + i for i, (s, e) in enumerate(spans)]  # chunk i adds i
    pooled = pool_chunks(shifted, spans, 10)
    torch.testing.assert_close(pooled[:, 3], x[:, 3] + 0.5)  # token 3 in chunks 0 and 1
    torch.testing.assert_close(pooled[:, 8], x[:, 8] + 2)  # token 8 only in chunk 2


@pytest.mark.parametrize(
    ("args", "msg"), [((10, 4, 5), "stride must be <= window"), ((0, 4, 2), "n"), ((10, 0, 1), "window")]
)
def test_bad_arguments(args: tuple, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        sliding_chunks(*args)


def test_pool_rejects_gaps_and_shapes() -> None:
    x = torch.zeros(1, 10, 2)
    with pytest.raises(ValueError, match="uncovered"):
        pool_chunks([x[:, :4]], [(0, 4)], 10)
    with pytest.raises(ValueError, match="must be"):
        pool_chunks([x[:, :3]], [(0, 10)], 10)
