"""Review round 6, chapters 04-05 (reviews6/ch04-05.md): the checker findings M1-M4 and the lows L1-L6."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from selfattention.interview.bank import load_cards
from selfattention.interview.language import clauses
from selfattention.variants import differential_attention

ROOT = Path(__file__).resolve().parents[1]
CARDS = {c.id: c for c in load_cards()}


def _stated(card: str, text: str) -> dict[int, str]:
    return CARDS[card].check(text).stated


# M1: a fronted phrase before the first comma stays with its clause ---------------------------------------
M1_CAUGHT = [
    ("mask-masked-attention", "After the softmax, the mask multiplies the weights by 0."),
    ("mask-masked-attention", "After the softmax, multiply the future weights by zero."),
    ("mask-masked-attention", "After the softmax, set the future weights to zero."),
    ("mask-masked-attention", "Apply the softmax, then zero out the weights of future positions."),
    ("mask-masked-attention", "在 softmax 之后，掩码把权重乘以 0。"),
    ("mask-masked-attention", "掩码是在 softmax 之后，把权重乘以 0。"),
    ("mask-masked-attention", "softmax 之后把未来位置的权重置零。"),
    ("mask-masked-attention", "先做 softmax，再把未来位置的权重乘以 0。"),
    ("mask-torch-mha-masks", "In nn.MultiheadAttention, a boolean True means the position may be attended, as in SDPA."),
    ("mask-torch-mha-masks", "在 nn.MultiheadAttention 里，布尔 True 和 SDPA 一样表示可以关注。"),
    ("mh-why-multi-head", "头越多，计算量越大。"),
]


@pytest.mark.parametrize(("card", "text"), M1_CAUGHT)
def test_m1_fronted_phrase_keeps_the_myth(card: str, text: str) -> None:
    r = CARDS[card].check(text)
    assert r.stated, text
    if card == "mask-masked-attention":  # the myth no longer earns the key points it contradicts
        assert 1 not in r.covered and 4 not in r.covered, text


@pytest.mark.parametrize("text", [
    "Future scores are set to minus infinity before the softmax.",
    "Before the softmax, the future scores are set to minus infinity.",
    "Set future scores to -inf before the softmax, then the weights of future positions are zero.",
])
def test_m1_correct_mask_order_is_not_flagged(text: str) -> None:
    r = CARDS["mask-masked-attention"].check(text)
    assert not r.stated and 1 in r.covered, text


def test_m1_the_fronted_phrase_negates_only_itself() -> None:
    (c,) = clauses("Without the scaling, the softmax saturates.")
    assert c.find(("@saturate",)) == [(3, True)]  # the main clause still states its point
    assert c.find(("scale",)) == [(1, False)]
    (c,) = clauses("Without a cache, each new token re-runs the whole sequence.")
    assert [ok for _, ok in c.find(("@sequence",))] == [True]
    assert [ok for _, ok in c.find(("@cache",))] == [False]  # "a cache" itself stays negated
    (c,) = clauses("In multi-head attention, the heads do not share projections.")
    assert not any(ok for _, ok in c.find(("share",)))  # a negation of the main clause still negates
    # a temporal clause with a passive opens its clause too (review 7: "After the softmax has been applied,
    # …"); a condition or a modal before the comma stays a clause of its own
    assert len(clauses("After the softmax is applied, the weights are fixed.")) == 1
    assert len(clauses("If the softmax is applied, the weights are fixed.")) == 2
    assert len(clauses("After we would apply the softmax, the weights are fixed.")) == 2


# M2: "more heads at the same cost" is the card's point, not the myth ---------------------------------------
@pytest.mark.parametrize("text", [
    "More heads give more patterns for the same cost.",
    "More heads give more patterns for the same compute.",
    "More heads at the same compute give more independent patterns.",
    "Using more heads costs no more parameters or matmul FLOPs.",
    "More heads cost nothing extra in parameters or FLOPs.",
    "多头和单头的计算量相同。",
])
def test_m2_same_cost_is_not_the_more_heads_myth(text: str) -> None:
    assert not _stated("mh-why-multi-head", text), text


@pytest.mark.parametrize("text", ["More heads means more computation.", "I think more heads means more computation.",
                                  "头越多计算量越大。", "我觉得头越多计算量越大。"])
def test_m2_the_myth_is_still_caught(text: str) -> None:
    assert _stated("mh-why-multi-head", text), text


# M3: "layer … by" is not a layer-by-layer pairing ---------------------------------------------------------
@pytest.mark.parametrize("text", [
    "In each layer the score matrix is target length by source length.",
    "Each decoder layer has an m by n score matrix.",
    "Each cross-attention layer projects the encoder output by its own W_K and W_V.",
    "The encoder output is fixed, so each layer's keys and values are cached and reused by every step.",
    "Layer by layer, the decoder reads the same final encoder output.",
    "每个解码器层用各自相应的投影矩阵读取编码器的最终输出。",
])
def test_m3_cross_attention_answers_are_not_the_pairing_myth(text: str) -> None:
    assert not _stated("mask-cross-attention", text), text


@pytest.mark.parametrize("text", [
    "Each decoder layer attends to the output of the matching encoder layer.",
    "每个解码器层关注对应编码器层的输出。",
    "The decoder layers are paired with the encoder layers layer by layer.",
])
def test_m3_the_pairing_myth_is_still_caught(text: str) -> None:
    assert _stated("mask-cross-attention", text), text


# M4: 近似 up to rounding; FLOPs that drop only in the projections -------------------------------------------
@pytest.mark.parametrize("text", ["两者的结果在数值上近似一致（只差浮点舍入）。", "结果近似相等，只差舍入误差。"])
def test_m4a_approximately_equal_up_to_rounding(text: str) -> None:
    r = CARDS["mask-kv-cache"].check(text)
    assert not r.stated and 3 in r.covered, text


@pytest.mark.parametrize("text", ["KV cache 是用精度换速度的近似方法。", "KV cache 只是一种近似。"])
def test_m4a_the_approximation_myth_is_still_caught(text: str) -> None:
    assert _stated("mask-kv-cache", text), text


def test_m4b_flops_drop_only_in_the_projections() -> None:
    r = CARDS["mh-mqa-cost"].check("The FLOPs drop by a factor h/g only in the K and V projections.")
    assert not r.stated and 0 in r.covered
    assert _stated("mh-mqa-cost", "MQA cuts the FLOPs by a factor of h.")


# L1: differential_attention validates λ ------------------------------------------------------------------
def _qkv(h: int = 4, n: int = 4, d: int = 8):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, h, n, d, generator=g, dtype=torch.float64) for _ in range(3))
    return q, k, v


def test_l1_lambda_per_head_must_broadcast_over_rows() -> None:
    q, k, v = _qkv()
    lam = torch.tensor([0.1, 0.5, 0.8, 0.3], dtype=torch.float64)
    with pytest.raises(ValueError, match="lam"):
        differential_attention(q, k, q.flip(-1), k, v, lam)  # (h,) would broadcast over the keys (n_k == h)
    _, w = differential_attention(q, k, q.flip(-1), k, v, lam[:, None, None], return_weights=True)
    torch.testing.assert_close(w.sum(-1), (1 - lam)[None, :, None].expand(1, 4, 4))
    for bad in (math.nan, math.inf, torch.tensor(math.nan), True, "0.5"):
        with pytest.raises(ValueError, match="lam"):
            differential_attention(q, k, q, k, v, bad)  # type: ignore[arg-type]


def test_l1_fully_masked_row_sums_to_zero_as_documented() -> None:
    q, k, v = _qkv()
    mask = torch.ones(4, 4, dtype=torch.bool)
    mask[0] = False
    _, w = differential_attention(q, k, q.flip(-1), k, v, 0.8, mask=mask, return_weights=True)
    assert float(w[..., 0, :].abs().max()) == 0.0
    torch.testing.assert_close(w[..., 1:, :].sum(-1), torch.full((1, 4, 3), 0.2, dtype=torch.float64))
    assert "visible key" in (differential_attention.__doc__ or "")


# L2: the 3-D mask reading is documented ------------------------------------------------------------------
def test_l2_three_d_mask_reading_is_documented() -> None:
    from selfattention.masks import to_torch_mha_masks

    doc = to_torch_mha_masks.__doc__ or ""
    assert "mask[:, None]" in doc and "per *head*" in doc


# L3: the spoken answer of mask-fully-masked-row earns its key point 1 -----------------------------------
def test_l3_fully_masked_row_spoken_earns_where_it_happens() -> None:
    c = CARDS["mask-fully-masked-row"]
    r = c.check(c.spoken["en"])
    assert 1 in r.covered and not r.stated


# L5 / L6: wording -----------------------------------------------------------------------------------------
def test_l5_glossary_says_d_k_is_usually_d_model_over_h() -> None:
    row = next(x for x in (ROOT / "glossary.md").read_text(encoding="utf-8").splitlines()
               if x.startswith("| multi-head attention (MHA)"))
    assert "usually" in row


def test_l6_split_heads_short_does_not_tie_reshape_to_contiguous() -> None:
    c = CARDS["mh-split-heads"]
    assert "contiguous and reshape" not in c.short["en"] and "view" in c.short["en"]
    assert "view" in c.short["zh"]
