"""The interview question bank stays whole: schema, seed-question coverage, lengths, error messages."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from selfattention.interview.bank import (
    CARDS_DIR,
    CHAPTERS,
    BankError,
    Card,
    card_files,
    cards_by_chapter,
    chapter_card,
    get_card,
    load_cards,
    load_myths,
)

# Every question of the two seed notes (shared/seeds/), verbatim, and the cards that answer it.
SEED_QUESTIONS: dict[str, list[str]] = {
    "什么是 Transformer？它的整体结构是什么？": [
        "flow-what-is-transformer",
        "tf-what-is-transformer-structure",
    ],
    "Self-Attention 的计算流程是什么？": ["flow-computation", "flow-softmax-axis"],
    "为什么要除以 √d_k？": ["scaling-why-sqrt-dk", "scaling-variance-derivation", "scaling-why-not-dk"],
    "为什么 Attention 里要有 Q、K、V？能不能只用一个矩阵？": ["qkv-why-three", "qkv-shared-qk"],
    "Multi-Head Attention 和 Single-Head Attention 的区别是什么？多头的 d_k 怎么定？": [
        "mh-why-multi-head",
        "mh-head-dim",
    ],
    "掩码注意力（Masked Attention）": ["mask-masked-attention"],
    "Attention 的计算复杂度是多少？为什么长序列下它是瓶颈？": ["cx-time-space", "cx-long-context-memory"],
    "自注意力的时间复杂度和空间复杂度是多少？": ["cx-time-space", "rnn-complexity"],
    "Self-Attention、Cross-Attention、Masked Self-Attention 有什么区别？": ["mask-self-masked-cross"],
    "为什么点积注意力比加法注意力好？": ["dva-dot-vs-additive", "dva-cost"],
    "自注意力如何处理变长输入？": ["mask-padding-variable-length"],
    "自注意力比RNN好在哪里？": ["rnn-why-attention", "rnn-complexity"],
    "自注意力有什么缺点？": ["rnn-drawbacks"],
    "什么是注意力偏置？为什么需要它？": ["bias-what-is-attention-bias"],
    "如果不除以 √d_k 而是用一个可学习的温度参数，效果会怎样？": ["scaling-learnable-temperature"],
}

# The follow-ups an interviewer asks next (not in the seeds, required by the course design).
INTERVIEWER_FOLLOW_UPS: dict[str, list[str]] = {
    "KV cache": ["mask-kv-cache", "cx-kv-cache-memory"],
    "MQA / GQA": ["mh-mqa-gqa"],
    "complexity of MQA": ["mh-mqa-cost"],
    "FlashAttention": ["cx-flashattention", "cx-online-softmax"],
    "RoPE vs ALiBi": ["bias-rope-alibi", "bias-alibi"],
    "T5 relative position buckets": ["bias-t5-buckets"],
    "padding masks": ["mask-padding-variable-length", "bias-mask-conventions"],
    "fully masked rows": ["mask-fully-masked-row"],
    "numerically stable softmax": ["flow-stable-softmax"],
    "why the K projection bias is redundant": ["bias-k-bias-redundant"],
    "positional information": ["rnn-positional-information"],
    "sparse and linear attention": ["cx-sparse-linear"],
    "pre-LN vs post-LN": ["flow-pre-post-ln", "tf-pre-post-ln"],
    "FlashAttention's backward pass": ["scale-flash-backward", "scale-flash-versions"],
    "prefill vs decode, arithmetic intensity": ["scale-prefill-decode"],
    "multi-head latent attention (MLA)": ["scale-mla"],
    "sliding-window attention": ["scale-sliding-window"],
    "attention sinks / StreamingLLM": ["scale-attention-sinks"],
    "paged KV cache (vLLM)": ["scale-paged-attention"],
    "Flash-Decoding / split-K": ["scale-flash-decoding"],
    "why softmax and not something else": ["flow-why-softmax"],
    "attention sink / rows sum to 1": ["flow-attention-sink"],
    "cross-attention in encoder-decoder": ["mask-cross-attention"],
    "causal mask alignment with a KV cache": ["mask-kv-alignment"],
    "QK-norm": ["scaling-qk-norm"],
    "word order and context extension (RoPE, PI, NTK, YaRN)": ["pos-word-order", "pos-context-extension"],
    "RoPE in depth (q and k not v, KV cache)": ["pos-rope-how", "pos-rope-details"],
    "NoPE: does a decoder need positions": ["pos-nope"],
    "length extrapolation and ALiBi": ["pos-extrapolation"],
    "softmax saturation and its gradient": ["scaling-softmax-gradient"],
    "attention inference cost vs RNN": ["rnn-inference-cost"],
}

# The question each chapter page is titled with: its basic card must answer that seed question.
CHAPTER_QUESTION: dict[str, str] = {
    "01_flow": "Self-Attention 的计算流程是什么？",
    "02_qkv": "为什么 Attention 里要有 Q、K、V？能不能只用一个矩阵？",
    "03_scaling": "为什么要除以 √d_k？",
    "04_multi_head": "Multi-Head Attention 和 Single-Head Attention 的区别是什么？多头的 d_k 怎么定？",
    "05_masking": "掩码注意力（Masked Attention）",
    "06_complexity": "Attention 的计算复杂度是多少？为什么长序列下它是瓶颈？",
    "07_vs_rnn": "自注意力比RNN好在哪里？",
    "08_bias": "什么是注意力偏置？为什么需要它？",
    "09_dot_vs_additive": "为什么点积注意力比加法注意力好？",
    "10_transformer": "什么是 Transformer？它的整体结构是什么？",
}

# Chapters whose question comes from the course design (issue 13), not from the seed notes: the topic their
# basic card answers, listed in INTERVIEWER_FOLLOW_UPS.
CHAPTER_TOPIC: dict[str, str] = {
    "11_positions": "word order and context extension (RoPE, PI, NTK, YaRN)",
}

# Chapters whose question is not in the seed notes (the course design added them): their basic card.
NEW_CHAPTER_BASIC: dict[str, str] = {
    "12_attention_at_scale": "scale-cheap-enough",
    "13_block": "block-what-else",
    "14_decoding": "decoding-to-text",
    "15_parallel": "parallel-split-attention",
}


@pytest.fixture(scope="module")
def cards() -> list[Card]:
    return load_cards()


def _texts(card: Card) -> list[tuple[str, str, str]]:
    """(field, lang, text) for every prose field of a card."""
    out = []
    for name in ("question", "short", "spoken"):
        for lang in ("en", "zh"):
            out.append((name, lang, getattr(card, name)[lang]))
    for lang in ("en", "zh"):
        out += [("key_points", lang, kp) for kp in card.key_points[lang]]
    for m in card.misconceptions:
        out += [("misconceptions", lang, m[lang]) for lang in ("en", "zh")]
    return out


def _normalise(text: str) -> str:
    """Lower case, √ read as sqrt, punctuation as spaces, whitespace collapsed: a plain matcher's view."""
    text = text.lower().replace("√", " sqrt ").replace("^", "")
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def _pattern(alternatives: list[str]) -> re.Pattern[str]:
    """Any of ``alternatives`` as whole words in a normalised text (a plain English ending allowed)."""
    body = "|".join(re.escape(_normalise(a)) for a in alternatives if _normalise(a))
    return re.compile(rf"(?<!\w)(?:{body})(?:s|es|ed|d|ing)?(?!\w)")


def test_the_bank_is_large_enough(cards: list[Card]) -> None:
    assert len(cards) >= 45, f"only {len(cards)} cards"


def test_one_file_per_chapter() -> None:
    assert [p.stem for p in card_files()] == list(CHAPTERS)
    numbers = [CHAPTERS[s]["number"] for s in CHAPTERS]
    assert numbers == [int(s.split("_")[0]) for s in CHAPTERS]  # the number is the file prefix
    assert numbers == sorted(set(numbers)) and numbers[:9] == list(range(1, 10))  # in order, no repeats


def test_ids_are_unique_and_kebab_case(cards: list[Card]) -> None:
    ids = [c.id for c in cards]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


def test_every_follow_up_resolves_to_another_card(cards: list[Card]) -> None:
    ids = {c.id for c in cards}
    for card in cards:
        assert card.follow_ups, f"{card.id} has no follow-ups"
        for target in card.follow_ups:
            assert target in ids, f"{card.id} -> {target}"
            assert target != card.id


def test_every_chapter_has_cards_and_exactly_one_basic_card(cards: list[Card]) -> None:
    grouped = cards_by_chapter(cards)
    assert list(grouped) == list(CHAPTERS)
    for slug, group in grouped.items():
        assert len(group) >= 4, f"{slug} has only {len(group)} cards"
        basics = [c for c in group if c.level == "basic"]
        assert len(basics) == 1, f"{slug}: {[c.id for c in basics]}"
        assert group[0] is basics[0] is chapter_card(cards, slug)
        assert {c.level for c in group[1:]} <= {"follow-up", "deep"}


def test_both_languages_are_present_in_every_field(cards: list[Card]) -> None:
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for card in cards:
        for name, lang, text in _texts(card):
            assert text.strip(), f"{card.id}: empty {name}.{lang}"
            if lang == "zh":
                assert cjk.search(text), f"{card.id}: {name}.zh has no Chinese: {text[:60]!r}"
            else:
                assert not cjk.search(text), f"{card.id}: {name}.en contains Chinese: {text[:60]!r}"
        assert 3 <= len(card.key_points["en"]) == len(card.key_points["zh"]) <= 6, card.id
        assert card.misconceptions, f"{card.id} has no misconception"


def test_every_registry_myth_is_used_by_a_card() -> None:
    """A myth no card refers to is dead weight (a chapter reworded it and the migration made a new entry)."""
    used = {t.myth for card in load_cards() for t in card.tells}
    assert sorted(set(load_myths()) - used) == []


def test_no_english_text_is_copied_from_another_card(cards: list[Card]) -> None:
    seen: dict[str, str] = {}
    myths = [_normalise(m["en"]) for m in load_myths().values()]
    assert len(set(myths)) == len(myths)  # each myth once in the registry; cards that share it refer to it
    for card in cards:
        for name, lang, text in _texts(card):
            if lang != "en" or name in ("key_points", "misconceptions"):
                continue
            key = _normalise(text)
            assert key not in seen, f"{card.id}.{name} repeats {seen[key]}"
            seen[key] = f"{card.id}.{name}"

    def grams(text: str) -> set[tuple[str, ...]]:
        w = _normalise(text).split()
        return {tuple(w[i : i + 6]) for i in range(len(w) - 5)}

    spoken = {c.id: grams(c.spoken["en"]) for c in cards}
    ids = list(spoken)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            jaccard = len(spoken[a] & spoken[b]) / len(spoken[a] | spoken[b])
            assert jaccard < 0.1, f"spoken answers of {a} and {b} overlap ({jaccard:.2f})"


def test_spoken_answers_last_60_to_90_seconds(cards: list[Card]) -> None:
    """~150 English words per minute; Chinese is read at roughly 4 to 5 characters a second."""
    for card in cards:
        words = len(card.spoken["en"].split())
        assert 130 <= words <= 260, f"{card.id}: spoken.en has {words} words"
        chars = len(re.sub(r"\s", "", card.spoken["zh"]))
        assert 200 <= chars <= 450, f"{card.id}: spoken.zh has {chars} characters"


def test_short_answers_are_short(cards: list[Card]) -> None:
    for card in cards:
        sentences = [s for s in re.split(r"(?<=[.;!?])\s+(?=[A-Z$])", card.short["en"]) if s]
        assert 1 <= len(sentences) <= 4, f"{card.id}: {len(sentences)} sentences in short.en"
        words = len(card.short["en"].split())
        assert words <= 90, f"{card.id}: short.en is {words} words"


def test_inline_math_is_balanced(cards: list[Card]) -> None:
    for card in cards:
        for name, lang, text in _texts(card):
            assert "$$" not in text, f"{card.id}.{name}.{lang}: display math in a card"
            assert text.count("$") % 2 == 0, f"{card.id}.{name}.{lang}: unbalanced $ in {text[:80]!r}"


def test_keywords_match_the_key_points(cards: list[Card]) -> None:
    """One lowercase alternatives-list per English key point, and the model answer itself covers each one."""
    for card in cards:
        assert len(card.keywords) == len(card.key_points["en"]), card.id
        spoken = _normalise(card.spoken["en"] + " " + card.short["en"])
        for point, alternatives in zip(card.key_points["en"], card.keywords, strict=True):
            assert alternatives, card.id
            assert all(a and a == a.lower().strip() for a in alternatives), (card.id, alternatives)
            assert _pattern(alternatives).search(spoken), (
                f"{card.id}: the model answer never says any of {alternatives} (key point: {point!r})"
            )


def test_keywords_are_specific_to_their_card(cards: list[Card]) -> None:
    """A key point that most other cards' answers also 'cover' would make the typed-answer check empty."""
    spoken = {c.id: _normalise(c.spoken["en"]) for c in cards}
    for card in cards:
        for alternatives in card.keywords:
            pattern = _pattern(alternatives)
            others = [i for i, t in spoken.items() if i != card.id and pattern.search(t)]
            assert len(others) < len(cards) // 2, f"{card.id}: {alternatives} in {len(others)} other cards"


@pytest.mark.parametrize("question", list(SEED_QUESTIONS))
def test_every_seed_question_is_answered(cards: list[Card], question: str) -> None:
    ids = {c.id for c in cards}
    assert SEED_QUESTIONS[question], question
    missing = [i for i in SEED_QUESTIONS[question] if i not in ids]
    assert not missing, f"{question!r} maps to missing cards {missing}"


@pytest.mark.parametrize("topic", list(INTERVIEWER_FOLLOW_UPS))
def test_every_interviewer_follow_up_is_answered(cards: list[Card], topic: str) -> None:
    ids = {c.id for c in cards}
    missing = [i for i in INTERVIEWER_FOLLOW_UPS[topic] if i not in ids]
    assert not missing, f"{topic!r} maps to missing cards {missing}"


def test_each_chapter_question_is_its_basic_card(cards: list[Card]) -> None:
    assert set(CHAPTER_QUESTION) | set(CHAPTER_TOPIC) | set(NEW_CHAPTER_BASIC) == set(CHAPTERS)
    assert not set(CHAPTER_QUESTION) & set(CHAPTER_TOPIC)
    for slug, question in CHAPTER_QUESTION.items():
        basic = chapter_card(cards, slug)
        assert basic.id in SEED_QUESTIONS[question], f"{slug}: {basic.id} does not answer {question!r}"
    for slug, topic in CHAPTER_TOPIC.items():
        basic = chapter_card(cards, slug)
        assert basic.id == INTERVIEWER_FOLLOW_UPS[topic][0], f"{slug}: {basic.id} does not answer {topic!r}"
    for slug, card_id in NEW_CHAPTER_BASIC.items():
        assert chapter_card(cards, slug).id == card_id, slug


def test_the_seed_math_errors_are_not_copied(cards: list[Card]) -> None:
    """The seeds drop the √ (dividing by d_k) and muddle Var(qk); the bank must state the right forms."""
    basic = get_card(cards, "scaling-why-sqrt-dk")
    assert r"\sqrt{d_k}" in basic.short["en"] and r"\sqrt{d_k}" in basic.short["zh"]
    derivation = get_card(cards, "scaling-variance-derivation")
    assert r"\operatorname{Var}(q \cdot k) = d_k" in derivation.short["en"]
    assert r"\mathbb{E}[q_i^2 k_i^2] - 0" in derivation.short["en"]
    rnn = get_card(cards, "rnn-complexity")
    assert "O(d^2)" in rnn.short["en"] and "O(n d)" in rnn.short["en"] and "O(d)" in rnn.short["en"]


def test_get_card_and_errors(cards: list[Card]) -> None:
    assert get_card(cards, "flow-computation").chapter == "01_flow"
    assert get_card(cards, "flow-computation").anchor == "card-flow-computation"
    with pytest.raises(KeyError, match="no-such-card"):
        get_card(cards, "no-such-card")
    with pytest.raises(KeyError, match="99_nothing"):
        chapter_card(cards, "99_nothing")


# --- broken card files: BankError names the file and the card -------------------------------------


def _good_card() -> dict:
    return yaml.safe_load((CARDS_DIR / "01_flow.yaml").read_text(encoding="utf-8"))[0]


def _write(tmp_path: Path, cards: list[dict], name: str = "01_flow.yaml") -> Path:
    (tmp_path / name).write_text(yaml.safe_dump(cards, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return tmp_path


def _no_follow_ups(card: dict) -> dict:
    return {**card, "follow_ups": []}


def test_a_copy_of_a_good_card_loads(tmp_path: Path) -> None:
    loaded = load_cards(_write(tmp_path, [_no_follow_ups(_good_card())]))
    assert [c.id for c in loaded] == ["flow-computation"]
    assert loaded[0].keywords == _good_card()["key_points"]["keywords"]


BROKEN = {
    "missing field": (lambda c: {k: v for k, v in c.items() if k != "short"}, "missing field(s) short"),
    "unknown field": (lambda c: {**c, "answer": "x"}, "unknown field(s) answer"),
    "bad chapter": (lambda c: {**c, "chapter": "10_nowhere"}, "chapter '10_nowhere'"),
    "wrong file": (lambda c: {**c, "chapter": "02_qkv"}, "does not match its file"),
    "bad level": (lambda c: {**c, "level": "easy"}, "level 'easy'"),
    "missing zh": (lambda c: {**c, "question": {"en": "Why?"}}, "'question'"),
    "empty en": (lambda c: {**c, "spoken": {"en": "  ", "zh": "好"}}, "'spoken.en'"),
    "too few key points": (
        lambda c: {**c, "key_points": {**c["key_points"], "en": c["key_points"]["en"][:2]}},
        "key_points.en",
    ),
    "keywords count": (
        lambda c: {**c, "key_points": {**c["key_points"], "keywords": c["key_points"]["keywords"][:-1]}},
        "one list per English key point",
    ),
    "upper-case keyword": (
        lambda c: {**c, "key_points": {**c["key_points"], "keywords": [["Sqrt"]] * 6}},
        "lowercase",
    ),
    "dangling follow-up": (lambda c: {**c, "follow_ups": ["no-such-card"]}, "follow-up 'no-such-card'"),
    "self follow-up": (lambda c: {**c, "follow_ups": ["flow-computation"]}, "itself"),
    "bad misconception": (lambda c: {**c, "misconceptions": [{"en": "x"}]}, "misconceptions[0]"),
    "keywords_zh count": (
        lambda c: {**c, "key_points": {**c["key_points"], "keywords_zh": [["注意"]] * 5}},
        "'key_points.keywords_zh' needs one list per key point",
    ),
    "empty keywords_zh": (
        lambda c: {**c, "key_points": {**c["key_points"], "keywords_zh": [[]] * 6}},
        "key_points.keywords_zh[0]",
    ),
    "unknown key_points key": (
        lambda c: {**c, "key_points": {**c["key_points"], "keywords_fr": []}},
        "'key_points' must be a mapping",
    ),
    "tells without zh": (
        lambda c: {**c, "misconceptions": [{"en": "A. B.", "zh": "甲。乙。", "tells": {"en": ["x"]}}]},
        "'misconceptions[0].tells' must be a mapping with keys en and zh",
    ),
    "blocks out of range": (
        lambda c: {**c, "misconceptions": [{**c["misconceptions"][0], "blocks": [6]}]},
        "'misconceptions[0].blocks' must list key point indices 0..5",
    ),
    "blocks without tells": (
        lambda c: {**c, "misconceptions": [{"en": "A. B.", "zh": "甲。乙。", "blocks": [0]}]},
        "needs 'tells'",
    ),
    "unknown misconception key": (
        lambda c: {**c, "misconceptions": [{**c["misconceptions"][0], "why": "x"}]}, "unknown key(s) why"
    ),
}


def test_every_packaged_card_has_chinese_keywords_and_misconception_tells(cards: list[Card]) -> None:
    """The schema makes keywords_zh / tells optional (for --cards DIR), the packaged bank has all of them:
    every misconception is a registry myth with patterns (myths.yaml)."""
    for card in cards:
        assert len(card.keywords_zh) == len(card.key_points["zh"]) and all(card.keywords_zh), card.id
        assert len(card.tells) == len(card.misconceptions), card.id
        assert len(card.claims) == len(card.key_points["en"]), card.id
        for tell in card.tells:
            assert tell.myth and tell.patterns and tell.blocks, card.id


def test_cards_without_the_new_fields_still_load(tmp_path: Path) -> None:
    card = _no_follow_ups(_good_card())
    card["key_points"] = {k: v for k, v in card["key_points"].items() if k not in ("keywords_zh", "claims")}
    card["misconceptions"] = [{"en": "A myth. Its correction.", "zh": "误区。正解。"}]
    (loaded,) = load_cards(_write(tmp_path, [card]))
    assert loaded.keywords_zh == [[] for _ in range(6)] and all(not t.patterns for t in loaded.tells)
    assert loaded.claims == []  # derived from keywords and key point text at check time
    assert loaded.check("the scores are dot products, QK^T").covered == [1]


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_card_raises_bank_error_naming_file_and_card(tmp_path: Path, case: str) -> None:
    mutate, expected = BROKEN[case]
    _write(tmp_path, [mutate(_no_follow_ups(_good_card()))])
    with pytest.raises(BankError) as info:
        load_cards(tmp_path)
    message = str(info.value)
    assert "01_flow.yaml" in message and "'flow-computation'" in message, message
    assert expected in message, message


def test_duplicate_id_names_both_files(tmp_path: Path) -> None:
    card = _no_follow_ups(_good_card())
    _write(tmp_path, [card])
    _write(tmp_path, [{**card, "chapter": "02_qkv"}], name="02_qkv.yaml")
    expected = r"02_qkv\.yaml: card 'flow-computation' repeats an id from 01_flow\.yaml"
    with pytest.raises(BankError, match=expected):
        load_cards(tmp_path)


def test_bad_id_and_bad_yaml_are_reported_with_the_file(tmp_path: Path) -> None:
    _write(tmp_path, [{**_no_follow_ups(_good_card()), "id": "Flow Computation"}])
    with pytest.raises(BankError, match=r"01_flow\.yaml: card #1: 'id' must be a kebab-case string"):
        load_cards(tmp_path)
    (tmp_path / "01_flow.yaml").write_text("- id: flow-x\n  question: {en: [unclosed\n", encoding="utf-8")
    with pytest.raises(BankError, match=r"01_flow\.yaml: invalid YAML"):
        load_cards(tmp_path)
    (tmp_path / "01_flow.yaml").unlink()
    with pytest.raises(BankError, match="no card files"):
        load_cards(tmp_path)


def test_chinese_text_has_no_spaces_from_yaml_line_folding():
    """Folded YAML joins lines with a space: between two Chinese characters it is a typo on the page."""
    gap = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef] +[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
    for card in load_cards():
        texts = [card.question["zh"], card.short["zh"], card.spoken["zh"], *card.key_points["zh"]]
        texts += [m["zh"] for m in card.misconceptions]
        for text in texts:
            assert not gap.search(text), f"{card.id}: stray space in {gap.search(text).group()!r}"
