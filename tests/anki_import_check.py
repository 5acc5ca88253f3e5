"""Import .apkg files one after another into a fresh Anki collection with the real ``anki`` library and
print, after each, what Anki did (JSON lines). Run by an interpreter that has ``anki`` installed:

    python tests/anki_import_check.py COLLECTION_DIR deck1.apkg deck2.apkg ...

Used by tests/test_rehearse_anki.py (which skips when no such interpreter is available).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

MERGE = os.environ.get("ANKI_MERGE_NOTETYPES") == "1"  # the import dialog's "Merge note types" box


def main(folder: str, *packages: str) -> None:
    col = Collection(str(Path(folder) / "collection.anki2"))
    try:
        for pkg in packages:
            # the import dialog's defaults: update notes and note types if newer (0), no merging
            options = ImportAnkiPackageOptions(
                merge_notetypes=MERGE, update_notes=0, update_notetypes=0, with_scheduling=False
            )
            out = col.import_anki_package(ImportAnkiPackageRequest(package_path=pkg, options=options))
            log = out.log
            notes = col.db.all("SELECT guid, mid, flds FROM notes")
            print(json.dumps({
                "package": Path(pkg).name,
                "new": len(log.new), "updated": len(log.updated), "duplicate": len(log.duplicate),
                "conflicting": len(log.conflicting), "missing_notetype": len(log.missing_notetype),
                "notes": len(notes),
                "cards": col.db.scalar("SELECT COUNT(*) FROM cards"),
                "notetypes": sorted(
                    [nt.id, nt.name] for nt in col.models.all_names_and_ids() if nt.name.startswith("Self")
                ),
                "decks": sorted(d.name for d in col.decks.all_names_and_ids() if d.name.startswith("Self")),
                "fields": {g: f.split("\x1f")[:4] for g, _m, f in notes},
            }, ensure_ascii=False), flush=True)
    finally:
        col.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
