"""Check a typed answer against a card's key points by keywords: it matches words, not understanding.

A key point counts as covered when any of its alternatives (English ``Card.keywords[i]`` or Chinese
``Card.keywords_zh[i]``) appears in the answer, after the same normalisation of both sides: Unicode NFKC,
case-folding, ``√`` and ``根号`` read as ``sqrt``, ``^`` and superscripts dropped (``QKᵀ`` = ``qkt``),
other punctuation (also Chinese punctuation) read as a space, and every space next to a Chinese character
removed, since Chinese puts none between words (``除以 根号 d_k`` = ``除以根号d_k``). English words must start
and end at a word boundary and may take a plain ending (-s, -es, -ed, -d, -ing), so ``mask`` also finds
``masked``; Chinese text matches as a substring, so mixed answers (``softmax 会饱和``) work. An alternative
``a & b`` needs every part somewhere in the answer, in any order.

Misconceptions: a card's misconception carries "tells", phrases that state the myth (EN and 中文). An answer
containing a tell that is not negated just before it (``not``/``rather than``/``不是``/``而非`` …) has stated
the misconception: the key points it contradicts (``blocks``) do not count as covered, whatever keywords the
answer also has.

A keyword right after a negation ("not the square root", "不是按行") does not count either.

What it cannot judge: whether the words are used correctly beyond those listed myths and a plain negation
just before a keyword ("sqrt(d_k) is wrong" still covers the sqrt key point), paraphrases not in the lists,
formulas written differently.
Treat the result as a checklist prompt, not a grade.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "MatchResult", "Tell", "normalise", "keyword_pattern", "find_alternative", "states", "check_answer",
    "has_cjk",
]

_SUFFIX = r"(?:s|es|ed|d|ing)?"
_CJK = "\u2e80-\u2fff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK}]")
_CJK_SPACE = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")
_WORD = re.compile(r"[a-z0-9_]")
# a keyword or tell right after one of these is not taken as stated ("not the square root", "if we divide by
# d_k ...", "不是按列"): up to 3 English words back, or a Chinese negation just before ("不是", "不"), or
# a Chinese conditional ("如果", "假如", "若") up to 6 characters back
_EN_NEGATORS = {
    "not", "no", "never", "nobody", "nor", "instead", "rather", "without", "neither", "myth", "if", "suppose",
}
_ZH_NEGATORS = (
    "不是", "并非", "而非", "不要", "不用", "不必", "不能", "不会", "没有", "不", "非", "没", "别", "未",
)
_ZH_CONDITIONALS = ("如果", "假如", "假设", "若", "要是")


def has_cjk(text: str) -> bool:
    """True when ``text`` contains a Chinese (CJK) character."""
    return bool(_CJK_RE.search(text))


def normalise(text: str) -> str:
    """NFKC, lower-case, √/根号 -> ' sqrt ', ^ dropped, punctuation -> space, no space next to CJK."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = re.sub(r"n[’']t\b", " not", t)
    t = t.replace("√", " sqrt ").replace("根号", " sqrt ").replace("^", "")
    out = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch == "_" or not (cat.startswith("P") or cat.startswith("S")):
            out.append(ch)
        else:
            out.append(" ")
    return _CJK_SPACE.sub("", " ".join("".join(out).split()))


def keyword_pattern(alternative: str) -> re.Pattern[str] | None:
    """Regex for one ``alternative`` (normalised): word boundaries and an English ending where it is ASCII."""
    alt = normalise(alternative)
    if not alt:
        return None
    body = r"\s+".join(re.escape(w) for w in alt.split())
    head = r"(?<![a-z0-9_])" if _WORD.match(alt[0]) else ""
    tail = rf"{_SUFFIX}(?![a-z0-9_])" if _WORD.match(alt[-1]) else ""
    return re.compile(head + body + tail)


def _parts(alternative: str) -> list[re.Pattern[str]]:
    pats = [keyword_pattern(p) for p in alternative.split("&")]
    return [p for p in pats if p is not None]


def _affirmed(pat: re.Pattern[str], text: str) -> bool:
    """``pat`` occurs in ``text`` at least once without a negation just before it."""
    return any(not _negated(text, m.start()) for m in pat.finditer(text))


def find_alternative(text: str, alternatives: Sequence[str]) -> str | None:
    """The first alternative stated (not negated) in the normalised ``text``, every ``&`` part present."""
    for alt in alternatives:
        pats = _parts(alt)
        if pats and all(_affirmed(p, text) for p in pats):
            return alt
    return None


def _negated(text: str, start: int) -> bool:
    """A negation (or a conditional) right before position ``start`` (see ``_EN_NEGATORS``)."""
    before = text[:start]
    if before.endswith(_ZH_NEGATORS) or any(c in before[-6:] for c in _ZH_CONDITIONALS):
        return True
    words = re.findall(r"[a-z0-9_]+", before[-40:])
    return any(w in _EN_NEGATORS for w in words[-3:])


def states(text: str, tells: Sequence[str]) -> str | None:
    """The first tell that the normalised ``text`` states without a negation just before it, else None."""
    for tell in tells:
        pats = _parts(tell)
        if pats and all(_affirmed(p, text) for p in pats):
            return tell
    return None


@dataclass(frozen=True)
class Tell:
    """The phrases that give one misconception away, and the key points (indices) it contradicts."""

    phrases: tuple[str, ...]
    blocks: tuple[int, ...] = ()


@dataclass(frozen=True)
class MatchResult:
    """Which key points (by index) a typed answer covered, missed, and which misconceptions it stated."""

    covered: list[int] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    hits: dict[int, str] = field(default_factory=dict)  # key point index -> the alternative that matched
    stated: dict[int, str] = field(default_factory=dict)  # misconception index -> the tell that matched
    blocked: dict[int, int] = field(default_factory=dict)  # key point index -> misconception that voids it

    @property
    def total(self) -> int:
        """Number of key points checked."""
        return len(self.covered) + len(self.missed)

    @property
    def fraction(self) -> float:
        """covered / total (1.0 when there is nothing to check)."""
        return len(self.covered) / self.total if self.total else 1.0


def check_answer(
    answer: str, keywords: Sequence[Sequence[str]], tells: Sequence[Tell] = ()
) -> MatchResult:
    """Key point i is covered if an alternative in ``keywords[i]`` appears and no stated tell blocks i."""
    text = normalise(answer)
    stated: dict[int, str] = {}
    blocked: dict[int, int] = {}
    for j, tell in enumerate(tells):
        found = states(text, tell.phrases)
        if found is not None:
            stated[j] = found
            for i in tell.blocks:
                blocked.setdefault(i, j)
    covered: list[int] = []
    missed: list[int] = []
    hits: dict[int, str] = {}
    for i, alts in enumerate(keywords):
        alt = find_alternative(text, alts)
        if alt is not None:
            hits[i] = alt
        if alt is not None and i not in blocked:
            covered.append(i)
        else:
            missed.append(i)
    return MatchResult(covered=covered, missed=missed, hits=hits, stated=stated, blocked=blocked)
