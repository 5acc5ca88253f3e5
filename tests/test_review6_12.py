"""Review round 6, chapter 12 (reviews6/ch12.md): M1-M5 and L8."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfattention.interview.bank import load_cards

ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "chapters" / "12_attention_at_scale.ipynb"


@pytest.fixture(scope="module")
def cards():
    return {c.id: c for c in load_cards()}


@pytest.fixture(scope="module")
def cells():
    return ["".join(c["source"]) for c in json.loads(NB.read_text(encoding="utf-8"))["cells"]]


# M1: "decoding is memory-bound" carries its condition (MHA/GQA); absorbed MLA sits between the ridges
def test_m1_decode_memory_bound_is_conditioned(cells, cards):
    text = "\n".join(cells)
    assert "decoding is memory-bound\n" not in text
    assert "### Serving: a long prefill is compute-bound, decoding with MHA/GQA is memory-bound" in text
    assert "Why is decoding with an MHA/GQA KV cache memory-bound on a GPU?" in text
    assert "decoding with MHA/GQA is memory-bound per sequence" in text
    assert "bytes, not FLOPs (MHA/GQA;" in text
    assert 'assert ridge["A100"] < table["MLA (DeepSeek-V2)", "decode"] < ridge["H100"]' in text
    assert "past the A100's\nridge ({glue:text}`ridge_a100`) and under the H100's" in text
    glossary = (ROOT / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| prefill / decode"))
    assert "(memory-bound for MHA/GQA)" in row
    spoken = cards["scale-cheap-enough"].spoken
    assert "with MHA, does roughly one" in spoken["en"]
    assert "用 MHA 时每读一个数只做约一次乘加" in spoken["zh"]


def test_m1_mla_decode_between_ridges():
    from selfattention.intensity import attention_intensity

    mla = attention_intensity("decode", 4096, 128, d_latent=512, d_rope=64)["intensity"]
    assert 312 / 2.039 < mla < 989 / 3.35
    assert abs(mla - 228.3) < 0.5


NOT_FLAGGED = [
    # M2: per-layer window statements
    (
        "scale-sliding-window",
        "A token only attends to its w neighbours, but after L layers the receptive field is L(w-1)+1.",
    ),
    (
        "scale-sliding-window",
        "A token only attends to w tokens directly, but indirectly it can see L(w-1)+1.",
    ),
    ("scale-sliding-window", "Directly, a token only sees w tokens; through the layers it sees L(w-1)+1."),
    (
        "scale-sliding-window",
        "Each token only attends to the last w tokens directly; stacking layers extends the reach.",
    ),
    ("scale-sliding-window", "In a layer a token only attends to the previous w tokens."),
    ("scale-sliding-window", "A token only sees the last w tokens in any given layer."),
    ("scale-sliding-window", "In one attention step a token only sees w tokens."),
    ("scale-sliding-window", "每个 token 直接只能看到最近 w 个 token，但层数叠加后感受野是 L(w-1)+1。"),
    # M3: MLA's cache equals GQA with 2.25 groups; absorbed decode is MQA-shaped
    ("scale-mla", "MLA's KV cache is equal to GQA with only 2.25 groups."),
    ("scale-mla", "MLA's cache is the same as GQA with 2.25 groups."),
    ("scale-mla", "MLA's cache is basically the size of GQA with 2.25 groups."),
    ("scale-mla", "MLA 的缓存量就是 2.25 组 GQA 的大小。"),
    ("scale-mla", "In cache size MLA is basically GQA with 2.25 groups, but each head keeps its own keys."),
    ("scale-mla", "At decode time MLA is basically MQA with a single 576-wide head."),
    ("scale-mla", "In absorbed form MLA is essentially MQA: every query head reads the same latent."),
    ("scale-mla", "吸收之后 MLA 的解码本质上就是 MQA，所有头共享一个潜向量。"),
    ("scale-mla", "解码时 MLA 就是 MQA 模式：128 个头读同一份缓存。"),
    # M4: several queries per cache read
    (
        "scale-prefill-decode",
        "Decoding becomes compute bound when several queries share one cache read,"
        " as in speculative decoding.",
    ),
    ("scale-prefill-decode", "With speculative decoding, attention becomes more compute-bound."),
    (
        "scale-prefill-decode",
        "Decoding becomes compute-bound only with speculative decoding or shared prefixes.",
    ),
    ("scale-prefill-decode", "解码只有在投机解码或共享前缀时才会变成计算受限。"),
    ("scale-prefill-decode", "Decoding with MLA becomes compute bound since all heads read one cache."),
    # M5: the correct merge
    ("scale-flash-decoding", "A plain average of the parts is wrong; each is weighted by exp(L_c - L)."),
    ("scale-flash-decoding", "The chunk outputs are not averaged but weighted by their log-sum-exp."),
    ("scale-flash-decoding", "直接平均各块的输出是错的，要按 log-sum-exp 加权。"),
]

FLAGGED = [
    ("scale-sliding-window", "With a sliding window a token can only ever use the last w tokens.", 2),
    ("scale-sliding-window", "A token can only see w tokens.", 2),
    ("scale-sliding-window", "After L layers the receptive field remains w.", 2),
    ("scale-sliding-window", "Stacking layers does not help: a token still only sees w tokens back.", 2),
    ("scale-mla", "MLA is just GQA with fewer heads.", 0),
    ("scale-mla", "MLA is just MQA.", 0),
    ("scale-mla", "MLA is basically GQA.", 0),
    ("scale-mla", "MLA is essentially GQA with 2.25 groups.", 0),
    ("scale-mla", "MLA 就是头更少的 GQA。", 0),
    ("scale-prefill-decode", "A big enough batch makes decoding compute-bound.", 3),
    ("scale-prefill-decode", "With a big batch, decoding becomes compute bound.", 3),
    ("scale-prefill-decode", "batch 足够大就能让解码变成计算受限。", 3),
    ("scale-prefill-decode", "With a larger batch attention becomes compute-bound too.", 3),
    ("scale-flash-decoding", "The chunks' outputs are combined with a plain average.", 3),
    ("scale-flash-decoding", "各块的输出直接平均就行。", 3),
    ("scale-flash-decoding", "Each chunk is merged by a plain average of the partial outputs.", 3),
    ("scale-flash-decoding", "Flash-Decoding averages the chunk outputs.", 3),
]


@pytest.mark.parametrize(("card", "text"), NOT_FLAGGED)
def test_correct_statements_are_not_flagged(cards, card, text):
    r = cards[card].check(text)
    assert not r.stated, r.stated
    assert not r.blocked, r.blocked


@pytest.mark.parametrize(("card", "text", "kp"), FLAGGED)
def test_myths_are_flagged_and_block(cards, card, text, kp):
    r = cards[card].check(text)
    assert r.stated, text
    assert kp in r.blocked and kp not in r.covered


def test_m5_plain_average_earns_no_key_point_3(cards):
    c = cards["scale-flash-decoding"]
    for text in ("The chunks' outputs are combined with a plain average.", "各块的输出直接平均就行。"):
        assert 3 not in c.check(text).covered
    assert 3 in c.check("It is not a plain average: each part is weighted by exp(L_c - L).").covered
    assert 3 in c.check("不能直接平均各部分。").covered


# L8: the CPU ratio range was never computed; the cache size is computed and glued
def test_l8_no_uncomputed_numbers_in_cell_21(cells):
    text = "\n".join(cells)
    assert "0.8 to 4" not in text
    assert "(134 MB" not in text
    assert "{glue:text}`decode_cache_mb` MB" in text
    assert 'glue("decode_cache_mb", round(cache_mb), display=False)' in text


# L6: the FLOPs myth's first pattern now carries the second one's memory-traffic exclusions
def test_l6_memory_traffic_sentence_not_flagged(cards):
    text = "FlashAttention reduces the memory traffic that dominated compute time."
    r = cards["scale-cheap-enough"].check(text)
    assert not r.stated and not r.blocked
    assert cards["scale-cheap-enough"].check("FlashAttention reduces the FLOPs of attention.").stated
