"""Review 10, matcher and language level (matcher.py, language.py): corrections and rejections in a later clause
of the sentence, and language defects found by the tuners.

A. (1) A myth's ``!!`` qualifiers also hold in the clauses of its sentence from the first one after it that opens
   with a contrast or a limitation ("X, but Y" where Y holds the correction; the three 'X, but Y' rows that were
   OPEN in test_review9b_ch01_05.py moved to its NOT_FLAGGED). "X, but Y" where Y holds no qualifier, an "and …"
   clause and the next sentence are not looked at (FLAGGED; the next sentence is OPEN).
   (2) A rejection in a later clause ("…, which is a myth", "说…，这是误解", "…，是错的"), a rejecting sentence
   right after ("X. That is a myth.") and a leading rejection carried over the comma ("It is a myth that X, Y")
   take the myth back (reviews/2026-12-02/s7-r9-ch06-09.md L5); "X, and that is why …" does not. Checked on
   every registry myth of every card, both ways (test_registry_*).
B. Language: "whose" was corrected to "whole"; "doesnt", "dont", "isnt", "cant", "wont" were no negations;
   "(B, h, n, d_k)" was cut at its commas; "because of" opened a clause; "gpus", "rnns" kept their "s".
"""

from __future__ import annotations

import pytest
from checker_support import card_map, checker_tests

from selfattention.interview.language import clauses, phrase_units, split_misconception

NOT_FLAGGED = [
    # A1: a qualifier in a later "but / however / though / yet / while / 但 / 不过 / 然而 / 而 / only …" clause
    ("mh-why-multi-head", "Each extra head adds its own matmul, however the heads are narrower, so the total stays the same."),
    ("mh-why-multi-head", "Each extra head adds its own matmul, though each one is smaller."),
    ("mh-why-multi-head", "Each extra head adds its own matmul, while the total stays the same because d_k shrinks."),
    ("mh-why-multi-head", "每多一个头就多一次矩阵乘法，不过每个头的 d_k 减半，总量不变。"),
    ("mh-why-multi-head", "每多一个头就多一次矩阵乘法，而每个头更窄，总量不变。"),
    ("scaling-why-not-dk", "The model can rescale its weights, yet training from a bad initial scale is slow."),
    ("scaling-why-not-dk", "The model can adjust its weight scale, but from a bad start that is slow."),
    ("scaling-why-not-dk", "模型可以自己调整权重尺度，但是初始尺度决定训练的快慢。"),
    # ... and on myths whose "!!" qualifiers were already in the registry (no registry change)
    ("tf-params-flops", "Attention is where the compute goes, but only for long contexts."),
    ("tf-params-flops", "Attention is where most compute goes, but only once the context is longer than about 6 d_model."),
    ("tf-params-flops", "大部分计算在注意力上，不过只在长序列时成立。"),
    ("tf-params-flops", "注意力占了大部分计算，但这只在序列很长时成立。"),
    ("mh-split-heads", "If the shapes are right the reshape is right, but only after the transpose."),
    ("mh-split-heads", "形状对了 reshape 就对了，但前提是先转置。"),
    ("mh-head-dim", "d_model must be divisible by h, but only when d_k = d_model / h."),
    ("mh-head-dim", "d_model 必须能被 h 整除，但只有在 d_k = d_model / h 时才如此。"),
    ("mask-cross-attention", "You set is_causal=True, but only in the masked self-attention."),
    ("mask-cross-attention", "要设 is_causal=True，不过那是在掩码自注意力里。"),
    ("scale-mla", "MLA is essentially GQA, but with a much smaller cache."),
    ("scale-mla", "MLA 本质上就是 GQA，只不过缓存小得多。"),
    ("cx-flashattention", "FlashAttention reduces the FLOPs, but only by skipping fully masked blocks in causal attention."),
    ("cx-flashattention", "FlashAttention 减少了计算量，但那只是因为跳过了因果掩码下全被屏蔽的块。"),
    # A2: a rejection after the myth, in its sentence or as the next sentence
    ("cx-time-space", "说注意力永远是 Transformer 最贵的部分，这是误解。"),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分，这是错的。"),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分，这种说法不对。"),
    ("cx-time-space", "认为注意力总是 Transformer 最贵的部分，是一个常见的误解。"),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分。这是误解。"),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, which is a myth."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, which is wrong."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, which isn't true."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, and that is a common misconception."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer — that's a misconception."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer. That is a myth."),
    ("bias-k-bias-redundant", "It is a myth that since b_K cancels, b_Q must cancel too by symmetry."),
    ("bias-k-bias-redundant", "It is wrong to say that since b_K cancels, b_Q must cancel too."),
    ("bias-k-bias-redundant", "认为 b_K 被抵消，按对称性 b_Q 也应被抵消，这是错误的。"),
    ("bias-k-bias-redundant", "说 b_K 被抵消，所以 b_Q 也被抵消，是错的。"),
    (
        "dva-variants",
        "It is a myth that scaled dot-product attention has no parameters, so it is less expressive than general attention.",
    ),
    ("dva-variants", "认为缩放点积注意力没有参数，所以表达能力比 general 注意力弱，这是误解。"),
    ("cx-sparse-linear", "说线性注意力和 softmax 注意力结果相同，只是更快，这是误解。"),
    ("qkv-why-three", "It is a myth that Q, K and V are different because the input is different."),
    # B: "whose" is not "whole"
    ("parallel-bytes", "Ring attention sends every device the K/V blocks of the sequence whose queries it holds."),
    ("parallel-split-attention", "Every device keeps the part of the sequence whose tokens it was assigned."),
    ("parallel-split-attention", "Each device holds only the chunk of the sequence whose queries it owns."),
    # B: negations typed without the apostrophe
    ("flow-stable-softmax", "Subtracting the maximum doesnt change the attention weights."),
    ("flow-stable-softmax", "Subtracting the max dont change the weights at all, only the rounding."),
    ("dva-additive-scaling", "Additive attention doesnt need the 1/sqrt(d) scaling."),
    ("dva-additive-scaling", "Additive attention doesnt need 1/√d because the tanh bounds the score."),
    ("dva-additive-scaling", "The additive score isnt scaled by 1/sqrt(d); the tanh bounds it."),
    ("decoding-temperature", "Temperature doesnt change which token is most likely."),
    ("decoding-temperature", "Temperature cant change which token is the most likely one."),
    ("decoding-temperature", "Temperature wont change the argmax token."),
    ("mask-kv-cache", "We dont cache the queries, only the keys and values."),
    ("mask-kv-cache", "Past queries arent needed again, so they are not cached."),
    ("mh-why-multi-head", "Each head doesnt see a different slice of the input; it sees all of it."),
    ("mh-why-multi-head", "More heads dont mean more computation when d_k = d_model / h."),
    ("mh-why-multi-head", "More heads doesnt mean more matmul FLOPs at fixed d_model."),
    ("qkv-remove-wv", "W_V cant always be folded into W_O."),
    ("bias-t5-buckets", "T5 doesnt learn a separate bias for every pair of positions."),
    ("scale-cheap-enough", "Serving cost isnt dominated by FLOPs; decoding is memory-bound."),
    ("parallel-kinds", "Data parallelism doesnt save memory per device."),
    ("parallel-ulysses", "Ulysses doesnt work for any number of GPUs; the heads must divide."),
    # B: an acronym's plural ("RNNs") meets its pattern word ("rnn")
    ("flow-what-is-transformer", "The model is only attention in the sense that it has no RNNs or CNNs."),
    # near misses of the longer clauses (a bracketed tuple, "because of"): correct, not flagged before or after
    ("mh-split-heads", "Reshape (B, n, d_model) to (B, n, h, d_k), then transpose to (B, h, n, d_k)."),
    (
        "mh-split-heads",
        "Going from (B, n, d_model) straight to (B, h, n, d_k) with a reshape mixes positions; you need the transpose.",
    ),
    ("mh-split-heads", "把 (B, n, d_model) reshape 成 (B, n, h, d_k)，再转置成 (B, h, n, d_k)。"),
    ("mh-split-heads", "直接 reshape 成 (B, h, n, d_k) 形状虽然对，内容是错的。"),
    ("mask-torch-mha-masks", "key_padding_mask has shape (B, S) and hides padded keys."),
    ("mask-torch-mha-masks", "attn_mask has shape (L, S) or (B*h, L, S)."),
    ("mask-torch-mha-masks", "key_padding_mask 的形状是 (B, S)，用来屏蔽 padding 的 key。"),
    ("bias-t5-buckets", "T5 learns one scalar per bucket of relative distance, shared by all pairs (i, j) in that bucket."),
    ("bias-t5-buckets", "T5 的偏置按相对距离分桶，同一个桶里的所有 (i, j) 共享一个标量。"),
    ("bias-t5-buckets", "T5 adds b(i − j) to the score of (i, j), one learned value per distance bucket."),
    ("scale-cheap-enough", "Decoding is slow because of memory bandwidth, not because of FLOPs."),
    ("scale-cheap-enough", "Serving is expensive because of the memory traffic per token, not the FLOPs."),
    ("scale-cheap-enough", "Decode is memory-bound because of the weight and KV cache reads."),
    ("scale-cheap-enough", "Prefill is compute-bound because of its large matmuls, while decoding is bandwidth-bound."),
    ("scale-cheap-enough", "解码慢是因为显存带宽，不是因为 FLOPs。"),
    ("scaling-why-sqrt-dk", "The softmax saturates because of the large logits, so we divide by sqrt(d_k)."),
    ("scaling-why-sqrt-dk", "Without scaling, gradients vanish because of the saturated softmax."),
    (
        "qkv-remove-wv",
        "W_V can only be folded into W_O because of linearity, per head, when nothing sits between them.",
    ),
]

FLAGGED = [
    # A1: "X, but Y" with no qualifier of X's myth in Y; a qualifier word after "and" is not a correction
    ("mh-why-multi-head", "Each extra head adds its own matmul, but the softmax is cheap."),
    ("mh-why-multi-head", "每多一个头就多一次矩阵乘法，但这很快。"),
    # "can rescale …, but that takes a few steps" concedes a true point (review 10 ch01-05 spares "can"): the
    # myth form is "will just rescale"
    ("scaling-why-not-dk", "The model will just rescale its weights, but that takes a few steps."),
    ("scaling-why-not-dk", "模型会自己调整权重尺度，但这需要几步。"),
    ("tf-params-flops", "Attention is where the compute goes, and long contexts make it worse."),
    ("tf-params-flops", "Attention is where the compute goes, but I may be wrong."),
    ("mask-cross-attention", "You set is_causal=True, but the padding mask stays too."),
    # A2: no rejection ("that is why", "which is why"), a rejection before the myth, or of something else
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, and that is why we optimise it."),
    ("cx-time-space", "Attention is always the most expensive part of a Transformer, which is why FlashAttention matters."),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分，这就是为什么要优化它。"),
    ("cx-time-space", "That is a myth. Attention is always the most expensive part of a Transformer."),
    ("cx-time-space", "The FFN dominates, which is wrong, but attention is always the most expensive part of a Transformer."),
    ("cx-time-space", "It is a myth that the FFN is cheap: attention is always the most expensive part of a Transformer."),
    ("cx-time-space", "注意力永远是 Transformer 最贵的部分，这是错误的来源。"),
    ("bias-k-bias-redundant", "It is a myth that b_K matters, because b_Q cancels too."),
    # B: the same negation-less typing, on a myth (the negation is in another clause)
    ("mask-kv-cache", "We cache the queries too, they dont need recomputing."),
    ("flow-stable-softmax", "Subtracting the maximum changes the attention weights slightly, it isnt exact."),
    ("decoding-temperature", "Temperature changes which token is most likely, so greedy decoding wont give the same token."),
    ("parallel-kinds", "Data parallelism saves memory per device, you dont need ZeRO for that."),
    ("mh-why-multi-head", "More heads means more computation, it doesnt matter what d_k is."),
    # B: a myth whose clause a tuple's commas used to cut, and a "because of" clause kept with its subject
    ("bias-t5-buckets", "Every position pair (i, j) gets its own learned scalar bias in T5."),
    ("bias-t5-buckets", "T5 给每一对位置 (i, j) 都学一个偏置。"),
    ("bias-t5-buckets", "T5 learns one bias per (i, j) pair."),
    ("scale-cheap-enough", "Serving is expensive mostly because of the FLOPs per generated token."),
    ("parallel-ulysses", "Ulysses works for any number of GPUs."),
]

OPEN = [
    # the correction in the next sentence: out of the scope of the "but …" clause (see matcher's docstring)
    ("tf-params-flops", "Attention is where the compute goes. But only for long contexts."),
    ("tf-params-flops", "大部分计算在注意力上。不过只在长序列时成立。"),
]

test_not_flagged, test_flagged, test_open = checker_tests(
    NOT_FLAGGED, FLAGGED, OPEN, reason="a correction in the next sentence is not read as a qualifier"
)


# --- every registry myth of every card: rejected forms state it no more, neutral continuations still do ---

REJECTED = {
    "en": ["{m}, which is a myth.", "{m}, which is wrong.", "It is a myth that {l}.", "{m}. That is a myth."],
    "zh": ["说{m}，这是误解。", "{m}，这是错的。", "认为{m}，是错误的。", "{m}。这是误解。"],
}
KEPT = {
    "en": ["{m}, and that is why it matters.", "{m}, which is why it matters.", "{m}, but I may be wrong.",
           "{m}. That is the key point."],
    "zh": ["{m}，这就是为什么它重要。", "{m}，但我不太确定。", "{m}，不过这是细节。", "{m}。这是关键。"],
}


def _registry_claims(card):
    """(myth index, lang, claim) for each myth of ``card`` whose registry claim (first sentence) it flags bare;
    a claim that holds a ";" (its text has no "Myth. Correction." split) is left out."""
    from selfattention.interview.bank import load_myths

    myths = load_myths()
    for j, tell in enumerate(card.tells):
        if not tell.myth:
            continue
        for lang in ("en", "zh"):
            claim = split_misconception(myths[tell.myth][lang], lang)[0].rstrip(".。")
            if ";" in claim or "；" in claim:
                continue
            if j in card.check(claim + ("." if lang == "en" else "。")).stated:
                yield j, lang, claim


CARD_IDS = sorted(card_map())


@pytest.mark.parametrize("card_id", CARD_IDS)
def test_registry_myth_rejected_after_it_is_not_flagged(card_id):
    card = card_map()[card_id]
    bad = []
    for j, lang, claim in _registry_claims(card):
        low = claim[0].lower() + claim[1:] if lang == "en" and not claim[:2].isupper() else claim
        for form in REJECTED[lang]:
            text = form.format(m=claim, l=low)
            if j in card.check(text).stated:
                bad.append(text)
    assert not bad, bad


@pytest.mark.parametrize("card_id", CARD_IDS)
def test_registry_myth_followed_by_a_neutral_clause_is_flagged(card_id):
    card = card_map()[card_id]
    missed = []
    for j, lang, claim in _registry_claims(card):
        for form in KEPT[lang]:
            text = form.format(m=claim)
            if j not in card.check(text).stated:
                missed.append(text)
    assert not missed, missed


# --- language.py, directly ---


def _units(text: str) -> list[str]:
    card_map()  # the patterns' vocabulary, which typo correction reads
    return [u.text for c in clauses(text) for u in c.units]


def test_whose_is_not_corrected_to_whole():
    assert "whose" in _units("The head whose scores are largest wins.")
    assert phrase_units("whole")[0] not in _units("The head whose scores are largest wins.")


@pytest.mark.parametrize("word, kept", [("catch", "catch"), ("mistral", "mistral"), ("patch", "patch")])
def test_an_english_word_is_no_typo(word, kept):
    assert _units(f"We {word} it.")[1] == kept


@pytest.mark.parametrize(
    "typed, meant", [("casual", "causal"), ("behavior", "behaviour"), ("sofmax", "softmax"), ("varience", "variance")]
)
def test_real_typos_are_still_corrected(typed, meant):
    assert _units(f"the {typed} part") == _units(f"the {meant} part")


@pytest.mark.parametrize("word", ["doesnt", "dont", "isnt", "arent", "cant", "wont", "didnt", "wasnt", "shouldnt"])
def test_a_negation_typed_without_apostrophe_negates(word):
    (clause,) = clauses(f"It {word} scale with d_k.")
    assert any(u.neg for u in clause.units), [u.text for u in clause.units]


@pytest.mark.parametrize("typed, meant", [("can't", "can not"), ("won't", "will not"), ("cant", "cannot")])
def test_cant_and_wont_keep_their_verb(typed, meant):
    assert _units(f"It {typed} change.") == _units(f"It {meant} change.")


@pytest.mark.parametrize(
    "text",
    [
        "The output has shape (B, h, n, d_k) after the split.",
        "E[q, k] is zero for independent q and k.",
        "输出形状是（B，h，n，d_k）。",
        "Each pair (i, j) gets one score.",
    ],
)
def test_commas_inside_brackets_split_nothing(text):
    assert len(clauses(text)) == 1, [c.text for c in clauses(text)]


def test_a_comma_outside_brackets_still_splits():
    assert len(clauses("The shape is (B, h, n, d_k), and the heads are a batch dimension.")) == 2


def test_because_of_is_kept_with_its_clause():
    assert len(clauses("W_V is redundant because of W_O.")) == 1
    assert len(clauses("W_V is redundant because it folds into W_O.")) == 2
    assert len(clauses("This is the so-called attention sink.")) == 1


@pytest.mark.parametrize("plural, singular", [("gpus", "gpu"), ("rnns", "rnn"), ("llms", "llm"), ("kvs", "kv"),
                                              ("ffns", "ffn"), ("tpus", "tpu")])
def test_an_acronym_plural_meets_its_singular(plural, singular):
    assert _units(f"many {plural}") == _units(f"many {singular}")


@pytest.mark.parametrize("word", ["thus", "plus", "bus", "corpus", "status", "focus"])
def test_an_english_word_ending_in_s_keeps_it(word):
    assert _units(word) != _units(word[:-1])


def test_rejection_marks():
    c = clauses("Attention is always the most expensive part, which is a myth. And that is why it matters.")
    assert [x.rejected for x in c] == [True, False, False]
    c = clauses("It is a myth that since b_K cancels, b_Q cancels too, because the bias is shared.")
    assert [x.rejected for x in c] == [False, True, True, False]
    c = clauses("It's a misconception that X dominates: with fused kernels Y is never stored.")
    assert [x.rejected for x in c] == [False, False]


def test_contrast_marks():
    c = clauses("It is an approximation though, the tokens came from the draft, but they are exact.")
    assert [x.contrastive for x in c] == [False, False, False, True]
    c = clauses("结果相同，只是更快，而且更省显存。")
    assert [x.limiting for x in c] == [False, True, False]
