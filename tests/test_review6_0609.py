"""Review round 6, chapters 06-09 (`reviews6/ch06-09.md`): the checker findings and the 510-token sum.

Each finding lists the sentences a card must flag (the myth, in the words the chapters give it) and the
correct ones it must leave alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfattention.interview.bank import get_card, load_cards

CARDS = load_cards()
ROOT = Path(__file__).resolve().parents[1]

FLAGGED = [
    # M1: the registry sentence with the condition both chapters attach to it (06 c50, 07 c36)
    ("rnn-why-attention", "Attention is cheaper than an RNN when n < d."),
    ("rnn-why-attention",
     "Attention is cheaper than an RNN when the sequence is shorter than the model width."),
    ("rnn-why-attention", "Self-attention is cheaper than a recurrent layer when n is smaller than d."),
    ("rnn-why-attention", "Self-attention is cheaper than an RNN layer when n < d."),
    ("rnn-why-attention", "When n < d, attention is cheaper than an RNN."),
    ("rnn-why-attention", "n < d 时注意力比 RNN 计算量小。"),
    ("rnn-why-attention", "注意力计算量比 RNN 小。"),
    # M1: rnn-complexity now refers to the myth (its key point 0 is the correction)
    ("rnn-complexity", "Attention is cheaper than an RNN when n < d."),
    ("rnn-complexity", "Attention is cheaper than an RNN."),
    ("rnn-complexity", "I think attention is cheaper than an RNN."),
    ("rnn-complexity", "注意力比 RNN 计算量小。"),
    ("rnn-complexity", "我觉得注意力比 RNN 计算量小。"),
    # L1: chapter 6's misconception heading (c46), EN and 中文
    ("cx-flashattention", "FlashAttention makes attention cheaper in FLOPs."),
    ("cx-flashattention", "FlashAttention makes attention cheaper in FLOPs (or linear in n)."),
    ("cx-flashattention", "FlashAttention makes attention linear in n."),
    ("cx-flashattention", "FlashAttention turns the quadratic attention into a linear one."),
    ("cx-flashattention", "FlashAttention 让注意力变成线性复杂度。"),
    ("cx-flashattention", "FlashAttention 让注意力的计算量更便宜。"),
    ("cx-time-space", "FlashAttention makes attention linear in n."),
    ("cx-time-space", "FlashAttention makes attention cheaper in FLOPs."),
    ("cx-time-space", "FlashAttention reduces the O(n^2) compute."),
    ("scale-cheap-enough", "FlashAttention makes attention linear in n."),
    ("scale-flash-backward", "FlashAttention makes attention cheaper in FLOPs."),
    # L3: the sparse myth is still caught after the sliding-window exclusion
    ("cx-dynamic-sparse", "NSA is exact attention."),
    ("cx-dynamic-sparse", "MoBA computes exact attention, like FlashAttention."),
]

NOT_FLAGGED = [
    # M1: the correct statements
    ("rnn-why-attention",
     "Attention is cheaper than an LSTM only when n < 2d and never cheaper than a vanilla RNN."),
    ("rnn-why-attention", "Attention is cheaper than an LSTM when n < 2d."),
    ("rnn-why-attention",
     "Attention is cheaper than an RNN in wall-clock time on GPUs because it parallelises."),
    ("rnn-complexity",
     "Attention is cheaper than an LSTM only when n < 2d and never cheaper than a vanilla RNN."),
    ("rnn-complexity",
     "Counting the projections, attention is never cheaper than a vanilla RNN layer and cheaper than an LSTM "
     "only when n < 2d."),
    ("rnn-complexity", "算上投影，注意力从不比普通 RNN 层便宜，只有 n < 2d 时才比 LSTM 便宜。"),
    # L1: FlashAttention's memory is linear; its FLOPs are not lower; it is not linear attention
    ("cx-flashattention",
     "FlashAttention needs linear memory in n, not quadratic, but the FLOPs are unchanged."),
    ("cx-flashattention", "FlashAttention uses memory linear in n."),
    ("cx-flashattention", "FlashAttention's extra memory is linear in the sequence length."),
    ("cx-flashattention", "FlashAttention 的显存是线性的，FLOPs 不变。"),
    ("cx-flashattention", "FlashAttention is not cheaper in FLOPs; it is cheaper in memory traffic."),
    ("cx-flashattention", "FlashAttention is cheaper in memory traffic, not in FLOPs."),
    ("cx-flashattention", "FlashAttention is exact, unlike linear attention."),
    ("cx-flashattention", "FlashAttention is not linear attention; it is exact attention with tiling."),
    ("cx-flashattention", "FlashAttention keeps the quadratic FLOPs; only its memory is linear in n."),
    ("cx-flashattention", "FlashAttention does not make attention linear in n."),
    ("cx-flashattention", "FlashAttention 不会让注意力变成线性复杂度。"),
    ("cx-flashattention", "FlashAttention 的计算量不变，只是显存变成线性。"),
    # L3: the two false alarms
    ("cx-dynamic-sparse", "NSA's sliding-window branch computes exact attention over the recent tokens."),
    ("cx-dynamic-sparse", "NSA 的滑动窗口分支对最近的 token 做精确注意力。"),
    ("rnn-why-attention", "注意力在短序列上计算量很小，开销主要在投影。"),
]


@pytest.mark.parametrize(("cid", "sentence"), FLAGGED)
def test_the_myth_is_flagged(cid: str, sentence: str) -> None:
    assert get_card(CARDS, cid).check(sentence).stated, (cid, sentence)


@pytest.mark.parametrize(("cid", "sentence"), NOT_FLAGGED)
def test_the_correct_statement_is_not_flagged(cid: str, sentence: str) -> None:
    assert not get_card(CARDS, cid).check(sentence).stated, (cid, sentence)


def test_rnn_complexity_refers_to_the_cheaper_than_rnn_myth() -> None:
    card = get_card(CARDS, "rnn-complexity")
    assert "attention-cheaper-than-rnn" in {m.myth for m in card.tells}


def test_dynamic_sparse_counts_blocks_for_moba_and_nsa() -> None:
    """L4: for MoBA and NSA k counts blocks (k·B keys are read), for DSA tokens; "about k keys" mixed them."""
    card = get_card(CARDS, "cx-dynamic-sparse")
    for text in (card.short["en"], card.spoken["en"], card.key_points["en"][4]):
        assert "about k keys" not in text and "blocks" in text
    for text in (card.short["zh"], card.spoken["zh"], card.key_points["zh"][4]):
        assert "约 k 个 key" not in text and "块" in text


def test_dynamic_sparse_zh_spoken_says_what_the_en_says() -> None:
    """L8: the 中文 spoken answer had dropped the Routing Transformer, NSA's native training and the
    compressed branch's scoring of every block summary."""
    zh = get_card(CARDS, "cx-dynamic-sparse").spoken["zh"]
    assert "Routing Transformer" in zh and "预训练" in zh and "块摘要打分" in zh


def test_truncation_loss_counts_510_text_tokens() -> None:
    """L6: 06 c44 says truncation keeps 510 text tokens; the glued loss was computed with 512 (60.6 %)."""
    nb = json.loads((ROOT / "chapters" / "06_complexity.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "c06longin-run")
    src = "".join(cell["source"])
    assert "(1300 - 512)" not in src and "512 - 2" in src
    records = [
        o["data"]["application/papermill.record/text/plain"]
        for o in cell.get("outputs", [])
        if o.get("metadata", {}).get("scrapbook", {}).get("name") == "long_trunc_lost_pct"
    ]
    assert records == ["60.8"], records
