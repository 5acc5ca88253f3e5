"""Migrate card files to claims and shared myths: re-runnable, edits only the lines it converts.

    python -m selfattention.interview.migrate            # the packaged bank (cards/*.yaml + myths.yaml)
    python -m selfattention.interview.migrate --check    # exit 1 if anything is left to convert
    python -m selfattention.interview.migrate --cards DIR --myths FILE

For every card:
- an inline misconception (``en``, ``zh``, ``tells``, ``blocks``) becomes ``{myth: ID, blocks}``; its text
  goes to the registry ``myths.yaml`` with patterns derived from the tells (`patterns.myth_patterns`).
  A myth whose myth sentence (EN or 中文) is already in the registry is reused with the registry's
  patterns (edited by hand there), so a myth two cards share is one entry caught on both;
- a key point without ``claims`` gets them, derived from its keywords and its text
  (`patterns.claims_for_point`), written as ``key_points.claims``.
Cards already converted are left as they are (hand-edited claims and myth patterns survive a re-run); the
rest of each file is not re-wrapped or re-ordered.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import yaml

from . import bank
from .patterns import claims_for_point, myth_patterns

_KEY = re.compile(r"^  [a-z_]+:")


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _norm(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


def _slug(text: str, taken: set[str]) -> str:
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", text).casefold())
    words = [w for w in words if w not in {"the", "a", "an", "is", "are", "of", "to", "it", "by", "and"}]
    base = "-".join(words[:6]) or "myth"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    return slug


def load_registry(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def dump_registry(myths: list[dict[str, Any]]) -> str:
    lines = [
        "# The misconceptions of the question bank, each stated once (EN + zh: \"Myth. Correction.\"), with",
        "# patterns (see matcher.parse_pattern: concept groups joined by '+', alternatives by '|',",
        "# '!' = absent; @name = a synonym set of synonyms.yaml). Cards refer to a myth by id:",
        "# `misconceptions: [{myth: ID, blocks: [key point indices]}]`. Written by",
        "# `python -m selfattention.interview.migrate`; patterns may be edited by hand (a re-run",
        "# keeps them; only a new myth gets patterns derived from its tells).",
    ]
    for m in myths:
        lines += [f"- id: {m['id']}", f"  en: {_q(m['en'])}", f"  zh: {_q(m['zh'])}", "  patterns:"]
        lines += [f"    - {_q(p)}" for p in m["patterns"]]
        if m.get("also"):
            lines += ["  also:", *(f"    - {_q(a)}" for a in m["also"])]
    return "\n".join(lines) + "\n"


def _myth_key(text: dict[str, str]) -> tuple[str, str]:
    return (
        _norm(bank.split_misconception(text["en"], "en")[0]),
        _norm(bank.split_misconception(text["zh"], "zh")[0]),
    )


def _blocks_of(lines: list[str]) -> list[tuple[str, int, int]]:
    """(card id, first line, end line) of each card in a file."""
    starts = [(i, ln[len("- id:"):].strip()) for i, ln in enumerate(lines) if ln.startswith("- id:")]
    out = []
    for k, (i, cid) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        out.append((cid, i, end))
    return out


def _field_range(lines: list[str], start: int, end: int, name: str) -> tuple[int, int] | None:
    for i in range(start, end):
        if lines[i].startswith(f"  {name}:"):
            j = i + 1
            while j < end and not _KEY.match(lines[j]):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
            return i, j
    return None


def migrate_file(path: Path, registry: list[dict[str, Any]]) -> bool:
    """Convert one card file in place; True when it changed."""
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text) or []
    raw_by_id = {c["id"]: bank._join_cjk_nested(c) for c in data if isinstance(c, dict) and "id" in c}
    lines = text.split("\n")
    by_key = {_myth_key(m): m for m in registry}
    by_en = {k[0]: m for k, m in by_key.items()}
    by_zh = {k[1]: m for k, m in by_key.items()}
    for m in registry:  # the same myth as another card words it ("also": its myth sentences, EN or 中文)
        for other in m.get("also", []):
            by_en[_norm(other)] = by_zh[_norm(other)] = m
    taken = {m["id"] for m in registry}
    changed = False
    for cid, start, end in reversed(_blocks_of(lines)):
        raw = raw_by_id.get(cid)
        if raw is None:
            continue
        new_block: list[str] | None = None
        mis = raw.get("misconceptions") or []
        if any(isinstance(m, dict) and "myth" not in m for m in mis):
            new_block = ["  misconceptions:"]
            for m in mis:
                if "myth" in m:
                    mid = m["myth"]
                else:
                    mtext = {"en": " ".join(m["en"].split()), "zh": " ".join(m["zh"].split())}
                    tells = [*m.get("tells", {}).get("en", []), *m.get("tells", {}).get("zh", [])]
                    pats = myth_patterns(tells, mtext)
                    key = _myth_key(mtext)
                    entry = by_key.get(key) or by_en.get(key[0]) or by_zh.get(key[1])
                    if entry is None:  # a new myth: patterns from its tells; a known one keeps the registry's
                        entry = {"id": _slug(bank.split_misconception(mtext["en"], "en")[0], taken),
                                 "en": mtext["en"], "zh": mtext["zh"], "patterns": pats}
                        taken.add(entry["id"])
                        registry.append(entry)
                        by_key[key], by_en[key[0]], by_zh[key[1]] = entry, entry, entry
                    mid = entry["id"]
                new_block.append(f"    - myth: {mid}")
                if m.get("blocks"):
                    new_block.append(f"      blocks: {json.dumps(m['blocks'])}")
        mr = _field_range(lines, start, end, "misconceptions")
        if new_block is not None and mr is not None:
            lines[mr[0]:mr[1]] = new_block
            changed = True
        kp = raw.get("key_points") or {}
        if "claims" not in kp and "keywords" in kp:
            zh_kw = kp.get("keywords_zh") or [[] for _ in kp["keywords"]]
            claims = [
                claims_for_point({"en": en, "zh": zh}, [*alts, *zalts], raw["question"])
                for en, zh, alts, zalts in zip(kp["en"], kp["zh"], kp["keywords"], zh_kw, strict=True)
            ]
            kr = _field_range(lines, start, end, "key_points")
            if kr is not None:
                rows = [f"      - {json.dumps(c, ensure_ascii=False)}" for c in claims]
                lines[kr[1]:kr[1]] = ["    claims:", *rows]
                changed = True
    if changed:
        path.write_text("\n".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=Path, default=bank.CARDS_DIR)
    ap.add_argument("--myths", type=Path, default=bank.MYTHS_FILE)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a card needs converting")
    args = ap.parse_args(argv)
    registry = load_registry(args.myths)
    before = dump_registry(registry)
    pending = []
    for path in bank.card_files(args.cards):
        if args.check:
            original = path.read_text(encoding="utf-8")
            if migrate_file(path, registry):
                pending.append(path.name)
                path.write_text(original, encoding="utf-8")
        elif migrate_file(path, registry):
            print(f"converted {path.name}")
    if args.check:
        if pending:
            print("needs `python -m selfattention.interview.migrate`: " + ", ".join(pending))
        return 1 if pending else 0
    after = dump_registry(registry)
    if after != before:
        args.myths.write_text(after, encoding="utf-8")
        print(f"wrote {args.myths} ({len(registry)} myths)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
