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


def _covers(pattern: str, text: str, point: str = "") -> bool:
    """``point``: the key point's own statement, which sets the polarity of the pattern's concepts."""
    return bool(check_answer(text, [[pattern]], points=[(point,)]).covered)


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
    # a concept the key point itself states negated may be negated in the answer, not the other way round
    no_params = "there are no learnable parameters"
    assert _covers("@learned + paramet", no_params, point="It has no learnable parameters")
    assert not _covers("@learned + paramet", no_params, point="It has learnable parameters")


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


# floors: a little under the numbers measured on the dev corpus (267 answers: agreement 92.6 % EN,
# 92.2 % zh, precision 94.1 / 91.6 %, recall 94.1 / 89.7 %, myths flagged 55/57, false alarms 0/119,
# myth below partial on 43/45 cards); the keyword matcher they replace measured 89.4 % / 88.0 %
# agreement, 6/14 and 11/43 myths flagged and 10.3 % echo ticks on the same answers. Treating a topic
# word as enough, dropping negation, or claims within one clause only, each fails these floors. (The old
# score, a myth as one more checklist item, measures 43/45 here too since the partial answers tick
# something; its own test is test_a_stated_myth_scores_below_an_answer_that_states_nothing.)
def dev_before_corpus5() -> list[dict]:
    """The dev entries written before corpus5 (each file's text up to its ``# corpus5`` comment)."""
    import yaml

    out: list[dict] = []
    for path in sorted(DEV.glob("*.yaml")):
        out += yaml.safe_load(path.read_text(encoding="utf-8").split("\n# corpus5", 1)[0]) or []
    return out


@pytest.fixture(scope="module")
def dev_stats():
    entries = dev_before_corpus5()
    assert 700 <= len(entries) < len(bench.load_corpus(DEV))
    return bench.measure(entries, CARDS)


@pytest.fixture(scope="module")
def dev_all_stats():
    entries = bench.load_corpus(DEV)
    assert len(entries) >= 1300
    return bench.measure(entries, CARDS)


def _floors(stats, floors) -> None:
    en, zh = stats["en"], stats["zh"]
    assert en.agreement >= floors["agree_en"] and zh.agreement >= floors["agree_zh"]
    assert en.precision >= floors["precision"] and zh.precision >= floors["precision"]
    assert en.recall >= floors["recall"] and zh.recall >= floors["recall"]
    flagged = (en.flagged + zh.flagged) / (en.myths + zh.myths)
    assert flagged >= floors["myths"]
    alarms = (en.alarms + zh.alarms) / (en.complete + zh.complete)
    assert alarms <= floors["alarms"]
    both, below, _ = bench.myth_vs_partial_all(stats)
    assert below / both >= floors["myth_below_partial"]


def test_dev_corpus_floors(dev_stats) -> None:
    """The floors set on the 726 dev answers written before corpus5 hold on those answers unchanged."""
    _floors(dev_stats, FLOORS)


def test_whole_dev_corpus_floors(dev_all_stats) -> None:
    """The whole dev corpus (2,626 answers since session 16; 2,374 in session 14; 1,319 with corpus5's 593
    when written): its writers credit fewer key points than the checker ticks, so precision is lower there
    (86.7 % 中文 when measured), and corpus5's myths of chapters 06-15 are not tuned for (80.7 % of all dev
    myths flagged)."""
    _floors(dev_all_stats, FLOORS_ALL)


def test_echoed_questions_tick_nothing() -> None:
    ticked, total = bench.echo_ticks(CARDS)
    assert ticked == 0 and total > 300


# precision: 0.91 when the floors were set on chapters 01-12; chapter 15's 28 dev answers (written
# after) brought the Chinese precision to 90.1 %, so the floor sits just under that measurement
FLOORS = {
    "agree_en": 0.92, "agree_zh": 0.91, "precision": 0.895, "recall": 0.89, "myths": 0.93, "alarms": 0.03,
    "myth_below_partial": 0.93,
}
# on all 1,319 dev answers (session 7: corpus5 tuned for chapters 01-05 only; the tuned patterns of 06-15 were
# withdrawn after review 9 found them flagging plain correct sentences): agreement 92.0 % EN / 93.2 % zh,
# precision 88.7 / 86.7 %, recall 93.8 / 93.4 %, myths 252/315 and 284/349 (80.7 %), alarms 0/314 complete,
# myth below partial on 108/108 cards. Session 12 (loose claims tightened, myths block what they contradict):
# agreement 93.4 % EN / 93.9 % zh, precision 91.4 / 88.7 %, recall 94.0 / 93.1 %, myths 261/315 and
# 288/349: the agreement floors are issue 20's target, 93 % in each language
# Session 14 (dev grown to 2,374: the old heldout/ and two thirds of corpus6 appended; the similarity fallback
# on, leave-one-out): agreement 91.7 % EN / 93.2 % zh, precision 88.3 / 88.3 %, recall 92.2 / 92.1 %, myths
# 463/609 and 498/626 (77.8 %), alarms 6/514 complete, myth below partial on 108/108 cards. corpus6's writers
# are new to the checker (myths flagged by the patterns of 28165f9: 61 % EN, 66 % zh of all 562 answers),
# so the floors sit just under these measurements, not at issue 20's 93 % / 80 %
# Session 16 (corpus7's writers F and G appended: 2,626 answers): agreement 91.7 % EN / 93.2 % zh, precision
# 88.9 / 89.0 %, recall 92.5 / 92.7 %, myths 513/665 and 538/678 (78.3 %), alarms 7/586 complete (1.2 %), myth
# below partial on 108/108 cards
FLOORS_ALL = {
    # myths 0.775 -> 0.77 (session 15): the fallback no longer reads a Chinese lead-in
    # ("我觉得", "我理解的是") as content: 4 dev myths were matched on "我觉得" alone
    # (961 -> 957 of 1,235, 77.8 % -> 77.5 %), and clauses such as "我理解的是" were flagged
    # (corpus7 F+G hard negatives 12/70 -> 0/70 with the other session-15 changes)
    "agree_en": 0.915, "agree_zh": 0.93, "precision": 0.88, "recall": 0.92, "myths": 0.77, "alarms": 0.012,
    "myth_below_partial": 0.98,
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


# The third review of chapters 10-11 (fix1011: M4, L5, L9): correct descriptions of the cache bug, a correct
# account of NTK-aware scaling, and the myths they must not hide.
THIRD_REVIEW_CORRECT_ANSWERS = [
    (
        "pos-rope-details",
        "A classic bug is when cached keys are rotated by the current position at read time: "
        "the positions cancel.",
    ),
    (
        "pos-rope-details",
        "The wrong way: all keys are rotated by the current position when they are read, "
        "so the positions cancel.",
    ),
    (
        "pos-context-extension",
        "NTK-aware scaling keeps the fastest pair, divides the slowest by s, "
        "and the other slow pairs still reach angles beyond their trained range.",
    ),
    (
        "pos-context-extension",
        "NTK-aware 缩放最快的一对不变，最慢的除以 s，其余慢的维度对仍在外推，超出训练范围。",
    ),
    ("tf-moe", "It uses roughly the same compute as a dense 13B model."),
    ("tf-modern-block", "Nobody disputes that SwiGLU keeps the FFN at 8 d squared."),
]
THIRD_REVIEW_MYTHS = [
    ("pos-rope-details", "Cached keys are rotated by the current position when they are read."),
    ("pos-rope-details", "缓存的 key 在读取时按当前位置旋转。"),
    ("tf-moe", "It costs about as much per token as a dense 47 billion parameter model."),
    ("tf-moe", "It has the same compute per token as a dense model with all its parameters."),
    ("tf-modern-block", "Nobody disputes that SwiGLU makes the FFN bigger."),
    ("pos-context-extension", "NTK-aware scaling brings every slow pair back into the trained range."),
    ("pos-context-extension", "NTK 缩放把每个慢的维度对都拉回训练范围。"),
]


@pytest.mark.parametrize(("cid", "answer"), THIRD_REVIEW_CORRECT_ANSWERS)
def test_correct_answers_from_the_third_review_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(load_cards(), cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), THIRD_REVIEW_MYTHS)
def test_the_myths_of_the_third_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(load_cards(), cid).check(answer).stated, (cid, answer)


def test_ntk_myth_blocks_the_ntk_point_and_san_bei_alone_is_not_6nd() -> None:
    ext = get_card(load_cards(), "pos-context-extension")
    right = "NTK-aware scaling multiplies the base by s to the d over d minus two."
    assert 2 in ext.check(right).covered
    myth = " NTK-aware scaling brings every slow pair back into the trained range."
    assert 2 not in ext.check(right + myth).covered
    flops = get_card(load_cards(), "tf-params-flops")
    assert 3 not in flops.check("长上下文时每个 token 的注意力计算是 FFN 的三倍。").covered  # not 6ND
    assert 3 in flops.check("训练每个参数每个 token 约 6 FLOPs，共约 6ND。").covered


@pytest.mark.parametrize(
    ("pattern", "answer"),
    [
        ("onli + @attention", "It is only attention."), ("dens + model", "A dense model."),
        ("rang", "Long range."),
    ],
)
def test_a_pattern_word_written_as_a_stem_matches_the_word_it_stands_for(
    pattern: str, answer: str
) -> None:
    # analysed again, "onli" became "on", "dens" "den", "rang" "ring": 30 pattern words matched nothing
    assert check_answer(answer, [[pattern]]).covered == [0]


def test_k_of_counts_a_concept_once_whatever_form_matched() -> None:
    # "onli" stands for both its forms ("on" analysed, "onli" as written): one concept, not two
    assert check_answer("Only on Mondays.", [["2 of: onli | xylophon | zebra"]]).covered == []
    assert check_answer("Only on a zebra.", [["2 of: onli | xylophon | zebra"]]).covered == [0]


def test_a_stated_myth_scores_below_an_answer_that_states_nothing() -> None:
    card = get_card(CARDS, "scaling-why-sqrt-dk")
    myth, empty = card.check("We divide by d_k."), card.check("Attention is useful.")
    assert myth.stated and not myth.covered and not empty.covered
    assert myth.score < empty.score == 0.0


@pytest.mark.parametrize(
    "answer",
    [
        "It is a common myth that columns sum to 1; each row sums to 1.",  # a rejection before "that"
        "Do the columns sum to 1?",  # a question states nothing
        "每一列的和必须是 1 吗？",
    ],
)
def test_a_rejected_or_asked_myth_is_not_stated(answer: str) -> None:
    assert not get_card(CARDS, "flow-softmax-axis").check(answer).stated, answer


def test_a_negated_because_keeps_its_negation() -> None:
    # "并不是因为…" / "not because …": the clause is not cut before 因为 / because, so the negation scopes it
    card = get_card(CARDS, "scale-attention-sinks")
    assert not card.check("sink 并不是因为内容重要，而是因为 softmax 必须和为 1。").stated
    assert card.check("sink 是因为内容重要。").stated
    assert [c.text for c in clauses("It is not because the content matters.")] == [
        "It is not because the content matters"
    ]


@pytest.mark.parametrize(
    ("typed", "written"), [("12d^2", "12d²"), ("d_model^2", "d_model²"), ("4 d^2", "4 d²")]
)
def test_a_squared_term_reads_the_same_typed_with_a_caret(typed: str, written: str) -> None:
    def units(text: str) -> list[str]:
        return [u.text for c in clauses(text) for u in c.units]

    assert units(typed) == units(written)


@pytest.mark.parametrize(
    "answer",
    [
        "At each step only the new token's key is rotated at its position and appended to the cache.",
        "Each step the new key is rotated by the current position and then cached.",
    ],
)
def test_rotating_the_new_key_at_the_current_position_is_not_the_cache_myth(answer: str) -> None:
    # the myth is re-rotating the keys already cached; the new token's current position is its own
    assert not get_card(CARDS, "pos-rope-details").check(answer).stated, answer


# Chapter 12 review (M3): correct answers that negate or report the "infinite context" myth, and the myth.
SINKS_CORRECT = [
    "StreamingLLM 并不能提供无限上下文",
    "不能提供无限上下文",
    "它不提供无限上下文",
    "没有给模型无限上下文",
    "很多人以为它有无限上下文，其实不是",
    "StreamingLLM does not give infinite context.",
    "Many people think StreamingLLM gives infinite context; it does not.",
    "StreamingLLM 能处理无限长的流，但上下文仍然有限。",
    # the third look at chapter 12 (M1): reported and rejected myths, and the capability stated correctly
    "有人认为它提供无限上下文，这是错的。",
    "常见的误解是 StreamingLLM 有无限上下文。",
    "A common myth is that StreamingLLM gives infinite context.",
    "Some claim it gives infinite context; that's wrong.",
    "It processes infinitely long input with a bounded context window.",
]
SINKS_MYTHS = [
    "StreamingLLM 让模型拥有无限上下文",
    "它能给模型无限的上下文",
    "StreamingLLM gives the model infinite context.",
]


@pytest.mark.parametrize("answer", SINKS_CORRECT)
def test_negated_infinite_context_is_not_the_streamingllm_myth(answer: str) -> None:
    result = get_card(CARDS, "scale-attention-sinks").check(answer)
    assert not result.stated, (answer, result.stated)


@pytest.mark.parametrize("answer", SINKS_MYTHS)
def test_the_streamingllm_infinite_context_myth_is_caught(answer: str) -> None:
    assert get_card(CARDS, "scale-attention-sinks").check(answer).stated, answer


# Chapter 12 review (L8): "prefill is compute-bound" earns key point 2 only with its condition (long prompts).
PREFILL_UNCONDITIONED = [
    "Prefill is compute-bound.",
    "prefill 是计算受限的。",
    "Prefill is compute-bound because each key is reused by all the queries.",
    "每个 key 被所有 query 复用，所以 prefill 是计算受限的。",
    # fifth review (L1): "over the tokens" and "unlike decoding of long sequences" are not the condition
    "Prefill is compute-bound because each key is reused over the tokens of the prompt.",
    "Prefill reuses each key across all queries, so it is compute-bound, unlike decoding of long sequences.",
    "prefill 每个 key 被所有 query 复用，所以是计算受限的，不同于长序列的解码。",
]
PREFILL_CONDITIONED = [
    "Prefill is compute-bound past a few hundred tokens.",
    "Prefill is compute-bound once the prompt is longer than about 300 tokens on an A100.",
    "Prefill with MHA has intensity about n/2, so long prompts are compute-bound.",
    "prefill 阶段超过几百个 token 就是计算受限的。",
    "长提示词的 prefill 是计算受限的。",
    "Prefill of long sequences is compute-bound.",
    "Prefill is compute-bound for prompts over 300 tokens.",
]


@pytest.mark.parametrize("answer", PREFILL_UNCONDITIONED)
def test_prefill_compute_bound_without_its_condition_does_not_tick(answer: str) -> None:
    assert 1 not in get_card(CARDS, "scale-prefill-decode").check(answer).covered, answer


@pytest.mark.parametrize("answer", PREFILL_CONDITIONED)
def test_prefill_compute_bound_with_its_condition_ticks(answer: str) -> None:
    assert 1 in get_card(CARDS, "scale-prefill-decode").check(answer).covered, answer


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


# The fourth look at chapters 10-11 (M1, M3): correct answers about dynamic scaling and Llama 3's wider
# SwiGLU FFN that the myth patterns flagged, and the myths, still caught.
FOURTH_REVIEW_CORRECT = [
    (
        "pos-rope-details",
        "With dynamic NTK you cache the keys before RoPE and re-rotate each cached key at its own "
        "position with the current frequencies.",
    ),
    (
        "pos-rope-details",
        "Under dynamic NTK the cached keys must be re-rotated at their own positions with the current base.",
    ),
    ("pos-rope-details", "动态 NTK 下，缓存的 key 要按各自的位置、用当前的频率重新旋转。"),
    ("pos-rope-details", "Rotating the cached keys by the current position destroys the order."),
    ("tf-modern-block", "In Llama 3 the SwiGLU FFN grows to 3.5 d."),
    ("tf-modern-block", "Llama 3 的 SwiGLU FFN 更大，宽度是 3.5d。"),
]
FOURTH_REVIEW_MYTHS = [
    ("pos-rope-details", "At each step you rotate all cached keys by the current position."),
    ("tf-modern-block", "SwiGLU makes the FFN bigger."),
]


@pytest.mark.parametrize(("cid", "answer"), FOURTH_REVIEW_CORRECT)
def test_correct_answers_of_the_fourth_review_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(load_cards(), cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), FOURTH_REVIEW_MYTHS)
def test_the_myths_of_the_fourth_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(load_cards(), cid).check(answer).stated, (cid, answer)


# The third review of chapter 15 (M2, M3): the Ulysses myth is about devices, not heads; all-gather CP
# and Ulysses answers that hold the full K/V or all tokens of some heads are not the "full sequence" myths.
CH15_CORRECT = [
    ("parallel-ulysses", "Ulysses works with any number of heads as long as P divides the heads."),
    (
        "parallel-split-attention",
        "With Llama 3's all-gather context parallelism each device holds the full sequence of keys and "
        "values, but only n/P queries",
    ),
    ("parallel-split-attention", "In Ulysses each device holds the full sequence for h/P heads."),
    (
        "parallel-bytes",
        "Llama 3 all-gathers K and V, so every rank receives the whole sequence of keys and values",
    ),
]
CH15_MYTHS = [
    ("parallel-ulysses", "Ulysses works for any number of devices."),
    ("parallel-ulysses", "Ulysses can scale to any number of GPUs."),
    ("parallel-ulysses", "Ulysses 适用于任意卡数。"),
    ("parallel-split-attention", "Context parallelism gives every device the full sequence."),
    ("parallel-bytes", "Ring attention sends the whole sequence to every device."),
]


@pytest.mark.parametrize(("cid", "answer"), CH15_CORRECT)
def test_correct_chapter_15_answers_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(load_cards(), cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH15_MYTHS)
def test_chapter_15_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(load_cards(), cid).check(answer).stated, (cid, answer)


# The fifth review of chapter 12 (M1-M4, M6, L8): correct answers that chapter 12's myth patterns flagged
# (each blocked the key point it makes), and a plain statement of each myth, EN and 中文, still caught.
CH12_R5_CORRECT = [
    ("scale-prefill-decode",
     "A bigger batch makes the weight matmuls of decoding compute-bound, but attention stays memory-bound."),
    ("scale-prefill-decode",
     "With a big batch the decoding matmuls become compute-bound; attention does not."),
    ("scale-prefill-decode", "batch 足够大时，解码中的权重矩阵乘会变成计算受限，但注意力不会。"),
    ("scale-prefill-decode", "增大 batch 能让权重矩阵乘变成计算受限，注意力仍然是带宽受限。"),
    ("scale-flash-backward",
     "Standard attention saves the attention matrix for the backward pass; FlashAttention does not."),
    ("scale-flash-backward", "Without FlashAttention, autograd saves the attention matrix for backward."),
    ("scale-flash-backward", "朴素实现要为反向传播保存注意力矩阵，FlashAttention 不保存。"),
    ("scale-flash-backward",
     "Recomputing makes the backward pass slower in FLOPs but faster in wall-clock time."),
    ("scale-mla", "MLA's cache is the size of GQA with 2.25 groups, 576 numbers per token per layer."),
    ("scale-mla", "MLA 的缓存相当于 2.25 组的 GQA。"),
    ("scale-mla", "MLA caches 576 numbers, about what GQA with 2.25 groups caches."),
    ("scale-sliding-window",
     "Per layer the model can only see the last w tokens, but stacked layers extend the reach to L(w-1)+1."),
    ("scale-sliding-window",
     "In one layer a token can only ever use the last w tokens; across L layers the receptive field grows."),
    ("scale-sliding-window", "Within one layer the model can only see the last w tokens."),
    ("scale-sliding-window", "单层只能看到最近 w 个 token，但多层叠加后感受野是 L(w-1)+1。"),
    ("scale-sliding-window", "在一层之内一个 token 只能利用最近 w 个 token。"),
    ("scale-paged-attention",
     "PagedAttention speeds up serving throughput 2 to 4 times because more sequences fit."),
    ("scale-paged-attention", "PagedAttention 让吞吐量更快地提高，因为 batch 变大。"),
    ("scale-cheap-enough",
     "FlashAttention is exact, unlike approximate attention methods such as Linformer."),
    ("scale-cheap-enough", "FlashAttention 是精确的，不同于近似注意力方法。"),
    ("scale-cheap-enough", "FlashAttention 不同于稀疏注意力，它是精确的。"),
    ("cx-flashattention",
     "FlashAttention is exact, unlike approximate attention methods such as Linformer."),
    ("scale-attention-sinks", "The sinks matter most for stability, not for content."),
    ("scale-attention-sinks",
     "People call it infinite context, but it is really infinite streaming with bounded memory."),
    ("scale-attention-sinks", "所谓无限上下文，其实只是有限显存下的无限长流。"),
]
CH12_R5_MYTHS = [
    ("scale-prefill-decode", "A big enough batch makes decoding compute-bound."),
    ("scale-prefill-decode", "With a large batch, decoding becomes compute-bound."),
    ("scale-prefill-decode", "batch 足够大就能让解码变成计算受限。"),
    ("scale-prefill-decode", "增大 batch，解码就会变成计算受限。"),
    ("scale-flash-backward", "Recomputation must make training slower."),
    ("scale-flash-backward", "重算一定会让训练变慢。"),
    ("scale-flash-backward", "FlashAttention stores the attention matrix in fp16 for the backward pass."),
    ("scale-mla", "MLA is just GQA with fewer heads."),
    ("scale-mla", "MLA is basically GQA."),
    ("scale-mla", "MLA 就是头更少的 GQA。"),
    ("scale-sliding-window", "With a sliding window a token can only ever use the last w tokens."),
    ("scale-sliding-window", "The model can only see the last w tokens."),
    ("scale-sliding-window", "用了滑动窗口，一个 token 只能利用最近 w 个 token。"),
    ("scale-sliding-window", "模型只能看到最近 w 个 token。"),
    ("scale-paged-attention", "PagedAttention makes the attention kernel itself faster."),
    ("scale-paged-attention", "PagedAttention 让注意力内核本身更快。"),
    ("scale-paged-attention", "PagedAttention 加速了注意力计算。"),
    ("scale-cheap-enough", "FlashAttention is an approximation of attention."),
    ("scale-cheap-enough", "It computes approximate attention."),
    ("scale-cheap-enough", "FlashAttention 是注意力的近似。"),
    ("scale-cheap-enough", "FlashAttention 和稀疏注意力一样是近似方法。"),
    ("cx-flashattention", "FlashAttention is an approximation of attention."),
    ("scale-attention-sinks", "Attention sinks are tokens with important content."),
    ("scale-attention-sinks", "The sink tokens matter most for the output."),
    ("scale-attention-sinks", "attention sink 是内容重要的 token。"),
    ("scale-attention-sinks", "StreamingLLM gives the model infinite context."),
    ("scale-attention-sinks", "StreamingLLM 让模型拥有无限上下文"),
]


@pytest.mark.parametrize(("cid", "answer"), CH12_R5_CORRECT)
def test_correct_chapter_12_answers_of_the_fifth_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH12_R5_MYTHS)
def test_chapter_12_myths_of_the_fifth_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


# The fifth review of chapters 01-05 (M1, M2): correct answers, many of them the cards' own words, that the
# myth patterns flagged; each myth of chapters 01-05 stated plainly (its registry sentence, EN and 中文) is
# still caught by every card that refers to it.
CH01_05_CORRECT = [
    ("flow-softmax-axis", "A common bug is to normalise over the query axis instead."),
    ("flow-softmax-axis", "常见错误是沿 query 维度归一化。"),
    ("flow-softmax-axis", "Columns need not sum to one."),
    ("flow-attention-dropout", "At inference there is no dropout, so each row sums to one again."),
    ("flow-attention-dropout", "推理时没有 dropout，每行和重新为 1。"),
    ("flow-attention-sink", "最重要的一点是，丢掉 sink token 会让生成崩溃。"),
    (
        "flow-pre-post-ln",
        "Pre-LN and post-LN use the same sub-layers, placed differently, and compute different functions.",
    ),
    ("qkv-why-three", "In cross-attention the queries come from a different input than the keys and values."),
    ("qkv-why-three", "Q、K 共用一个矩阵时，分数矩阵是对称的。"),
    ("qkv-why-three", "With one shared matrix the score s_ij is exactly the same as s_ji."),
    ("qkv-shared-qk", "Q and K use the same matrix, so the scores are symmetric."),
    ("qkv-shared-qk", "s_ij is exactly the same as s_ji."),
    ("qkv-no-projection", "前馈层对每个 token 单独作用，决定不了匹配什么。"),
    ("qkv-shapes", "In self-attention K and V have the same shape when d_v equals d_k."),
    ("qkv-shapes", "The output has the same shape as Q when d_v = d_k."),
    ("scaling-why-sqrt-dk", "muP even divides by d_k."),
    ("scaling-why-sqrt-dk", "μP 甚至除以 d_k。"),
    ("scaling-why-sqrt-dk", "μP divides by d_k once trained q and k align."),
    (
        "scaling-why-sqrt-dk",
        "We divide by sqrt(d_k), not by d_k, because the standard deviation is sqrt(d_k).",
    ),
    ("scaling-why-not-dk", "μP divides by d_k because trained q and k align."),
    ("scaling-variance-derivation", "它的方差等于平方的均值减去均值的平方。"),
    (
        "scaling-variance-derivation",
        "For large d_k the scaled score is approximately normally distributed by the central limit theorem.",
    ),
    ("scaling-variance-derivation", "d_k 很大时，由中心极限定理，分数近似服从正态分布。"),
    ("scaling-softmax-gradient", "At the first step the gradient reaching W_Q is larger without scaling."),
    (
        "scaling-softmax-gradient",
        "The largest Jacobian norm, 1/2, is reached by a row split evenly between two keys.",
    ),
    ("scaling-learnable-temperature", "It is cheap, but it adds little expressive power."),
    (
        "scaling-learnable-temperature",
        "A learned temperature adds no expressive power: scaling W_Q already does it.",
    ),
    ("scaling-learnable-temperature", "可学习温度不会带来新的注意力模式，缩放投影就能做到。"),
    (
        "mh-mqa-gqa",
        "MQA reduces the FLOPs of the K and V projections only; the attention FLOPs are unchanged.",
    ),
    ("mh-mqa-gqa", "MQA cuts the KV cache and memory traffic, not the score computation."),
    ("mh-mqa-cost", "The KV cache still grows linearly in n with MQA, just h times smaller."),
    ("mh-split-heads", "reshape 之后形状正确，但不转置内容就是错的。"),
    ("mh-output-projection", "W_O maps the concatenated heads back to d_model and mixes them."),
    (
        "mh-why-multi-head",
        "More heads means more softmax work and more memory for the h n^2 weights, "
        "but the same matmul FLOPs.",
    ),
    ("mask-masked-attention", "训练时需要因果掩码，推理时的 prefill 也需要。"),
    ("mask-masked-attention", "The causal mask is needed in training and also in the prefill at inference."),
    ("mask-self-masked-cross", "Cross-attention needs only a padding mask on the source, no causal mask."),
    ("mask-self-masked-cross", "交叉注意力只需要源序列的 padding 掩码。"),
    ("mask-cross-attention", "Every decoder layer reads the same final encoder output."),
    ("mask-cross-attention", "每个解码器层用的是同一份编码器输出。"),
    ("mask-cross-attention", "每个解码器层都读编码器最后一层的输出。"),
    (
        "mask-padding-variable-length",
        "Without a key padding mask, padding changes the outputs of the real tokens.",
    ),
    ("mask-kv-cache", "The cache stores K and V, never Q."),
    ("mask-kv-cache", "KV cache 不是近似，输出只差浮点舍入误差。"),
    ("mask-kv-cache", "输出与完整因果注意力一致，只是求和顺序不同带来的舍入误差。"),
    (
        "mask-fully-masked-row",
        "With -1e9 the row becomes a uniform average instead of NaN; you must zero it or ignore it.",
    ),
]


# where the registry's sentence is a condition ("if …", "could …": never read as stated) or splits its claim
# over two clauses, the plain statement is said once more in one clause
PLAIN_01_05 = {
    ("learnable-temperature-lets-model-express-attention", "en"):
        "A learnable temperature lets the model express new attention patterns.",
    ("if-shapes-right-reshape-right", "en"): "The reshape is right as long as the shapes are right.",
    ("cross-attention-needs-causal-mask-because", "zh"): "交叉注意力也需要因果掩码。",
}


def _ch01_05_myths() -> list[tuple[str, str]]:
    from selfattention.interview.language import split_misconception

    registry = load_myths()
    out = []
    for card in CARDS:
        if card.chapter[:2] > "05":
            continue
        for tell in card.tells:
            for lang in ("en", "zh"):
                plain = split_misconception(registry[tell.myth][lang], lang)[0]
                out.append((card.id, PLAIN_01_05.get((tell.myth, lang), plain)))
    return out


@pytest.mark.parametrize(("cid", "answer"), CH01_05_CORRECT)
def test_correct_chapter_01_05_answers_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), _ch01_05_myths())
def test_chapter_01_05_myths_stated_plainly_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


# The fifth review of chapters 10-11 (M1-M3, L7, L12): correct answers the myth patterns flagged (the
# card's own short answers among them), and plain statements of the same myths, EN and 中文, still caught.
FIFTH_REVIEW_CORRECT = [
    (
        "pos-rope-details",
        "With dynamic YaRN the keys are cached before RoPE and re-rotated whenever the length changes.",
    ),
    ("pos-rope-details", "In Dynamic NTK the cached keys must be re-rotated when the scale factor changes."),
    (
        "pos-rope-details",
        "With dynamic NTK you cache unrotated keys and re-rotate them at each step, "
        "each at its own position.",
    ),
    ("pos-rope-details", "动态 YaRN 下每一步都要重新旋转缓存的 key。"),
    ("pos-rope-details", "动态缩放要精确就得缓存未旋转的 key、每次重新旋转。"),
    ("tf-params-flops", "注意力的计算量是 8nd² 加 4n²d，FFN 是 16nd²。"),
    ("tf-params-flops", "注意力层的计算包括投影和两个 n×n 乘积。"),
    ("tf-params-flops", "长上下文时计算主要在注意力上。"),
    ("tf-params-flops", "For long contexts attention is where the compute goes."),
    ("tf-params-flops", "For n above 2d attention is where the compute goes."),
    (
        "tf-modern-block",
        "SwiGLU has three matrices, so at the same hidden width it makes the FFN bigger; "
        "Llama shrinks it to 8/3 d.",
    ),
    ("tf-modern-block", "With SwiGLU the FFN grows by half at the same width, so Llama shrinks it."),
    ("tf-modern-block", "同样宽度下 SwiGLU 让 FFN 变大了，所以 Llama 把它缩到 8/3 d。"),
    ("tf-moe", "A MoE has the memory cost of a dense model of the same total size."),
    ("tf-moe", "MoE 的显存成本和同样总参数的稠密模型一样。"),
    ("tf-moe", "Mixtral costs about as much per token as a dense 12.9B model."),
    ("pos-context-extension", "NTK-aware scaling keeps every fast pair within its trained range."),
    ("pos-context-extension", "NTK-aware 缩放让每个快的维度对都留在训练范围内。"),
    ("pos-context-extension", "YaRN 保留快的维度对，所以短距离行为不变，而 PI 压缩了快的维度对。"),
    ("pos-extrapolation", "需要检索所有上下文的基准测试会暴露差别。"),
    ("pos-extrapolation", "A benchmark that needs retrieval from the whole context exposes the difference."),
]
FIFTH_REVIEW_MYTHS = [
    ("pos-rope-details", "At each step you rotate all cached keys by the current position."),
    ("pos-rope-details", "Rotate every cached key by the latest position at each step."),
    ("pos-rope-details", "缓存的 key 在读取时按当前位置旋转。"),
    # L7: the clause with 缓存 is a 时 condition, the main clause says 所有 key
    ("pos-rope-details", "每一步读取缓存时，把所有 key 按当前位置旋转。"),
    ("tf-params-flops", "The FFN is a minor part and attention is where the compute goes."),
    ("tf-params-flops", "Attention is where the compute goes."),
    ("tf-params-flops", "FFN 只是次要部分，计算量都在注意力上。"),
    ("tf-params-flops", "计算量都在注意力上。"),
    ("tf-modern-block", "SwiGLU makes the FFN bigger."),
    ("tf-modern-block", "SwiGLU 让 FFN 变大了。"),
    ("tf-moe", "A MoE model with 47B parameters costs as much per token as a dense 47B model."),
    ("tf-moe", "一个 470 亿参数的 MoE 模型，每个 token 的计算量和 470 亿的稠密模型一样。"),
    ("pos-context-extension", "NTK-aware scaling brings every slow pair back into the trained range."),
    ("pos-context-extension", "NTK-aware scaling maps all the slow pairs back inside the trained range."),
    ("pos-context-extension", "NTK 缩放把每个慢的维度对都拉回训练范围。"),
    ("pos-context-extension", "Position interpolation leaves the model's short-range behaviour untouched."),
    ("pos-context-extension", "位置插值后短距离行为完全不变。"),
    ("pos-context-extension", "PI 之后模型的短距离行为不变。"),
    ("pos-extrapolation", "ALiBi extrapolation means the model uses the whole longer context."),
    ("pos-extrapolation", "ALiBi 的外推意味着模型用上了整个更长的上下文。"),
    ("pos-extrapolation", "ALiBi 外推说明模型利用了所有上下文。"),
]


@pytest.mark.parametrize(("cid", "answer"), FIFTH_REVIEW_CORRECT)
def test_correct_answers_of_the_fifth_review_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), FIFTH_REVIEW_MYTHS)
def test_the_myths_of_the_fifth_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize("cid", ["pos-rope-details", "tf-params-flops", "tf-modern-block", "tf-moe"])
def test_a_card_s_own_answers_state_none_of_its_myths(cid: str) -> None:
    card = get_card(CARDS, cid)
    for text in (card.short["en"], card.short["zh"], card.spoken["en"], card.spoken["zh"]):
        assert not card.check(text).stated, (cid, text)


# The fifth review of chapters 06-09 (M1, M2): correct answers, several of them clauses of the cards' own
# model answers, that the old myth patterns flagged; and plain statements of those myths, which must still
# be caught in both languages.
CH0609_CORRECT = [
    ("rnn-why-attention", "RNN 由 h_{t−1} 计算 h_t，每层需要 n 个顺序步骤。"),
    ("rnn-why-attention", "RNN 必须按顺序计算 n 步，注意力可以一次并行算完。"),
    ("rnn-why-attention", "注意力的计算量更小只在 n 小于 2d 时对 LSTM 成立。"),
    ("rnn-why-attention", "Attention needs fewer sequential steps than an RNN."),
    (
        "rnn-complexity",
        "So the usual claim that an RNN has order d squared space complexity is really about its parameters.",
    ),
    ("rnn-complexity", "所以常见的“RNN 空间复杂度是 d²”其实说的是参数量，而不是激活。"),
    ("bias-t5-buckets", "For every query position i and key position j, it looks at the signed distance."),
    ("bias-t5-buckets", "对每个 query 位置 i 和 key 位置 j，它看带符号的距离 j − i。"),
    ("bias-t5-buckets", "Each head learns one scalar per bucket; each relative position maps to a bucket."),
    ("bias-t5-buckets", "每个头为每个桶学一个标量，每个相对位置映射到一个桶。"),
    (
        "bias-t5-buckets",
        "The bias for each pair of positions is looked up from the bucket of their distance.",
    ),
    ("dva-variants", "所以缩放点积注意力的表达能力并不比 general 注意力弱。"),
    ("dva-variants", "缩放点积的表达能力和 general 打分一样，只是低秩。"),
    (
        "bias-what-is-attention-bias",
        "An attention bias is a matrix B added to the scores before the softmax. "
        "It is different from the projection bias vectors b_Q, b_K, b_V.",
    ),
    ("bias-what-is-attention-bias", "ALiBi adds a linear bias term to the scores."),
    (
        "bias-what-is-attention-bias",
        "In Hugging Face Llama configs, attention_bias means the bias vectors of the Q, K, V and output "
        "projections; in the positional sense an attention bias is a matrix added to the scores.",
    ),
    ("bias-what-is-attention-bias", "注意力偏置是加在分数矩阵上的，和投影的偏置向量不同。"),
    ("cx-flashattention", "Unlike approximate attention methods, FlashAttention is exact."),
    (
        "cx-flashattention",
        "Approximate attention methods such as Linformer trade accuracy for speed; FlashAttention is exact.",
    ),
    (
        "cx-flashattention",
        "FlashAttention computes exact attention, unlike sparse attention which is an approximation.",
    ),
    ("cx-flashattention", "FlashAttention 是精确的，不像稀疏注意力那样是近似。"),
    (
        "cx-sparse-linear",
        "With random features the estimate converges to the same result as softmax attention as the number "
        "of features grows.",
    ),
    ("cx-sparse-linear", "随机特征越多，估计就越接近和 softmax 注意力相同的结果。"),
    (
        "cx-long-context-memory",
        "During training the n by n attention matrix is the main memory bottleneck for naive attention.",
    ),
    ("cx-long-context-memory", "训练时朴素注意力的显存瓶颈主要是 n×n 的注意力矩阵。"),
    (
        "cx-online-softmax",
        "Each block is normalised separately and then rescaled by exp(m − m'), which makes the result exact.",
    ),
    ("cx-online-softmax", "每块单独归一化，再按 exp(m − m') 缩放合并，结果是精确的。"),
    ("cx-kv-cache-memory", "With MQA, the number of query heads stays 32 but the cache uses one KV head."),
    ("cx-kv-cache-memory", "用 MQA 时 query 头数保持 32，cache 只存一个 KV 头。"),
]
CH0609_MYTHS = [
    ("rnn-why-attention", "Attention is cheaper than an RNN."),
    ("rnn-why-attention", "注意力比 RNN 计算量小。"),
    ("rnn-complexity", "An RNN's space complexity is O(d^2)."),
    ("rnn-complexity", "RNN 的空间复杂度是 O(d²)。"),
    ("bias-t5-buckets", "T5 learns a separate bias for every pair of positions."),
    ("bias-t5-buckets", "T5 为每一对位置单独学一个偏置。"),
    ("dva-variants", "Scaled dot-product attention is less expressive than the general bilinear score."),
    ("dva-variants", "缩放点积注意力的表达能力比 general 双线性打分弱。"),
    ("bias-what-is-attention-bias", "Attention bias means the bias vectors of the Q, K, V projections."),
    ("bias-what-is-attention-bias", "注意力偏置指 Q、K、V 投影的偏置向量。"),
    ("cx-flashattention", "FlashAttention is an approximation of attention."),
    ("cx-flashattention", "FlashAttention 是注意力的近似。"),
    ("cx-sparse-linear", "Linear attention computes the same result as softmax attention, only faster."),
    ("cx-sparse-linear", "线性注意力和 softmax 注意力结果相同，只是更快。"),
    ("cx-long-context-memory", "Long-context inference is limited by the n by n matrix."),
    ("cx-long-context-memory", "长上下文推理受限于 n×n 矩阵。"),
    (
        "cx-online-softmax",
        "Blockwise softmax is an approximation because each block is normalised separately.",
    ),
    ("cx-online-softmax", "分块 softmax 因为每块单独归一化所以是近似。"),
    ("cx-kv-cache-memory", "The cache size depends on the number of query heads."),
    ("cx-kv-cache-memory", "cache 大小取决于 query 头数。"),
]


@pytest.mark.parametrize(("cid", "answer"), CH0609_CORRECT)
def test_correct_chapter_06_09_answers_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH0609_MYTHS)
def test_chapter_06_09_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


def test_chapter_06_09_model_answers_state_none_of_their_own_myths() -> None:
    for card in CARDS:
        if card.chapter[:2] not in ("06", "07", "08", "09"):
            continue
        for text in (card.short, card.spoken):
            for lang in ("en", "zh"):
                assert not card.check(text[lang]).stated, (card.id, lang, text[lang][:60])


# The review of chapter 13 (M3, M4): each of its 11 myths, stated plainly (the registry sentence, EN and 中文)
# or in the reviewer's paraphrases, is caught by every card that refers to it; correct answers, the myths'
# own corrections and every card's own short answer, spoken answer and key points are not flagged.
CH13_MYTHS = [
    ("block-training-memory", "Training needs about 2 bytes per parameter, just the fp16 weights."),
    ("block-training-memory", "For training you only need to store the weights in bf16."),
    ("block-moe-routing", "Mixture of experts reduces the memory needed for the model."),
    ("block-moe-routing", "MoE needs less memory than a dense model of the same total size."),
    ("block-moe-routing", "Overflow tokens are queued and processed later."),
    ("block-ffn-activations", "SwiGLU needs more weights than a normal FFN."),
    ("block-ffn-activations", "The tanh approximation is exactly GELU."),
    ("block-rmsnorm-placement", "RMSNorm has no learnable gain."),
    ("block-rmsnorm-placement", "Pre-LN doesn't need a final norm."),
    ("block-bn-vs-ln", "LayerNorm computes mean and variance across the batch for each feature."),
    ("block-bn-vs-ln", "If you mask the padding, BatchNorm works fine for sequences."),
    ("block-residual", "Residual connections just help the forward signal propagate."),
    ("block-residual", "Residuals stop gradients from exploding."),
]
CH13_CORRECT = [
    ("block-training-memory",
     "Inference needs 2 bytes per parameter for 16-bit weights; training needs about 16 bytes per parameter "
     "with Adam."),
    ("block-training-memory",
     "The weights alone take 2 bytes per parameter in training, but with gradients, master copy and "
     "Adam it is 16."),
    ("block-training-memory",
     "Inference takes 2 bytes per parameter, training about 16 bytes per parameter."),
    ("block-training-memory",
     "For training you need 16 bytes per parameter, not just 2 bytes per parameter for the weights."),
    ("block-training-memory", "训练时每个参数不是只要 2 字节，而是约 16 字节。"),
    ("block-training-memory", "Training memory is not just the weights."),
    ("block-moe-routing",
     "MoE is not cheaper to store: it uses less compute per token but every expert is stored in memory."),
    ("block-moe-routing", "A MoE uses fewer FLOPs per token but more memory, since all experts are stored."),
    ("block-moe-routing",
     "MoE uses less compute per token, but more memory, because all experts are stored."),
    ("block-moe-routing", "Mixtral needs less compute than a dense 47B model but the same memory."),
    ("block-moe-routing", "MoE 每个 token 计算更少，但存储并不省，所有专家都要存。"),
    ("block-moe-routing", "MoE 的显存并不少，计算省了。"),
    ("block-moe-routing", "A dropped token skips the expert and the residual carries it to later layers."),
    ("block-moe-routing",
     "Tokens over capacity are dropped and passed on by the residual to the later layers."),
    ("block-moe-routing",
     "Tokens over capacity are dropped, not delayed to the next batch; the residual carries them."),
    ("block-moe-routing",
     "Capacity overflow is dropped; later layers still see the token through the residual."),
    ("block-ffn-activations",
     "SwiGLU has three matrices, so at the same d_ff it adds parameters, but models shrink d_ff to 8/3 d to "
     "keep the count."),
    ("block-ffn-activations", "SwiGLU does not add parameters once d_ff is shrunk to 8/3 d."),
    ("block-ffn-activations", "At the same d_ff SwiGLU adds 50% more parameters."),
    ("block-ffn-activations",
     "SwiGLU has more weights per hidden unit, so d_ff is cut to 8/3 d to keep the count."),
    ("block-ffn-activations", "SwiGLU 每个隐藏单元参数更多，所以 d_ff 缩到 8/3 d。"),
    ("block-ffn-activations",
     "GPT-2 uses the tanh approximation of GELU, which is not the same as exact GELU."),
    ("block-ffn-activations", "The tanh form is not identical to exact GELU, only close."),
    ("block-ffn-activations", "The tanh form is close to GELU but not exactly the same."),
    ("block-ffn-activations",
     "GPT-2 used the tanh approximation; PyTorch's approximate='tanh' gives exactly GPT-2's gelu."),
    ("block-rmsnorm-placement",
     "RMSNorm drops the mean subtraction and the bias but keeps the learned gain."),
    ("block-rmsnorm-placement", "RMSNorm removes the bias, not the learned scale gain."),
    ("block-rmsnorm-placement", "RMSNorm has no bias and no mean subtraction but keeps a learned scale."),
    ("block-rmsnorm-placement", "RMSNorm 没有偏置，也不减均值，但保留可学习的缩放。"),
    ("block-rmsnorm-placement", "A post-LN model does not need a final norm, but a pre-LN model needs one."),
    ("block-rmsnorm-placement",
     "Post-LN has no need for a final norm because its last sub-layer already ends in a norm."),
    ("block-bn-vs-ln",
     "BatchNorm normalises over the batch; LayerNorm does not normalise over the batch but over each token's "
     "features."),
    ("block-bn-vs-ln",
     "Unlike BatchNorm, which normalises across the batch, LayerNorm uses each token's features."),
    ("block-bn-vs-ln", "LayerNorm 不在批次上归一化，而是在特征上。"),
    ("block-bn-vs-ln",
     "Masking the padding is not enough: a masked BatchNorm still depends on other sequences."),
    ("block-bn-vs-ln", "Masked BatchNorm solves only the padding problem, not the batch dependence."),
    ("block-bn-vs-ln", "BatchNorm with a mask fixes padding but is not as good as LayerNorm."),
    ("block-residual",
     "The residual connection helps not only the forward pass but mainly the backward pass."),
    ("block-residual", "It is not only forward: the identity carries the gradient backward."),
    ("block-residual",
     "Residual connections make the forward pass only add updates to the stream, and help the backward pass "
     "most."),
    ("block-residual", "The residual does not prevent explosion: unscaled branches still grow the gradient."),
    ("block-residual",
     "Residual connections prevent vanishing gradients; they don't prevent exploding ones."),
    ("block-residual", "残差防止梯度消失，但不会防止爆炸。"),
    ("block-residual",
     "Pre-LN with residuals avoids exploding gradients at the output layers compared to post-LN."),
    ("block-residual",
     "The residual stops the gradient vanishing; GPT-2's 1/sqrt(N) scaling and norms avoid explosion."),
    ("block-residual", "残差防止梯度消失；不缩放的分支仍会让梯度爆炸。"),
]
# where the registry's sentence splits its claim over two clauses, the plain statement in one clause
PLAIN_13: dict[tuple[str, str], str] = {}


def _ch13_cards() -> list:
    return [card for card in CARDS if card.chapter == "13_block"]


def _ch13_registry_myths() -> list[tuple[str, str]]:
    from selfattention.interview.language import split_misconception

    registry = load_myths()
    return [
        (card.id, PLAIN_13.get((tell.myth, lang), split_misconception(registry[tell.myth][lang], lang)[0]))
        for card in _ch13_cards() for tell in card.tells for lang in ("en", "zh")
    ]


def _ch13_own_words() -> list[tuple[str, str]]:
    """Every chapter 13 card's own short answer, spoken answer and key points, and the corrections of the
    myths it refers to, EN and 中文."""
    from selfattention.interview.language import split_misconception

    registry = load_myths()
    out = []
    for card in _ch13_cards():
        for lang in ("en", "zh"):
            out += [(card.id, card.short[lang]), (card.id, card.spoken[lang])]
            out += [(card.id, point) for point in card.key_points[lang]]
            out += [(card.id, split_misconception(registry[t.myth][lang], lang)[1]) for t in card.tells]
    return out


def test_chapter_13_has_its_thirteen_myths() -> None:
    # 11 until review 10 (ch13-15 M-2) added batchnorm-normalises-each-token-over-own-features
    # and rmsnorm-subtracts-mean
    assert len({t.myth for card in _ch13_cards() for t in card.tells}) == 13


@pytest.mark.parametrize(("cid", "answer"), _ch13_registry_myths() + CH13_MYTHS)
def test_chapter_13_myths_stated_plainly_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH13_CORRECT + _ch13_own_words())
def test_correct_chapter_13_answers_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


# Second review of chapter 12 (round 5): contrasts split across clauses, two 中文 corrections, common myth
# phrasings (sliding-window receptive field, StreamingLLM's "infinite context window"), plain variants.
CH12_R5B_CORRECT = [
    ("scale-cheap-enough", "Sparse attention approximates attention, FlashAttention computes it exactly."),
    ("scale-cheap-enough", "Linformer approximates attention, but FlashAttention computes it exactly."),
    ("scale-cheap-enough",
     "Approximate attention like Performer changes the model; FlashAttention gives the same output."),
    ("scale-cheap-enough", "稀疏注意力是近似，FlashAttention 是精确的。"),
    ("scale-cheap-enough", "推理时 prefill 主要是计算量，解码主要受带宽限制。"),
    ("scale-cheap-enough",
     "During inference, the prefill is dominated by compute while decoding is dominated by memory."),
    ("scale-mla", "MLA compresses keys and values into a latent, unlike GQA which shares heads."),
    ("scale-mla", "MLA differs from GQA: every head keeps its own keys."),
    ("scale-mla", "MLA 和 GQA 不同：每个头都有自己的 key。"),
    ("scale-flash-versions", "FlashAttention-2 的数学形式不变。"),
    ("scale-flash-versions", "FlashAttention-2 的数学形式没有变，变的是工作划分。"),
    ("scale-flash-versions", "数学形式完全一样，改的是并行方式。"),
    ("scale-flash-versions", "The math is unchanged in FlashAttention-2."),
    ("scale-sliding-window", "Stacked layers extend the receptive field to L (w - 1) + 1 positions."),
    ("scale-sliding-window", "每层只能看到最近 w 个 token，叠加 L 层后感受野是 L(w−1)+1。"),
    ("scale-attention-sinks", "StreamingLLM handles an unbounded stream with a bounded context window."),
    ("scale-attention-sinks", "It streams infinitely long input with a fixed context window."),
    ("scale-attention-sinks", "The context window stays bounded while the stream is infinite."),
    ("scale-attention-sinks", "StreamingLLM 在固定窗口下处理无限长的流，但不是无限上下文。"),
    ("scale-attention-sinks",
     "Evicting the sinks is what hurts: they are important for the output distribution even though their "
     "content is not."),
    ("scale-flash-backward",
     "FlashAttention recomputes in the backward pass yet is faster than standard attention."),
    ("scale-flash-backward", "重算让 FlashAttention 训练反而更快。"),
    ("scale-flash-backward", "Standard attention is slower than FlashAttention."),
    ("scale-prefill-decode",
     "A bigger batch makes the weight matmuls of decoding compute-bound, but attention stays memory-bound."),
    ("scale-prefill-decode", "batch 足够大时，解码中的权重矩阵乘会变成计算受限，但注意力不会。"),
]
CH12_R5B_MYTHS = [
    ("scale-cheap-enough", "FlashAttention approximates attention like sparse attention does."),
    ("scale-cheap-enough", "FlashAttention 和稀疏注意力一样是近似方法。"),
    ("scale-cheap-enough", "解码主要是计算量。"),
    ("scale-mla", "MLA is basically GQA."),
    ("scale-mla", "MLA 只是 GQA。"),
    ("scale-flash-versions", "FlashAttention-2 改变了注意力的数学形式。"),
    ("scale-flash-versions", "FlashAttention-2 用了新的数学公式。"),
    ("scale-sliding-window", "The receptive field stays w tokens no matter how many layers are stacked."),
    ("scale-sliding-window", "Its receptive field is just w tokens."),
    ("scale-sliding-window", "感受野始终只有 w 个 token。"),
    ("scale-attention-sinks", "StreamingLLM gives the model an infinite context window."),
    ("scale-attention-sinks", "StreamingLLM gives an unlimited context window."),
    ("scale-attention-sinks", "StreamingLLM extends the context window to infinity."),
    ("scale-attention-sinks", "StreamingLLM allows infinite context length with a fixed cache."),
    ("scale-attention-sinks",
     "StreamingLLM gives the model an infinite context window, so it remembers the whole stream."),
    ("scale-attention-sinks", "StreamingLLM 让模型拥有无限上下文窗口。"),
    ("scale-flash-backward",
     "Since it recomputes, FlashAttention is slower to train than standard attention."),
    ("scale-flash-backward", "因为要重算，所以 FlashAttention 训练更慢。"),
    ("scale-flash-backward", "FlashAttention keeps P in low precision for the backward pass."),
    ("scale-prefill-decode", "只要 batch 够大，解码就是计算受限的。"),
    ("scale-prefill-decode", "A bigger batch fixes decoding: it becomes compute bound."),
    ("scale-prefill-decode",
     "With enough batching, decoding is compute-bound even for attention, not only for the weight matmuls."),
]


@pytest.mark.parametrize(("cid", "answer"), CH12_R5B_CORRECT)
def test_chapter_12_second_review_correct_answers_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated and not result.blocked, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH12_R5B_MYTHS)
def test_chapter_12_second_review_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer", "point"), [
    ("scale-sliding-window", "The receptive field stays w tokens no matter how many layers are stacked.", 2),
    ("scale-sliding-window", "Its receptive field is just w tokens.", 2),
    ("scale-prefill-decode", "Long prompts take more memory.", 1),
    ("scale-prefill-decode", "Prefill is compute-bound for any prompt longer than one token.", 1),
])
def test_chapter_12_key_points_need_their_condition(cid: str, answer: str, point: int) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert point not in result.covered, (cid, answer, result.hits)


@pytest.mark.parametrize(("cid", "answer", "point"), [
    ("scale-sliding-window", "The receptive field after L layers is L(w-1)+1.", 2),
    ("scale-prefill-decode",
     "Prefill is compute-bound once the prompt is longer than a few hundred tokens.", 1),
    ("scale-prefill-decode", "超过几百个 token 的长提示词，prefill 是计算受限的。", 1),
])
def test_chapter_12_key_points_with_their_condition_still_tick(cid: str, answer: str, point: int) -> None:
    assert point in get_card(CARDS, cid).check(answer).covered, (cid, answer)


# Chapter 14 (fifth review, M1-M3): the reviewer's correct answers, conditional statements included, are
# not flagged; each myth stated plainly is caught in EN and 中文 (the blind dev corpus's phrasings too).
CH14_R5_CORRECT = [
    (
        "decoding-temperature",
        "Temperature never changes which token is most likely; it changes only the spread.",
    ),
    ("decoding-temperature", "Temperature does not change the most likely token."),
    ("decoding-temperature", "Changing the temperature does not change the argmax."),
    (
        "decoding-temperature",
        "Temperature changes the most likely token's probability, not which token it is.",
    ),
    ("decoding-temperature", "Temperature changes how likely the most likely token is."),
    ("decoding-temperature", "温度不会改变最可能的 token，只改变分布的尖锐程度。"),
    ("decoding-temperature", "温度不改变最大值。"),
    ("decoding-temperature", "温度改变最可能 token 的概率，但不改变是哪个 token。"),
    (
        "decoding-rules",
        "Top-p does not keep a fixed number of tokens; top-k keeps a fixed number and top-p adapts.",
    ),
    (
        "decoding-rules",
        "Top-k keeps a fixed number of tokens, k; top-p keeps the smallest set whose mass reaches p.",
    ),
    ("decoding-rules", "Top-k keeps k tokens; top-p keeps the smallest set of tokens with mass at least p."),
    ("decoding-rules", "Min-p keeps tokens whose probability is at least a fraction of the top token's."),
    ("decoding-rules", "Unlike top-k, top-p does not use a fixed number of tokens."),
    ("decoding-rules", "top-k 保留固定数量的 token，top-p 的数量不固定。"),
    ("decoding-rules", "top-k 保留前 k 个 token，top-p 保留累计概率达到 p 的最小集合。"),
    ("decoding-rules", "min-p 保留概率至少为最高 token 一定比例的 token。"),
    ("decoding-budget", "Batching does not make each token slower in proportion while memory-bound."),
    ("decoding-budget", "Once compute-bound, a batch twice as large takes twice the time per step."),
    ("decoding-budget", "Only once compute-bound does twice the batch mean twice the time."),
    ("decoding-budget", "A batch of 32 is only a few percent slower than batch 1, not 32 times slower."),
    ("decoding-budget", "Time grows in proportion only once compute-bound."),
    ("decoding-budget", "Doubling the batch doubles the time per token only once compute-bound."),
    ("decoding-budget", "只有算力受限后，batch 翻倍时间才翻倍。"),
    ("decoding-budget", "batch 32 只慢几个百分点，而不是 32 倍。"),
    ("decoding-budget", "受带宽限制时每个 token 的延迟不随 batch 成正比增长。"),
    (
        "decoding-speculative",
        "Speculative decoding is not an approximation: the output is exactly the target's.",
    ),
    ("decoding-speculative", "投机解码不是近似，输出分布与目标模型完全相同。"),
    (
        "decoding-speculative",
        "Medusa's typical acceptance is an approximation of the target model; the Leviathan rule is exact.",
    ),
    ("decoding-speculative", "Speculative decoding does not trade quality for speed."),
    ("decoding-speculative", "投机解码不牺牲质量。"),
    ("decoding-batching", "分块 prefill 不是近似，输出完全相同。"),
    ("decoding-batching", "Chunked prefill is not an approximation; the logits are identical."),
    ("decoding-batching", "Chunked prefill loses no accuracy."),
    ("decoding-batching", "分块 prefill 不损失精度。"),
    ("decoding-to-text", "With a KV cache, each new token does not re-run the whole sequence."),
    ("decoding-to-text", "Without a KV cache every step would recompute the whole sequence."),
    ("decoding-to-text", "Prefill runs the whole prompt through the model once."),
    ("decoding-to-text", "有 KV cache 时不用每一步重新处理整个序列。"),
    ("decoding-to-text", "Each decode step reads all weights and the whole KV cache."),
]
CH14_R5_MYTHS = [
    ("decoding-speculative", "Speculative decoding approximates the target model."),
    ("decoding-speculative", "Speculative decoding trades a little quality for speed."),
    ("decoding-speculative", "The output of speculative decoding is only close to the target model's."),
    ("decoding-speculative", "Speculative decoding is an approximation of the big model."),
    ("decoding-speculative", "投机解码是对目标模型的近似。"),
    ("decoding-speculative", "投机解码用一点质量换速度。"),
    ("decoding-speculative", "投机解码的输出只是接近大模型。"),
    ("decoding-speculative", "投机解码本质上是用小模型去近似大模型，但质量会稍微差一点。"),
    ("decoding-batching", "Chunked prefill is an approximation that trades accuracy for latency."),
    ("decoding-batching", "Chunked prefill loses some accuracy."),
    ("decoding-batching", "Chunked prefill trades a bit of accuracy for latency."),
    ("decoding-batching", "分块 prefill 是用精度换延迟的近似。"),
    ("decoding-batching", "分块 prefill 会损失一些精度。"),
    ("decoding-to-text", "Each new token re-runs the whole sequence through the model."),
    ("decoding-to-text", "At every step the model reprocesses the whole prompt."),
    ("decoding-to-text", "At every step you feed the whole sequence so far back through the model."),
    ("decoding-to-text", "Every new token recomputes the entire sequence."),
    ("decoding-to-text", "每生成一个新 token 都要把整个序列重新过一遍模型。"),
    ("decoding-to-text", "每一步都要重新处理整个提示。"),
    ("decoding-to-text", "每一步都把整个序列重新算一遍。"),
    ("decoding-rules", "Top-p keeps a fixed number of tokens."),
    ("decoding-rules", "top-p keeps the top p tokens."),
    ("decoding-rules", "Top-p keeps the p most likely tokens."),
    ("decoding-rules", "Nucleus sampling keeps a fixed number of tokens."),
    ("decoding-rules", "top-p 保留固定数量的 token。"),
    ("decoding-rules", "top-p 保留前 p 个 token。"),
    ("decoding-rules", "top-p 其实也是每次保留固定个数的 token。"),
    ("decoding-temperature", "Temperature changes which token is most likely."),
    ("decoding-temperature", "A higher temperature can change the argmax."),
    ("decoding-temperature", "Lowering temperature makes another token the most likely."),
    ("decoding-temperature", "温度会改变哪个 token 最可能。"),
    ("decoding-temperature", "温度会改变最大值。"),
    ("decoding-temperature", "温度调高以后，原来概率排第二第三的 token 可能会变成概率最大的。"),
    ("decoding-budget", "Batching more sequences makes each token slower in proportion."),
    ("decoding-budget", "Twice the batch means twice the time per step."),
    ("decoding-budget", "Doubling the batch doubles the time per token."),
    ("decoding-budget", "A batch of 32 is 32 times slower per token."),
    ("decoding-budget", "批处理更多序列会让每个 token 成比例变慢。"),
    ("decoding-budget", "batch 翻倍时间也翻倍。"),
    ("decoding-budget", "每个 token 的延迟跟 batch 成正比。"),
    ("decoding-budget", "batch 32 就慢 32 倍。"),
]


@pytest.mark.parametrize(("cid", "answer"), CH14_R5_CORRECT)
def test_correct_chapter_14_answers_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH14_R5_MYTHS)
def test_chapter_14_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


def test_chapter_14_model_answers_and_key_points_state_none_of_their_own_myths() -> None:
    for card in CARDS:
        if card.chapter[:2] != "14":
            continue
        texts = [card.short[lang] for lang in ("en", "zh")] + [card.spoken[lang] for lang in ("en", "zh")]
        texts += [kp for lang in ("en", "zh") for kp in card.key_points[lang]]
        for text in texts:
            assert not card.check(text).stated, (card.id, text[:60])


# Second review of chapters 10-11 (round 2): myths whose own statement carries a negation ("without
# positional encodings", "不影响") could never be caught; patterns that flagged the corrections they teach;
# key points that the cards' own spoken answers did not earn.

CH1011_MYTHS = [
    ('pos-nope', 'Any Transformer without positional encodings is a bag-of-words model.'),
    ('pos-nope', '任何没有位置编码的 Transformer 都是词袋模型。'),
    ('pos-nope', 'Transformers with no positional encodings are always bag-of-words models.'),
    ('pos-nope', '不加位置编码的 Transformer 都是词袋模型。'),
    ('pos-nope', 'A Transformer with no positional encoding is a bag-of-words model.'),
    ('pos-context-extension', '位置插值不影响模型的短距离行为。'),
    ('pos-context-extension', 'Position interpolation does not affect short-range behaviour.'),
    ('pos-context-extension', 'Position interpolation leaves the short-range behaviour untouched.'),
    ('pos-rope-details', 'Cached keys are rotated by the current position when they are read.'),
    ('pos-rope-details', '缓存的 key 在读取时按当前位置旋转。'),
    ('pos-rope-details', 'When reading the cache, rotate the stored raw keys by the current position.'),
    ('pos-rope-details', 'At each step all cached keys are rotated by the current position.'),
    ('pos-rope-details', '每一步都把缓存里所有的 key 按当前位置重新旋转。'),
    ('pos-families', 'Sinusoidal encodings are relative.'),
    ('pos-families', '正弦位置编码是相对位置编码。'),
    ('pos-rope-how', 'RoPE makes every attention score decay with distance.'),
    ('pos-rope-how', 'RoPE 让每个注意力分数都随距离衰减。'),
    ('tf-pre-post-ln', 'LayerNorm 放在哪里只是写法不同。'),
    ('tf-pre-post-ln', 'LayerNorm placement is cosmetic.'),
    ('tf-params-flops', 'Attention is where the compute goes.'),
    ('tf-params-flops', '计算量都在注意力上。'),
    ('pos-extrapolation', 'ALiBi extrapolation means the model uses the whole longer context.'),
    ('pos-extrapolation', 'ALiBi 的外推意味着模型用上了整个更长的上下文。'),
    ('pos-rope-how', 'With RoPE attention scores decay with distance.'),
    ('pos-rope-how', 'RoPE 让注意力分数随距离衰减。'),
    ('tf-why-decoder-only', 'Decoder-only models have been shown to be the best architecture.'),
    ('tf-architectures-masks', 'GPT is the decoder of the original Transformer.'),
    ('tf-pre-post-ln', 'Pre-LN and post-LN are the same thing.'),
    ('tf-params-flops', 'Most of the compute is in attention.'),
    ('tf-params-flops', '注意力占了大部分计算量。'),
    ('pos-extrapolation', 'ALiBi 让模型用上了更长的上下文。'),
    ('pos-word-order', 'To extend the context you have to train the model again from scratch.'),
]

CH1011_CORRECT = [
    ('pos-nope', 'BERT 这样的双向编码器只是一个词袋模型，必须加位置编码。'),
    ('pos-nope', 'NoPE 模型只是去掉了位置编码的因果模型。'),
    ('pos-nope', '这种模型只是靠因果掩码学位置。'),
    ('pos-nope', 'A Transformer without a mask and without positions is a bag of words.'),
    ('pos-nope',
     'Without a causal mask and without positional encodings, attention is a bag-of-words model.'),
    ('pos-nope', '没有掩码、也没有位置编码的注意力就是词袋模型。'),
    ('pos-nope', 'An encoder without positional encodings is a bag of words.'),
    ('pos-nope', 'A Transformer without positional encodings is not a bag of words when it is causal.'),
    ('pos-nope', '没有位置编码的因果 Transformer 不是词袋模型。'),
    ('pos-context-extension', '位置插值也压缩了短距离，相邻 token 看起来近了 s 倍。'),
    ('pos-context-extension',
     'Position interpolation does not leave short-range behaviour untouched: neighbours look s '
     'times closer.'),
    ('pos-context-extension', '位置插值并非不影响短距离行为。'),
    ('pos-rope-details', 'At each step the query is rotated by the current position.'),
    ('pos-rope-details', 'Each step, rotate the query by the current position and reuse the cached keys.'),
    ('pos-rope-details',
     'Only the query is rotated by the current position at each step; the cached keys already '
     'carry their own rotation.'),
    ('pos-rope-details',
     'The query is rotated at the current position and attends to the cached rotated keys.'),
    ('pos-rope-details', '每一步把 query 按当前位置旋转。'),
    ('pos-rope-details', '查询在每一步按当前位置旋转，缓存里的 key 不再旋转。'),
    ('pos-rope-details', '每一步只把新的 query 按当前位置旋转，缓存的 key 保持各自位置的旋转。'),
    ('pos-families', 'Sinusoidal positions make relative offsets easy to learn but stay absolute.'),
    ('pos-families', '正弦编码让相对偏移容易学习，但分数仍是绝对的。'),
    ('pos-rope-how', 'The bound on each attention score decays with distance, not the score itself.'),
    ('tf-pre-post-ln', '它们的区别只是 LayerNorm 的位置不同，但这个区别决定了梯度。'),
    ('tf-pre-post-ln', '预 LN 和后 LN 的参数一样，只是位置不同，但计算的函数不同。'),
    ('tf-params-flops', '对于长序列，计算都在注意力上。'),
    ('tf-params-flops', 'At 128K tokens attention is where the compute goes.'),
    ('pos-extrapolation', '检索类基准测试检验模型是否用上了整个上下文。'),
    ('pos-extrapolation', 'To use the whole long context the model must beat slope times distance.'),
]


def _ch1011_cards() -> list:
    return [c for c in CARDS if c.chapter[:2] in ("10", "11")]


def _ch1011_registry_myths() -> list[tuple[str, str]]:
    """Each chapter 10-11 card's myths, as the registry states them (the myth sentence, EN and 中文)."""
    from selfattention.interview.language import split_misconception

    registry = load_myths()
    return [
        (card.id, split_misconception(registry[tell.myth][lang], lang)[0])
        for card in _ch1011_cards() for tell in card.tells for lang in ("en", "zh")
    ]


@pytest.mark.parametrize(("cid", "answer"), _ch1011_registry_myths() + CH1011_MYTHS)
def test_chapter_10_11_myths_as_stated_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH1011_CORRECT)
def test_correct_chapter_10_11_answers_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize("card", _ch1011_cards(), ids=[c.id for c in _ch1011_cards()])
def test_chapter_10_11_spoken_answers_earn_every_key_point(card) -> None:
    for lang in ("en", "zh"):
        result = card.check(card.spoken[lang])
        assert not result.missed, (card.id, lang, result.missed)


def test_a_negation_that_belongs_to_the_claim_is_written_with_a_tilde() -> None:
    pattern = parse_pattern("transform + ~without + @position + bag")
    assert pattern.match(clauses("A Transformer without positions is a bag of words")[0])
    assert not pattern.match(clauses("A Transformer without positions is not a bag of words")[0])
    assert not pattern.match(clauses("A Transformer with positions is a bag of words")[0])  # ~ is required
    assert not parse_pattern("transform + without + @position + bag").match(
        clauses("A Transformer without positions is a bag of words")[0]
    )  # without the tilde, "without" negates what follows it
    zh = parse_pattern("插值 + ~不影响 + 短")
    assert zh.match(clauses("位置插值不影响短距离行为")[0])
    assert not zh.match(clauses("位置插值并非不影响短距离行为")[0])


def test_a_myth_s_exclusions_hold_over_the_clauses_before_it_but_not_over_an_if() -> None:
    from selfattention.interview.matcher import Tell

    tell = [Tell(("计算 + 都在 + @attention + !!长",), myth="m")]
    assert check_answer("计算都在注意力上。", [], tell).stated
    assert not check_answer("对于长序列，计算都在注意力上。", [], tell).stated
    # a plain "!" stays in its own clause, and a fronted phrase belongs to it (review 7)
    local = [Tell(("计算 + 都在 + @attention + !长",))]
    assert not check_answer("对于长序列，计算都在注意力上。", [], local).stated
    assert check_answer("长序列更难，计算都在注意力上。", [], local).stated  # a clause of its own does not
    assert check_answer("计算都在注意力上，长序列更是如此。", [], tell).stated  # after it: not a qualifier
    tell = [Tell(("batchnorm + work + !!mask",), myth="m")]
    assert check_answer("If you mask the padding, BatchNorm works fine.", [], tell).stated




# --- Second review of chapters 06-09 (round 2): patterns need the myth's own subject and claim. The correct
# sentences below were flagged by the old registry (contrasts such as "Performer approximates attention;
# FlashAttention is exact", reversed comparisons, the myths' own corrections); each myth's own statement in
# the registry, EN and 中文, must be caught by every card that refers to it.
CH0609_R2_CORRECT = [
    ('rnn-positional-information', 'Pooled over positions, self-attention becomes permutation invariant.'),
    ('rnn-positional-information', 'Mean pooling the outputs makes the model permutation invariant.'),
    (
        'rnn-positional-information',
        'Self-attention followed by mean pooling is permutation invariant, which suits set inputs.',
    ),
    ('rnn-positional-information', '对输出做平均池化之后，模型才是置换不变的。'),
    ('rnn-why-attention', 'At inference an RNN step is cheaper than attention over a long cache.'),
    ('rnn-why-attention', 'Per generated token, an RNN is cheaper than attention at long context.'),
    ('rnn-why-attention', '长上下文生成时，RNN 每步比注意力便宜。'),
    ('rnn-why-attention', 'Attention is cheaper than an LSTM only when n is below 2d.'),
    ('rnn-why-attention', 'Attention needs fewer FLOPs than an LSTM when n < 2d.'),
    (
        'cx-long-context-memory',
        'Long-context inference is limited by the quadratic prefill compute and by the KV cache.',
    ),
    (
        'cx-long-context-memory',
        'For long-context inference the main bottleneck is the KV cache, and prefill compute stays '
        'quadratic.',
    ),
    (
        'cx-long-context-memory',
        'Without a fused kernel, long-context inference is limited by the n by n matrix in prefill.',
    ),
    ('cx-flashattention', 'Sparse attention is an approximation of full attention; FlashAttention is exact.'),
    (
        'cx-flashattention',
        'Linformer approximates attention with a low-rank projection. FlashAttention does not.',
    ),
    (
        'cx-flashattention',
        'Performer approximates attention with random features, but FlashAttention computes it exactly.',
    ),
    ('cx-flashattention', 'Causal block skipping reduces compute by almost half.'),
    ('cx-flashattention', 'Recomputation in the backward pass adds compute but reduces memory.'),
    ('cx-flashattention', 'It spends more compute in the backward pass and reduces HBM traffic.'),
    (
        'cx-sparse-linear',
        'FlashAttention computes the same result as softmax attention; linear attention does not.',
    ),
    ('cx-sparse-linear', 'FlashAttention 的结果与标准注意力相同，线性注意力则不同。'),
    ('cx-sparse-linear', 'Linear attention is faster only for long sequences, when n is larger than d.'),
    ('cx-sparse-linear', 'Linear attention is only faster once n exceeds d.'),
    (
        'cx-online-softmax',
        "Each block uses its own local maximum; the rescaling by exp(m - m') then makes the result "
        'exact.',
    ),
    ('cx-online-softmax', "分块之后再用 exp(m − m') 重新缩放，所以结果是精确的。"),
    ('cx-online-softmax', 'Performer is an approximation; the online softmax is exact.'),
    ('bias-t5-buckets', '每个头学一个标量偏置，对所有层共享。'),
    ('bias-t5-buckets', '这些标量是学出来的，对每个头各一组。'),
    ('bias-t5-buckets', 'T5 对每一对位置先算距离，再查这个距离所在的桶。'),
    (
        'bias-rope-alibi',
        'Sinusoidal and learned absolute encodings add a position vector to the embeddings; RoPE '
        'instead rotates q and k.',
    ),
    (
        'bias-rope-alibi',
        'Absolute position embeddings are added to the token embeddings, while RoPE rotates queries and '
        'keys.',
    ),
    ('bias-rope-alibi', '绝对位置编码把位置向量加到嵌入上；RoPE 旋转 query 和 key。'),
    (
        'bias-mask-conventions',
        'In nn.MultiheadAttention, True means blocked for both key_padding_mask and attn_mask.',
    ),
    ('bias-mask-conventions', 'In SDPA a boolean True means the position may be attended.'),
    ('bias-alibi', 'ALiBi fixes the slopes; later variants learn the slopes.'),
    ('dva-dot-vs-additive', 'Additive attention has the same O(n^2 d) complexity as dot-product attention.'),
    (
        'dva-dot-vs-additive',
        'They have the same asymptotic complexity and dot-product attention has a lower constant.',
    ),
    ('dva-dot-vs-additive', 'Dot-product attention is O(n^2 d) too, with a smaller constant factor.'),
    ('dva-dot-vs-additive', '加性注意力和点积注意力的复杂度相同，都是 O(n² d)。'),
    ('dva-cost', 'The pairwise part is quadratic and the projections are linear in n.'),
    ('dva-cost', 'The quadratic term exceeds the projections only when n is large.'),
    (
        'dva-additive-scaling',
        "Additive attention's score is bounded by the tanh, so scaling by sqrt d is unnecessary.",
    ),
    ('dva-additive-scaling', 'For additive attention, dividing by sqrt d is not needed.'),
    (
        'dva-variants',
        'Dot-product attention per head is a low-rank bilinear form, less expressive than a full-rank '
        'general score per head, but multi-head attention combines them.',
    ),
    ('dva-variants', '缩放点积注意力的表达能力并不比 general 注意力弱。'),
    ('dva-variants', '缩放点积注意力的表达能力不一定比 general 弱。'),
    ('dva-variants', '缩放点积注意力的表达能力并不一定比 general 弱。'),
    ('rnn-inference-cost', 'RNN 总是要按顺序计算，训练时无法并行。'),
    (
        'rnn-inference-cost',
        "RNN decoding is always constant cost per token, whereas a Transformer's grows with context.",
    ),
    (
        'cx-time-space',
        'In a long-context block the attention computation takes the main share once n exceeds 6d.',
    ),
    ('cx-time-space', 'n 大于 6d 时，注意力的计算占主要部分。'),
    ('cx-time-space', 'A naive implementation must store the n by n matrix.'),
    (
        'cx-time-space',
        'Trained with autograd through a tiled forward, the attention matrix must still be stored for '
        'backward.',
    ),
    ('cx-time-space', '朴素实现必须存下 n×n 矩阵。'),
    (
        'cx-kv-cache-memory',
        'With GQA the cache depends on the number of KV heads, not on the number of query heads.',
    ),
    ('cx-kv-cache-memory', 'The number of query heads does not change the cache.'),
    (
        'bias-what-is-attention-bias',
        'The attention bias is a matrix added to the scores; in Hugging Face configs attention_bias is '
        'the flag for the Q, K, V projection biases.',
    ),
    ('bias-what-is-attention-bias', 'It is added to the logits; b_Q and b_K are something else.'),
    ('bias-k-bias-redundant', 'Without RoPE b_K cancels in the softmax, but b_Q does not cancel.'),
    ('bias-k-bias-redundant', 'b_K 在 softmax 中被抵消，但 b_Q 不会被抵消。'),
    (
        'dva-variants',
        'On projected vectors an extra W adds nothing; per head, against a full-rank W on the raw '
        'inputs, one head is limited to rank d_k.',
    ),
]

CH0609_R2_MYTHS = [
    ('rnn-positional-information', 'Self-attention is permutation invariant.'),
    ('rnn-positional-information', '自注意力是置换不变的。'),
    ('rnn-why-attention', 'Attention is cheaper than an RNN.'),
    ('rnn-why-attention', '注意力比 RNN 计算量小。'),
    ('rnn-why-attention', '注意力比 RNN 便宜。'),
    ('rnn-complexity', "An RNN's space complexity is O(d^2)."),
    ('rnn-complexity', 'RNN 的空间复杂度是 O(d²)。'),
    ('cx-long-context-memory', 'Long-context inference is limited by the n by n matrix.'),
    ('cx-long-context-memory', '长上下文推理受限于 n×n 矩阵。'),
    ('cx-kv-cache-memory', 'The cache size depends on the number of query heads.'),
    ('cx-kv-cache-memory', 'cache 大小取决于 query 头数。'),
    ('cx-flashattention', 'FlashAttention is an approximation of attention.'),
    ('cx-flashattention', 'FlashAttention 是注意力的近似。'),
    ('cx-flashattention', 'FlashAttention reduces the O(n^2) compute.'),
    ('cx-flashattention', 'FlashAttention 降低了 O(n²) 的计算量。'),
    (
        'cx-online-softmax',
        'Blockwise softmax is an approximation because each block is normalised separately.',
    ),
    ('cx-online-softmax', '分块 softmax 因为每块单独归一化所以是近似。'),
    ('cx-sparse-linear', 'Linear attention computes the same result as softmax attention, only faster.'),
    ('cx-sparse-linear', '线性注意力和 softmax 注意力结果相同，只是更快。'),
    ('bias-what-is-attention-bias', 'Attention bias means the bias vectors of the Q, K, V projections.'),
    ('bias-what-is-attention-bias', '注意力偏置指 Q、K、V 投影的偏置向量。'),
    ('bias-k-bias-redundant', 'Since b_K cancels, b_Q must cancel too by symmetry.'),
    ('bias-alibi', 'ALiBi slopes are learned.'),
    ('bias-alibi', 'ALiBi 的斜率是学出来的。'),
    ('bias-t5-buckets', 'T5 learns a separate bias for every pair of positions.'),
    ('bias-t5-buckets', 'T5 为每一对位置单独学一个偏置。'),
    ('bias-rope-alibi', 'RoPE adds a position vector to the embeddings.'),
    ('bias-rope-alibi', 'RoPE 是给嵌入加一个位置向量。'),
    ('bias-mask-conventions', 'A boolean True always means masked.'),
    ('bias-mask-conventions', '布尔值 True 总是表示被屏蔽。'),
    ('dva-dot-vs-additive', 'Dot-product attention has a lower complexity than additive attention.'),
    ('dva-dot-vs-additive', '点积注意力的复杂度比加性注意力低。'),
    ('dva-variants', 'Scaled dot-product attention is less expressive than the general bilinear score.'),
    ('dva-variants', '缩放点积注意力的表达能力比 general 双线性打分弱。'),
    ('dva-cost', 'Additive attention projects every query-key pair.'),
    ('dva-cost', '加性注意力要对每个 query-key 对做投影。'),
    ('dva-additive-scaling', 'Additive attention also needs 1/sqrt(d) because its input is d-dimensional.'),
    ('dva-additive-scaling', '加性注意力的输入也是 d 维的，所以也需要除以 √d。'),
    ('rnn-inference-cost', 'Transformers are faster than RNNs at everything.'),
    ('rnn-inference-cost', 'Transformer 在所有方面都比 RNN 快。'),
    ('rnn-drawbacks', 'Attention is wasteful on short sequences.'),
    ('cx-time-space', 'Attention is always the most expensive part of a Transformer.'),
    ('cx-time-space', '注意力永远是 Transformer 最贵的部分。'),
    ('cx-time-space', 'Self-attention needs O(n^2) memory no matter what.'),
    ('bias-mask-conventions', 'True 总是表示屏蔽。'),
    ('bias-alibi', 'ALiBi 的斜率是训练出来的。'),
    ('rnn-complexity', 'RNN 需要 O(d²) 的空间。'),
    ('cx-sparse-linear', '线性注意力的输出和 softmax 注意力完全一样。'),
    ('cx-flashattention', 'FlashAttention cuts the FLOPs of attention.'),
    (
        'dva-variants',
        'Dot-product attention has no parameters, so it is less expressive than general attention.',
    ),
]


def _ch0609_cards() -> list:
    return [card for card in CARDS if card.chapter[:2] in {"06", "07", "08", "09"}]


def _ch0609_registry_sentences(part: int) -> list[tuple[str, str]]:
    """(card, the myth sentence (part 0) or its correction (part 1)) for every myth of the 06-09 cards."""
    from selfattention.interview.language import split_misconception

    registry = load_myths()
    return [
        (card.id, split_misconception(registry[tell.myth][lang], lang)[part])
        for card in _ch0609_cards() for tell in card.tells for lang in ("en", "zh")
    ]


@pytest.mark.parametrize(("cid", "answer"), CH0609_R2_CORRECT + _ch0609_registry_sentences(1))
def test_correct_chapter_06_09_answers_of_the_second_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH0609_R2_MYTHS + _ch0609_registry_sentences(0))
def test_chapter_06_09_myths_of_the_second_review_and_the_registry_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


# --- Second review of chapter 13 (round 2): "exactly" stems to "exact", so "exact GELU" named the myth's
# claim; "more than just the weights" is the correction; "same hidden width", "residual path", "next layer
# through the residual" and "reads less memory per token" are the conditions of correct answers.
CH13_R2_CORRECT = [
    ("block-ffn-activations", "The tanh approximation differs from exact GELU by about 5e-4."),
    ("block-ffn-activations", "GELU has an exact erf form and a cheaper tanh approximation."),
    ("block-ffn-activations",
     "The tanh approximation is an approximation of exact GELU, accurate to about 1e-3."),
    ("block-ffn-activations", "The tanh approximation deviates slightly from exact GELU."),
    ("block-ffn-activations", "The tanh form is nearly identical to GELU but not exactly."),
    ("block-ffn-activations", "Exact GELU and tanh GELU are different functions."),
    ("block-ffn-activations",
     "At the same hidden width SwiGLU has more parameters, 3 d d_ff instead of 2 d d_ff."),
    ("block-training-memory",
     "Training needs more than just the weights: gradients, a master copy and Adam's moments."),
    ("block-training-memory", "Training memory is much more than just the weights."),
    ("block-training-memory",
     "You need more than just the fp16 weights for training: 16 bytes per parameter with Adam."),
    ("block-rmsnorm-placement",
     "Pre-LN has no norm on the residual path, so a final norm is applied before the LM head."),
    ("block-moe-routing", "Dropped tokens are processed later by the next layer through the residual."),
    ("block-moe-routing",
     "At batch size one, decoding a MoE reads less memory per token, because only the active experts' "
     "weights are loaded."),
]
CH13_R2_MYTHS = [
    ("block-ffn-activations", "The tanh approximation is exactly GELU."),
    ("block-ffn-activations", "The tanh form is exactly the same function as GELU."),
    ("block-ffn-activations", "tanh GELU is identical to GELU."),
    ("block-ffn-activations", "At the same cost, SwiGLU adds parameters to the FFN."),
    ("block-training-memory", "Training only needs the weights."),
    ("block-training-memory", "Training memory is just the weights."),
    ("block-rmsnorm-placement", "Pre-LN doesn't need a final norm."),
    ("block-rmsnorm-placement", "A pre-LN model needs no norm after the last block."),
    ("block-moe-routing", "Overflow tokens are queued and processed later."),
    ("block-moe-routing", "Tokens over capacity are processed later."),
    ("block-moe-routing", "MoE needs less memory than a dense model of the same total size."),
    ("block-moe-routing", "MoE makes a model cheaper to store."),
]


@pytest.mark.parametrize(("cid", "answer"), CH13_R2_CORRECT)
def test_correct_chapter_13_answers_of_the_second_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH13_R2_MYTHS)
def test_chapter_13_myths_of_the_second_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)




# Chapter 14 (round-2 review, M1-M2): saying what temperature does to the argmax's probability is correct;
# Leviathan et al.'s "approximation model" is the draft, and draft quality changes only the acceptance rate.
CH14_RR2_CORRECT = [
    ("decoding-temperature", "Temperature changes the probability of the argmax, not which token it is."),
    ("decoding-temperature", "Lowering the temperature changes the argmax's probability, not its identity."),
    ("decoding-temperature", "Temperature changes how often the argmax is sampled."),
    ("decoding-temperature", "Temperature changes how much mass the argmax gets."),
    ("decoding-temperature", "温度改变最大值的概率，但不改变哪个是最大值。"),
    ("decoding-temperature", "温度改变的是最大值所占的概率。"),
    ("decoding-temperature", "A higher temperature makes another token more likely to be sampled."),
    (
        "decoding-speculative",
        "In speculative decoding a small approximation model proposes k tokens and the target verifies them.",
    ),
    ("decoding-speculative", "Speculative decoding uses a cheap approximation model to propose tokens."),
    ("decoding-speculative", "The draft model approximates the target model in speculative decoding."),
    ("decoding-speculative", "草稿模型质量差一些只会降低接受率，不会改变输出分布。"),
    ("decoding-speculative", "草稿模型的质量下降一些，只会让接受率降低。"),
    ("decoding-speculative", "小模型近似大模型的分布，越接近接受率越高。"),
    ("decoding-speculative", "用一个小模型近似大模型来提出候选 token。"),
]
CH14_RR2_MYTHS = [
    ("decoding-speculative", "Speculative decoding gives slightly worse outputs than the target alone."),
    (
        "decoding-speculative",
        "The outputs of speculative decoding are close to but not exactly the target's.",
    ),
    ("decoding-speculative", "投机解码的结果和大模型差不多，但不完全一样。"),
]


@pytest.mark.parametrize(("cid", "answer"), CH14_RR2_CORRECT)
def test_correct_chapter_14_answers_of_the_round_2_review_are_not_flagged(cid: str, answer: str) -> None:
    assert not get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH14_RR2_MYTHS + CH14_R5_MYTHS)
def test_chapter_14_myths_of_the_round_2_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)




# Third review of chapter 12 (round 5): a myth set up in order to be refuted states nothing (M2), a stated
# "FlashAttention does fewer FLOPs" blocks the key point it contradicts (M5).
CH12_R3_FRAMED = [
    ('scale-cheap-enough', 'Many think FlashAttention approximates attention, but it is exact.'),
    ('scale-cheap-enough', 'Some people believe FlashAttention approximates attention; it does not.'),
    ('scale-cheap-enough', 'FlashAttention looks like it approximates attention, but it is exact.'),
    ('scale-cheap-enough', 'The common mistake is to think that FlashAttention approximates attention.'),
    ('scale-cheap-enough', 'It is a common mistake to say FlashAttention approximates attention.'),
    ('scale-cheap-enough', '看起来 FlashAttention 是近似，其实是精确的。'),
    ('scale-cheap-enough', 'FlashAttention 看似近似注意力，实际上是精确的。'),
    ('scale-mla', 'People often think MLA is just GQA, but every head keeps its own keys.'),
    (
        'scale-flash-backward',
        'Intuitively recomputation should be slower, but it is faster because memory '
        'traffic dominates.',
    ),
    ('scale-flash-backward', 'Recomputation seems slower, but it is faster.'),
    ('scale-flash-backward', 'The recomputation is slower in theory but faster in practice.'),
    ('scale-flash-backward', '直觉上重算会更慢，但实际上更快。'),
    ('scale-flash-decoding', 'Splitting the keys seems to approximate attention, but the merge is exact.'),
    (
        'scale-prefill-decode',
        'Intuitively a bigger batch should make decoding compute-bound, but attention '
        'stays memory-bound.',
    ),
    (
        'scale-paged-attention',
        'PagedAttention sounds like it makes the attention kernel faster, but the gain '
        'is a bigger batch.',
    ),
    (
        'scale-attention-sinks',
        'StreamingLLM is often described as infinite context, but evicted tokens are '
        'gone.',
    ),
    ('scale-attention-sinks', 'StreamingLLM is often mistaken for infinite context.'),
    ('scale-sliding-window', 'The common mistake is to think the model can only see the last w tokens.'),
]
CH12_R3_STATED = [  # (card, myth as a candidate states it, the key point it must block)
    ('scale-cheap-enough', 'FlashAttention is faster because it does fewer FLOPs.', 1),
    ('scale-cheap-enough', 'FlashAttention reduces the FLOPs of attention.', 1),
    ('scale-flash-backward', 'FlashAttention is faster because it does fewer FLOPs.', 3),
    ('scale-flash-backward', 'FlashAttention reduces the FLOPs, which is why it is faster.', 3),
    ('scale-cheap-enough', 'I think FlashAttention approximates attention.', 0),  # one's own belief is stated
    ('scale-cheap-enough', 'FlashAttention approximates attention, but it is faster.', 0),  # no belief word
]


@pytest.mark.parametrize(("cid", "answer"), CH12_R3_FRAMED)
def test_chapter_12_third_review_a_myth_set_up_to_be_refuted_is_not_stated(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer", "point"), CH12_R3_STATED)
def test_chapter_12_third_review_myths_are_caught_and_block(cid: str, answer: str, point: int) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert result.stated and point in result.blocked, (cid, answer, result.stated, result.blocked)


# Third review of chapter 12, M3/M4: loose patterns anchored (sparse/low-rank "it approximates", MLA vs GQA
# comparisons), the sliding-window myth stated plainly is caught and does not earn the receptive-field point.
CH12_R3_CORRECT = [
    (
        'scale-cheap-enough',
        'Linformer is fast because it approximates attention with a low-rank projection; '
        'FlashAttention is exact.',
    ),
    (
        'scale-cheap-enough',
        'Sparse attention is one option, but it approximates attention; FlashAttention '
        'instead computes it exactly.',
    ),
    (
        'scale-cheap-enough',
        'Sparse attention saves compute but it approximates attention, while '
        'FlashAttention is exact.',
    ),
    ('scale-mla', 'MLA performs better than GQA.'),
    ('scale-mla', 'MLA outperforms GQA while caching less.'),
    ('scale-mla', 'MLA goes further than GQA: one latent for all heads.'),
    ('scale-mla', 'MLA 的效果比 GQA 好。'),
    ('scale-mla', 'GQA shares K/V heads across query heads.'),
    ('scale-mla', 'GQA reduces the number of KV heads; MLA compresses them into a latent.'),
    (
        'scale-mla',
        'With GQA several heads share one K and V; MLA keeps per-head keys decompressed '
        'from a latent.',
    ),
    ('scale-sliding-window', "The first layer's receptive field is only w tokens."),
    ('scale-sliding-window', 'In layer one the receptive field is just w; it grows by w-1 per layer.'),
    ('scale-sliding-window', 'The cache holds w tokens, but the receptive field is L(w-1)+1.'),
]
CH12_R3_MYTHS = [
    ('scale-sliding-window', 'A token can only ever see the last w tokens.'),
    ('scale-sliding-window', 'Even across all layers, a token can only see the last w tokens.'),
    ('scale-sliding-window', 'Stacking layers does not help: a token still only sees w tokens back.'),
    ('scale-sliding-window', 'The model never sees more than w tokens back.'),
    ('scale-sliding-window', 'The receptive field is w.'),
    ('scale-sliding-window', 'After L layers the receptive field remains w tokens.'),
    ('scale-sliding-window', 'Even after many layers the receptive field is still w.'),
    ('scale-mla', 'MLA is basically GQA.'),
    ('scale-mla', 'MLA is just MQA.'),
    ('scale-mla', 'MLA is essentially GQA with 2.25 groups.'),
    ('scale-cheap-enough', 'FlashAttention approximates attention.'),
    ('scale-cheap-enough', 'It approximates attention with tiles, which is why it is fast.'),
]


@pytest.mark.parametrize(("cid", "answer"), CH12_R3_CORRECT)
def test_chapter_12_third_review_comparisons_are_not_myths(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH12_R3_MYTHS)
def test_chapter_12_third_review_plain_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize("answer", [
    'After L layers the receptive field remains w tokens.',
    'Even after many layers the receptive field is still w.',
])
def test_chapter_12_third_review_a_fixed_receptive_field_earns_no_growth_point(answer: str) -> None:
    result = get_card(CARDS, 'scale-sliding-window').check(answer)
    assert 2 not in result.covered, (answer, result.hits)


# Third review of chapters 10-11 (round 3). M1: a myth's "!" exclusions reached back over every earlier
# clause of its sentence, so a harmless lead-in ("I'm not sure, but …", "In multi-head attention, …")
# hid the plain myth after it; only "!!" qualifiers reach back now. M2: a "~" group freed every copy of
# its negation word in the clause. M3: common word orders of the NoPE myth. M4: the correct "invariant
# in the keys and values" statement flagged as the permutation-invariance myth.
CH1011_R3_MYTHS = [
    ('flow-computation', 'In multi-head attention, we divide by d_k.'),
    ('flow-computation', '在多头注意力里，是除以 d_k。'),
    ('tf-params-flops', 'The FFN is just a small MLP, and most of the compute is in attention.'),
    ('tf-params-flops', 'FFN 只是个小 MLP，计算量主要在注意力上。'),
    ('tf-mlm-mask-vs-attention-mask',
     "It is not complicated, but BERT's [MASK] works like an attention mask, so no position attends to a "
     "masked token."),
    ('pos-nope',
     'Even with a causal mask, a Transformer without positional encodings is a bag-of-words model.'),
    ('pos-nope', 'Without positional encodings, a Transformer is a bag-of-words model.'),
    ('pos-nope', '不加位置编码，Transformer 就是词袋模型。'),
    ('pos-nope', 'A decoder without positional encodings is a bag of words.'),
    ('pos-nope', 'A GPT-style decoder without positional encodings is just a bag of words.'),
    ('pos-word-order',
     'Once the queries, keys and values are computed, self-attention is permutation-invariant.'),
    ('pos-word-order', '算出 query、key、value 之后，自注意力是置换不变的。'),
    ('pos-context-extension',
     "I'm not sure, but I think NTK-aware scaling brings every slow pair back into the trained range."),
    ('scale-attention-sinks', "I'm not sure, but I think StreamingLLM gives a model infinite context."),
    ('pos-context-extension', 'PI leaves the short range untouched.'),  # L2
    ('pos-context-extension', 'PI does not affect short-range behaviour.'),
]

CH1011_R3_CORRECT = [
    ('pos-nope', '没有位置编码的 Transformer 并没有退化成词袋模型。'),
    ('pos-nope', '没有位置编码的 Transformer 没有退化为词袋模型，因果掩码泄露了顺序。'),
    ('pos-nope', '没有位置编码的 Transformer 也没有变成词袋模型。'),
    ('pos-nope', 'A Transformer without positional encodings is no bag-of-words model.'),
    ('pos-nope', 'An encoder without positional encodings is a bag of words.'),
    ('pos-nope', 'With positional encodings a Transformer is no longer a bag of words.'),
    ('pos-word-order', '自注意力对 key 和 value 的顺序是置换不变的，对 query 是等变的。'),
    ('pos-word-order', 'Attention is invariant to the order of the keys and values.'),
    ('pos-word-order',
     'Attention is permutation-invariant with respect to the keys: shuffling the key-value pairs leaves '
     'each output unchanged.'),
    ('pos-word-order',
     'For a fixed query, attention is invariant to permuting the keys and values together.'),
    ('scale-attention-sinks',
     'Many people think StreamingLLM gives a model infinite context, but it does not.'),
    ('tf-params-flops', '对于长序列，计算都在注意力上。'),
    ('pos-context-extension', 'PI does not leave the short range untouched.'),
]


@pytest.mark.parametrize(("cid", "answer"), CH1011_R3_MYTHS)
def test_chapter_10_11_third_review_myths_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH1011_R3_CORRECT)
def test_chapter_10_11_third_review_correct_answers_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


def test_a_tilde_frees_only_its_own_negation_in_its_place() -> None:
    card = get_card(CARDS, 'pos-families')
    assert 3 in card.check('RoPE 是乘法而不是加法。').covered
    for reversed_claim in ('RoPE 是加法而不是乘法。', 'RoPE 不是乘法而是加法。'):
        assert 3 not in card.check(reversed_claim).covered, reversed_claim
    pattern = parse_pattern("transform + ~without | no + @position + bag")
    assert pattern.match(clauses("A Transformer without positions is a bag of words")[0])
    assert not pattern.match(clauses("A Transformer without positions is no bag of words")[0])


def test_only_a_double_bang_qualifier_reaches_back_over_earlier_clauses() -> None:
    from selfattention.interview.matcher import Tell

    # a fronted phrase is part of its clause, so a plain "!" sees it (review 7: "In each layer, …",
    # "With ZeRO-3, …" are conditions); a clause of its own ("Heads aside, …") is seen by "!!" only
    assert not check_answer("In multi-head attention, we divide.", [], [Tell(("divide + !head",))]).stated
    assert check_answer("Heads aside, we divide.", [], [Tell(("divide + !head",))]).stated
    assert not check_answer("Heads aside, we divide.", [], [Tell(("divide + !!head",))]).stated
    assert not check_answer("With many heads we divide.", [], [Tell(("divide + !head",))]).stated




# Third review of chapters 01-05 (M1, M2): myths that missed their plain statement (a conditional one
# among them: a myth pattern that names its condition may match an "if ..." clause), and two myths that
# flagged their own correction.
CH0105_R3_MYTHS = [
    ('mh-split-heads', 'If the shapes are right the reshape is right.'),
    ('mh-split-heads', 'As long as the shape is right, the reshape is correct.'),
    ('mh-split-heads', 'The shapes are right, so the reshape is right.'),
    ('mh-split-heads', 'A correct shape means the reshape is correct.'),
    ('mh-split-heads', '只要形状对，reshape 就没问题。'),
    (
        'scaling-learnable-temperature',
        'A learnable temperature lets the model express attention patterns it could not express before.',
    ),
    (
        'scaling-learnable-temperature',
        "A learnable temperature lets the model express patterns it couldn't express before.",
    ),
    ('mask-self-masked-cross', '交叉注意力在解码器里，所以需要因果掩码。'),
    ('mask-cross-attention', '交叉注意力在解码器里，所以需要因果掩码。'),
    ('mh-head-dim', 'd_model must be divisible by h.'),
    ('mh-head-dim', 'd_model 必须能被 h 整除。'),
    ('mh-head-dim', 'The model dimension has to be divisible by the number of heads.'),
    ('flow-softmax-axis', 'Each column of the attention matrix sums to 1.'),
    ('flow-softmax-axis', '注意力矩阵每一列和为 1。'),
    ('flow-softmax-axis', 'Every column adds up to 1, like a probability distribution.'),
]

CH0105_R3_CORRECT = [
    ('mh-split-heads', 'If the shapes are right the reshape can still be wrong.'),
    ('mh-split-heads', 'Even if the shapes are right, the reshape is not necessarily right.'),
    ('mh-split-heads', 'Getting the right shape does not mean the reshape is right.'),
    ('mh-split-heads', 'We transpose first, so the reshape is right.'),
    (
        'scaling-learnable-temperature',
        'It does not let the model express patterns it could not express before.',
    ),
    (
        'scaling-learnable-temperature',
        'If the temperature were learnable, the model could not express anything new.',
    ),
    ('mh-head-dim', 'That is only needed when d_k is defined as d_model / h.'),
    ('mh-head-dim', '只有把 d_k 定义成 d_model / h 时才需要。'),
    ('mh-head-dim', 'It is only required when you define d_k as d_model / h.'),
    ('mh-head-dim', 'Divisibility is only needed for the d_model/h convention.'),
    ('mh-head-dim', 'With d_k = d_model/h, d_model must be divisible by h; in general it need not be.'),
    ('mh-head-dim', 'd_model has to be divisible by h only if you insist on d_k = d_model / h.'),
    ('flow-softmax-axis', 'A column can sum to more or less than 1.'),
    ('flow-softmax-axis', "A key's column can sum to more than 1."),
    ('flow-softmax-axis', 'A column can sum to more or less than 1; only rows are normalised.'),
    ('flow-softmax-axis', 'Column sums can be above or below 1.'),
    ('flow-softmax-axis', '列的和可以大于或小于 1。'),
]


@pytest.mark.parametrize(("cid", "answer"), CH0105_R3_MYTHS)
def test_chapter_01_05_myths_of_the_third_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


@pytest.mark.parametrize(("cid", "answer"), CH0105_R3_CORRECT)
def test_correct_chapter_01_05_answers_of_the_third_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)




# Third review of chapters 06-09 (M1): correct sentences that a myth's subject words alone used to flag
# (all 18 flagged by the registry before this fix), and myth phrasings the narrowed patterns still catch.
CH0609_R3_CORRECT = [
    ("cx-flashattention", "FlashAttention reduces memory from O(n^2) to O(n)."),
    ("cx-flashattention", "FlashAttention reduces the quadratic memory to linear."),
    ("cx-flashattention", "FlashAttention 把显存从 O(n²) 降低到 O(n)。"),
    ("cx-time-space", "The quadratic term always dominates once n > 2d."),
    ("cx-time-space", "Beyond n = 2d the n^2 terms always dominate the attention layer."),
    ("cx-kv-cache-memory", "With MQA the cache is divided by the number of query heads."),
    (
        "cx-kv-cache-memory",
        "MQA keeps one K/V head for all query heads, so the cache shrinks by the number of query heads.",
    ),
    ("dva-cost", "The projections are O(n d d_a) and the tanh is O(n^2 d_a)."),
    ("dva-cost", "Dot-product attention's projections cost O(n d^2) and its scores O(n^2 d)."),
    (
        "dva-variants",
        "Dot and general scores are bilinear, so a single layer is less expressive than the additive MLP"
        " score, but stacking layers recovers it.",
    ),
    ("dva-variants", "A bilinear score is less expressive than an MLP score."),
    ("dva-variants", "双线性打分的表达能力不如加性的 MLP 打分，但多层可以补回来。"),
    (
        "bias-mask-conventions",
        "Passing the same boolean mask to SDPA and nn.MultiheadAttention silently inverts it.",
    ),
    (
        "bias-k-bias-redundant",
        "Both the key bias and the value bias are redundant: b_K cancels and b_V folds into the output bias.",
    ),
    (
        "cx-sparse-linear",
        "Linear attention gives the same result as its quadratic form phi(Q) phi(K)^T V, row-normalised.",
    ),
    (
        "dva-dot-vs-additive",
        "Dot-product attention has a lower cost in practice, though the big-O is the same.",
    ),
    ("cx-online-softmax", "The online softmax is exact; only Performer-style methods approximate."),
    ("cx-online-softmax", "Performer 用随机特征，所以只能近似 softmax；在线 softmax 是精确的。"),
]

CH0609_R3_MYTHS = [
    ("cx-flashattention", "FlashAttention reduces the quadratic compute."),
    ("cx-flashattention", "FlashAttention reduces the O(n^2) time to linear."),
    ("cx-time-space", "Attention always dominates the cost of a Transformer."),
    ("cx-kv-cache-memory", "The KV cache grows with the number of query heads."),
    ("cx-kv-cache-memory", "The cache size is set by the number of query heads."),
    ("dva-cost", "The projections are O(n^2) because every pair is projected."),
    ("dva-variants", "Dot-product attention is less expressive than general attention."),
    ("dva-variants", "点积注意力没有参数，表达能力更弱。"),
    ("bias-mask-conventions", "You can pass the same mask to SDPA and nn.MultiheadAttention."),
    ("bias-mask-conventions", "True means the same in SDPA and MultiheadAttention."),
    ("bias-k-bias-redundant", "Both biases cancel."),
    ("bias-k-bias-redundant", "Both the query and the key bias are redundant."),
    ("cx-sparse-linear", "Linear attention gives exactly the same result as standard attention."),
    ("dva-dot-vs-additive", "Dot-product attention has lower time complexity."),
    ("cx-online-softmax", "The online softmax is only an approximation."),
    ("cx-online-softmax", "每块单独算，所以是近似的。"),
]


@pytest.mark.parametrize(("cid", "answer"), CH0609_R3_CORRECT)
def test_correct_chapter_06_09_answers_of_the_third_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH0609_R3_MYTHS)
def test_chapter_06_09_myths_of_the_third_review_are_still_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)




# Chapter 15, third review: correct answers the myths flagged (ZeRO/FSDP, the ring's group size,
# the zigzag fix, sparse attention and 16-bit rounding) and myths the registry missed.
CH15_R3_CORRECT = [
    ('parallel-kinds', 'Fully sharded data parallelism reduces memory per device.'),
    ('parallel-kinds', 'Sharded data parallelism saves memory.'),
    (
        'parallel-kinds',
        'ZeRO reduces the memory per device by sharding optimizer states across data-parallel ranks.',
    ),
    ('parallel-kinds', 'Data parallel training with FSDP lowers memory per device.'),
    ('parallel-kinds', 'Data parallelism with ZeRO stage 3 cuts memory per device.'),
    ('parallel-kinds', '数据并行本身不省显存，FSDP 这种分片的数据并行才减少显存。'),
    ('parallel-ulysses', 'Ring attention can use as many GPUs as you like; Ulysses is bounded by the heads.'),
    (
        'parallel-ulysses',
        'The ring can grow to as many devices as you like, since it is not bounded by heads.',
    ),
    ('parallel-ulysses', '环形注意力适用于任意卡数，Ulysses 不行。'),
    ('parallel-ulysses', 'Ulysses 的卡数受头数限制，而环形注意力适用于任意卡数。'),
    ('parallel-ulysses', '环形注意力可以扩展到任意卡数。'),
    ('parallel-zigzag', "With zigzag shards the causal mask halves each rank's work."),
    ('parallel-zigzag', "Zigzag makes the causal mask halve every rank's work equally."),
    ('parallel-zigzag', 'zigzag 切分后，因果掩码让每张卡的工作量均匀减半。'),
    (
        'parallel-split-attention',
        'Unlike sparse attention, which approximates far-away blocks, ring attention is exact.',
    ),
    (
        'parallel-split-attention',
        'Sparse and low-rank methods approximate far blocks; ring attention does not.',
    ),
    ('parallel-split-attention', 'In 16-bit you lose some precision, as with any low-precision kernel.'),
    (
        'parallel-split-attention',
        'The 16-bit ring loses a little precision to rounding, like any 16-bit kernel,'
        ' but it is not an approximation.',
    ),
]

CH15_R3_MYTHS = [
    ('parallel-kinds', 'Data parallelism saves memory per device.'),
    ('parallel-kinds', '数据并行能节省每张卡的显存。'),
    ('parallel-ulysses', 'Ulysses can use as many GPUs as you like.'),
    ('parallel-ulysses', 'Ulysses 适用于任意卡数。'),
    ('parallel-ulysses', 'Ulysses 可以用任意数量的卡。'),
    ('parallel-zigzag', "A causal mask halves every rank's work equally."),
    ('parallel-zigzag', '因果掩码让每个 rank 的工作量都均匀减半。'),
    ('parallel-split-attention', 'Ring attention approximates attention over far-away blocks.'),
    ('parallel-split-attention', '环形注意力对远处的块做近似。'),
    ('parallel-split-attention', 'Ring attention loses accuracy.'),
    ('parallel-head-tp', '注意力的张量并行需要对 Q、K、V 做 all-gather。'),
    ('parallel-head-tp', '张量并行先对 Q、K、V 做 all-gather，再算注意力。'),
    ('parallel-head-tp', '注意力的张量并行要先 all-gather K 和 V。'),
    ('parallel-ring-backward', 'autograd 可以直接对收发操作求导。'),
    ('parallel-ring-backward', 'autograd 可以直接对收发求导，不用自己写反向。'),
    ('parallel-ring-backward', '反向传播时 autograd 会自动处理 send 和 recv。'),
]


@pytest.mark.parametrize(("cid", "answer"), CH15_R3_CORRECT)
def test_correct_chapter_15_answers_of_the_third_review_are_not_flagged(cid: str, answer: str) -> None:
    result = get_card(CARDS, cid).check(answer)
    assert not result.stated, (cid, answer, result.stated)


@pytest.mark.parametrize(("cid", "answer"), CH15_R3_MYTHS)
def test_chapter_15_myths_of_the_third_review_are_caught(cid: str, answer: str) -> None:
    assert get_card(CARDS, cid).check(answer).stated, (cid, answer)


def test_find_index_follows_the_clauses_units():
    # Clause.find looks phrases up in a per-clause index of unit texts (built on first use); it must give the
    # same hits as a plain scan, and a clause whose units are replaced must not answer from the old index
    from selfattention.interview.language import clauses

    c = clauses("The softmax is not applied to the scores before the mask.")[0]
    texts = [u.text for u in c.units]
    for n in (1, 2, 3):
        for i in range(len(texts) - n + 1):
            phrase = tuple(texts[i:i + n])
            scan = [j for j in range(len(texts) - n + 1) if tuple(texts[j:j + n]) == phrase]
            assert [j for j, _ in c.find(phrase)] == scan, phrase
    assert c.find(("nowhere",)) == []
    other = clauses("Rows sum to one.")[0]
    c.units = other.units
    assert [j for j, _ in c.find((other.units[0].text,))] == [0]
