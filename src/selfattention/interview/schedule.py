"""Scheduling: what to study now (FSRS states from the store), the card order, and the numbers for
``stats``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from . import bank
from .clock import ENV_NOW  # noqa: F401 - re-exported: cli and session read it from here
from .clock import now as _now  # noqa: F401 - re-exported
from .render import LEVEL_NAMES, STATE_NAMES, _human_delta
from .store import Store

RATINGS = {1: "again", 2: "hard", 3: "good", 4: "easy"}

def _scheduler(store: Store | None = None) -> Any:
    """The FSRS scheduler of a session: the parameters fitted by ``optimize`` if ``store`` keeps them,
    else py-fsrs's defaults; no fuzzing (deterministic intervals; the deck is small)."""
    import fsrs

    from .optimize import DEFAULTS, scheduler_parameters

    params = DEFAULTS if store is None else scheduler_parameters(store)
    return fsrs.Scheduler(parameters=params, enable_fuzzing=False)

def select_study(
    cards: Sequence[bank.Card], states: dict[str, Any], now: datetime, limit: int, new_limit: int
) -> list[bank.Card]:
    """Due cards (earliest first), then at most ``new_limit`` unseen cards in bank order; ``limit`` in all."""
    due = sorted(
        (c for c in cards if c.id in states and states[c.id][0].due <= now), key=lambda c: states[c.id][0].due
    )
    new = [c for c in cards if c.id not in states][:new_limit]
    return (due + new)[:limit]

def _filter(cards: list[bank.Card], chapter: str | None) -> list[bank.Card]:
    return [c for c in cards if chapter is None or c.chapter == chapter]

def _ordered(cards: list[bank.Card]) -> list[bank.Card]:
    """Chapter order, basic card first within a chapter."""
    return [c for group in bank.cards_by_chapter(cards).values() for c in group]

def _state_label(entry: Any, now: datetime, lang: str = "en") -> tuple[str, str]:
    """(state, due) as ``list`` shows them: 'review', 'in 3 days' / 'due now' (or in Chinese)."""
    names = STATE_NAMES["zh" if lang == "zh" else "en"]
    if entry is None:
        return names["new"], "-"
    card = entry[0]
    state = names[{1: "learning", 2: "review", 3: "relearning"}[int(card.state)]]
    return state, _human_delta(card.due - now, lang)


def level_label(level: str, lang: str = "en") -> str:
    """'follow-up' / '追问'."""
    return LEVEL_NAMES["zh" if lang == "zh" else "en"].get(level, level)

def compute_stats(cards: list[bank.Card], store: Store, now: datetime) -> dict[str, Any]:
    """Numbers for ``stats``: due now, learned, reviews, again-rate and lapses per chapter."""
    states = store.states()
    ids = {c.id for c in cards}
    reviews = [r for r in store.reviews() if r.card_id in ids]
    due_now = sum(1 for c in cards if c.id in states and states[c.id][0].due <= now)
    learned = sum(1 for c in cards if c.id in states and int(states[c.id][0].state) == 2)
    per: dict[str, dict[str, float]] = {}
    for r in reviews:
        ch = per.setdefault(r.chapter, {"reviews": 0, "again": 0, "lapses": 0})
        ch["reviews"] += 1
        ch["again"] += r.rating == 1
    for c in cards:
        if c.id in states and c.chapter in per:
            per[c.chapter]["lapses"] += states[c.id][2]
    for ch in per.values():
        ch["again_rate"] = ch["again"] / ch["reviews"]
    weakest = sorted(per.items(), key=lambda kv: (-kv[1]["again_rate"], -kv[1]["lapses"], kv[0]))
    start = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    forecast = []  # cards due on each of the next 7 UTC days (today: everything due by midnight, overdue too)
    for day in range(7):
        end = start + timedelta(days=day + 1)
        lo = start + timedelta(days=day)
        forecast.append(
            sum(1 for c in cards if c.id in states and (day == 0 or states[c.id][0].due >= lo)
                and states[c.id][0].due < end)
        )
    return {
        "forecast": forecast,
        "cards": len(cards),
        "seen": sum(1 for c in cards if c.id in states),
        "new": len(ids - set(states)),
        "due_now": due_now,
        "learned": learned,
        "reviews": len(reviews),
        "again_rate": (sum(r.rating == 1 for r in reviews) / len(reviews)) if reviews else 0.0,
        "seconds_mean": (sum(r.seconds for r in reviews) / len(reviews)) if reviews else 0.0,
        "chapters": dict(weakest),
    }
