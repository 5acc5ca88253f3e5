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

def _myth_html(text: str, lang: str) -> str:
    myth, fix = bank.split_misconception(text, lang)
    label = ("误区", "正解") if lang == "zh" else ("Myth", "Correction")
    out = f"<i>{label[0]}:</i> {_anki_html(myth)}"
    return out + (f"<br><i>{label[1]}:</i> {_anki_html(fix)}" if fix else "")


def export_anki(cards: list[bank.Card], path: Path) -> int:
    """Write an .apkg: one note per card, fields in both languages, two card templates; returns #notes."""
    import genanki

    langs = bank.LANGS
    fields = ["Id", "Chapter", "Level"] + [
        f"{f}_{lg}"
        for f in ("Question", "Short", "Spoken", "KeyPoints", "Myths", "FollowUps")
        for lg in langs
    ]
    labels = {
        "en": ("Say it like this (60-90 s)", "Common misconceptions", "Follow-up questions"),
        "zh": ("面试时可以这样答", "常见误区", "追问"),
    }

    def back(lg: str) -> str:
        spoken, myths, follow = labels[lg]
        return (
            f"{{{{FrontSide}}}}<hr id=answer><div class=short>{{{{Short_{lg}}}}}</div>"
            f"<details><summary>{spoken}</summary>{{{{Spoken_{lg}}}}}</details>"
            f"<ul>{{{{KeyPoints_{lg}}}}}</ul>"
            f"{{{{#Myths_{lg}}}}}<div class=myths><b>{myths}</b><ul>{{{{Myths_{lg}}}}}</ul></div>"
            f"{{{{/Myths_{lg}}}}}"
            f"{{{{#FollowUps_{lg}}}}}<div class=follow><b>{follow}</b><ul>{{{{FollowUps_{lg}}}}}</ul></div>"
            f"{{{{/FollowUps_{lg}}}}}<div class=meta>{{{{Chapter}}}} · {{{{Level}}}} · {{{{Id}}}}</div>"
        )

    model = genanki.Model(
        ANKI_MODEL_ID,
        "Self-Attention, Executed (bilingual)",
        fields=[{"name": f} for f in fields],
        templates=[
            {
                "name": "English",
                "qfmt": "<div class=q>{{Question_en}}</div>",
                "afmt": back("en"),
            },
            {"name": "中文", "qfmt": "<div class=q>{{Question_zh}}</div>", "afmt": back("zh")},
        ],
        css=".card{font-family:sans-serif;font-size:18px;text-align:left}.q{font-weight:bold}"
        ".meta{color:#888;font-size:12px}",
    )
    deck = genanki.Deck(ANKI_DECK_ID, "Self-Attention, Executed")
    by_id = {c.id: c for c in cards}
    for c in _ordered(cards):
        values = [c.id, c.chapter, c.level]
        for f in ("question", "short", "spoken", "key_points", "myths", "follow_ups"):
            for lg in langs:
                if f == "key_points":
                    values.append("".join(f"<li>{_anki_html(p)}</li>" for p in c.key_points[lg]))
                elif f == "myths":
                    values.append("".join(f"<li>{_myth_html(m[lg], lg)}</li>" for m in c.misconceptions))
                elif f == "follow_ups":
                    qs = [by_id[i].question[lg] for i in c.follow_ups if i in by_id]
                    values.append("".join(f"<li>{_anki_html(q)}</li>" for q in qs))
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
