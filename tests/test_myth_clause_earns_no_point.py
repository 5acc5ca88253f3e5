"""A clause that states a myth earns no key point with the myth's words (sessions 18, 19): the point is read
from the answer's other clauses, else from a comma part of the myth clause that holds no word of the myths
it states or a phrase before the one that states the myth (session 20), in none of the myth's words, else
the myth blocks it. A myth clause lends no words to a point read over two clauses. A myth only
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


# review 224 M1 (session 20): a comma part is split again into phrases, before "with" / "whose" / "where" /
# "which" / "that" / "and" / "using" / 而 / 且 / 而且 / 并且; a point read in a phrase before the one that
# states the myth (the phrase holding most of its pattern's concept groups, two at least), in none of the
# myth's words, is earned. The claim's own negation ("no position embedding") negates nothing after it there,
# as in the match. All 9 rows fail on 4e770c7 (there the whole comma part was the myth's), rows 5-9 on
# ef736e9.
# (card, answer, myth, point earned, point the myth blocks)
A_PHRASE_OF_ITS_OWN = [
    ("bias-alibi", "ALiBi adds a linear distance penalty to the attention scores with slopes learned per "
     "head.", 0, 0, 3),
    ("bias-alibi", "ALiBi 在分数上减去 m_h 乘以距离而斜率 m_h 是学出来的。", 0, 0, 3),
    ("bias-alibi", "ALiBi 把 −m_h(i−j) 加到分数上而且斜率是训练中学出来的。", 0, 0, 2),
    ("bias-alibi", "ALiBi 在分数上加线性偏置并且斜率是学出来的。", 0, 0, 2),
    # review 228: the phrase holds the myth's topic and one more of its words; "and", "that", "using"
    ("bias-alibi", "ALiBi adds a head-specific slope times the distance to the attention scores with slopes "
     "learned in training.", 0, 0, 2),
    ("bias-alibi", "ALiBi adds -m_h(i-j) to the scores and the slopes m_h are learned.", 0, 0, 2),
    ("bias-alibi", "ALiBi adds a linear bias to the attention scores that uses learned slopes.", 0, 0, 2),
    ("bias-alibi", "ALiBi adds a linear bias to the attention scores using learned slopes.", 0, 0, 2),
    # the licensed negation, in a comma part before the myth (fails with clause.find(p) unlicensed)
    ("bias-alibi", "With no position embedding, ALiBi slopes are learned.", 0, 0, 2),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "earned", "blocked"), A_PHRASE_OF_ITS_OWN)
def test_a_point_in_a_phrase_of_its_own_is_earned(cards, cid, answer, myth, earned, blocked) -> None:
    r = cards[cid].check(answer)
    assert myth in r.stated and myth not in r.similar
    assert earned in r.covered and earned not in r.blocked
    assert r.blocked.get(blocked) == myth


# the other side (review 228): a phrase after the myth's is mostly its own modifier ("a slice with d_model / h
# features", "whose width is …", "而这一部分…"); a point in the myth's phrase, or read with one of the myth's
# words ("by a slope"), or from a myth spread one word per phrase, is withheld. The cost: a true point after
# the myth's phrase ("… learned with no position embedding") is withheld too. Rows 1-3 and 6-8 pass on 4e770c7
# and fail on ef736e9; (card, answer, myth, point withheld)
MYTHS_OWN_PHRASE = [
    ("mh-why-multi-head", "Each head sees a slice with d_model / h features of the input.", 1, 3),
    ("mh-why-multi-head", "Each head sees a slice of the input whose width is d_model / h.", 1, 3),
    ("mh-why-multi-head", "每个头只看到输入的一部分而这一部分的宽度是 d_model / h。", 1, 3),
    ("bias-alibi", "ALiBi works with per-head slopes learned and added to the attention scores.", 0, 0),
    ("bias-alibi", "ALiBi penalises far keys by a slope with slopes learned per head.", 0, 3),
    ("bias-alibi", "The slope with which each head penalises far keys is learned.", 0, 3),
    ("bias-alibi", "Slopes where each head adds a bias to the attention scores are learned.", 0, 0),
    ("bias-alibi", "ALiBi slopes are learned with no position embedding.", 0, 0),
    # a phrase that opens with "with" is a modifier: here the myth's setting (a dev answer; the labels give no
    # point 1; earned on the commit before this row's)
    ("cx-long-inputs-encoder", "With sliding windows every token ends up with the whole document as context, "
     "since the chunks overlap and info flows across them.", 0, 1),
]


@pytest.mark.parametrize(("cid", "answer", "myth", "point"), MYTHS_OWN_PHRASE)
def test_a_point_in_the_myths_phrase_or_after_it_is_withheld(cards, cid, answer, myth, point) -> None:
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
