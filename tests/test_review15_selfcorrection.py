"""Review s11-r12 chapters 06-09 (reviews/2026-12-03/s11-r12-ch06-09.md), the two systemic findings:

- M1: a myth followed by its own correction was flagged unless a belief frame or a "?" came first ("X, but Y",
  "X, but actually Y", "X; in fact, Y", "X，但Y", "X，其实Y"; spoken self-corrections "X — no, Y", "X. No: Y",
  "X。不，Y"). A later correcting clause of the sentence (or the next sentence when it opens with "No", "Actually",
  "In fact", 不, 其实 …) that ticks a key point the myth blocks, or restates the myth's own correction, now takes
  the myth back; a bare "no" / "not really" / 不 / 其实不是 clause rejects the claim before it.
- M2: "I think ⟨myth⟩, but ⟨anything⟩" was never flagged (the speaker's own belief read as a frame); now only
  others' beliefs and past or hypothetical ones ("many people think", "I thought", "you might think") frame.
  L6 (round-10 L7 remainder): "Contrary to what people think, X" states X.

The registry rows are generated: for every card that refers to a myth, the myth's own claim (first sentence of
its en / zh) is joined to its own correction (the second sentence) in five ways (NOT flagged), to an unrelated
clause (flagged), and to a true statement of the card that the myth does not contradict, a key point it does not
block (flagged). Only myths whose bare claim the card flags, and key points whose own statement ticks no blocked
point, take part (the rows test the joining, not the patterns).
"""

from __future__ import annotations

import re

from checker_support import card_map, checker_tests, stated

from selfattention.interview.language import split_misconception
from selfattention.interview.matcher import restates

CHAPTERS = ("06", "07", "08", "09")


def _lc(s: str) -> str:
    """Lower-case the first letter unless the first word is a name ("FlashAttention", "ALiBi", "RoPE", "T5")."""
    first = s.split(" ", 1)[0]
    if len(first) > 1 and any(ch.isupper() or ch.isdigit() for ch in first[1:]):
        return s
    return s[:1].lower() + s[1:]


def _pairs():
    """(card, en claim, en correction, zh claim, zh correction, blocks, kp statements) per card-myth pair."""
    for card in card_map().values():
        if str(card.chapter)[:2] not in CHAPTERS:
            continue
        for text, tell in zip(card.misconceptions, card.tells, strict=True):
            x, y = split_misconception(text["en"], "en")
            xz, yz = split_misconception(text["zh"], "zh")
            yield card, x.rstrip("."), y.rstrip("."), xz.rstrip("。"), yz.rstrip("。"), tell


REG_CORRECTED, REG_UNRELATED, REG_OTHER_FACT, I_THINK, FRAMES_KEPT, SKIPPED_AS_CORRECTION = [], [], [], [], [], []
for card, x, y, xz, yz, tell in _pairs():
    j = card.tells.index(tell)
    en_ok = j in card.check(x + ".").stated
    zh_ok = j in card.check(xz + "。").stated
    if en_ok:
        REG_CORRECTED += [
            (card.id, f"{x}, but {_lc(y)}."),
            (card.id, f"{x}, but actually {_lc(y)}."),
            (card.id, f"{x}; in fact, {_lc(y)}."),
            (card.id, f"I think {_lc(x)}, but actually {_lc(y)}."),
        ]
        REG_UNRELATED += [
            (card.id, f"{x}, but it is widely discussed."),
            (card.id, f"{x}, but this comes up in interviews."),
        ]
        I_THINK += [
            (card.id, f"I think {_lc(x)}, but it is widely discussed."),
            (card.id, f"I believe {_lc(x)}, but I may be wrong."),
            (card.id, f"I think that {_lc(x)}, but that is a detail."),
        ]
        FRAMES_KEPT += [
            (card.id, f"Many people think {_lc(x)}, but {_lc(y)}."),
            (card.id, f"I thought {_lc(x)}, but {_lc(y)}."),
        ]
    if zh_ok:
        REG_CORRECTED += [(card.id, f"{xz}，但{yz}。"), (card.id, f"{xz}，其实{yz}。"), (card.id, f"我认为{xz}，但{yz}。")]
        REG_UNRELATED += [(card.id, f"{xz}，但这个问题很常见。"), (card.id, f"{xz}，其实面试里经常问到。")]
        I_THINK += [(card.id, f"我觉得{xz}，但是这个问题很常见。"), (card.id, f"我认为{xz}，不过我不确定。")]
    # a true statement of the card that the myth does not contradict: a key point it does not block, whose own
    # statement ticks no blocked point and states no myth of the card
    for i, (kp_en, kp_zh) in enumerate(card.point_texts):
        if i in tell.blocks:
            continue
        for lang, claim, ok, kp, fmt in (
            ("en", x, en_ok, kp_en, "{x}, but {kp}."),
            ("zh", xz, zh_ok, kp_zh, "{x}，但{kp}。"),
        ):
            if not ok:
                continue
            alone = card.check(kp)
            if alone.stated or i not in alone.covered or set(alone.covered) & set(tell.blocks):
                continue
            # the key point restates (a sentence of) the myth's own correction: it is no other fact
            sentences = [x for corr in tell.corrections for x in re.split(r"(?<=[.;。；])\s*", corr) if x.strip()]
            # ... or is that correction in other words: dot-product-faster-because-fewer-flops' own "!!>" group
            # (element-wise tanh over the n x n x d_a tensor) spares it by design
            if restates([kp], sentences) or (tell.myth, i) in {("dot-product-faster-because-fewer-flops", 3)}:
                SKIPPED_AS_CORRECTION.append((card.id, kp))
                continue
            kp = kp.rstrip(".。")
            REG_OTHER_FACT.append((card.id, fmt.format(x=claim, kp=_lc(kp) if lang == "en" else kp)))


# ---- hand-written: the reviewer's sentences (cvar.py, cvar_zh.py, probes.py "C", ithink.py, the M1/M2 examples)
_SPOKEN = [
    ('cx-long-context-memory', "Long-context inference is limited by the n by n matrix", "fused kernels never store it, so the KV cache is the limit"),
    ('cx-long-inputs-encoder', "Sliding chunks give every token the whole document as context", "each chunk is encoded on its own"),
    ('rnn-why-attention', "Attention is cheaper than an RNN", "in FLOPs it costs 8nd^2 + 4n^2 d against 4nd^2"),
    ('rnn-positional-information', "Self-attention is permutation-invariant", "it is equivariant: the outputs move with the inputs"),
    ('rnn-inference-cost', "Transformers are faster than RNNs at everything", "per generated token at long context an RNN step is cheaper"),
    ('rnn-seq2seq-bottleneck', "Bahdanau attention gives one context vector for the whole sentence", "that is plain seq2seq; Bahdanau recomputes it at each step"),
    ('bias-k-bias-redundant', "Since b_K cancels, b_Q must cancel too", "b_Q · k_j varies across keys"),
    ('bias-rope-alibi', "RoPE adds a position vector to the embeddings", "it rotates queries and keys inside each attention layer"),
    ('bias-mask-conventions', "A boolean True always means masked", "in SDPA it means may attend"),
    ('dva-dot-vs-additive', "Dot-product attention has a lower complexity than additive attention", "both are O(n^2 d); the difference is constant factors"),
    ('dva-variants', "Scaled dot-product attention is less expressive than general attention", "its projections already give W = W_Q W_K^T"),
    ('dva-cost', "Additive attention projects every query-key pair", "the projections are per vector, only the add and tanh are per pair"),
    ('dva-additive-scaling', "Additive attention also needs 1/sqrt(d) because its input is d-dimensional", "the tanh bounds the score independent of d"),
    ('cx-flashattention', "FlashAttention is an approximation", "it computes exact attention"),
    ('cx-time-space', "FlashAttention reduces the O(n^2) compute", "the FLOPs are the same; it saves memory traffic"),
    ('cx-online-softmax', "Blockwise softmax is an approximation", "the rescaling makes it exact"),
    ('bias-alibi', "ALiBi slopes are learned", "they are a fixed geometric sequence"),
]
_SPOKEN_FORMS = [
    "{m} — no, {c}.", "{m}. No: {c}.", "{m} — well, not really: {c}.", "{m}; actually, no: {c}.",
    "{m}, although in fact {c}.", "{m}, but actually {c}.",
    # spared before the fix, kept
    "{m}? No, {c}.", "{m}, but that is wrong: {c}.", "{m}? Not quite: {c}.", "People say {ml}, but {c}.",
]
SPOKEN = [(c, f.format(m=m, c=co, ml=_lc(m))) for c, m, co in _SPOKEN for f in _SPOKEN_FORMS]
SPOKEN_BARE = [(c, m + ".") for c, m, _ in _SPOKEN]  # each bare claim is flagged (the rows above test the joining)
SPOKEN_UNRELATED = [(c, f"{m}, but {u}.") for c, m, _ in _SPOKEN for u in ("it is widely discussed", "I learned that from a blog")]

_SPOKEN_ZH = [
    ('cx-flashattention', "FlashAttention 是一种近似方法", "它计算的是精确的注意力"),
    ('rnn-positional-information', "自注意力是置换不变的", "它是置换等变的"),
    ('bias-alibi', "ALiBi 的斜率是学出来的", "它们是固定的等比数列"),
    ('cx-online-softmax', "分块 softmax 是近似", "缩放修正使它是精确的"),
    ('dva-dot-vs-additive', "点积注意力的复杂度比加性注意力低", "两者都是 O(n² d)"),
    ('bias-mask-conventions', "布尔值 True 总是表示被屏蔽", "这取决于接口"),
    ('rnn-why-attention', "注意力比 RNN 计算量小", "一层注意力是 8nd² + 4n²d FLOPs，比普通 RNN 多"),
    ('cx-kv-cache-memory', "cache 大小取决于 query 头数", "它取决于 key/value 头数"),
]
_SPOKEN_ZH_FORMS = ["{m}。不，{c}。", "{m}——不对，{c}。", "{m}，不对，{c}。", "{m}？不，{c}。", "{m}。其实不是，{c}。", "{m}，这是误解：{c}。"]
SPOKEN_ZH = [(c, f.format(m=m, c=co)) for c, m, co in _SPOKEN_ZH for f in _SPOKEN_ZH_FORMS]
SPOKEN_ZH_BARE = [(c, m + "。") for c, m, _ in _SPOKEN_ZH]
SPOKEN_ZH_UNRELATED = [(c, f"{m}，但这个问题很常见。") for c, m, _ in _SPOKEN_ZH]

FRESH_CORRECTED = [  # probes.py "C" rows written before the patterns were read
    ('cx-time-space', "Attention is always the most expensive part of a Transformer — no, only once n passes about 6 d_model."),
    ('cx-time-space', "People say FlashAttention reduces the compute, but it actually does the same FLOPs and saves memory traffic."),
    ('cx-long-context-memory', "Long-context inference is limited by the n by n matrix, except that fused kernels never store it, so really the KV cache is the limit."),
    ('cx-flashattention', "Some think FlashAttention is an approximation, but it computes exact attention."),
    ('cx-flashattention', "FlashAttention is an approximation, or changes the model as sparse attention does, but it computes exact attention."),
    ('cx-online-softmax', "Blockwise softmax looks like an approximation since each block is normalised separately, but the rescaling by exp(m - m') makes it exact."),
    ('cx-long-inputs-encoder', "Sliding chunks give every token the whole document as context — actually no, each chunk is encoded separately."),
    ('rnn-why-attention', "Attention is cheaper than an RNN — well, not in FLOPs: it costs 8nd^2 + 4n^2 d against 4nd^2."),
    ('rnn-drawbacks', "Attention is wasteful on short sequences? No: for short n it is cheap and the FFN dominates."),
    ('rnn-positional-information', "Self-attention is permutation-invariant — more precisely, equivariant: the outputs move with the inputs."),
    ('rnn-inference-cost', "Transformers are faster than RNNs at everything, except generation at long context, where an RNN step is cheaper."),
    ('rnn-seq2seq-bottleneck', "Bahdanau attention gives one context vector for the whole sentence — no, that is plain seq2seq; Bahdanau recomputes it at each step."),
    ('bias-k-bias-redundant', "Since b_K cancels, b_Q must cancel too — no, b_Q · k_j varies across keys."),
    ('bias-alibi', "ALiBi slopes are learned, I thought, but they are a fixed geometric sequence."),
    ('bias-alibi', "I thought ALiBi slopes were learned, but they are fixed."),
    ('bias-rope-alibi', "RoPE adds a position vector to the embeddings — no, it rotates queries and keys inside each attention layer."),
    ('bias-mask-conventions', "A boolean True always means masked — except in SDPA, where it means may attend."),
    ('dva-dot-vs-additive', "Dot-product attention has a lower complexity than additive — no, both are O(n^2 d); the difference is constant factors."),
    ('dva-variants', "Scaled dot-product attention is less expressive than general attention — not really, its projections already give W = W_Q W_K^T."),
    ('dva-cost', "Additive attention projects every query-key pair — well, no: the projections are per vector, only the add and tanh are per pair."),
    ('dva-additive-scaling', "Additive attention also needs 1/sqrt(d) because its input is d-dimensional — no, the tanh bounds the score independent of d."),
    ('bias-alibi', "I think ALiBi slopes are learned, but actually they are a fixed geometric sequence."),
    ('cx-flashattention', "I think FlashAttention is an approximation, but in fact it computes exact attention."),
    ('cx-flashattention', "FlashAttention is an approximation. Actually, no: it computes exact attention."),
    ('cx-flashattention', "FlashAttention 是一种近似方法。不，它计算的是精确的注意力。"),
]

HAND_FLAGGED = [
    # "myth, but <unrelated>" (round-10 M1 rows and the reviewer's)
    ('cx-flashattention', "FlashAttention is an approximation, but it is fast."),
    ('cx-flashattention', "FlashAttention is approximate, but it is widely used in practice."),
    ('bias-alibi', "ALiBi slopes are learned, but they are fixed after training."),
    ('cx-time-space', "Attention always dominates the compute of a Transformer, but I learned that from a blog."),
    ('cx-kv-cache-memory', "The KV cache grows with the number of query heads, but that came up in an interview I did."),
    # "myth, but <a different true fact>"
    ('cx-flashattention', "FlashAttention is an approximation, but it keeps the softmax statistics in SRAM."),
    ('bias-alibi', "ALiBi slopes are learned, but the penalty grows linearly with distance."),
    # M2: the speaker's own belief (ithink.py, the M2 examples)
    ('cx-flashattention', "I think FlashAttention is an approximation, but a very good one."),
    ('cx-flashattention', "I believe FlashAttention is an approximation, but a very good one."),
    ('bias-alibi', "I think that ALiBi slopes are learned, but that is a detail."),
    ('dva-dot-vs-additive', "I think dot-product attention is asymptotically cheaper than additive attention, but both are old ideas."),
    ('cx-flashattention', "I'd say FlashAttention is an approximation, but a good one."),
    ('cx-flashattention', "我觉得 FlashAttention 是一种近似方法，但是效果很好。"),
    # L6: a fronted "contrary to …" does not frame the claim after it
    ('cx-flashattention', "Contrary to what people think, FlashAttention is an approximation."),
    ('cx-flashattention', "Contrary to popular belief, FlashAttention is an approximation."),
    ('cx-flashattention', "和很多人想的不同，FlashAttention 是一种近似方法。"),
    # a bare "no" answers a question or rejects a claim, nothing else: a later claim stays a claim
    ('cx-flashattention', "No, FlashAttention is an approximation."),
    ('cx-flashattention', "Is it exact? No, FlashAttention is an approximation."),
]

HAND_NOT_FLAGGED = [
    ('cx-flashattention', "Contrary to what people think, FlashAttention is not an approximation."),
    ('cx-flashattention', "Many people think FlashAttention is an approximation, but it computes exact attention."),
    ('cx-flashattention', "You might think FlashAttention is an approximation, but it computes exact attention."),
    ('cx-flashattention', "FlashAttention computes exact attention; no, it is not an approximation."),
]

# still flagged: a hand-written correction that restates too little of the registry's and ticks no blocked point
OPEN = [
    # "except …" limits rather than corrects: a blocked point after it does not take the myth back (a bare
    # "but" / "though" / "except" needs the registry's own correction, near word for word)
    ('cx-long-context-memory', "Long-context inference is limited by the n by n matrix, except that fused kernels never store it, so really the KV cache is the limit."),
    ('bias-mask-conventions', "A boolean True always means masked — except in SDPA, where it means may attend."),
    ('rnn-seq2seq-bottleneck', "Bahdanau attention gives one context vector for the whole sentence, although in fact that is plain seq2seq; Bahdanau recomputes it at each step."),
    ('rnn-seq2seq-bottleneck', "Bahdanau attention gives one context vector for the whole sentence, but actually that is plain seq2seq; Bahdanau recomputes it at each step."),
]

_ROWS_NOT = [*REG_CORRECTED, *FRAMES_KEPT, *SPOKEN, *SPOKEN_ZH, *FRESH_CORRECTED, *HAND_NOT_FLAGGED]
_ROWS_FLAG = [
    *REG_UNRELATED, *REG_OTHER_FACT, *I_THINK, *SPOKEN_BARE, *SPOKEN_UNRELATED, *SPOKEN_ZH_BARE,
    *SPOKEN_ZH_UNRELATED, *HAND_FLAGGED,
]

_ROWS_NOT = [r for r in _ROWS_NOT if r not in OPEN]
test_not_flagged, test_flagged, test_open = checker_tests(
    _ROWS_NOT, _ROWS_FLAG, OPEN, reason="an 'except …' limitation, or a correction that restates too little of the registry's"
)


def test_generated_rows_cover_every_registry_myth():
    """The generator found its rows (a loader change that empties them fails here, not silently)."""
    assert len(REG_CORRECTED) >= 100 and len(REG_UNRELATED) >= 50 and len(REG_OTHER_FACT) >= 30
    assert len(I_THINK) >= 60
    # the similarity that takes a myth back must not swallow the card's other facts: few key points of the
    # generator are skipped as restating a myth's own correction
    assert len(SKIPPED_AS_CORRECTION) <= 0.15 * (len(SKIPPED_AS_CORRECTION) + len(REG_OTHER_FACT))
    assert not re.search(r"\.\.|。。", " ".join(t for _, t in _ROWS_NOT + _ROWS_FLAG))
    assert stated  # the helper is the one the rows use
