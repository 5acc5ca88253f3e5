"""``export-anki``: the whole bank as an Anki deck (.apkg), stable ids so a re-import updates notes."""

from __future__ import annotations

import re
from pathlib import Path

from . import bank
from .schedule import _ordered

ANKI_MODEL_ID = 1_704_310_001  # fixed so re-imports update the same note type and deck in Anki

ANKI_DECK_ID = 1_704_310_002

def _anki_html(text: str) -> str:
    """Escape card text for Anki and turn $..$ / $$..$$ into MathJax \\( \\) / \\[ \\]."""
    import html

    out = html.escape(text, quote=False)
    out = re.sub(r"\$\$(.+?)\$\$", r"\\[\1\\]", out, flags=re.S)
    out = re.sub(r"\$(.+?)\$", r"\\(\1\\)", out, flags=re.S)
    return out.replace("\n", "<br>")

def export_anki(cards: list[bank.Card], path: Path) -> int:
    """Write an .apkg: one note per card, fields in both languages, two card templates; returns #notes."""
    import genanki

    langs = bank.LANGS
    fields = ["Id", "Chapter", "Level"] + [
        f"{f}_{lg}" for f in ("Question", "Short", "Spoken", "KeyPoints") for lg in langs
    ]
    back = (
        "{{FrontSide}}<hr id=answer><div class=short>{{Short_%s}}</div><details><summary>spoken</summary>"
        "{{Spoken_%s}}</details><ul>{{KeyPoints_%s}}</ul>"
        "<div class=meta>{{Chapter}} · {{Level}} · {{Id}}</div>"
    )
    model = genanki.Model(
        ANKI_MODEL_ID,
        "Self-Attention, Executed (bilingual)",
        fields=[{"name": f} for f in fields],
        templates=[
            {
                "name": "English",
                "qfmt": "<div class=q>{{Question_en}}</div>",
                "afmt": back % ("en", "en", "en"),
            },
            {"name": "中文", "qfmt": "<div class=q>{{Question_zh}}</div>", "afmt": back % ("zh", "zh", "zh")},
        ],
        css=".card{font-family:sans-serif;font-size:18px;text-align:left}.q{font-weight:bold}"
        ".meta{color:#888;font-size:12px}",
    )
    deck = genanki.Deck(ANKI_DECK_ID, "Self-Attention, Executed")
    for c in _ordered(cards):
        values = [c.id, c.chapter, c.level]
        for f in ("question", "short", "spoken", "key_points"):
            for lg in langs:
                if f == "key_points":
                    values.append("".join(f"<li>{_anki_html(p)}</li>" for p in c.key_points[lg]))
                else:
                    values.append(_anki_html(getattr(c, f)[lg]))
        deck.add_note(
            genanki.Note(
                model=model,
                fields=values,
                guid=genanki.guid_for("selfattention", c.id),
                tags=[c.chapter, c.level.replace("-", "_")],
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    genanki.Package(deck).write_to_file(str(path))
    return len(deck.notes)
