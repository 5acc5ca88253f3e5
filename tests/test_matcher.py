"""The typed-answer check: key points as claims within one clause, myths by meaning from the shared registry,
negation and conditionals by clause scope on segmented words, and floors on the labelled answer corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfattention.interview import bench
from selfattention.interview.bank import get_card, load_cards, load_myths
from selfattention.interview.language import clauses
from selfattention.interview.matcher import check_answer, parse_pattern

CARDS = load_cards()
DEV = Path(__file__).resolve().parent / "data" / "answer_corpus" / "dev"


def _covers(pattern: str, text: str, negative: bool = False) -> bool:
    return bool(check_answer(text, [[pattern]], negative_points=[negative]).covered)


def test_formulas_are_canonicalised() -> None:
    for a, b in [("divide by √dₖ", "divide by sqrt(d_k)"), ("QKᵀ", "Q K^T"), ("d_model/h", "d_{model} / h"),
                 ("n²", "n^2"), ("除以根号d_k", "除以 √d_k")]:
        assert [u.text for u in clauses(a)[0].units] == [u.text for u in clauses(b)[0].units], (a, b)


def test_a_claim_needs_its_concepts_in_one_clause() -> None:
    assert _covers("column + @sum + one", "each column sums to 1")
    assert not _covers("row + @sum + one", "each column sums to 1")  # a topic word elsewhere is not enough
    assert not _covers("row + @sum + one", "Rows hold the queries. The columns sum to one.")
    assert _covers("@variance + d_k", "its variance then ends up equal to d_k")  # inserted words
    assert _covers("@softmax + @saturate", "saturating the softmax")  # order and inflection


def test_a_typo_one_edit_from_a_pattern_word_is_read_as_that_word() -> None:
    assert _covers("@softmax + @saturate", "the sofmax saturtes")  # one edit each: read as the words
    assert _covers("@variance + d_k", "the varience is d_k")
    assert not _covers("@variance + d_k", "the vxrixnce is d_k")  # two edits away: not corrected


def test_negation_by_clause_scope_and_chinese_segmentation() -> None:
    assert not _covers("@divide + @sqrt", "we do not scale by sqrt(d_k)")
    assert not _covers("@divide + d_k", "nobody divides by d_k")
    assert not _covers("@softmax + @saturate", "softmax 不会饱和")
    assert _covers("@softmax + @saturate", "softmax 会饱和，不是线性的")  # the negation is in another clause
    assert _covers("@divide + @sqrt", "除以根号 d_k 主要是为了稳定")  # 主要是 is not the conditional 要是
    assert _covers("@learned + paramet", "there are no learnable parameters", negative=True)


def test_a_myth_in_a_condition_is_not_stated_and_a_stated_one_blocks() -> None:
    card = get_card(CARDS, "scaling-why-sqrt-dk")
    assert 0 in card.check("We divide the scores by d_k.").stated
    assert not card.check("要是除以 d_k 方差会太小").stated
    assert not card.check("If we divided by d_k the variance would be 1/d_k, too small.").stated
    assert 0 in card.check("主要是除以 d_k，让方差回到 1").stated  # 主要 + 是: not the conditional 要是
    assert not card.check("主要是除以 √d_k，让方差回到 1").stated
    r = card.check("We divide by d_k, which restores unit variance.")
    assert 0 in r.stated and 4 in r.blocked and 4 not in r.covered


def test_no_card_question_ticks_its_own_key_points() -> None:
    for card in CARDS:
        for lang in ("en", "zh"):
            assert not card.check(card.question[lang]).covered, (card.id, lang)


def test_cards_refer_to_registry_myths_and_patterns_parse() -> None:
    myths = load_myths()
    for card in CARDS:
        for tell in card.tells:
            assert tell.myth in myths and tell.patterns, card.id
    for m in myths.values():
        for p in m["patterns"]:
            parse_pattern(p)


def test_the_packaged_bank_is_migrated() -> None:
    from selfattention.interview import migrate

    assert migrate.main(["--check"]) == 0


def test_a_myth_two_cards_share_is_caught_on_both() -> None:
    answer = "The softmax is taken over the queries, so every column of the attention matrix sums to 1."
    for cid in ("flow-computation", "flow-softmax-axis"):
        card = get_card(CARDS, cid)
        j = [t.myth for t in card.tells].index("each-column-attention-matrix-sums-1")
        assert j in card.check(answer).stated, cid


def test_migration_converts_an_inline_card_and_reuses_known_myths(tmp_path) -> None:
    import shutil

    from selfattention.interview import migrate
    from selfattention.interview.bank import CARDS_DIR, MYTHS_FILE

    cards = tmp_path / "cards"
    cards.mkdir()
    inline = """\
- id: new-card
  chapter: 03_scaling
  level: basic
  question: {en: "Why scale?", zh: "为什么缩放？"}
  short: {en: "Short.", zh: "简短。"}
  spoken: {en: "Spoken.", zh: "口语。"}
  key_points:
    en: ["Large logits saturate the softmax.", "Saturation kills gradients.", "A third point about heads."]
    zh: ["过大的 logit 让 softmax 饱和。", "饱和让梯度消失。", "关于头的第三点。"]
    keywords: [[saturate], [vanish], [heads]]
  misconceptions:
    - en: We divide by d_k. The variance is d_k, so the standard deviation is √d_k.
      zh: 是除以 d_k。方差是 d_k，标准差是 √d_k。
      tells: {en: ["divide by d_k"], zh: ["除以d_k"]}
      blocks: [0]
    - en: Scaling is a brand-new myth here. It is not.
      zh: 缩放是这里的新误区。并不是。
      tells: {en: ["brand new scaling"], zh: ["全新的缩放"]}
  follow_ups: []
"""
    (cards / "03_scaling.yaml").write_text(inline, encoding="utf-8")
    shutil.copy(CARDS_DIR / "01_flow.yaml", cards / "01_flow.yaml")
    myths = tmp_path / "myths.yaml"
    shutil.copy(MYTHS_FILE, myths)
    assert migrate.main(["--cards", str(cards), "--myths", str(myths), "--check"]) == 1
    assert migrate.main(["--cards", str(cards), "--myths", str(myths)]) == 0
    text = (cards / "03_scaling.yaml").read_text(encoding="utf-8")
    assert "tells" not in text and "myth: we-divide-d-k" in text and "claims:" in text
    assert (cards / "01_flow.yaml").read_text() == (CARDS_DIR / "01_flow.yaml").read_text()  # left alone
    reg = load_myths(myths)
    assert len(reg) == len(load_myths()) + 1 and "scaling-brand-new-myth-here" in reg
    before = myths.read_text(encoding="utf-8")
    # a re-run finds nothing left to convert and leaves the registry as it is
    assert migrate.main(["--cards", str(cards), "--myths", str(myths), "--check"]) == 0
    assert myths.read_text(encoding="utf-8") == before


def test_each_tick_quotes_the_clause_that_stated_it() -> None:
    card = get_card(CARDS, "scaling-why-sqrt-dk")
    r = card.check("Big logits saturate the softmax into a one-hot distribution. We divide by d_k.")
    assert r.hits[2] == "Big logits saturate the softmax into a one-hot distribution"
    assert r.stated[0] == "We divide by d_k"


# floors: a little under the numbers measured on the dev corpus (267 answers: agreement 91.2 % EN,
# 91.4 % zh, precision 94.2 / 90.7 %, recall 91.7 / 88.8 %, myths flagged 50/57, false alarms 0/119,
# myth below partial on 36/45 cards); the keyword matcher they replace measured 89.4 % / 88.0 %
# agreement, 6/14 and 11/43 myths flagged and 10.3 % echo ticks on the same answers. Treating a topic
# word as enough, dropping negation, or claims within one clause only, each fails these floors.
@pytest.fixture(scope="module")
def dev_stats():
    entries = bench.load_corpus(DEV)
    assert len(entries) >= 150
    return bench.measure(entries, CARDS)


def test_dev_corpus_floors(dev_stats) -> None:
    en, zh = dev_stats["en"], dev_stats["zh"]
    assert en.agreement >= FLOORS["agree_en"] and zh.agreement >= FLOORS["agree_zh"]
    assert en.precision >= FLOORS["precision"] and zh.precision >= FLOORS["precision"]
    assert en.recall >= FLOORS["recall"] and zh.recall >= FLOORS["recall"]
    flagged = (en.flagged + zh.flagged) / (en.myths + zh.myths)
    assert flagged >= FLOORS["myths"]
    alarms = (en.alarms + zh.alarms) / (en.complete + zh.complete)
    assert alarms <= FLOORS["alarms"]
    both, below, _ = bench.myth_vs_partial_all(dev_stats)
    assert below / both >= FLOORS["myth_below_partial"]


def test_echoed_questions_tick_nothing() -> None:
    ticked, total = bench.echo_ticks(CARDS)
    assert ticked == 0 and total > 300


FLOORS = {
    "agree_en": 0.90, "agree_zh": 0.895, "precision": 0.89, "recall": 0.87, "myths": 0.85, "alarms": 0.03,
    "myth_below_partial": 0.7,
}


# Correct answers quoted in the second review of chapters 10-11 (../shared/reviews/chapters-10-11.md, M6, M7)
# that the old tells flagged as myths, and the myths themselves, which must still be caught.
REVIEW_CORRECT_ANSWERS = [
    ("tf-moe", "Mixtral costs about as much per token as a dense 13B model."),
    ("tf-moe", "It uses roughly the same compute as a dense 13B model."),
    ("tf-modern-block", "With three matrices at d_ff = 4d the FFN gets bigger, so Llama cuts it to 8/3 d."),
    ("tf-why-decoder-only", "Nobody has proven the best architecture; it is a trade-off."),
    ("tf-why-decoder-only", "It was never proven to be the best architecture."),
    (
        "pos-rope-details",
        "With dynamic NTK scaling the frequencies change with the length, so you cache unrotated keys "
        "and rotate each at its own position.",
    ),
]
REVIEW_MYTHS = [
    ("tf-moe", "A MoE model with 47B parameters costs as much per token as a dense 47B model."),
    ("tf-modern-block", "SwiGLU makes the FFN bigger."),
    ("tf-why-decoder-only", "Decoder-only was proven to be the best architecture."),
    ("pos-rope-details", "At each step you rotate all cached keys by the current position."),
]


@pytest.mark.parametrize(("cid", "answer"), REVIEW_CORRECT_ANSWERS)
def test_correct_answers_from_the_review_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(load_cards(), cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), REVIEW_MYTHS)
def test_the_myths_behind_those_tells_are_still_caught(cid: str, answer: str) -> None:
    assert get_card(load_cards(), cid).check(answer).stated, (cid, answer)


def test_more_heads_myth_spares_the_element_wise_work_and_still_catches_the_myth() -> None:
    """mh-why-multi-head: the softmax/mask work does grow with h (chapter 4); "more computation" is a myth."""
    card = get_card(load_cards(), "mh-why-multi-head")
    for correct in (
        "More heads mean more element-wise computation, but the matmul FLOPs stay the same.",
        "More heads means more softmax computation and more memory for the weights.",
        "头越多，softmax 的计算量越大，但矩阵乘法计算量不变。",
        "头越多，逐元素的计算量越大。",
    ):
        assert not card.check(correct).stated, correct
    myths = (
        "More heads means more computation.", "With more heads the cost grows h times.", "头越多计算量越大。",
    )
    for myth in myths:
        assert card.check(myth).stated, myth
