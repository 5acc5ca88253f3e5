"""A clause that states a myth earns no key point with the myth's words (sessions 18, 19): the point is read
from the answer's other clauses, else from a comma part of the myth clause that holds no word of the myths
it states, else the myth blocks it. A myth clause lends no words to a point read over two clauses. A myth only
the similarity fallback finds withholds nothing (it has no words of its own, and may be a false alarm).
Session 18 (a26977b, every point a myth clause touched): key-point agreement dev 91.7 % -> 92.0 % EN,
93.2 % -> 93.6 % 中文; heldout 89.8 % -> 90.4 %, 90.1 % -> 90.4 %. Review 222 (M1-M3) on it: the myth clause
was found by its text split at ", " (a clause holding ", " escaped), every point in it was withheld
(QK^T in "Compute QK^T, then divide the scores by d_k"), and a fallback false alarm withheld points too.
Session 19 (the rule as it is now, after reviews 222 and 223): dev 92.0 % -> 92.0 % EN, 93.6 % -> 93.5 %
中文; heldout 90.4 % -> 90.4 %, 90.4 % -> 90.4 %; myths, alarms, paraphrases and probes unchanged."""

from __future__ import annotations

import pytest

from selfattention.interview import bank, similar


@pytest.fixture(scope="module")
def cards() -> dict[str, bank.Card]:
    similar.auto_enable()
    return {c.id: c for c in bank.load_cards()}


# (card, answer, myth it states, the point its myth clause would tick). The point is not one the myth blocks
# of itself (`Tell.blocks`): only this rule blocks it
MYTH_CLAUSE_ONLY = [
    ("bias-alibi", "ALiBi adds a penalty proportional to the distance to the attention scores, with a "
     "slope per head that is a learned parameter trained with the model.", 0, 3),
    ("mask-masked-attention",
     "先正常算 softmax，然后把权重矩阵和下三角的 0/1 矩阵逐元素相乘，"
     "未来位置的权重就变成 0 了。", 0, 2),
    # M1: the myth clause holds ", " inside brackets; found by its text split at ", ", it escaped the rule
    ("mask-kv-cache", "Per layer we allocate q_cache, k_cache and v_cache of shape [batch, heads, max_len, "
     "head_dim], so each token costs three vectors of memory per layer, not two.", 1, 4),
]


# review 223: the point's words are what the myth is about, in the myth's own comma part (M-a); a clause
# stating two myths withholds the words of both (M-b); a negated word earns nothing (L-a)
MYTH_CLAUSE_ONLY += [
    ("qkv-remove-wv", "In multi-head attention W_V can also be merged into W_O.", 0, 0),
    ("cx-long-inputs-encoder", "With sliding windows every token sees the whole document as context.", 0, 1),
    ("flow-computation", "mask 放在 softmax 之后：权重矩阵和 0/1 mask 逐元素相乘，未来位置变成 0。", 2, 1),
    ("flow-computation", "mask 在按行的 softmax 之后乘 0 而不是加权重。", 3, 4),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "point"), MYTH_CLAUSE_ONLY)
def test_a_point_only_the_myth_clause_states_is_blocked(cards, cid, answer, myth, point) -> None:
    card = cards[cid]
    assert point not in card.tells[myth].blocks
    r = card.check(answer)
    assert myth in r.stated and myth not in r.similar
    assert point not in r.covered
    assert r.blocked.get(point) == myth


# the condition's other side: the same point stated in a clause of its own is still credited
OWN_CLAUSE = [
    ("mask-masked-attention", "The mask multiplies the weights by 0 after the softmax. Each row still "
     "sums to 1 over the allowed positions.", 0, 2),
    ("bias-alibi",
     "ALiBi 给分数加上与距离成正比的惩罚。斜率陡的头看局部、斜率缓的头看远处。"
     "这些斜率是训练中学出来的。", 0, 3),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "point"), OWN_CLAUSE)
def test_a_point_stated_in_its_own_clause_is_still_covered(cards, cid, answer, myth, point) -> None:
    r = cards[cid].check(answer)
    assert myth in r.stated
    assert point in r.covered
    assert point not in r.blocked


# M2: a point the myth clause states with other words than the myth's is earned; the point the myth
# contradicts is still blocked. (card, answer, myth, point earned, point blocked)
BESIDE_THE_MYTH = [
    ("flow-computation", "Compute QK^T, then divide the scores by d_k, take a softmax over each row so each "
     "row sums to 1, and multiply by V.", 0, 1, 2),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "earned", "blocked"), BESIDE_THE_MYTH)
def test_a_point_the_myth_clause_states_in_other_words_is_earned(
    cards, cid, answer, myth, earned, blocked,
) -> None:
    r = cards[cid].check(answer)
    assert myth in r.stated and myth not in r.similar
    assert earned in r.covered and earned not in r.blocked
    assert r.blocked.get(blocked) == myth


# a point's own negation in a comma part beside the myth: "no position embedding" ticks point 0 (fails on
# 99a1b28: the key point says "embeddings", whose units differed from the answer's "embedding"; the lemma fix
# of session 20, tests/test_negation_scope.py)
def test_a_points_own_negation_beside_the_myth(cards) -> None:
    r = cards["bias-alibi"].check("With no position embedding, ALiBi slopes are learned.")
    assert 0 in r.stated and 0 in r.covered and r.blocked.get(2) == 0


# review 224 M1 (open): a true point in the myth's own comma part is withheld ("ALiBi adds a linear distance
# penalty to the scores with slopes learned per head" loses point 0). Session 20 split comma parts into
# phrases (ef736e9, 180890b); reviews 228 and 229 found 4 and 6 medium errors in that rule, false credit among
# them, and it was taken out. These rows, false credit under one of those rules, stay withheld: a phrase
# after the myth's is mostly its own modifier ("a slice with d_model / h features", "whose width is …",
# "而这一部分…"), the point is read with one of the myth's words ("by a slope"), or the phrase is the myth's
# setting ("With sliding windows …"). Rows 1-3 and 6-8 fail on ef736e9; (card, answer, myth, point withheld)
MYTHS_OWN_PHRASE = [
    ("mh-why-multi-head", "Each head sees a slice with d_model / h features of the input.", 1, 3),
    ("mh-why-multi-head", "Each head sees a slice of the input whose width is d_model / h.", 1, 3),
    ("mh-why-multi-head", "每个头只看到输入的一部分而这一部分的宽度是 d_model / h。", 1, 3),
    ("bias-alibi", "ALiBi works with per-head slopes learned and added to the attention scores.", 0, 0),
    ("bias-alibi", "ALiBi penalises far keys by a slope with slopes learned per head.", 0, 3),
    ("bias-alibi", "The slope with which each head penalises far keys is learned.", 0, 3),
    ("bias-alibi", "Slopes where each head adds a bias to the attention scores are learned.", 0, 0),
    ("bias-alibi", "ALiBi slopes are learned with no position embedding.", 0, 0),
    # a dev answer (its labels give no point 1), earned on ef736e9
    ("cx-long-inputs-encoder", "With sliding windows every token ends up with the whole document as context, "
     "since the chunks overlap and info flows across them.", 0, 1),
    # review 229 M1: the phrase before the myth's is its subject (both earned on 180890b)
    ("mh-why-multi-head", "The d_model / h features that each head sees are a slice of the input.", 1, 3),
    ("mh-why-multi-head", "输入被切成 h 份每份 d_model / h 维而每个头只看到输入的一部分。", 1, 3),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "point"), MYTHS_OWN_PHRASE)
def test_a_point_in_the_myths_comma_part_is_withheld(cards, cid, answer, myth, point) -> None:
    r = cards[cid].check(answer)
    assert myth in r.stated and myth not in r.similar
    assert point not in r.covered
    assert r.blocked.get(point) == myth


# M3: a myth only the similarity fallback finds (here a false alarm: the answer scales by √d_k, as the
# labels say) withholds no point its clause states
def test_a_fallback_myth_withholds_nothing(cards) -> None:
    answer = (
        "先算 QK^T 得到分数，然后除以根号 d_k，防止数值太大，接着做 softmax 得到注意力权重，"
        "最后再乘上 V 就得到输出了。"
    )
    card = cards["flow-computation"]
    r = card.check(answer)
    assert r.similar and set(r.similar) == set(r.stated)  # only the fallback states a myth here
    assert 1 in r.covered  # the scores point, from the flagged clause
    assert not card.check(answer, patterns_only=True).stated


def test_the_reveal_lists_the_points_a_myth_voids_in_order(cards, capsys) -> None:
    from selfattention.interview.render import UI
    from selfattention.interview.session import _show_reveal

    card = cards["mask-masked-attention"]
    answer = MYTH_CLAUSE_ONLY[1][1]
    r = card.check(answer)
    voided = [i for i, j in r.blocked.items() if j == 0 and i in r.hits]
    assert len(voided) >= 2 and voided != sorted(voided)  # blocked in another order than the points'
    _show_reveal(UI(True, "zh"), card, "zh", answer, list(cards.values()))
    out = capsys.readouterr().out
    assert sorted(voided) == [1, 2, 4]  # -inf before the softmax, rows sum to 1, applied before the softmax
    assert "所以这些要点不算提到：第 2 条、第 3 条、第 5 条" in out
