"""The review log that moves between the book's practise page and the terminal (``export-log``, ``import``).

A log is JSON::

    {"format": "selfattention.review-log", "version": 1, "exported_at": "...", "source": "site" | "terminal",
     "parameters": [21 floats], "fitted": {"fitted_at": ..., "reviews": N} | null,
     "reviews": [{"card": "flow-computation", "rating": 3, "at": "2026-03-01T08:00:00.000Z",
                  "seconds": 41.2, "lang": "en"}, ...],
     "due": {"flow-computation": "2026-03-04T08:00:00.000Z", ...}}

The reviews are the truth; ``due`` is what the writer's scheduler made of them (for a reader to compare).
Both sides schedule by replaying each card's reviews in time order with FSRS and the same settings (py-fsrs
here, ts-fsrs on the page through ``web/core.js``; tests/test_practise_parity.py holds them to the same
minute). An answer is the same answer on both sides when card, moment (to the millisecond) and rating agree,
so importing a log twice adds nothing.

``parameters`` are the ones the writer scheduled with: the terminal's fitted ones (``optimize``) travel to the
page this way. Importing a log whose ``fitted`` record is newer than the progress file's (or the file has
none) stores its parameters, so a fit made elsewhere is not lost; otherwise the file's own parameters rule.
A card the import touches is replayed from its whole merged history with the parameters in use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import fsrs

from . import bank
from .optimize import DEFAULTS, PARAMS_KEY, save_parameters, scheduler_parameters, stored_parameters
from .store import Store, StoreError, fsrs_card_id

FORMAT = "selfattention.review-log"
VERSION = 1
SITE_MODE = "site"  # the mode of a review that came from the practise page


class LogError(ValueError):
    """The file is not a review log this program can read."""


def iso(dt: datetime) -> str:
    """A moment as the log writes it: UTC, milliseconds, 'Z' (what JavaScript's toISOString gives)."""
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if dt.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {text!r}")
    return dt.astimezone(UTC)


def _key(card: str, at: datetime, rating: int) -> tuple[str, str, int]:
    return card, iso(at), int(rating)


def scheduler(parameters: Sequence[float] | None = None) -> fsrs.Scheduler:
    """The terminal's scheduler (py-fsrs defaults, no fuzzing) with ``parameters`` (default: FSRS-6's)."""
    return fsrs.Scheduler(parameters=tuple(parameters or DEFAULTS), enable_fuzzing=False)


@dataclass
class Replayed:
    card: fsrs.Card
    reps: int = 0
    lapses: int = 0
    dues: list[datetime] = field(default_factory=list)  # the due date after each review


def replay(reviews: Iterable[tuple[str, int, datetime]], parameters: Sequence[float] | None = None
           ) -> dict[str, Replayed]:
    """card id -> its state after its (card, rating, at) reviews, replayed in time order."""
    sched = scheduler(parameters)
    out: dict[str, Replayed] = {}
    for card_id, rating, at in sorted(reviews, key=lambda r: r[2]):
        prev = out.get(card_id)
        card = prev.card if prev else fsrs.Card(card_id=fsrs_card_id(card_id), due=at)
        lapse = int(prev is not None and card.state == fsrs.State.Review and rating == 1)
        new, _ = sched.review_card(card, fsrs.Rating(rating), review_datetime=at)
        rec = prev or Replayed(new)
        rec.card, rec.reps, rec.lapses = new, rec.reps + 1, rec.lapses + lapse
        rec.dues.append(new.due)
        out[card_id] = rec
    return out


def read_log(path: Path) -> dict[str, Any]:
    """The log in ``path``, checked (LogError naming what is wrong)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogError(f"{path} is not JSON ({exc})") from exc
    return check_log(data, str(path))


def check_log(data: Any, where: str = "the log") -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LogError(f"{where} is not a review log (no \"format\": \"{FORMAT}\")")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise LogError(f"{where} has log version {data.get('version')!r}; this program reads up to {VERSION}")
    reviews = data.get("reviews")
    if not isinstance(reviews, list):
        raise LogError(f"{where} has no list of reviews")
    for i, r in enumerate(reviews):
        try:
            if not isinstance(r["card"], str) or int(r["rating"]) not in (1, 2, 3, 4):
                raise ValueError("card or rating")
            parse_iso(r["at"])
        except (KeyError, TypeError, ValueError) as exc:
            raise LogError(f"{where}: review {i + 1} is malformed ({exc}): {r!r}") from exc
    params = data.get("parameters")
    if params is not None:
        try:
            fsrs.Scheduler(parameters=tuple(float(x) for x in params))
        except (TypeError, ValueError) as exc:
            raise LogError(f"{where}: the FSRS parameters are unusable ({exc})") from exc
    return data


def export_log(store: Store, now: datetime) -> dict[str, Any]:
    """Every stored answer as a log the practise page imports, with the parameters in use."""
    fitted = stored_parameters(store)
    params = list(scheduler_parameters(store))
    reviews = [
        {"card": r.card_id, "rating": int(r.rating), "at": iso(r.reviewed_at), "seconds": round(r.seconds, 1),
         "lang": "en"}
        for r in sorted(store.reviews(), key=lambda r: r.reviewed_at)
    ]
    states = store.states()
    return {
        "format": FORMAT, "version": VERSION, "exported_at": iso(now), "source": "terminal",
        "parameters": params,
        "fitted": None if fitted is None else {k: fitted[k] for k in ("fitted_at", "reviews") if k in fitted},
        "reviews": reviews,
        "due": {cid: iso(state[0].due) for cid, state in sorted(states.items())},
    }


@dataclass
class Imported:
    added: int = 0
    already: int = 0
    unknown: list[str] = field(default_factory=list)  # card ids not in the bank (reviews skipped)
    cards: dict[str, datetime] = field(default_factory=dict)  # touched card -> its due date now
    parameters_adopted: bool = False


def _newer_fit(log: dict[str, Any], store: Store) -> bool:
    fitted = log.get("fitted")
    if not fitted or log.get("parameters") is None:
        return False
    mine = stored_parameters(store)
    return mine is None or str(fitted.get("fitted_at", "")) > str(mine.get("fitted_at", ""))


def import_log(store: Store, log: dict[str, Any], cards: Sequence[bank.Card]) -> Imported:
    """Merge ``log``'s reviews into ``store`` (see the module docstring); one transaction."""
    known = {c.id: c for c in cards}
    result = Imported()
    if _newer_fit(log, store):
        record = {"parameters": [float(x) for x in log["parameters"]], **log["fitted"], "imported": True}
        save_parameters(store, record)
        result.parameters_adopted = True
    params = scheduler_parameters(store)
    existing: dict[str, list[tuple[str, int, datetime]]] = {}
    seen = set()
    for r in store.reviews():
        existing.setdefault(r.card_id, []).append((r.card_id, r.rating, r.reviewed_at))
        seen.add(_key(r.card_id, r.reviewed_at, r.rating))
    new: dict[str, list[dict[str, Any]]] = {}
    for r in log["reviews"]:
        at = parse_iso(r["at"])
        if r["card"] not in known:
            if r["card"] not in result.unknown:
                result.unknown.append(r["card"])
            continue
        k = _key(r["card"], at, int(r["rating"]))
        if k in seen:
            result.already += 1
            continue
        seen.add(k)
        new.setdefault(r["card"], []).append({**r, "at": at, "rating": int(r["rating"])})
    if not new:
        return result
    store.conn.execute("BEGIN IMMEDIATE")
    try:
        for card_id, rows in new.items():
            history = existing.get(card_id, []) + [(card_id, r["rating"], r["at"]) for r in rows]
            state = replay(history, params)[card_id]
            order = sorted(history, key=lambda h: h[2])
            due_after = {_key(cid, at, rating): due for (cid, rating, at), due in zip(order, state.dues,
                                                                                        strict=True)}
            store.conn.execute(
                "INSERT INTO cards (card_id, fsrs, due, state, reps, lapses) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(card_id) DO UPDATE SET fsrs = excluded.fsrs, due = excluded.due, "
                "state = excluded.state, reps = excluded.reps, lapses = excluded.lapses",
                (card_id, state.card.to_json(), state.card.due.isoformat(), int(state.card.state), state.reps,
                 state.lapses),
            )
            for r in rows:
                store.conn.execute(
                    "INSERT INTO reviews (card_id, chapter, rating, reviewed_at, seconds, mode, lang,"
                    " covered, total, due_after) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)",
                    (card_id, known[card_id].chapter, r["rating"], r["at"].isoformat(),
                     round(float(r.get("seconds") or 0.0), 3), SITE_MODE, str(r.get("lang") or "en"),
                     due_after[_key(card_id, r["at"], r["rating"])].isoformat()),
                )
            result.added += len(rows)
            result.cards[card_id] = state.card.due
        store.conn.execute("COMMIT")
    except BaseException:
        if store.conn.in_transaction:
            store.conn.execute("ROLLBACK")
        raise
    return result


__all__ = [
    "FORMAT", "PARAMS_KEY", "VERSION", "Imported", "LogError", "StoreError", "check_log", "export_log",
    "import_log", "iso", "parse_iso", "read_log", "replay",
]
