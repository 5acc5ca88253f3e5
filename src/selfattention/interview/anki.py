"""``export-anki``: the whole bank as an Anki deck (.apkg), stable ids so a re-import updates notes."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from . import bank
from .schedule import _ordered

VARIANTS = ("both", "en", "zh")  # export-anki --lang
DECK_NAMES = {
    "both": "Self-Attention, Executed",
    "en": "Self-Attention, Executed (English)",
    "zh": "Self-Attention, Executed（中文）",
}
DECK_IDS = {"both": 1_704_310_002, "en": 1_704_310_003, "zh": 1_704_310_004}
ANKI_DECK_ID = DECK_IDS["both"]
TEMPLATE_NAMES = {"en": "English", "zh": "中文"}
_PARTS = ("Question", "Short", "Spoken", "KeyPoints", "Myths", "FollowUps")
_ATTRS = {
    "Question": "question", "Short": "short", "Spoken": "spoken", "KeyPoints": "key_points", "Myths": "myths",
    "FollowUps": "follow_ups",
}


def _langs(variant: str) -> tuple[str, ...]:
    if variant not in VARIANTS:
        raise ValueError(f"lang must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return tuple(bank.LANGS) if variant == "both" else (variant,)


def field_names(variant: str) -> list[str]:
    """The note type's fields for ``variant``: Id, Chapter, Level, then each part in each language."""
    return ["Id", "Chapter", "Level"] + [f"{f}_{lg}" for f in _PARTS for lg in _langs(variant)]


def schema_hash(variant: str) -> str:
    """What Anki compares on import to decide a note type is the same one (rslib ``Notetype::schema_hash``:
    SHA-1 over the field names, then the template names). Template text and CSS are not part of it."""
    h = hashlib.sha1()
    for name in field_names(variant):
        h.update(name.encode("utf-8"))
    for lg in _langs(variant):
        h.update(TEMPLATE_NAMES[lg].encode("utf-8"))
    return h.hexdigest()


# One note type per variant, its id fixed for good. Measured with the real `anki` library (26.9.3): an
# unchanged schema re-imports as updates; a changed schema (fields or template names) under the same id
# cannot update existing notes ("conflicting") unless the import dialog's "Merge note types" box is ticked,
# and then updates them in place; under a NEW id even merging only marks them duplicates and renames the
# note type "…+". So the id stays, and the schema is pinned: tests fail when it changes unnoticed.
MODEL_IDS = {"both": 1_704_310_001, "en": 1_704_310_005, "zh": 1_704_310_006}
SCHEMA_HASHES = {  # schema_hash(variant) of the current fields and template names
    "both": "9ea3ee9d9cd7bd695856840e8d4dfc1ed895ee5e",
    "en": "1141b34e31fdcc4878ee02c9eb7e2e09e29b31af",
    "zh": "6d9e97437a9e5efe77917aa8e89b71c8a166881f",
}


def model_id(variant: str) -> int:
    """The note type id of ``variant`` (fixed: a re-import updates notes in place)."""
    _langs(variant)
    return MODEL_IDS[variant]


def note_guid(card_id: str, variant: str) -> str:
    """Stable per card and variant (the bilingual one keeps its original GUIDs); separate decks per language
    never share a GUID, so importing both never makes Anki move a note to another note type."""
    if variant == "both":
        return genanki_guid("selfattention", card_id)
    return genanki_guid("selfattention", card_id, variant)


def genanki_guid(*values: str) -> str:
    import genanki

    return genanki.guid_for(*values)


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


def export_anki(cards: list[bank.Card], path: Path, lang: str = "both") -> int:
    """Write an .apkg: one note per card; ``lang`` 'both' (one English and one 中文 card per note), 'en' or
    'zh' (one card per note, its own deck and note type); returns the number of notes."""
    import genanki

    langs = _langs(lang)
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

    title = {"both": "bilingual", "en": "English", "zh": "中文"}[lang]
    model = genanki.Model(
        model_id(lang),
        f"Self-Attention, Executed ({title})",
        fields=[{"name": f} for f in field_names(lang)],
        templates=[
            {
                "name": TEMPLATE_NAMES[lg],
                "qfmt": f"<div class=q>{{{{Question_{lg}}}}}</div>",
                "afmt": back(lg),
            }
            for lg in langs
        ],
        css=".card{font-family:sans-serif;font-size:18px;text-align:left}.q{font-weight:bold}"
        ".meta{color:#888;font-size:12px}",
    )
    deck = genanki.Deck(DECK_IDS[lang], DECK_NAMES[lang])
    by_id = {c.id: c for c in cards}
    for c in _ordered(cards):
        values = [c.id, c.chapter, c.level]
        for f in (_ATTRS[part] for part in _PARTS):
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
                guid=note_guid(c.id, lang),
                tags=[c.chapter, c.level.replace("-", "_")],
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    genanki.Package(deck).write_to_file(str(path))
    return len(deck.notes)


ANKI_MODEL_ID = model_id("both")
