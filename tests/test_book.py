"""The site builds with warnings as errors and has a page for every chapter in the table of contents."""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from book_support import toc_pages  # noqa: E402  (tests/ is not a package)


def test_build_has_no_warnings(built_book):
    warnings = [line for line in built_book.log.splitlines() if re.search(r"\bWARNING\b|\bERROR\b", line)]
    assert not warnings, "the book build printed warnings:\n" + "\n".join(warnings[:40])


def test_every_toc_entry_has_a_page(built_book):
    for name in toc_pages():
        page = built_book.html / f"{name}.html"
        assert page.exists(), f"no page for {name} in {built_book.html}"
        assert page.stat().st_size > 2000, f"{page} is suspiciously small"


def test_every_chapter_notebook_is_in_the_toc():
    listed = set(toc_pages())
    notebooks = {f"chapters/{p.stem}" for p in (ROOT / "chapters").glob("*.ipynb")}
    assert notebooks <= listed, f"notebooks missing from _toc.yml: {sorted(notebooks - listed)}"
