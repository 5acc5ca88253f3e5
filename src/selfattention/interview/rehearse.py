"""``attention-rehearse`` (kept as the historical entry point): everything lives in small modules now.

``cli`` (arguments, dispatch) · ``session`` (study / mock loop, reveal, rating) · ``render`` (terminal output,
TeX to text) · ``schedule`` (what is due, stats) · ``anki`` (export) · ``store`` (SQLite progress) ·
``matcher`` (the typed-answer check) · ``grader`` + ``drills/`` (coding drills and their sandboxed worker).
"""

from __future__ import annotations

from .anki import ANKI_DECK_ID, ANKI_MODEL_ID, export_anki
from .cli import build_parser, main, resolve_chapter
from .render import UI, terminal_text
from .schedule import compute_stats, select_study

__all__ = [
    "ANKI_DECK_ID", "ANKI_MODEL_ID", "UI", "build_parser", "compute_stats", "export_anki", "main",
    "resolve_chapter", "select_study", "terminal_text",
]

if __name__ == "__main__":
    raise SystemExit(main())
