"""Check a typed answer against a card's key points by keywords: it matches words, not understanding.

A key point counts as covered when any of its alternatives (``Card.keywords[i]``) appears in the answer,
after the same simple normalisation of both sides: Unicode NFKC, case-folding, ``√`` read as ``sqrt``,
``^`` and superscripts dropped (``QKᵀ`` = ``QK^T`` = ``qkt``), other punctuation read as a space. An
alternative must start and end at a word boundary; a plain English ending (-s, -es, -ed, -d, -ing) may follow
it, so ``mask`` also finds ``masked`` and ``masks``. Alternatives in Chinese match as plain substrings.

What it cannot judge: whether the words are used correctly ("we do NOT divide by sqrt(d_k)" still covers
the sqrt key point), synonyms or paraphrases not in the card's list, formulas written differently, and
anything in a language the card has no keywords for. Treat the result as a checklist prompt, not a grade.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["MatchResult", "normalise", "keyword_pattern", "check_answer"]

_SUFFIX = r"(?:s|es|ed|d|ing)?"


def normalise(text: str) -> str:
    """Lower-case, NFKC, √ -> ' sqrt ', ^ dropped, punctuation -> space, whitespace collapsed."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = t.replace("√", " sqrt ").replace("^", "")
    out = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch == "_" or not (cat.startswith("P") or cat.startswith("S")):
            out.append(ch)
        else:
            out.append(" ")
    return " ".join("".join(out).split())


def keyword_pattern(alternative: str) -> re.Pattern[str] | None:
    """Regex for ``alternative`` (normalised) at word boundaries, an English ending allowed; None if empty."""
    alt = normalise(alternative)
    if not alt:
        return None
    body = r"\s+".join(re.escape(w) for w in alt.split())
    return re.compile(rf"(?<![a-z0-9_]){body}{_SUFFIX}(?![a-z0-9_])")


@dataclass(frozen=True)
class MatchResult:
    """Which key points (by index) a typed answer covered and which it missed."""

    covered: list[int] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    hits: dict[int, str] = field(default_factory=dict)  # key point index -> the alternative that matched

    @property
    def total(self) -> int:
        """Number of key points checked."""
        return len(self.covered) + len(self.missed)

    @property
    def fraction(self) -> float:
        """covered / total (1.0 when there is nothing to check)."""
        return len(self.covered) / self.total if self.total else 1.0


def check_answer(answer: str, keywords: Sequence[Sequence[str]]) -> MatchResult:
    """For each key point i, covered if any alternative in ``keywords[i]`` appears in ``answer``."""
    text = normalise(answer)
    covered: list[int] = []
    missed: list[int] = []
    hits: dict[int, str] = {}
    for i, alts in enumerate(keywords):
        for alt in alts:
            pat = keyword_pattern(alt)
            if pat is not None and pat.search(text):
                covered.append(i)
                hits[i] = alt
                break
        else:
            missed.append(i)
    return MatchResult(covered=covered, missed=missed, hits=hits)
