"""Check a typed answer against a card's key points as claims, and catch the misconceptions it states.

A key point is covered by a **clause that states it**: each key point has *claims*, patterns of concepts that
must all appear, affirmed, within one clause of the answer (see `language` for clauses, lemmas, Chinese
segmentation, formulas and synonyms). A pattern is written ``a b + c | d + !e``: groups separated by ``+``
must all be present in the clause in any order and with any words between them; ``|`` separates
alternatives in a group; a phrase (``a b``) is a run of units; a group starting with ``!`` must be
absent from the clause; one starting with ``!!`` is a qualifier, absent from the clause and, in a myth,
from the clauses before it in its sentence ("for long inputs, …"), unless they are an "if …" that
belongs to the myth; ``!!>`` is a qualifier that also holds over a correction after it ("…, but only …",
see below); one starting with ``!!!`` is a condition that makes the statement true, absent from
those clauses including an "if …" ("If there is no cache, each token re-runs the sequence": ``!!!no cach``).
One starting with ``!!~`` is a negated qualifier of a myth: it vetoes only where it is negated, in the clause
or a clause before it in its sentence, an "if …" one included ("without a mask, …", "if there is no mask,
…", "没有掩码时，…"), not where it is affirmed ("even with a causal mask, …"). A concept right after a
negation in its clause ("not by d_k", "nobody …", "不是按行"), followed by a rejection ("… is a myth", "…
是错的") or after one ("it is a myth that …") is not stated. A group starting with ``~`` is a negation that
belongs to the claim ("~without @position", "~不影响"): it must be present, and its own negation words do
not negate the groups after it (any other negation still does: "a Transformer without positions is not a
bag of words" states no myth).

Myths (`myths.yaml`, shared by the cards that refer to them) have patterns of the same kind; a myth is
stated by a clause that matches one of its patterns (its ``!`` groups absent from the clause, its
``!!`` groups from the clause and the clauses before it in its sentence) and is not a condition or a
counterfactual ("if we divided by d_k …", "要是 …") or a question ("… ?", "… 吗？"). A stated myth
blocks the key points it contradicts (``blocks``, per card).

**Corrections after the myth.** A myth's forward qualifiers (``!!>``) and its conditions
(``!!!``, ``!!~``) also hold over the clauses of its sentence from the first one after it
that opens with a contrastive or correcting connective (but, however, though, yet, whereas,
while, except, actually, 但, 但是, 不过, 然而, 而, 可是, 其实 …; `language._CONTRAST`) or a limitation
(only, just, 只是, 只不过, 只有 …; `language._LIMITS`) to the end of the sentence: "Each extra head
adds its own matmul, but since d_k shrinks the total stays the same",
"每多一个头就多一次矩阵乘法，但每个头更窄，总量不变". A plain ``!!``
qualifier does not: it holds over the clause and
the clauses before it only. Why opt-in: a speaker who sets a correction against the claim
with "but …" in the same breath is limiting the claim, but a later clause is usually about
something else, and a qualifier word can be incidental there ("Any Transformer without
positions is a bag of words, but BERT adds learned positions": ``bert`` qualifies the myth
before it, not after). Round 10 of the reviews found a myth followed by an unrelated "but …"
missed in every chapter group (9, 7, 19 and 34 of their probes) while every ``!!`` list held
forward; so a ``!!>`` group lists only the phrases that state the correction itself ("stay
the same", "narrower", "only when d_k = d_model / h"), never generic words. The clause after
a plain "and", "so" or a comma usually adds a claim of its own, and a new sentence may be
about something else, so neither is looked at. A ``!`` exclusion stays clause-local. So "X,
but Y" where Y holds no forward qualifier of X's myth is flagged. A "but …" clause that
opens with an "if …" is a condition: only ``!!!`` and ``!!~`` groups look at it, as before
the myth ("BN works, but only if you mask the padding" is the myth's own conditional form).
Forward qualifiers also hold in a reason clause right after the myth ("PagedAttention is
faster because more sequences fit", "…，是因为…").

**Rejections.** A clause that a rejection takes back states no myth (`language.Clause.rejected`): the
clauses before a clause that only rejects ("…, which is a myth", "…, which is wrong", "…, and that's not
true", "说…，这是误解", "…，这是错的", "…，是错的"), back to the nearest clause that opens a contrast or
follows a colon; the sentence before a sentence that only rejects ("X. That is a myth."); and the
clauses that carry on a leading rejection ("It is a myth that since b_K cancels, b_Q must cancel too",
"It is a myth that X has no parameters, so it is less expressive"), up to a colon, a contrast or a
reason ("…, because …"). "X, and that is why …" rejects nothing. A rejection inside the clause ("X — that
is wrong", "X是一个误解") was already read by `language.Clause.find`. Key points ignore these marks: a key
point may be the rejection itself ("按当前位置旋转缓存的 key 会让位置抵消，是一个错误").

What it cannot judge: whether a claim is argued well, paraphrases outside the patterns and synonym sets,
negations that reach across clauses ("I would never say that softmax, which …"). It is a checklist prompt:
every tick shows the clause that earned it, so a candidate can see why.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .language import (
    _CONTRAST,
    _EN_COND,
    _REASON,
    _ZH_COND,
    Clause,
    _flat,
    canonical,
    clauses,
    has_cjk,
    has_negation,
    phrase_units,
    phrase_units_as_written,
    units_of,
)

__all__ = ["MatchResult", "Pattern", "Tell", "check_answer", "has_cjk", "parse_pattern", "point_polarity"]

# per concept group of a pattern, per alternative: True, it must be affirmed; False, any occurrence will do
# (a plain bool: all of them)
Polarity = bool | Sequence[Sequence[bool]]


@dataclass(frozen=True)
class Pattern:
    """Groups of alternative phrases (unit tuples) that must all be in one clause; ``absent`` must not be."""

    source: str
    groups: tuple[tuple[tuple[str, ...], ...], ...]
    absent: tuple[tuple[tuple[str, ...], ...], ...] = ()
    at_least: int = 0  # "K of: a | b | c": at least K of the groups (each concept one group, its forms)
    licence: tuple[tuple[tuple[str, ...], ...], ...] = ()  # "~a": present; its negation is the claim's
    qualifier: tuple[tuple[tuple[str, ...], ...], ...] = ()  # "!!a": absent here and from ``context``
    condition: tuple[tuple[tuple[str, ...], ...], ...] = ()  # "!!!a": also absent from an "if …" before
    neg_qualifier: tuple[tuple[tuple[str, ...], ...], ...] = ()  # "!!~a": not negated here nor in ``before``
    forward: tuple[tuple[tuple[str, ...], ...], ...] = ()  # "!!>a": a qualifier that also holds in ``limits``
    licence_at: tuple[int, ...] = ()  # per licence group: how many concept groups are written before it

    def match(self, clause: Clause, polarity: Polarity = True) -> bool:
        """Every group has an affirmed occurrence in ``clause`` and no ``absent`` group is there.
        ``polarity``: per concept group and alternative, False where any occurrence will do (a concept the
        key point itself states negated, "no learnable parameters"; `point_polarity`); a plain bool: all."""
        return self.match_span([clause], polarity)

    def match_span(
        self, span: Sequence[Clause], polarity: Polarity = True, context: Sequence[Clause] = (),
        conditions: Sequence[Clause] = (), before: Sequence[Clause] = (), limits: Sequence[Clause] = (),
    ) -> bool:
        """`match` over adjacent clauses: each group affirmed in one of them, each negation in its own.
        ``context``: further clauses where a ``qualifier`` group must not be either (a myth's sentence);
        ``conditions``: its "if …" clauses, where a ``condition`` group must not be either;
        ``before``: the clauses before it in its sentence, "if …" ones included, where a ``neg_qualifier``
        group must not be negated either; ``limits``: the clauses after it from the first "but/only …" one
        (and a reason right after it), where a ``forward`` group must not be either."""
        # a "!" exclusion is clause-local, and a fronted phrase kept with its clause is part of it: "In each
        # layer, a token only attends to w neighbours", "With ZeRO-3, data parallelism saves memory" are
        # spared by their exclusions as when written without the comma
        for group in self.absent:
            if any(c.find(p) for c in span for p in group):
                return False
        for group in self.qualifier:
            if any(c.find(p) for c in (*span, *context) for p in group):
                return False
        for group in self.forward:
            if any(c.find(p) for c in (*span, *context, *limits) for p in group):
                return False
        for group in self.condition:
            if any(c.find(p) for c in (*span, *context, *conditions) for p in group):
                return False
        for group in self.neg_qualifier:
            if any(not ok for c in (*span, *before) for p in group for _, ok in c.find(p)):
                return False
        licensed = self.licensed(span)
        if licensed is None:
            return False
        found = sum(
            any(
                ok or not (polarity if isinstance(polarity, bool) else polarity[g][a])
                for k, c in enumerate(span) for a, p in enumerate(group)
                for _, ok in c.find(p, frozenset(licensed.get(k, ())))
            )
            for g, group in enumerate(self.groups)
        )
        return found >= (self.at_least or len(self.groups))

    def licensed(self, span: Sequence[Clause]) -> dict[int, set[int]] | None:
        """Per clause of ``span`` (by position), the negation units that belong to the claim and so negate
        nothing after them: its ``~`` groups' (None when one has no standing occurrence in its place) and
        those inside the first affirmed occurrence of a concept group's phrase written with its negation
        ("不会 改变 + 可能" in "温度不会改变哪个 token 最可能", "never materialis + @matrix", "no @mean
        + subtract"); a bare negation word as a group ("without") licenses nothing: ``~`` is for that."""
        licensed: dict[int, set[int]] = {}  # clause (by position in span) -> its claim's negation units
        for m, group in enumerate(self.licence):
            # only the claim's own negation: the first occurrence that sits after the concept written
            # before it and before the one written after it ("乘法而不是加法", not "加法而不是乘法"; in
            # "没有位置编码的模型并没有退化成词袋" the second 没有 still negates)
            at = self.licence_at[m] if m < len(self.licence_at) else 0
            before = self._positions(span, self.groups[at - 1]) if at else None
            after = self._positions(span, self.groups[at]) if at < len(self.groups) else None
            # a licensed rejection word must itself stand: "a plain average is not wrong" is no "~wrong"
            hits = sorted(
                (k, i, len(p)) for k, c in enumerate(span) for p in group for i, _ in c.find(p)
                if (before is None or any(x < (k, i) for x in before))
                and (after is None or any(x >= (k, i + len(p)) for x in after))
                and not (
                    c.units[i].post and (i in c.denied() or any(u.neg for u in c.units[max(0, i - 3):i]))
                )
            )
            if not hits:
                return None
            k, i, n = hits[0]
            licensed.setdefault(k, set()).update(range(i, i + n))
        for group in self.groups:
            for k, c in enumerate(span):
                own = next((
                    negs for p in group for i, ok in c.find(p, frozenset(licensed.get(k, ())))
                    if ok and (negs := {m for m in range(i, i + len(p)) if c.units[m].neg})
                    and len(negs) < len(p)
                ), None)
                if own:
                    licensed.setdefault(k, set()).update(own)
                    break
        return licensed

    @staticmethod
    def _positions(span: Sequence[Clause], group) -> list[tuple[int, int]]:
        """(clause, unit) where each phrase of ``group`` occurs in ``span``."""
        return [(k, i) for k, c in enumerate(span) for p in group for i, _ in c.find(p)]


def _written_stem(unit: str) -> bool:
    """``unit`` is a pattern word written as the stem of an "-y" word: "onli" (only), "earli" (early)."""
    return len(unit) > 2 and unit.endswith("i") and phrase_units(unit[:-1] + "y") == (unit,)


def _alternatives(raw: str) -> tuple[tuple[str, ...], ...]:
    """The phrases of ``a | b | …``, each analysed like an answer and, where that differs, as written (a
    pattern word written as a stem, "onli", is the stem "only" reduces to). Where the two differ only in
    such stems, the analysed form is dropped: "onli" analysed again is "on", "earli" is "ear", and would
    match "on its left" or "ear"; a stem whose word the analyser reduces further ("mostli": "mostly" is
    "most") keeps its analysed form."""
    out: list[tuple[str, ...]] = []
    for a in raw.split("|"):
        analysed, written = phrase_units(a.strip()), phrase_units_as_written(a.strip())
        if (
            analysed != written
            and len(analysed) == len(written)
            and all(x == y or _written_stem(y) for x, y in zip(analysed, written, strict=True))
        ):
            analysed = written
        for u in (analysed, written):
            if u and u not in out:
                out.append(u)
    return tuple(out)


@functools.lru_cache(maxsize=16384)
def parse_pattern(source: str) -> Pattern:
    """``"a b + c | d + !e"`` -> `Pattern` (phrases analysed like answers: lemmas, synonyms, formulas)."""
    groups: list[tuple[tuple[str, ...], ...]] = []
    absent: list[tuple[tuple[str, ...], ...]] = []
    licence: list[tuple[tuple[str, ...], ...]] = []
    qualifier: list[tuple[tuple[str, ...], ...]] = []
    condition: list[tuple[tuple[str, ...], ...]] = []
    neg_qualifier: list[tuple[tuple[str, ...], ...]] = []
    forward: list[tuple[tuple[str, ...], ...]] = []
    licence_at: list[int] = []
    head, sep, rest = source.partition(" of:")
    if sep and head.strip().isdigit():
        rest, *excl = rest.split("+")
        concepts: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}
        for a in rest.split("|"):
            forms = _alternatives(a)
            if forms:
                concepts.setdefault(forms[0], forms)
        if len(concepts) < int(head):
            raise ValueError(f"pattern {source!r} lists fewer than {head} concepts")
        gone = tuple(_alternatives(x.strip().lstrip("!")) for x in excl if x.strip().startswith("!"))
        return Pattern(source, tuple(concepts.values()), gone, int(head))
    for raw in source.split("+"):
        raw = raw.strip()
        alts = _alternatives(raw.lstrip("!~>"))
        if alts:
            if raw[:1] == "~":
                licence_at.append(len(groups))
            kind = {
                "!!!": condition, "!!~": neg_qualifier, "!!>": forward, "!!": qualifier,
                "!": absent, "~": licence,
            }
            next((v for k, v in kind.items() if raw.startswith(k)), groups).append(alts)
    if not groups:
        raise ValueError(f"pattern {source!r} has no concept to look for")
    return Pattern(
        source, tuple(groups), tuple(absent), licence=tuple(licence), qualifier=tuple(qualifier),
        licence_at=tuple(licence_at), condition=tuple(condition), neg_qualifier=tuple(neg_qualifier),
        forward=tuple(forward),
    )


@dataclass(frozen=True)
class Tell:
    """One misconception as a card uses it: the registry id, its patterns, and the key points it blocks."""

    patterns: tuple[str, ...]
    blocks: tuple[int, ...] = ()
    myth: str = ""
    corrections: tuple[str, ...] = ()  # the myth's own correction (the second part of its en / zh text)


@dataclass(frozen=True)
class MatchResult:
    """Which key points (by index) a typed answer covered, missed, and which misconceptions it stated."""

    covered: list[int] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    hits: dict[int, str] = field(default_factory=dict)  # key point index -> the clause that stated it
    stated: dict[int, str] = field(default_factory=dict)  # misconception index -> the clause that stated it
    blocked: dict[int, int] = field(default_factory=dict)  # key point index -> misconception that voids it
    similar: dict[int, str] = field(default_factory=dict)  # misconceptions the similarity fallback flags

    @property
    def total(self) -> int:
        """Number of key points checked."""
        return len(self.covered) + len(self.missed)

    @property
    def fraction(self) -> float:
        """covered / total (1.0 when there is nothing to check)."""
        return len(self.covered) / self.total if self.total else 1.0

    @property
    def score(self) -> float:
        """(key points covered - misconceptions stated) / key points: a stated myth costs as much as a key
        point earns, so an answer that states a myth and nothing else scores below one that states nothing
        (as a share of an enlarged checklist, both were 0). For benchmarks; never shown as a grade."""
        return (len(self.covered) - len(self.stated)) / self.total if self.total else 1.0


@dataclass(frozen=True)
class _Found:
    """Where `_first_match` found a claim: the text it quotes, the clauses (by index), the pattern."""

    text: str
    at: tuple[int, ...]
    source: str


def _first_clause(
    cls: Sequence[Clause], patterns: Sequence[str], *, myth: bool = False, points: Sequence[str] = (),
    retracted: Callable[[int], bool] | None = None,
) -> str | None:
    """The text of `_first_match`, or None."""
    found = _first_match(cls, patterns, myth=myth, points=points, retracted=retracted)
    return found.text if found is not None else None


def _first_match(
    cls: Sequence[Clause], patterns: Sequence[str], *, myth: bool = False, points: Sequence[str] = (),
    retracted: Callable[[int], bool] | None = None, skip: frozenset[int] = frozenset(),
) -> _Found | None:
    """The first clause (or two adjacent clauses of a sentence, for a key point) that states one of
    ``patterns``; ``points``: a key point's own statements (EN, 中文), which set each concept's polarity
    (`point_polarity`); ``retracted``: for a myth, whether the speaker takes back the myth stated by clause k
    (its own correction follows: see `_corrected`), so the search goes on after it; ``skip``: the clauses
    (by index) that may not state it (for a key point: the clauses that state a myth)."""
    pats = [parse_pattern(src) for src in patterns]
    for k, clause in enumerate(cls):
        if k in skip:
            continue
        # the groups must be found in the clause itself (its context only excludes): a clause that cannot
        # match any pattern skips the context below, which costs the length of its sentence (a 4,000-character
        # answer of one comma-separated sentence took 36 s per card; review 222 L3)
        if not any(_may_match(pat, clause) for pat in pats):
            continue
        # a question states nothing, and a clause a rejection takes back ("…, which is a myth",
        # "说…，这是误解", "X. That is a myth.", "It is a myth that X, Y") states no myth (a key point
        # may be that rejection itself: "按当前位置旋转缓存的 key 会让位置抵消，是一个错误")
        if myth and (clause.question or clause.rejected or clause.mention):
            continue
        # a myth's qualifiers ("!!") also hold over the clauses before it in its sentence ("长序列更难，
        # 计算都在注意力上"), not over an "if …" clause ("if you mask the padding, BN works"); its other
        # exclusions ("!") do not: "I'm not sure, but …" qualifies nothing (a fronted phrase, "In each layer,
        # …", is part of the clause itself). A negated qualifier ("!!~") also holds over a condition after it
        # in its sentence: "… is a bag of words, unless it has a causal mask" / "if it has no causal mask"
        before = [c for c in cls[:k] if c.sentence == clause.sentence] if myth else []
        after = [c for c in cls[k + 1:] if c.sentence == clause.sentence] if myth else []
        # ... and over the clauses after it from the first that opens a contrast ("Each extra head adds its
        # own matmul, but since d_k shrinks the total stays the same"; see the module docstring)
        turn = next((m for m, c in enumerate(after) if c.limiting), len(after))
        limits = after[turn:]
        later = [c for m, c in enumerate(after) if c.conditional or m >= turn]
        # ... and over a reason given right after it ("PagedAttention is faster because more sequences fit",
        # "…，是因为能放下更多序列"): a forward qualifier there is the condition the claim is stated under
        reason = [
            c for c in after[:1] if _REASON.match(canonical(c.text).strip())
        ]
        context = [c for c in before if not c.conditional]
        # a forward qualifier is read in a "but only if …" clause too ("…, but only if d_k = d_model / h")
        forward = [*reason, *limits]
        # a "!!!" condition also holds over an "if …" before it ("if there is no cache, each token re-runs …")
        # and over a limitation after it that is not an "if …" ("…, but only without a KV cache"), not over
        # a plain contrast ("…, but the model is large": a condition word there is incidental)
        # ... but not over a speaker's hedge ("If you ask me, …", "如果我没记错，…") or a concession ("even
        # if …", "即使 …"), which set no condition the claim depends on (review s12-chk-verify M-1)
        limit_ids = {id(c) for c in limits}
        conditions = [
            c for c in (*before, *limits)
            if (c.conditional or (id(c) in limit_ids and _only(c)))
            and not _NO_CONDITION.match(canonical(c.text).strip())
        ]
        context = [c for c in context if not _NO_CONDITION.match(canonical(c.text).strip())]
        for src, pat in zip(patterns, pats, strict=True):
            # a condition states no myth, unless the myth is the conditional itself and its pattern says so
            # ("if + shape + right + reshap …": "if the shapes are right the reshape is right")
            if myth and clause.conditional and not _names_condition(src):
                continue
            polarity = point_polarity(src, tuple(points))
            if pat.match_span([clause], polarity, context, conditions, [*before, *later], forward) and (
                myth or _negation_kept([clause], src, points, cls)
            ):
                if retracted is not None and retracted(k):
                    break
                return _Found(clause.text, (k,), src)
    if myth or WINDOW < 2:
        return None
    # a claim whose parts a comma separates ("打分先除以 √d_k，再做 softmax"): two clauses of one sentence
    for k in range(len(cls) - 1):
        a, b = cls[k], cls[k + 1]
        if a.sentence != b.sentence or k in skip or k + 1 in skip:
            continue
        for src in patterns:
            if parse_pattern(src).match_span((a, b), point_polarity(src, tuple(points))) and _negation_kept(
                (a, b), src, points, cls
            ):
                return _Found(f"{a.text}, {b.text}", (k, k + 1), src)
    return None


def _may_match(pat: Pattern, clause: Clause) -> bool:
    """Enough of the concept groups of ``pat`` occur in ``clause`` (at any polarity) for it to match there."""
    need = pat.at_least or len(pat.groups)
    return sum(any(clause.find(p) for p in group) for group in pat.groups) >= need


def _units_of_pattern(clause: Clause, source: str) -> set[int]:
    """The units of ``clause`` that the concept groups of pattern ``source`` occupy (any polarity)."""
    return {
        i + m for group in parse_pattern(source).groups for p in group for i, _ in clause.find(p)
        for m in range(len(p))
    }


def _earned_beside(
    cls: Sequence[Clause], found: _Found, myth_at: dict[int, list[tuple[int, str]]],
    points: Sequence[str] = (),
) -> int | None:
    """A key point matched (``found``) in a clause that states a myth (``myth_at``: clause index -> the
    myths it states and the patterns that matched) is earned there only when it is read from that clause
    alone and each of its concept groups (for "K of: …", K of them) is affirmed in a comma-separated part of
    the clause that holds no word of those myths' patterns ("Compute QK^T, then divide the scores by d_k":
    the scores point, not the scaling one; "In multi-head attention W_V can also be merged into W_O" earns
    nothing: its W_V and W_O are what the myth is about); else the first of those myths (its index) withholds
    it. A myth clause lends no words to a point read over two clauses ("ALiBi adds a distance penalty, with
    a slope per head that is learned" shows nothing of the per-head slopes)."""
    mine = [k for k in found.at if k in myth_at]
    if not mine:
        return None
    first = myth_at[mine[0]][0][0]
    if len(found.at) > 1:
        return first
    k = found.at[0]
    clause = cls[k]
    taken = {clause.units[i].seg for _, src in myth_at[k] for i in _units_of_pattern(clause, src)}
    pat = parse_pattern(found.source)
    polarity = point_polarity(found.source, tuple(points))
    beside = sum(
        any(
            (ok or not (polarity if isinstance(polarity, bool) else polarity[g][a]))
            and all(clause.units[m].seg not in taken for m in range(i, i + len(p)))
            for a, p in enumerate(group) for i, ok in clause.find(p)
        )
        for g, group in enumerate(pat.groups)
    )
    return None if beside >= (pat.at_least or len(pat.groups)) else first


WINDOW = 2

# an "if …" clause that is a speaker's hedge or a concession, not a condition of the claim
_NO_CONDITION = re.compile(
    r"^(?:if you ask me|if i (?:remember|recall)(?: (?:it )?(?:right|rightly|correctly))?|"
    r"if i(?:'m| am) not (?:mistaken|wrong)|unless i(?:'m| am) (?:mistaken|wrong)|if memory serves(?: me)?|"
    r"to be honest|even if\b|even when\b|even though\b)"
    r"|^(?:如果我没记错|如果没记错|要是我没记错|若我没记错|要我说|说实话|即使|即便|哪怕|就算|纵然)"
)

# a self-correction the speaker announces ("I misspoke", "let me correct myself", "我说错了"): only standing
# alone before a mark or the end, a short tail allowed ("I misspoke there, …"); "I misspoke about RoPE
# earlier, …" corrects something else (review 229 L1). Not "I was wrong", which often reports an old belief
# ("I was wrong: I once thought …", review 230 M1)
_SELF = (
    r"(?:i misspoke|let me correct myself|scratch that|correction)"
    r"(?: (?:there|here|just now|earlier|before|on that|about that))?(?=\s*(?:$|[,:;.!—–]|-(?!\w)))"
)
_SELF_ZH = r"(?:我说错了|更正一下)(?=\s*(?:$|[，,：:；;。！]))"

# A correction the speaker sets against a claim in the same breath (M1 of review s11-r12 ch06-09): a clause
# after it in its sentence that opens with a correcting connective ("but", "actually", "in fact", "although",
# "except", "more precisely", "rather", 但, 其实, 实际上 …, not "while" / "whereas", which set another thing
# beside it), to the end of the sentence, and the next sentence when it opens with one ("X; in fact, Y",
# "X. Actually, Y", "X。其实Y")
_CORRECTS = re.compile(
    r"^(?:but|however|yet|though|although|except|actually|in fact|in practice|in reality|rather|or rather|"
    r"more precisely|precisely|to be precise|strictly speaking|i mean|well)\b|^" + _SELF
    + r"|^(?:但|然而|不过|可是|其实|实际上|事实上|反而|准确地说|确切地说|更准确地说|严格地说|严格来说)"
    + r"|^" + _SELF_ZH
)
# "no" is a rejection, not "no doubt", "no wonder", "no question" (however typed: "No  doubt", "No-doubt")
_NO = r"no(?![ \-—–]+(?:doubt|wonder|question))"
_NEXT_CORRECTS = re.compile(
    r"^(?:but|however|actually|in fact|in practice|in reality|rather|more precisely|to be precise|"
    + _NO + r"|not really|not quite|well|so[ ,]+actually)\b|^" + _SELF
    + r"|^(?:但|然而|不过|可是|其实|实际上|事实上|不|准确地说|确切地说|更准确地说)|^" + _SELF_ZH
)
# a sentence that only announces a correction ("X. I misspoke. Y", "Sorry, let me correct myself."): the
# correction is the sentence after it (review 229 M6)
_BARE_OPENER = re.compile(r"^(?:(?:oh|sorry|oops|wait|ok|okay)[ ,]+)*(?:" + _SELF + "|" + _SELF_ZH + r")$")
# a filler that opens a self-correction and corrects nothing itself ("Oh wait, no, …", "Sorry, I misspoke:
# …", "等一下，不对，…"); not "actually", "well", "其实", which are the correction's opener (review 224 H1)
_LEAD_FILLER = re.compile(
    r"^(?:oh|(?:oh )?wait(?: a (?:sec|second|moment|minute))?|oh no|oops|sorry|hmm|um|uh|er|so|ok|okay|"
    r"hold on|no[ \-—–]+(?:doubt|question)(?: about it)?)$"
    r"|^(?:等等|等一下|嗯|哦|哦不|抱歉|不好意思)$"
)
_STRONG = re.compile(
    r"^(?:(?:but|yet|though|although|and|well|so)[ ,]+)?(?:actually|in fact|in reality|in practice|rather|"
    r"or rather|more precisely|to be precise|precisely|strictly speaking|" + _NO + r"|"
    r"not really|not quite)\b|^(?:(?:but|yet|though|although|and|well|so|sorry)[ ,]+)?" + _SELF
    + r"|^(?:但|但是|不过|可是|而)?(?:其实|实际上|事实上|准确地说|确切地说|更准确地说|严格地说)|^(?:抱歉，?)?"
    + _SELF_ZH
)
_STOP = frozenset(
    "a an the it its it's is are be was were been this that these those of to in on for and or as by with at "
    "from so but not no there which what actually in fact also only just they them their we you one each "
    "does do has have can will would".split()
) | frozenset("的是了在和与也都就而它们这那一个种上中里为其实但把被对从所以因此并且就是")


# weak evidence of a restated correction: a letter, a number or an operator word ("n", "2", "plus", "o")
_WEAK = re.compile(r"^(?:[a-z]|\d+|plus|pow|times|div|minus|eq|lt|gt|o)$")


def _content(texts: Sequence[str]) -> set[str]:
    """The content units of ``texts`` (analysed as an answer is; function words, marks, letters, numbers and
    operator words left out)."""
    out: set[str] = set()
    for c in (c for t in texts for c in clauses(t)):
        units = [u.text for u in c.units]
        out.update(
            u for u in units
            if u not in _STOP and not _WEAK.match(u) and not has_cjk(u)
            and (u[:1] == "@" or any(ch.isalnum() for ch in u))
        )
        # a Chinese run is one character per unit: its pairs of adjacent characters carry the words
        out.update(a + b for a, b in zip(units, units[1:], strict=False) if has_cjk(a) and has_cjk(b))
    return out - _stop_units()


@functools.lru_cache(maxsize=1)
def _stop_units() -> frozenset[str]:
    words = " ".join(sorted(w for w in _STOP if w.isascii()))
    return frozenset(u.text for c in clauses(words) for u in c.units)


@functools.lru_cache(maxsize=4096)
def _correction_units(correction: str) -> tuple[frozenset[str], frozenset[str]]:
    """A myth's own correction: the content units of its first sentence (its core) and of all of it."""
    by_sentence: dict[int, list[str]] = {}
    for c in clauses(correction):
        by_sentence.setdefault(c.sentence, []).append(c.text)
    texts = list(by_sentence.values())
    return frozenset(_content(texts[0] if texts else [])), frozenset(_content([t for x in texts for t in x]))


def restates(texts: Sequence[str], corrections: Sequence[str], loose: bool = False) -> bool:
    """``texts`` (a clause or two adjacent ones) restate one of a myth's own ``corrections``: they hold at
    least half of the content units of its first sentence, its core (two or more, or the one it has), or
    three or more units of the core make up 60 % of theirs or more (Chinese: pairs of adjacent characters);
    not ``loose`` (after a bare "but"): 80 % and three or more, or four making up 80 % of theirs; a negated
    text restates no affirmed correction."""
    have = _content(texts)
    negated = any(has_negation(t) for t in texts)
    for corr in corrections:
        core, whole = _correction_units(corr)
        if negated and not has_negation(_first_sentence(corr)):  # "…, but not exact" restates no "exact"
            continue
        shared = len(core & have)
        least, share = (2, 0.5) if loose else (3, 0.8)
        if core and shared >= min(least, len(core)) and shared >= share * len(core):
            return True
        if shared >= (3 if loose else 4) and shared >= (0.6 if loose else 0.8) * len(have):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _first_sentence(correction: str) -> str:
    cs = clauses(correction)
    return " ".join(c.text for c in cs if c.sentence == cs[0].sentence) if cs else ""


def _correction_span(cls: Sequence[Clause], k: int) -> list[Clause]:
    """The clauses that correct the claim of clause ``k``, if any: from the first clause after it in its
    sentence that opens with a correcting connective (`_CORRECTS`) to the end of the sentence, and the next
    sentence when it opens with one or the correction carries on after a semicolon; after a sentence that
    only announces a correction ("I misspoke."), the sentence after that one."""
    s = cls[k].sentence
    after = [c for c in cls[k + 1:] if c.sentence == s]
    turn = next((m for m, c in enumerate(after) if _CORRECTS.match(_flat(c.text))), len(after))
    span = after[turn:]
    nxt = [c for c in cls[k + 1:] if c.sentence == s + 1]
    # a filler standing alone before it is no part of it ("Oh wait, no, …", "Wait, actually …",
    # "等一下，不对，…"; not "Wait until you see …", "Sorry to say, …": review 223 M-c)
    while len(nxt) > 1 and _LEAD_FILLER.match(_flat(nxt[0].text)):
        nxt = nxt[1:]
    # a sentence that only announces a correction ("I misspoke."): the correction is the sentence after it
    bare = len(nxt) == 1 and bool(_BARE_OPENER.match(_flat(nxt[0].text)))
    if bare:
        nxt = [c for c in cls[k + 1:] if c.sentence == s + 2]
    # ... or when a correction of this sentence carries on after a semicolon ("X, but that is plain seq2seq;
    # Bahdanau recomputes it at each step")
    if nxt and (bare or _NEXT_CORRECTS.match(_flat(nxt[0].text)) or span and span[-1].end in ";；"):
        span += nxt
    # read without the connectives that open a clause ("but actually …"): a concept group of a key point may
    # hold "but" itself ("… removes the n^2 memory but not the n^2 compute")
    return [x for x in (_without_connective(c) for c in span) if x.units]


def _without_connective(c: Clause) -> Clause:
    """``c`` read without the correcting connectives that open it ("but actually", "although in fact",
    "其实")."""
    text = c.text.strip()
    while True:
        m = _CORRECTS.match(text.casefold()) or _NEXT_CORRECTS.match(text.casefold())
        if not m or m.end() == 0:
            break
        text = text[m.end():].lstrip(" ,，、:：")
    if text == c.text.strip():
        return c
    return Clause(text, units_of(text, correct=True), c.sentence, mark=c.mark, mention=c.mention)


def _corrected(
    cls: Sequence[Clause], k: int, tell: Tell, claims: Sequence[Sequence[str]],
    points: Sequence[Sequence[str]],
) -> bool:
    """The myth that clause ``k`` states is taken back by a correction after it (`_correction_span`) that
    ticks a key point the myth contradicts (``tell.blocks``: "ALiBi slopes are learned, but they are a fixed
    geometric sequence") or restates the myth's own correction in a clause or two adjacent ones ("…, but it
    computes exact attention"; `restates`). "X, but <anything else>" is still X: "FlashAttention is
    an approximation, but it is fast", or a true point the myth does not contradict."""
    span = _correction_span(cls, k)
    if not span:
        return False
    # a key point it contradicts, only after a connective that corrects ("but actually", "in fact", "rather",
    # "more precisely", 其实, 实际上 …): after a bare "but" / "though" a true point is usually a limitation
    # that leaves the claim standing ("Performer computes the same result, but it uses random features")
    at = next(
        (m for m in range(k + 1, len(cls))
         if cls[m].sentence >= span[0].sentence and cls[m].text.endswith(span[0].text)), None
    )
    opener = cls[at] if at is not None else None
    strong = opener is not None and bool(_STRONG.match(_flat(opener.text)))
    # ... or a correcting word alone before it, after a comma ("Actually, the slopes …", "其实，斜率 …",
    # "我说错了，…"): read without its connectives that clause is empty, so it is not span[0] (review 225)
    if not strong and opener is not None and at - 1 > k and cls[at - 1].sentence == opener.sentence:
        prev = cls[at - 1]
        strong = bool(_STRONG.match(_flat(prev.text))) and not _without_connective(prev).units
    # ... or a sentence before it that only announces it ("I misspoke.")
    if not strong and opener is not None and at - 1 > k and cls[at - 1].sentence == opener.sentence - 1:
        strong = bool(_BARE_OPENER.match(_flat(cls[at - 1].text)))
    for i in tell.blocks if strong else ():
        if i < len(claims) and _first_clause(span, claims[i], points=points[i] if i < len(points) else ()):
            return True
    # one clause or two adjacent ones: words of the correction scattered over a long span restate nothing
    return bool(tell.corrections) and any(
        restates([c.text for c in span[m:m + 2]], tell.corrections, strong) for m in range(len(span))
    )

_ONLY = re.compile(r"^(?:only|just|unless|except)\b|^(?:只|仅|除非)")


def _only(clause: Clause) -> bool:
    """The clause states a limitation: "only …", "but only …", "只在…", "但只有…", "unless …"."""
    low = canonical(clause.text).strip()
    return bool(_ONLY.match(_CONTRAST.sub("", low, count=1).strip(" ,，")))


@functools.lru_cache(maxsize=4096)
def _names_condition(source: str) -> bool:
    """A group (not a ``!`` one) of the pattern is a conditional word ("if", "could", "如果"): the
    condition belongs to the myth, so the pattern may match a conditional clause."""
    for raw in source.split("+"):
        raw = raw.strip()
        if raw[:1] in "!~":
            continue
        for alt in raw.split("|"):
            words = alt.split()
            if any(w in _EN_COND for w in words) or any(w in alt for w in _ZH_COND):
                return True
    return False


@functools.lru_cache(maxsize=16384)
def point_negated(source: str, points: tuple[str, ...] = ()) -> bool:
    """The key point's truth is a negation for pattern ``source``: the pattern matches the point's own
    statements (EN, 中文; a clause, or two adjacent ones of a sentence) and each match there needs a negation
    (`_needs_negation`: "past keys and values never change", "the cache does not grow", "列的和不受约束").
    Then the answer must hold one too: the point typed back without its negation ("past keys and values
    change") is its reversal, which a word-bag pattern ("3 of: @key | @value | past | never chang") cannot
    tell. A statement that holds a negation the pattern does not need ("Self-attention takes Q, K, V from one
    sequence with no causal mask": "@query + one sequence") asks for none."""
    pat = parse_pattern(source)
    spans = 0
    polarity = point_polarity(source, points)
    for text in points:
        cls = clauses(text) if text.strip() else []
        for k in range(len(cls)):
            pair = cls[k:k + 2] if k + 1 < len(cls) and cls[k].sentence == cls[k + 1].sentence else None
            for span in ([cls[k]], pair):
                if span and pat.match_span(span, polarity):
                    if not _needs_negation(pat, span):
                        return False
                    spans += 1
    return spans > 0


def _needs_negation(pat: Pattern, span: Sequence[Clause]) -> bool:
    """``pat`` matches ``span`` only through a negation: a concept group found there only negated or only in
    a phrase that holds a negation ("never chang", "no local"); in a "K of" pattern, any group so found (the
    point's negation is one of the concepts it counts)."""
    if pat.at_least and any(has_negation(" ".join(p)) for group in pat.groups for p in group):
        return True  # the bag counts the point's negation as one of its concepts (the other language's too)
    clean_groups = 0
    for group in pat.groups:
        clean = negy = False
        for c in span:
            for p in group:
                for i, ok in c.find(p):
                    own = any(u.neg for u in c.units[i:i + len(p)])
                    # outside a "K of" bag only a phrase written with its negation counts: a negation's crude
                    # scope reaches past its concept ("detect rows with no allowed key and output zeros")
                    if own or not ok and pat.at_least:
                        negy = True
                    else:
                        clean = True
        if pat.at_least and negy or not pat.at_least and not clean:
            return True
        clean_groups += clean
    return clean_groups < (pat.at_least or len(pat.groups))


def _negation_kept(span: Sequence[Clause], source: str, points: Sequence[str], cls: Sequence[Clause]) -> bool:
    """``span`` of an answer (clauses ``cls``) may tick with pattern ``source``: its sentence holds a negation
    where the key point's truth is one (`point_negated`), and no rejection takes it back ("X. That is
    false.", "…, which is wrong"), unless the point is itself such a rejection."""
    pts = tuple(points)
    if any(c.rejected for c in span) and not _point_rejects(pts):
        return False
    if not point_negated(source, pts):
        return True
    sentences = {c.sentence for c in span}
    # the negation may be said affirmatively in the clause that states the point: "stay fixed", "remain the
    # same", "frozen", "untied", "bias-free", 固定, 独立 (re-reviews at 10968c7: ch01-05 M-1, ch10-12 N-M1);
    # not in another clause ("… change, while the weights stay fixed": review rv6f M-1)
    return any(has_negation(c.text) for c in cls if c.sentence in sentences) or any(
        _SAID_AFFIRMATIVELY.search(c.text.lower()) for c in span
    )


_SAID_AFFIRMATIVELY = re.compile(
    r"\b(?:stays?|stayed|remains?|remained|fixed|frozen|unchanged|bias-free|untied|separate|independent)\b"
    r"|固定|恒定|独立"
)


@functools.lru_cache(maxsize=4096)
def _point_rejects(points: tuple[str, ...]) -> bool:
    """A statement of the key point is itself a rejection ("…，是一个错误")."""
    return any(c.rejected for text in points if text.strip() for c in clauses(text))


@functools.lru_cache(maxsize=16384)
def point_polarity(source: str, points: tuple[str, ...] = ()) -> tuple[tuple[bool, ...], ...]:
    """Per concept group of pattern ``source`` and per alternative: must an answer affirm it (True), or will a
    negated occurrence do as well (False)? Set by the key point's own statements (``points``, EN and 中文).
    A concept the point states negated ("no learnable parameters": the parameters may be "not learned"), or
    in a clause of its own that holds a negation (not a mere "unless" / 除非), which the crude scope of a
    negation cannot pin on one concept ("a head cannot attend to nothing", "Columns are not constrained to
    sum to 1"), may be negated; an alternative the point does not name goes with its group's others. Any
    other concept, one the point affirms in a clause without a negation, must be affirmed: a key point that
    carries a negation elsewhere ("BatchNorm depends on the batch …; 解码时用不了", "P is bounded by the
    KV heads unless they are replicated") is not ticked by its own reversal ("BatchNorm doesn't depend on
    the batch", "P is not limited by the key/value heads"). Before, a key point with any negation word in
    its text was matched with no polarity at all. The claim's own negation (a ``~`` group, or one written
    in a concept group: "no @mean") negates nothing here either. Where the negation is itself the claim
    ("past keys and values never change"), `point_negated` asks the answer's sentence for one."""
    pat = parse_pattern(source)
    seen = [[False] * len(group) for group in pat.groups]
    negated = [[False] * len(group) for group in pat.groups]
    for text in points:
        for c in clauses(text) if text.strip() else []:
            lic = frozenset((pat.licensed([c]) or {}).get(0, ()))
            loose = has_negation(c.text)
            for g, group in enumerate(pat.groups):
                for a, p in enumerate(group):
                    found = c.find(p, lic)
                    seen[g][a] = seen[g][a] or bool(found)
                    negated[g][a] = negated[g][a] or bool(found) and (loose or not all(ok for _, ok in found))
    # an alternative the point does not name is read as its group's others ("并不代表 … 用上": "不等于")
    return tuple(
        tuple(
            not (negated[g][a] or not seen[g][a] and any(negated[g])) for a in range(len(group))
        )
        for g, group in enumerate(pat.groups)
    )


def context_vetoes(cls: Sequence[Clause], k: int) -> bool:
    """Clause ``k`` states nothing by itself in its context: it is a question, a condition, framed or
    rejected; it opens with "unlike …" or is the relative clause after one ("Unlike X, which …, Y …"); or
    another clause of its sentence sets a condition or a limitation ("if …", "but only …", "unless …",
    "but …", a fronted "when …" / "…时"; not a speaker's hedge or a concession, `_NO_CONDITION`)."""
    c = cls[k]
    if c.question or c.rejected or c.framed or c.conditional or c.mention:
        return True
    same = [x for x in cls if x.sentence == c.sentence]
    at = next(m for m, x in enumerate(same) if x is c)
    # "Unlike X, which …, Y …": the "unlike" clause and the relative clause after it describe the other thing
    if _fronted(canonical(c.text).strip(), whole=False):
        return True
    if _UNLIKE.match(canonical(c.text).strip()) or (
        at and _UNLIKE.match(canonical(same[at - 1].text).strip())
        and _RELATIVE.match(canonical(c.text).strip())
    ):
        return True
    for m, x in enumerate(same):
        if x is c:
            continue
        low = canonical(x.text).strip()
        if _NO_CONDITION.match(low) or m < at and _OPENER.match(low):
            continue
        # a fronted time or circumstance sets the claim's condition ("计算受限时，…", "When d_k is large, …")
        if x.conditional or x.limiting or _only(x) or (
            m < at and _fronted(low, whole=True)
        ):
            return True
    return False


_UNLIKE = re.compile(
    r"^(?:unlike|contrary to|as opposed to|in contrast to|compared (?:to|with))\b"
    r"|^(?:不同于|有别于|和[^，,]{0,20}不同)"
)
_RELATIVE = re.compile(r"^(?:which|who|where|that)\b")
_FRONTED_CONDITION = re.compile(
    r"^(?:when|whenever|once|as long as|provided|given|assuming|under|with|without)\b"
    r"|(?:时|时候|的话|情况下|前提下|条件下)$|^(?:当|只要|一旦)"
)
# ... and one fronted inside the clause itself, before its comma ("When d_k is large, …", "计算受限时，…")
_FRONTED_IN_CLAUSE = re.compile(
    r"^(?:when|whenever|once|as long as|provided|given|assuming|under|with|without)\b[^,]{0,60},"
    r"|^(?:当|只要|一旦)?[^,，]{0,20}(?:时|时候|的话|情况下|前提下|条件下)[,，]"
)


# a connective alone before the claim opens it ("Actually, X", "其实，X"): it limits nothing
_OPENER = re.compile(
    r"^(?:but|however|yet|actually|in fact|in practice|in reality|indeed|well|so|and)$"
    r"|^(?:但|但是|然而|不过|可是|其实|实际上|事实上|所以|而且)$"
)
# a fronted phrase that names the ordinary case sets no condition ("With a standard Transformer, …", "Given
# the usual setup, …", "Under the hood, …", "一般情况下，…"; review s15 M1: they vetoed most fallback catches)
# ... nothing but that: "with a standard Transformer", not "with the standard causal mask",
# "按标准设定 … 的情况下", "不用常规 KV cache 的情况下" (review s16 M3)
_GENERIC_HEAD = (
    r"(?:transformer|model|setup|set-up|case|setting|settings|configuration|architecture|decoder|encoder|"
    r"layer|block|llm|attention|self-attention|multi-head attention|gpt|bert|conditions|practice|"
    r"decoder-only transformer|decoder-only model|transformer architecture|transformer layer)s?"
)
_GENERIC = re.compile(
    r"^(?:with|under|given|in|for|assuming|when using|using) (?:a |an |the )?(?:(?:standard|usual|typical|"
    r"normal|default|vanilla|plain|ordinary|regular|common|original) )+" + _GENERIC_HEAD
    + r"(?: in practice)?$"
    r"|^(?:under the hood|in general|in most cases|in the usual case|in the general case|generally|usually|"
    r"normally|typically|under normal conditions|in practice)$"
    r"|^在?(?:一般|通常|正常|常规|大多数|绝大多数|大部分|多数|普通|典型|默认|标准)(?:的)?(?:情况|情形|场景)(?:下)?$"
    r"|^在?(?:标准|常规|普通|典型|原始|默认)(?:的)?\s*(?:transformer|模型|设置|设定|架构)\s*(?:里|中|下|上)?$"
)


def _fronted(low: str, whole: bool) -> bool:
    """``low`` (a clause, canonical) opens with a fronted condition or circumstance ("When d_k is large, …",
    "计算受限时，…"): the whole clause (``whole``) or its part before a comma; not one that only names the
    ordinary case (`_GENERIC`: "With a standard Transformer,", "一般情况下，")."""
    m = _FRONTED_IN_CLAUSE.match(low)
    if m:
        return not _GENERIC.match(m.group(0).rstrip(",， ").strip())
    return whole and bool(_FRONTED_CONDITION.search(low)) and not _GENERIC.match(low.strip(",， "))


def _similar_vetoed(
    cls: Sequence[Clause], k: int, tell: Tell, claims: Sequence[Sequence[str]],
    points: Sequence[Sequence[str]],
) -> bool:
    """A clause the similarity fallback flags states no myth when a pattern's match there would not either:
    its context vetoes it (`context_vetoes`), or the speaker takes it back (`_corrected`)."""
    return context_vetoes(cls, k) or _corrected(cls, k, tell, claims, points)


def check_answer(
    answer: str, claims: Sequence[Sequence[str]], tells: Sequence[Tell] = (),
    points: Sequence[Sequence[str]] = (),
    fallback: Callable[[Sequence[Clause]], dict[int, str]] | None = None,
) -> MatchResult:
    """Key point i is covered if a clause matches a pattern of ``claims[i]`` and no stated myth blocks i.

    ``points[i]``: key point i's own statements (EN, 中文): a concept they state negated ("no learnable
    parameters") may be negated in the answer too; every other concept must be affirmed (`point_polarity`).

    ``fallback`` (default None: nothing changes): clauses -> {misconception index: the clauses, in order,
    that may state it} that the patterns missed (`similar.fallback`); the first one that its context does not
    veto (`_similar_vetoed`) is stated and blocks the misconception's points."""
    cls = clauses(answer) if answer.strip() else []
    stated: dict[int, str] = {}
    blocked: dict[int, int] = {}
    myth_at: dict[int, list[tuple[int, str]]] = {}  # clause index -> the myths it states, their patterns
    for j, tell in enumerate(tells):
        def retracted(k: int, tell: Tell = tell) -> bool:
            return _corrected(cls, k, tell, claims, points)

        found = _first_match(cls, tell.patterns, myth=True, retracted=retracted)
        if found is not None:
            stated[j] = found.text
            myth_at.setdefault(found.at[0], []).append((j, found.source))
            for i in tell.blocks:
                blocked.setdefault(i, j)
    similar: dict[int, str] = {}
    for j, found in (fallback(cls) if fallback is not None else {}).items():
        if j >= len(tells) or j in stated:
            continue
        for text in [found] if isinstance(found, str) else found:
            k = next((m for m, c in enumerate(cls) if c.text == text), None)
            if k is not None and _similar_vetoed(cls, k, tells[j], claims, points):
                continue
            similar[j] = stated[j] = text
            for i in tells[j].blocks:
                blocked.setdefault(i, j)
            break
    covered: list[int] = []
    missed: list[int] = []
    hits: dict[int, str] = {}
    # a clause that states a myth earns no key point with the myth's own words ("ALiBi adds a linear distance
    # penalty, and each head's slope is learned" states the learned-slope myth: it does not show the slopes
    # point): the point is read from the other clauses, else from the clause's other words, else that myth
    # blocks it. Only a pattern's myth: a myth the similarity fallback finds has no words of its own to
    # withhold, and may be a false alarm (review 222 M3)
    for i, patterns in enumerate(claims):
        pts = points[i] if i < len(points) else ()
        hit = _first_match(cls, patterns, points=pts, skip=frozenset(myth_at))
        if hit is None and myth_at:
            hit = _first_match(cls, patterns, points=pts)
            if hit is not None and (j := _earned_beside(cls, hit, myth_at, pts)) is not None:
                blocked.setdefault(i, j)
        if hit is not None:
            hits[i] = hit.text
        if hit is not None and i not in blocked:
            covered.append(i)
        else:
            missed.append(i)
    return MatchResult(
        covered=covered, missed=missed, hits=hits, stated=stated, blocked=blocked, similar=similar,
    )
