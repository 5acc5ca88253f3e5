"""``export-anki --lang en|zh|both`` and re-importing into Anki (issue 15, point 11).

The .apkg is read back with sqlite3 (always). The re-import is done by the real ``anki`` library through
``tests/anki_import_check.py`` when an interpreter with ``anki`` is available: this one, or the one named by
``$ANKI_PYTHON`` (``python -m venv X && X/bin/pip install anki==26.9.3``); otherwise that test is skipped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from selfattention.interview import anki, bank
from selfattention.interview.cli import main

HERE = Path(__file__).resolve().parent
CARDS = [c for c in bank.load_cards() if c.chapter == "03_scaling"]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _read(apkg: Path, tmp: Path) -> dict:
    with zipfile.ZipFile(apkg) as z:
        (tmp / "c.anki2").write_bytes(z.read("collection.anki2"))
    con = sqlite3.connect(tmp / "c.anki2")
    models = json.loads(con.execute("SELECT models FROM col").fetchone()[0])
    decks = json.loads(con.execute("SELECT decks FROM col").fetchone()[0])
    notes = con.execute("SELECT guid, mid, flds FROM notes").fetchall()
    n_cards = con.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    con.close()
    (tmp / "c.anki2").unlink()
    return {"models": models, "decks": decks, "notes": notes, "cards": n_cards}


def _export(argv: list[str], path: Path, capsys) -> str:
    assert main(["export-anki", str(path), "--chapter", "3", "--force", *argv]) == 0
    return capsys.readouterr().out


def test_lang_picks_the_languages_each_with_its_own_note_type_deck_and_guids(tmp_path, capsys) -> None:
    got = {}
    for variant, argv in (("both", []), ("en", ["--lang", "en"]), ("zh", ["--lang", "zh"])):
        out = _export(argv, tmp_path / f"{variant}.apkg", capsys)
        got[variant] = _read(tmp_path / f"{variant}.apkg", tmp_path)
        assert f"wrote {len(CARDS)} notes" in out
    # the top-level --lang is honoured too
    assert main(["--lang", "zh", "export-anki", str(tmp_path / "zh2.apkg"), "--chapter", "3", "--force"]) == 0
    assert "（中文卡片）" in capsys.readouterr().out  # --lang zh before the command: a Chinese message
    for variant, deck in got.items():
        (mid,) = deck["models"]
        model = deck["models"][mid]
        assert int(mid) == anki.MODEL_IDS[variant] and {n[1] for n in deck["notes"]} == {int(mid)}
        langs = ("en", "zh") if variant == "both" else (variant,)
        assert [t["name"] for t in model["tmpls"]] == [{"en": "English", "zh": "中文"}[lg] for lg in langs]
        assert deck["cards"] == len(CARDS) * len(langs)
        names = [f["name"] for f in model["flds"]]
        ends = tuple(f"_{lg}" for lg in langs)
        assert all(n in ("Id", "Chapter", "Level") or n.endswith(ends) for n in names), names
        assert anki.DECK_NAMES[variant] in {d["name"] for d in deck["decks"].values()}
    en_text = "\x1f".join(f for _, _, f in got["en"]["notes"])
    assert not CJK.search(en_text.replace("中文", ""))  # no Chinese in the English deck
    zh_q = {f.split("\x1f")[3] for _, _, f in got["zh"]["notes"]}
    assert zh_q == {anki._anki_html(c.question["zh"]) for c in CARDS}
    guids = {v: {g for g, _, _ in d["notes"]} for v, d in got.items()}
    assert not (guids["en"] & guids["zh"]) and not (guids["en"] & guids["both"])
    # the bilingual deck keeps the GUIDs it always had
    assert guids["both"] == {anki.genanki_guid("selfattention", c.id) for c in CARDS}


def test_exports_are_stable_and_the_schema_is_pinned(tmp_path, capsys) -> None:
    """Two exports: same note type id, GUIDs and field names. The schema Anki compares on import (SHA-1 of
    the field names then the template names, computed here from the file) is the pinned one: changing it
    means re-importers must tick "Merge note types" (README), so it must not change unnoticed."""
    for variant in anki.VARIANTS:
        _export(["--lang", variant], tmp_path / "a.apkg", capsys)
        _export(["--lang", variant], tmp_path / "b.apkg", capsys)
        a, b = _read(tmp_path / "a.apkg", tmp_path), _read(tmp_path / "b.apkg", tmp_path)
        assert a["models"].keys() == b["models"].keys()
        assert sorted(g for g, _, _ in a["notes"]) == sorted(g for g, _, _ in b["notes"])
        model = next(iter(a["models"].values()))
        h = hashlib.sha1()
        for f in model["flds"]:
            h.update(f["name"].encode())
        for t in model["tmpls"]:
            h.update(t["name"].encode())
        assert h.hexdigest() == anki.SCHEMA_HASHES[variant] == anki.schema_hash(variant)
    assert anki.MODEL_IDS["both"] == anki.ANKI_MODEL_ID == 1_704_310_001  # earlier decks were imported as it


def _anki_python() -> str | None:
    try:
        import anki as _  # noqa: F401

        return sys.executable
    except ImportError:
        return os.environ.get("ANKI_PYTHON") or None


def _import(py: str, folder: Path, *pkgs: Path, merge: bool = False) -> list[dict]:
    folder.mkdir(exist_ok=True)
    env = {**os.environ, "ANKI_MERGE_NOTETYPES": "1" if merge else "0"}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [py, str(HERE / "anki_import_check.py"), str(folder), *map(str, pkgs)],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.skipif(_anki_python() is None, reason="needs the `anki` library here or at $ANKI_PYTHON")
def test_reimport_into_real_anki_updates_and_never_duplicates(tmp_path) -> None:
    py = _anki_python()
    assert py is not None
    n = len(CARDS)
    anki.export_anki(CARDS, tmp_path / "v1.apkg")
    orig = anki._PARTS
    try:
        anki._PARTS = orig[:4]  # the note type before misconceptions and follow-ups were exported
        anki.export_anki(CARDS, tmp_path / "old.apkg")
    finally:
        anki._PARTS = orig
    time.sleep(1.1)  # Anki updates a note only from a newer one (modification times in whole seconds)
    edited = [dataclasses.replace(CARDS[0], question={**CARDS[0].question, "en": "Edited question?"})]
    anki.export_anki(edited + CARDS[1:], tmp_path / "v2.apkg")
    anki.export_anki(CARDS, tmp_path / "en.apkg", "en")
    anki.export_anki(CARDS, tmp_path / "zh.apkg", "zh")
    pkgs = ("v1.apkg", "v2.apkg", "v2.apkg", "en.apkg", "zh.apkg", "en.apkg")
    first, edit, again, en, zh, en2 = _import(py, tmp_path / "col", *(tmp_path / p for p in pkgs))
    assert first["new"] == n and first["notes"] == n and first["cards"] == 2 * n
    assert edit["new"] == 0 and edit["updated"] == n and edit["conflicting"] == 0 and edit["notes"] == n
    assert [v[3] for v in edit["fields"].values()].count("Edited question?") == 1  # updated in place
    assert again["new"] == 0 and again["duplicate"] == n and again["notes"] == n
    assert len(edit["notetypes"]) == len(again["notetypes"]) == 1  # no copy of the note type, no question
    assert en["new"] == n and zh["new"] == n and en["conflicting"] == zh["conflicting"] == 0
    assert zh["notes"] == 3 * n and zh["cards"] == 4 * n
    assert len(zh["notetypes"]) == 3 and len(zh["decks"]) == 3  # a note type and a deck per variant
    assert en2["new"] == 0 and en2["conflicting"] == 0 and en2["notes"] == 3 * n
    # the harness does see the failure it guards against: the same GUIDs under a changed schema
    old, new = _import(py, tmp_path / "col2", tmp_path / "old.apkg", tmp_path / "v2.apkg")
    assert new["conflicting"] == n and new["updated"] == 0  # Anki cannot update them without merging
    old, new = _import(py, tmp_path / "col3", tmp_path / "old.apkg", tmp_path / "v2.apkg", merge=True)
    # with "Merge note types" ticked the note type is merged (no copy, no conflict); measured: Anki 26.9.3
    # reports the notes as duplicates then, their new fields empty until a later, newer deck is imported
    assert new["conflicting"] == 0 and len(new["notetypes"]) == 1
