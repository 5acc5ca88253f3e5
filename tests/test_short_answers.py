"""Every chapter's short answer box holds at most 80 English words, counted as the browser test counts them.

The box is the first ``{admonition}`` with ``:class: tip`` in a chapter's markdown. Like ``_READER_FACTS``
in ``tests/test_site_browser.py``: the title is not counted, nor any paragraph with 中文; a formula is one
word; a word is a whitespace-separated token with a letter or digit. A ``{cite}`` role counts as the page
shows it in the author-year style (``_config.yml``): "[Surname, 2017]" (2 words) for one author,
"[Surname and Other, 2017]" or "[Surname et al., 2017]" (4 words) otherwise, for each key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 80
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
_BOX = re.compile(r"```\{admonition\}[^\n]*\n(?P<body>.*?)\n```", re.S)
_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`(?P<keys>[^`]+)`")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _authors() -> dict[str, int]:
    """Number of authors of each references.bib key."""
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"@\w+\{(?P<key>[^,\s]+),(?P<body>.*?)\n\}", text, re.S):
        a = re.search(r"\bauthor\s*=\s*\{(?P<a>.*?)\},?\s*\n", m["body"], re.S)
        out[m["key"]] = len(re.split(r"\s+and\s+", a["a"])) if a else 1
    return out


AUTHORS = _authors()


def _cite_words(m: re.Match[str]) -> str:
    keys = [k.strip() for k in m["keys"].split(",")]
    return " ".join("w w" if AUTHORS.get(k, 1) == 1 else "w w w w" for k in keys)


def short_answer(nb_path: Path) -> str:
    """The body of the chapter's short answer box (options and all paragraphs; title excluded)."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for m in _BOX.finditer("".join(cell["source"])):
            if re.search(r"^:class:\s*tip\s*$", m["body"], re.M):
                return m["body"]
    raise AssertionError(f"{nb_path.name} has no short answer box (admonition with :class: tip)")


def english_words(body: str) -> int:
    """Words of the box's English paragraphs, as the browser test counts the rendered box."""
    lines = [line for line in body.split("\n") if not re.match(r"^:\w[\w-]*:", line)]
    words = 0
    for para in re.split(r"\n\s*\n", "\n".join(lines)):
        if _CJK.search(para):
            continue
        para = _MATH.sub(" F ", _CITE.sub(_cite_words, para))
        words += sum(1 for w in para.split() if re.search(r"[A-Za-z0-9]", w))
    return words


def test_the_counter_counts_like_the_page():
    """Formulas are one word, a cite is its author-year text, 中文 paragraphs and options are not counted."""
    body = (
        ":class: tip\n\nRuns $h$ heads of width $d_k = d/h$ {cite}`vaswani2017attention`, "
        "one log-sum-exp.\n\n**中文：** 多头 $h$ 个。"
    )
    # Runs F heads of width F [Vaswani et al., 2017], one log-sum-exp.
    assert english_words(body) == 1 + 1 + 3 + 1 + 4 + 2
    assert AUTHORS["vaswani2017attention"] == 8


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_short_answer_has_at_most_80_english_words(path):
    n = english_words(short_answer(path))
    assert n <= LIMIT, f"{path.name}: the short answer box has {n} English words (limit {LIMIT})"


if __name__ == "__main__":
    for p in CHAPTERS:
        print(p.stem, english_words(short_answer(p)))
