"""Write ``tests/data/answer_corpus/probes.json``: the correct sentences the review tests require the checker
not to flag, per card (the similarity fallback's correct exemplars, `similar.PROBES`; each is judged without
itself, leave-one-out by exact text).

A row counts when its test is parametrised by a card (``card`` / ``cid`` / ``card_id``) and a text (``text`` /
``answer`` / ``sentence``), is not an xfail, and its test says the text is correct: its name matches `CORRECT`
or its ``is_myth`` parameter is False. Run from the project root after changing a review test:
``python tests/export_probes.py`` (it rewrites the packaged copy, `similar.EXEMPLARS`, too).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "answer_corpus" / "probes.json"
CORRECT = re.compile(
    r"not_flagged|_spared?\b|_spares_|still_ticks|correct.*_ticks?$|earns?_(?:its|their)_|keeps_every_point"
)
# a test whose rows mix myths and corrections (its name says both)
MIXED = {"test_checker_flags_the_myth_and_spares_the_corrections"}


class Collector:
    def __init__(self) -> None:
        self.rows: dict[str, set[str]] = {}

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            spec = getattr(item, "callspec", None)
            if spec is None or item.get_closest_marker("xfail") is not None:
                continue
            p = spec.params
            card = next((p[k] for k in ("card", "cid", "card_id") if k in p), None)
            text = next((p[k] for k in ("text", "answer", "sentence") if k in p), None)
            card = getattr(card, "id", card)
            if not isinstance(card, str) or not isinstance(text, str) or not text.strip():
                continue
            name = item.originalname
            if name in MIXED:
                continue
            if p.get("is_myth") is False or (CORRECT.search(name) and "is_myth" not in p):
                self.rows.setdefault(card, set()).add(text)


def main() -> int:
    col = Collector()
    files = sorted(str(p) for p in (ROOT / "tests").glob("test_*.py") if p.name != "test_similar.py")
    code = pytest.main(["--co", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *files], plugins=[col])
    if code not in (0, 5):
        return int(code)
    data = {card: sorted(texts) for card, texts in sorted(col.rows.items())}
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {sum(map(len, data.values()))} sentences over {len(data)} cards")
    from selfattention.interview import similar  # the packaged copy the index reads

    similar.export_exemplars()
    print(f"{similar.EXEMPLARS.relative_to(ROOT)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
