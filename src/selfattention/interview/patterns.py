"""Derive claim patterns for a key point, and myth patterns from old "tells" (used by the migration).

A key point's claim is a **predicate** (one of its keywords: what the point says) together with a **subject**
(a content word of the key point's own text, EN or 中文, that is not a keyword) in one clause. A keyword
that is already a claim on its own (two or more content words, "variances add", "梯度接近零", or
``a & b``) is a pattern by itself. Words of the card's own question are dropped from both sides, and a
pattern that the question (EN or 中文) matches is dropped, so typing the question back ticks nothing.

A tell ("we divide by d_k") becomes a concept combination: its content words as groups in any order within
a clause (a negation is glued to the word after it, "no need"); a concept that the correction names and the
myth does not (√ in "We divide by d_k. … is √d_k.") must be absent from the clause.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .language import Unit, clauses, phrase_units, split_misconception, units_of
from .matcher import parse_pattern

__all__ = ["claims_for_point", "myth_patterns", "content_words"]

_STOP_EN = (
    "we you i it its they their them this that these those is are was be been being do does did have has "
    "had of to in on at by for with from as and or so such into onto than then there here what which who "
    "why how when where can will also just only very more most much many some any each other both one's "
    "our us my me get gets make makes like same per about up down out over under after before between "
    "through while because if not no use used using given give thing way"
)
_STOP_ZH = (
    "的 了 是 在 和 与 及 就 都 也 会 把 被 让 对 为 这 那 个 一个 这个 那个 时 中 上 下 "
    "所以 因为 可以 我们 你 他 "
    "它 就是 如果 时候 还 而 或 并 等 里 从 到 要 能 很 更 最 用 通过 这样 "
    "那么 什么 为什么 怎么 之间 之后 之前 其 每 各 所 于 以 则 即 但 又 再 才 "
    "只 已 已经 它们 自己 得 地 着 过 吗 呢 吧 啊"
)


_STOP_MYTH = (
    "we you i it its they their them this that is are was be been do does did of to our us my "
    "的 了 是 我们 你 就 都"
)


@functools.lru_cache(maxsize=2)
def _stop(myth: bool = False) -> frozenset[tuple[str, ...]]:
    out = set()
    for w in (_STOP_MYTH if myth else _STOP_EN + " " + _STOP_ZH).split():
        u = tuple(x.text for x in units_of(w))
        if u:
            out.add(u)
    return frozenset(out)


def _words(units: list[Unit]) -> list[list[Unit]]:
    out: list[list[Unit]] = []
    for u in units:
        if u.first or not out:
            out.append([u])
        else:
            out[-1].append(u)
    return out


def content_words(text: str, myth: bool = False) -> list[str]:
    """The content words of ``text`` as pattern phrases (unit texts joined), a negation glued to the next."""
    out: list[str] = []
    glue = ""
    for w in _words(units_of(text)):
        key = tuple(u.text for u in w)
        phrase = _join(key)
        if w[0].neg:
            glue = (glue + " " + phrase).strip()
            continue
        if key in _stop(myth) or (len(key) == 1 and len(key[0]) == 1 and not key[0].isdigit()):
            if glue:
                continue
            continue
        out.append((glue + " " + phrase).strip() if glue else phrase)
        glue = ""
    return list(dict.fromkeys(out))


def _join(units: Sequence[str]) -> str:
    """Unit texts back to a phrase that `parse_pattern` reads the same way (Chinese characters joined)."""
    s = ""
    for u in units:
        cjk = len(u) == 1 and "\u4e00" <= u <= "\u9fff"
        if s and not (cjk and s[-1:] and "\u4e00" <= s[-1] <= "\u9fff"):
            s += " "
        s += u
    return s


def _question_units(question: dict[str, str]) -> set[str]:
    return {p for lang in ("en", "zh") for p in content_words(question[lang])}


def _matches(pattern: str, text: str) -> bool:
    pat = parse_pattern(pattern)
    return any(pat.match(c) for c in clauses(text))


OVERLAP = 3


def claims_for_point(
    point: dict[str, str], alternatives: Sequence[str], question: dict[str, str]
) -> list[str]:
    """Claim patterns for one key point (``point`` = its EN and 中文 text) from its keyword alternatives."""
    qwords = _question_units(question)
    standalone: list[str] = []
    single: list[str] = []
    for alt in alternatives:
        parts = [p.strip() for p in alt.split("&") if p.strip()]
        if len(parts) > 1:
            standalone.append(" + ".join(parts))
            continue
        words = content_words(alt)
        if len(words) >= 2:
            standalone.append(" + ".join(words))
        elif len(words) == 1 and words[0] not in qwords:
            single.append(words[0])
    single = list(dict.fromkeys(single))
    subjects = [
        w for lang in ("en", "zh") for w in content_words(point[lang]) if w not in qwords and w not in single
    ]
    subjects = list(dict.fromkeys(subjects))
    out = list(dict.fromkeys(standalone))
    if single and subjects:
        out.append(" | ".join(single) + " + " + " | ".join(subjects))
    for lang in ("en", "zh"):  # the point's own claim in other order or words between: 3 of its concepts
        words = [w for w in content_words(point[lang]) if w not in qwords]
        if len(words) >= OVERLAP + 1:
            out.append(f"{OVERLAP} of: " + " | ".join(words))
    mine = {w for lang in ("en", "zh") for w in content_words(point[lang])}
    absent = [b for a, b in _PAIRS if a in mine and b not in mine]  # "each column …" is not the row point
    if absent:
        out = [p + "".join(f" + !{b}" for b in absent) for p in out]
    return [p for p in out if not (_matches(p, question["en"]) or _matches(p, question["zh"]))]


# concepts a key point is stated against: a clause naming the other one and not this one is another claim
_PAIRS = [
    ("@row", "@column"), ("@column", "@row"), ("@key", "@query"), ("@query", "@key"),
    ("@sqrt", "d_k over d_k"), ("@learned", "fix"), ("fix", "@learned"),
]


# concepts a correction sets against the myth ("d_k, not √d_k", "rows, not columns"): absent from a clause
# that states the myth
_CONTRAST = {"@sqrt", "@row", "@column", "@query", "@key", "d_k", "d_model", "@before", "@neginf"}


def myth_patterns(tells: Sequence[str], text: dict[str, str]) -> list[str]:
    """Order-free concept patterns from a myth's tells; concepts only its correction names must be absent."""
    absent: set[str] = set()
    for lang in ("en", "zh"):
        myth, fix = split_misconception(text[lang], lang)
        mine = set(content_words(myth))
        absent |= {w for w in content_words(fix) if w not in mine and w in _CONTRAST}
    out: list[str] = []
    for tell in tells:
        words = content_words(tell.replace("&", " "), myth=True)
        if len(words) < 2:  # one concept is a topic, not a claim: the whole tell as one phrase
            words = [_join([u.text for u in units_of(tell.replace("&", " "))])]
        if not words[0] or len(phrase_units(words[0])) < 2:  # a single topic word states no myth
            continue
        excl = sorted(a for a in absent if a not in words)
        out.append(" + ".join([*words, *(f"!{a}" for a in excl)]))
    return list(dict.fromkeys(out))
