"""ALiBi slopes / bias and T5 relative-position buckets against hand-written values."""

from __future__ import annotations

import pytest
import torch

from selfattention import RelativePositionBias, alibi_bias, alibi_slopes, t5_relative_bucket


def test_alibi_slopes_power_of_two() -> None:
    # paper: for h heads, start = 2^(-8/h), ratio = start -> for 8 heads: 1/2, 1/4, ..., 1/256
    expected = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    torch.testing.assert_close(alibi_slopes(8), torch.tensor(expected), atol=0, rtol=0)
    torch.testing.assert_close(alibi_slopes(2), torch.tensor([1 / 16, 1 / 256]), atol=0, rtol=0)


@pytest.mark.parametrize(
    "h,expected",
    [
        # 6 heads: closest power of 2 is 4 -> 1/4, 1/16, 1/64, 1/256; then every other slope of the
        # 8-head set (1/2, 1/8, 1/32, 1/128), first 6 - 4 = 2 of them -> 1/2, 1/8
        (6, [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]),
        # 3 heads: 2-head set 1/16, 1/256; then every other of the 4-head set (1/4, 1/64), first 1 -> 1/4
        (3, [0.0625, 0.00390625, 0.25]),
        # 12 heads: the 8-head set, then every other slope of the 16-head set (start 2^-0.5):
        # 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
        (
            12,
            [
                0.5,
                0.25,
                0.125,
                0.0625,
                0.03125,
                0.015625,
                0.0078125,
                0.00390625,
                0.7071067811865476,
                0.35355339059327373,
                0.17677669529663687,
                0.08838834764831843,
            ],
        ),
    ],
)
def test_alibi_slopes_not_power_of_two(h, expected) -> None:
    torch.testing.assert_close(alibi_slopes(h), torch.tensor(expected), atol=1e-7, rtol=0)


def test_alibi_bias_values() -> None:
    b = alibi_bias(2, 3, 3)  # slopes 1/16, 1/256; bias = m * (j - i)
    rel = torch.tensor([[0.0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    assert b.shape == (2, 3, 3)
    torch.testing.assert_close(b[0], rel / 16, atol=0, rtol=0)
    torch.testing.assert_close(b[1], rel / 256, atol=0, rtol=0)
    # end-aligned: one query after 4 keys sits at position 3
    torch.testing.assert_close(alibi_bias(1, 1, 4), torch.tensor([[[-3.0, -2, -1, 0]]]) / 256, atol=0, rtol=0)


# T5 formula, bidirectional, 32 buckets -> 16 per direction, max_exact = 8:
#   r = |j - i| < 8 -> r;  else 8 + floor(ln(r / 8) / ln(128 / 8) * 8), capped at 15;  +16 if j > i.
T5_DIST = [0, 1, 7, 8, 11, 12, 15, 16, 22, 23, 31, 32, 45, 46, 63, 64, 90, 91, 127, 128, 500]
# j - i = -r (key before the query) and j - i = +r (key after the query)
T5_BI_BEFORE = [0, 1, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 15, 15]
T5_BI_AFTER = [0, 17, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 31, 31]
# unidirectional, 32 buckets, max_exact = 16: r = max(i - j, 0) < 16 -> r;
#   else 16 + floor(ln(r / 16) / ln(128 / 16) * 16), capped at 31
T5_UNI_DIST = [0, 1, 15, 16, 19, 20, 22, 23, 31, 32, 45, 46, 63, 64, 90, 91, 99, 100, 126, 127, 128, 1000]
T5_UNI = [0, 1, 15, 16, 17, 17, 18, 18, 21, 21, 23, 24, 26, 26, 29, 29, 30, 30, 31, 31, 31, 31]


def test_t5_buckets_bidirectional() -> None:
    r = torch.tensor(T5_DIST)
    assert t5_relative_bucket(-r).tolist() == T5_BI_BEFORE
    assert t5_relative_bucket(r).tolist() == T5_BI_AFTER


def test_t5_buckets_unidirectional() -> None:
    r = torch.tensor(T5_UNI_DIST)
    assert t5_relative_bucket(-r, bidirectional=False).tolist() == T5_UNI
    # keys after the query all fall in bucket 0
    assert t5_relative_bucket(torch.tensor([1, 5, 300]), bidirectional=False).tolist() == [0, 0, 0]


def test_t5_small_config() -> None:
    # bidirectional, 8 buckets -> 4 per side, max_exact 2, max_distance 16:
    #   r >= 2 -> 2 + floor(ln(r/2) / ln(8) * 2), capped at 3
    # r = 2 -> 2, 3 -> 2 (0.39), 4 -> 2 (0.67), 8 -> 3 (1.33), 16 -> 4 -> 3
    r = torch.tensor([0, 1, 2, 3, 4, 8, 16])
    got = t5_relative_bucket(-r, num_buckets=8, max_distance=16).tolist()
    assert got == [0, 1, 2, 2, 2, 3, 3]


def test_relative_position_bias_module() -> None:
    rpb = RelativePositionBias(num_heads=2)
    with torch.no_grad():
        rpb.embedding.weight.copy_(torch.arange(64, dtype=torch.float32).view(32, 2))  # weight[b, h] = 2b + h
    out = rpb(3, 3)
    assert out.shape == (2, 3, 3)
    # j - i = [[0, 1, 2], [-1, 0, 1], [-2, -1, 0]]
    buckets = torch.tensor([[0, 17, 18], [1, 0, 17], [2, 1, 0]])
    torch.testing.assert_close(out[0], 2.0 * buckets, atol=0, rtol=0)
    torch.testing.assert_close(out[1], 2.0 * buckets + 1, atol=0, rtol=0)
    assert rpb(2, 5).shape == (2, 2, 5)
    # end-aligned: the one query after 3 keys sits at position 2 -> j - i = -2, -1, 0
    torch.testing.assert_close(rpb(1, 3)[0], torch.tensor([[4.0, 2.0, 0.0]]), atol=0, rtol=0)
