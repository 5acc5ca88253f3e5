"""``optimize``: fit the FSRS parameters to the user's own review log (py-fsrs's optimizer) and keep them.

The review log in the progress database becomes `fsrs.ReviewLog` objects; `fsrs.Optimizer` fits the 21
parameters by gradient descent on the log-loss of "recalled or not" at every review that came at least a day
after the card's previous one. Below `MIN_REVIEWS` such reviews py-fsrs 6.3.2 silently returns the defaults
unchanged, so ``optimize`` refuses instead of pretending to fit. The fitted parameters are stored in the
database's ``meta`` table (one JSON row, `PARAMS_KEY`); `scheduler_parameters` hands them to every study and
mock session. They apply from each card's next rating on: due dates already set are not moved.

The optimizer needs the ``fsrs[optimizer]`` extra (torch, pandas, tqdm); it is imported only when a fit runs,
so the refusal and everything else stay fast.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import fsrs

from .store import Store, StoreError, fsrs_card_id

__all__ = [
    "MIN_REVIEWS",
    "PARAMS_KEY",
    "Fit",
    "countable_reviews",
    "evaluate",
    "fit_parameters",
    "review_logs",
    "save_parameters",
    "scheduler_parameters",
    "stored_parameters",
]

MIN_REVIEWS = 512  # fsrs.optimizer.mini_batch_size: below it compute_optimal_parameters returns the defaults
PARAMS_KEY = "fsrs_parameters"
DEFAULTS: tuple[float, ...] = tuple(fsrs.scheduler.DEFAULT_PARAMETERS)
# what the first and the last parameters mean (FSRS-6); the others shape difficulty and stability growth
MEANING = {
    0: "initial stability after 'again' (days)",
    1: "initial stability after 'hard' (days)",
    2: "initial stability after 'good' (days)",
    3: "initial stability after 'easy' (days)",
    4: "initial difficulty",
    8: "stability growth on recall (exp)",
    11: "stability after a lapse",
    20: "forgetting-curve decay",
}
MEANING_ZH = {
    0: "“重来”后的初始稳定性（天）",
    1: "“困难”后的初始稳定性（天）",
    2: "“良好”后的初始稳定性（天）",
    3: "“简单”后的初始稳定性（天）",
    4: "初始难度",
    8: "答对时稳定性的增长（指数）",
    11: "遗忘后的稳定性",
    20: "遗忘曲线的衰减",
}


def review_logs(store: Store) -> list[fsrs.ReviewLog]:
    """Every stored answer (study and scheduled mock) as an fsrs.ReviewLog, oldest first."""
    return [
        fsrs.ReviewLog(
            card_id=fsrs_card_id(r.card_id),
            rating=fsrs.Rating(r.rating),
            review_datetime=r.reviewed_at,
            review_duration=int(round(r.seconds * 1000)),
        )
        for r in store.reviews()
    ]


def _histories(logs: Sequence[fsrs.ReviewLog]) -> dict[int, list[fsrs.ReviewLog]]:
    by: dict[int, list[fsrs.ReviewLog]] = {}
    for log in logs:
        by.setdefault(log.card_id, []).append(log)
    for seq in by.values():
        seq.sort(key=lambda log: log.review_datetime)
    return by


def countable_reviews(logs: Sequence[fsrs.ReviewLog]) -> int:
    """Reviews the optimizer learns from: at least one day after the same card's previous review."""
    n = 0
    for seq in _histories(logs).values():
        n += sum((b.review_datetime - a.review_datetime).days > 0 for a, b in zip(seq, seq[1:], strict=False))
    return n


def evaluate(logs: Sequence[fsrs.ReviewLog], parameters: Sequence[float]) -> tuple[float, float, int]:
    """(log-loss, RMSE, n): the predicted recall probability vs recalled (any rating but 'again') at each
    countable review, replaying every card's history with ``parameters`` (what the optimizer minimises)."""
    sched = fsrs.Scheduler(parameters=tuple(parameters), enable_fuzzing=False)
    loss = sq = 0.0
    n = 0
    for cid, seq in _histories(logs).items():
        card = fsrs.Card(card_id=cid, due=seq[0].review_datetime)
        for log in seq:
            if card.last_review is not None and (log.review_datetime - card.last_review).days > 0:
                p = float(sched.get_card_retrievability(card, log.review_datetime))
                p = min(max(p, 1e-12), 1 - 1e-12)
                y = log.rating != fsrs.Rating.Again
                loss -= math.log(p if y else 1 - p)
                sq += (p - y) ** 2
                n += 1
            card, _ = sched.review_card(card, log.rating, review_datetime=log.review_datetime)
    if n == 0:
        return math.nan, math.nan, 0
    return loss / n, math.sqrt(sq / n), n


def fit_parameters(logs: Sequence[fsrs.ReviewLog]) -> list[float]:
    """py-fsrs's optimizer on ``logs`` (ImportError naming the extra when torch/pandas are missing)."""
    from fsrs.optimizer import Optimizer

    return [float(x) for x in Optimizer(list(logs)).compute_optimal_parameters(verbose=False)]


def stored_parameters(store: Store) -> dict[str, Any] | None:
    """The fitted parameters kept in the database (with when and on how many reviews), or None."""
    raw = store.meta().get(PARAMS_KEY)
    if raw is None:
        return None
    try:
        rec = json.loads(raw)
        params = tuple(float(x) for x in rec["parameters"])
        fsrs.Scheduler(parameters=params)  # validates count and bounds
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{store.path}: the stored FSRS parameters are unreadable ({exc})") from exc
    rec["parameters"] = list(params)
    return rec


def scheduler_parameters(store: Store) -> tuple[float, ...]:
    """The parameters study and mock sessions schedule with: the fitted ones if stored, else the defaults."""
    rec = stored_parameters(store)
    return DEFAULTS if rec is None else tuple(rec["parameters"])


def save_parameters(store: Store, record: dict[str, Any] | None) -> None:
    """Store ``record`` (None: remove it, back to the defaults) in one transaction; retry on a lock."""
    while True:
        try:
            store.conn.execute("BEGIN IMMEDIATE")
            try:
                if record is None:
                    store.conn.execute("DELETE FROM meta WHERE key = ?", (PARAMS_KEY,))
                else:
                    store.conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (PARAMS_KEY, json.dumps(record, sort_keys=True)),
                    )
                store.conn.execute("COMMIT")
                return
            except BaseException:
                if store.conn.in_transaction:
                    store.conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() and "busy" not in str(exc).lower():
                raise StoreError(f"could not save to {store.path}: {exc}") from exc
            time.sleep(0.5)


@dataclass
class Fit:
    """One optimizer run: parameters in use and fitted, and how well each predicts the log."""

    reviews: int  # all stored answers
    countable: int  # those the optimizer learns from
    old: tuple[float, ...]
    new: tuple[float, ...]
    old_loss: tuple[float, float, int]
    new_loss: tuple[float, float, int]
    seconds: float

    @property
    def better(self) -> bool:
        return self.new_loss[0] < self.old_loss[0]

    def record(self, now: datetime) -> dict[str, Any]:
        """What is stored in the database."""
        return {
            "parameters": list(self.new),
            "fitted_at": now.astimezone(UTC).isoformat(timespec="seconds"),
            "reviews": self.countable,
            "log_loss": [round(self.old_loss[0], 6), round(self.new_loss[0], 6)],
            "rmse": [round(self.old_loss[1], 6), round(self.new_loss[1], 6)],
            "fsrs": _fsrs_version(),
        }


def _fsrs_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fsrs")
    except PackageNotFoundError:  # pragma: no cover - fsrs is a dependency
        return "?"


def run_fit(store: Store) -> Fit | int:
    """Fit on ``store``'s log; the countable number of reviews instead when it is below the minimum."""
    logs = review_logs(store)
    countable = countable_reviews(logs)
    if countable < MIN_REVIEWS:
        return countable
    old = scheduler_parameters(store)
    t0 = time.monotonic()
    new = tuple(fit_parameters(logs))
    seconds = time.monotonic() - t0
    return Fit(len(logs), countable, old, new, evaluate(logs, old), evaluate(logs, new), seconds)


def next_interval_days(parameters: Sequence[float], now: datetime) -> float:
    """Days until a new card rated 'good' twice (once now, once when due) is due again (for a glance)."""
    sched = fsrs.Scheduler(parameters=tuple(parameters), enable_fuzzing=False, learning_steps=())
    card, _ = sched.review_card(fsrs.Card(due=now), fsrs.Rating.Good, review_datetime=now)
    later = card.due
    card, _ = sched.review_card(card, fsrs.Rating.Good, review_datetime=later)
    return (card.due - later) / timedelta(days=1)


def cmd_optimize(args: Any, ui: Any, db: Any) -> int:
    """``attention-rehearse optimize [--dry-run] [--yes] [--reset]`` (see the module docstring)."""
    from .clock import now as _now

    if not db.exists() or (db.is_file() and db.stat().st_size == 0):
        ui.say(ui.t("op_no_db", db=db))
        return 1
    with Store(db, write=False) as store:  # reading and fitting never write: the file stays as it was
        if args.reset:
            if stored_parameters(store) is None:
                ui.say(ui.t("op_reset_none"))
                return 0
            if args.dry_run:
                ui.say(ui.t("op_reset_dry"))
                return 0
        else:
            ui.say(ui.t("op_reading", n=store.count_reviews(), db=db), style="dim")
            result = run_fit_with_message(store, ui)
            if isinstance(result, int):
                return 1
    if args.reset:
        with Store(db, write=True) as store:
            save_parameters(store, None)
        ui.say(ui.t("op_reset_done"))
        return 0
    fit = result
    ui.say(ui.t("op_fitted", countable=fit.countable, reviews=fit.reviews, secs=fit.seconds))
    ui.say(ui.t("op_table"), style="bold")
    meaning = MEANING_ZH if ui.lang == "zh" else MEANING
    for i, (a, b) in enumerate(zip(fit.old, fit.new, strict=True)):
        mark = "   " if abs(a - b) < 5e-5 else "  *"
        note = f"   {meaning[i]}" if i in meaning else ""
        ui.say(f"  w{i:<2}  {a:9.4f}  →  {b:9.4f}{mark}{note}".rstrip())
    now = _now()
    ui.say(ui.t("op_interval", old=next_interval_days(fit.old, now), new=next_interval_days(fit.new, now)))
    ui.say(ui.t("op_how_well", n=fit.new_loss[2]))
    for key, loss in (("op_in_use", fit.old_loss), ("op_fitted_row", fit.new_loss)):
        ui.say(ui.t(key, ll=loss[0], rmse=loss[1]))
    if not fit.better:
        ui.say(ui.t("op_not_better"))
        return 0
    if args.dry_run:
        ui.say(ui.t("op_dry"))
        return 0
    if not args.yes:
        answer = ui.ask(ui.t("op_ask"))
        if answer is None or answer.strip().lower() not in ("y", "yes", "是"):
            ui.say(ui.t("op_declined"))
            return 0
    with Store(db, write=True) as store:
        save_parameters(store, fit.record(now))
    ui.say(ui.t("op_stored"))
    return 0


def run_fit_with_message(store: Store, ui: Any) -> Fit | int:
    """`run_fit`, saying why when it cannot run (too few reviews, optimizer not installed)."""
    try:
        result = run_fit(store)
    except ImportError:
        ui.say(ui.t("op_no_optimizer"))
        return -1
    if isinstance(result, int):
        ui.say(ui.t("op_too_few", have=result, need=MIN_REVIEWS))
    return result
