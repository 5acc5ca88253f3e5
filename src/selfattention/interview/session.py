"""The study and mock-interview loop: question, timed answer, reveal with the answer check, rating,
FSRS schedule, committed at once."""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Any

from . import bank
from .matcher import MatchResult
from .render import UI, _human_delta, display_width, interval_label, terminal_text, truncate
from .schedule import (
    _filter,
    _now,
    _ordered,
    _scheduler,
    _state_label,
    compute_stats,
    level_label,
    select_study,
)
from .store import Store, StoreError, day_bounds, local_time

LEARN_AHEAD = timedelta(minutes=20)  # as Anki: a card due again within 20 min returns in this session
MAX_RETURNS = 3  # ... at most this many times per session
NARROW = 110  # below this terminal width, `list` prints each card on two lines instead of a table
_RATING_WORDS = {
    "1": 1, "2": 2, "3": 3, "4": 4,
    "a": 1, "again": 1, "h": 2, "hard": 2, "g": 3, "good": 3, "e": 4, "easy": 4,
    "重来": 1, "困难": 2, "良好": 3, "简单": 4,  # the Chinese labels the prompt shows under --lang zh
    "１": 1, "２": 2, "３": 3, "４": 4,  # full-width digits (a Chinese input method left on)
    "": 3,  # Enter = good, as in Anki
}


@dataclass
class Session:
    """What happened in this run (for the Ctrl-C message and the summary)."""

    answers: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    pending: str = ""  # a rating given but not yet on disk (waiting for a locked file)
    undo: list[dict[str, Any]] = field(default_factory=list)  # the last saved rating, for `u` (study only)

class _Quit(Exception):
    """The user asked to stop (q at the rating prompt, or end of input)."""


class _Undo(Exception):
    """The user asked to take back the previous rating (u at the rating prompt)."""


def _read_key(ui: UI, prompt: str) -> str | None:
    """One key press, without Enter (a terminal in cbreak mode); what a Chinese input method commits in one
    go (良好) is read whole. Returns the text (Enter: ''), None at end of input. Falls back to a line when
    stdin is not a terminal (piped, --plain)."""
    import sys

    if ui.plain or not sys.stdin.isatty():
        return ui.ask(prompt)
    import os
    import select
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)  # not the default TCSAFLUSH: a key pressed early is kept
        sys.stdout.write(prompt)
        sys.stdout.flush()
        data = os.read(fd, 64)
        while select.select([fd], [], [], 0.02)[0]:  # the rest of a multi-byte character or IME commit
            more = os.read(fd, 64)
            if not more:
                break
            data += more
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    if not data or data == b"\x04":
        print(flush=True)
        return None
    text = data.decode("utf-8", errors="replace")
    first = text.strip("\r\n")
    key = first if not first.isascii() else first[:1]  # a key press; typed-ahead letters are dropped
    print(key, flush=True)
    return key

def _read_answer(ui: UI, t0: float | None = None) -> tuple[str, float, bool]:
    """Lines until an empty one; returns (typed text, seconds since ``t0`` (default: now), eof)."""
    t0 = time.monotonic() if t0 is None else t0
    lines: list[str] = []
    while True:
        line = ui.ask("> " if lines else ui.t("first_prompt"))
        if line is None:
            return "\n".join(lines), time.monotonic() - t0, True
        if not line.strip():
            return "\n".join(lines), time.monotonic() - t0, False
        lines.append(line)

def _previews(ui: UI, sched: Any, state: Any, now: Any) -> dict[int, str]:
    """What each rating would schedule: {1: '1 min', 3: '10 min', 4: '8 days', ...} (Anki's button times)."""
    import fsrs

    out = {}
    for r in (1, 2, 3, 4):
        new_state, _ = sched.review_card(state, fsrs.Rating(r), review_datetime=now)
        out[r] = interval_label(new_state.due - now, ui.lang)
    return out


def _ask_rating(
    ui: UI, previews: dict[int, str], card: bank.Card, lang: str, can_undo: bool = False,
    result: MatchResult | None = None,
) -> int:
    """Single key (1-4, a/h/g/e, Enter = good, 中文 labels), `s` shows the spoken answer and the myths,
    `u` takes back the previous rating, `q` stops."""
    buttons = "  ".join(f"{r} {ui.rating(r)} {previews[r]}" for r in (1, 2, 3, 4))
    keys = ui.t("rate_keys_undo" if can_undo else "rate_keys")
    hint = ui.plain  # in a terminal the keys are explained when the session starts (and after a miss)
    while True:
        if hint:
            ui.say(keys, style="dim")
        hint = True
        raw = _read_key(ui, ui.t("rate", buttons=buttons))
        if raw is None:
            raise _Quit
        key = raw.strip().lower()
        if key in ("q", "quit", "退出"):
            raise _Quit
        if key in ("s", "spoken"):
            _show_spoken(ui, card, lang, result)
            continue
        if key in ("u", "undo", "撤销"):
            if can_undo:
                raise _Undo
            ui.say(ui.t("nothing_to_undo"), style="yellow")
            continue
        if key in _RATING_WORDS:
            return _RATING_WORDS[key]
        ui.say(ui.t("rate_again", raw=raw.strip()), style="yellow")

def _quote(clause: str, width: int = 70) -> str:
    """A clause of the typed answer, shortened to ``width`` characters for the checklist."""
    c = " ".join(clause.split())
    return c if len(c) <= width else c[: width - 1] + "…"


def _show_matches(ui: UI, card: bank.Card, lang: str, result: MatchResult) -> None:
    """Each ticked key point with the clause of the typed answer that stated it."""
    zh = lang == "zh"
    for i in result.covered:
        wrote = "你写的" if zh else "you wrote"
        ui.say(f"{i + 1:>2} {ui.ok} {wrote}: “{_quote(result.hits[i])}”", style="green")


def _show_spoken(ui: UI, card: bank.Card, lang: str, result: MatchResult | None = None) -> None:
    """On demand (s): what the typed answer matched, the spoken answer and the common misconceptions."""
    zh = lang == "zh"
    if result is not None and result.covered and not ui.plain:  # plain output shows them in the checklist
        ui.say("What your answer matched:" if not zh else "你的回答对上了这些要点：", style="bold")
        _show_matches(ui, card, lang, result)
    ui.block(
        "Say it like this (60-90 s)" if not zh else "面试时可以这样答",
        terminal_text(card.spoken[lang]),
        "green",
    )
    if card.misconceptions:
        ui.say("Watch out:" if not zh else "常见误区：", style="bold")
        for m in card.misconceptions[:3]:
            myth, fix = bank.split_misconception(m[lang], lang)
            ui.say(f"  ! {'Myth: ' if not zh else '误区：'}{terminal_text(myth)}", style="yellow")
            if fix:
                ui.say(f"    {'Correction: ' if not zh else '正解：'}{terminal_text(fix)}")


def _show_reveal(
    ui: UI, card: bank.Card, lang: str, typed: str, cards: Sequence[bank.Card], seconds: float = 0.0
) -> MatchResult | None:
    """The short answer and a numbered checklist of the key points (fits 80x24 with the question); the
    spoken answer and the myths come on demand (s at the rating prompt)."""
    title, short = ("Short answer" if lang == "en" else "简短回答"), terminal_text(card.short[lang])
    if ui.plain:
        ui.block(title, short, "green")
    else:  # no frame, the title inline: question to rating prompt fit in 24 rows
        ui.say(f"{title}{'：' if lang == 'zh' else ': '}{short}", style="green")
    result = card.check(typed) if typed.strip() else None
    zh = lang == "zh"
    if result is None or ui.plain:
        ui.say(ui.t("key_points", seconds=seconds), style="bold")
    else:  # in a terminal the heading says what a tick means (one row; the quotes come with s)
        ui.say(ui.t("key_points_typed", seconds=seconds), style="bold")
    for i, point in enumerate(card.key_points[lang]):
        if result is None:
            mark = "•" if not ui.plain else "-"
            ui.say(f"{i + 1:>2} {mark} {terminal_text(point)}")
        else:
            hit = i in result.covered
            mark = ui.ok if hit else ui.no
            ui.say(f"{i + 1:>2} {mark} {terminal_text(point)}", style="green" if hit else "red")
            if hit and ui.plain:  # in a terminal the quotes come with s (the reveal fits 80x24)
                ui.say(f"      {'你写的' if zh else 'you wrote'}: “{_quote(result.hits[i])}”", style="green")
    if result is not None:
        for j in result.stated:
            myth, fix = bank.split_misconception(card.misconceptions[j][lang], lang)
            ui.say(
                "Your answer states a common misconception:" if not zh else "你的回答里有一个常见误区：",
                style="bold red",
            )
            ui.say(f"  {'you wrote' if not zh else '你写的'}: “{_quote(result.stated[j])}”", style="red")
            ui.say(f"  {'Myth: ' if not zh else '误区：'}{terminal_text(myth)}", style="red")
            if fix:
                ui.say(f"  {'Correction: ' if not zh else '正解：'}{terminal_text(fix)}", style="green")
            voided = sorted(i for i, k in result.blocked.items() if k == j and i in result.hits)
            if voided:
                ui.say(
                    "  So these do not count as covered: " + ", ".join(f"#{i + 1}" for i in voided)
                    if not zh
                    else "  所以这些要点不算提到：" + "、".join(f"第 {i + 1} 条" for i in voided),
                    style="red",
                )
        if ui.plain:
            ui.say(
                "A checklist of what your typed answer states, clause by clause "
                "(patterns, not understanding)."
                if not zh
                else "这是按从句核对你写出的要点（看表述模式，不看理解），不是打分。",
                style="bold",
            )
    return result

def _ask_card(
    ui: UI,
    store: Store,
    sched: Any,
    card: bank.Card,
    lang: str,
    header: str,
    mode: str,
    session: Session,
    cards: Sequence[bank.Card],
    budget: float | None = None,
    record: bool = True,
) -> dict[str, Any]:
    """Question -> timed answer -> reveal -> rating -> FSRS schedule -> committed (unless ``record`` is
    False: a mock interview run with --no-schedule). Raises _Quit to stop."""
    import fsrs

    ui.rule(header)
    title = ui.t("interviewer" if mode == "mock" else "question")
    if ui.plain:
        ui.block(title, terminal_text(card.question[lang]), "cyan")
    else:  # no frame: question, reveal and rating prompt fit in 24 rows
        colon = "：" if lang == "zh" else ": "
        ui.say(f"{title}{colon}{terminal_text(card.question[lang])}", style="bold cyan")
    if budget is not None:
        ui.say(ui.t("time_budget", budget=budget), style="dim")
    timer = None
    t0 = time.monotonic()  # the answer's clock starts before the reminder's: once it fires, over budget
    if budget is not None and not ui.plain:
        timer = threading.Timer(
            budget, lambda: ui.interrupt(ui.t("time_up", budget=budget), style="bold red")
        )
        timer.daemon = True
        timer.start()
    try:
        typed, seconds, eof = _read_answer(ui, t0)
    finally:
        if timer is not None:
            timer.cancel()
    if eof and not typed.strip():
        raise _Quit
    over = budget is not None and seconds > budget
    if over:
        ui.say(
            ui.t("over_budget", seconds=seconds, budget=budget)
            if not ui.plain
            else ui.t("over_budget_plain", seconds=seconds, budget=budget),
            style="bold red",
        )
    result = _show_reveal(ui, card, lang, typed, cards, seconds)
    now = _now()
    state = store.fsrs_card(card.id, now)
    can_undo = mode == "study" and bool(session.undo)
    previews = _previews(ui, sched, state, now)
    rating = _ask_rating(ui, previews, card, lang, can_undo=can_undo, result=result)
    now = _now()
    new_state, _log = sched.review_card(
        state, fsrs.Rating(rating), review_datetime=now, review_duration=int(seconds * 1000)
    )
    def busy(attempt: int) -> None:
        if attempt == 1:
            ui.say(ui.t("busy", rating=ui.rating(rating)), style="yellow")

    if not record:
        entry = {"card": card, "seconds": seconds, "rating": rating, "over": over, "result": result,
                 "due": new_state.due.astimezone(UTC)}
        session.log.append(entry)
        ui.say(ui.t("not_saved", rating=ui.rating(rating)), style="dim")
        return entry
    session.pending = f"{card.id} ({ui.rating(rating)})"
    before = store.snapshot(card.id)
    try:
        review_id = store.record(
            card.id,
            card.chapter,
            new_state,
            rating,
            now,
            seconds,
            mode,
            lang,
            None if result is None else len(result.covered),
            None if result is None else result.total,
            on_busy=busy,
        )
    except StoreError as exc:
        raise StoreError(ui.t("not_saved_error", error=exc, card=session.pending)) from exc
    session.pending = ""
    session.answers += 1
    when = new_state.due.astimezone(UTC)
    ui.say(
        ui.t("saved", rating=ui.rating(rating), when=_human_delta(when - now, ui.lang), at=local_time(when)),
        style="dim",
    )
    entry = {"card": card, "seconds": seconds, "rating": rating, "over": over, "result": result, "due": when}
    session.log.append(entry)
    session.undo = [{"card": card, "review_id": review_id, "before": before, "entry": entry}]
    return entry

def _new_limit_note(
    ui: UI, args: argparse.Namespace, store: Store, pool: list[bank.Card], states: dict[str, Any],
    queue: list[bank.Card], now: Any,
) -> None:
    """When the daily new-card limit kept unseen cards out of this session, say so (and how to change it)."""
    unseen = [c for c in pool if c.id not in states]
    shown = sum(1 for c in queue if c.id not in states)
    room = args.limit - len(queue)  # the limit, not --limit, is what held them back only if there was room
    if not unseen or shown == len(unseen) or room <= 0 or args.new == 0:  # --new 0: asked for none
        return
    started = store.new_today(now, args.day_starts)
    mock = store.new_today(now, args.day_starts, modes=("mock",))
    start, end = day_bounds(now, args.day_starts)
    ui.say(
        ui.t(
            "new_limit", limit=args.new, started=started, unseen=len(unseen) - shown,
            at=local_time(end), more=started + min(room, len(unseen) - shown),
        )
        + (ui.t("new_limit_mock", n=mock) if mock else ""),
        style="yellow",
    )


def _learning_soon(pool: list[bank.Card], states: dict[str, Any], now: Any, queue: list[bank.Card]) -> list:
    """Learning and relearning cards due within LEARN_AHEAD (e.g. left by an interrupted session): as in
    Anki's learn-ahead, they belong to today's session, not to a later one."""
    inq = {c.id for c in queue}
    soon = [
        c for c in pool
        if c.id in states and c.id not in inq and int(states[c.id][0].state) in (1, 3)
        and now < states[c.id][0].due <= now + LEARN_AHEAD
    ]
    return sorted(soon, key=lambda c: states[c.id][0].due)


def cmd_study(
    args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card], session: Session
) -> int:
    pool = _ordered(_filter(cards, args.chapter))
    now = _now()
    states = store.states()
    # --new is per day (from --day-starts local time); only cards started in study count: see new_today
    new_left = max(0, args.new - store.new_today(now, args.day_starts))
    queue = select_study(pool, states, now, args.limit, new_left)
    queue += _learning_soon(pool, states, now, queue)[: max(0, args.limit - len(queue))]
    if not queue:
        upcoming = sorted((states[c.id][0].due, c.id) for c in pool if c.id in states)
        ui.say(ui.t("nothing_due"))
        _new_limit_note(ui, args, store, pool, states, queue, now)
        if upcoming:
            due, cid = upcoming[0]
            when = _human_delta(due - now, ui.lang)
            ui.say(ui.t("next_due", cid=cid, when=when, at=local_time(due)))
        ui.say(ui.t("try_mock"))
        return 0
    n_new = sum(1 for c in queue if c.id not in states)
    ui.say(
        ui.t("to_rehearse", n=len(queue), due=len(queue) - n_new, new=n_new, path=store.path),
        style="dim",
    )
    if not ui.plain:
        ui.say(ui.t("rate_keys_undo"), style="dim")
    _new_limit_note(ui, args, store, pool, states, queue, now)
    sched = _scheduler(store)
    returns: dict[str, int] = {}
    last: dict[str, int] = {}  # card id -> its rating earlier in this session
    appended: list[bool] = []  # per answer: did it put the card back at the end of the queue?
    try:
        i = 0
        while i < len(queue):
            card = queue[i]
            i += 1
            num = bank.CHAPTERS[card.chapter]["number"]
            back = ui.t("back", rating=ui.rating(last[card.id])) if card.id in last else ""
            header = (
                f"[{i}/{len(queue)}] {ui.t('chapter_n', n=num)} · {level_label(card.level, ui.lang)} · "
                f"{card.id}{back}"
            )
            try:
                entry = _ask_card(ui, store, sched, card, args.lang, header, "study", session, cards)
            except _Undo:
                undo = session.undo.pop()
                store.undo(undo["review_id"], undo["card"].id, undo["before"])
                session.answers -= 1
                session.log.remove(undo["entry"])
                earlier = [e["rating"] for e in session.log if e["card"].id == undo["card"].id]
                if earlier:
                    last[undo["card"].id] = earlier[-1]
                else:
                    last.pop(undo["card"].id, None)  # asked again as it first was
                if appended and appended.pop():
                    queue.pop()  # the copy its rating had put back at the end
                ui.say(ui.t("undone", cid=undo["card"].id, rating=ui.rating(undo["entry"]["rating"])),
                       style="yellow")
                i = max(0, i - 2)  # queue[i - 2] was the card answered last: ask it again, then this one
                continue
            last[card.id] = entry["rating"]
            # learning steps: a card due again within the session (rated again/hard while learning) comes back
            again = entry["due"] - _now() <= LEARN_AHEAD and returns.get(card.id, 0) < MAX_RETURNS
            appended.append(again)
            if again:
                returns[card.id] = returns.get(card.id, 0) + 1
                queue.append(card)
    except _Quit:
        pass
    ui.say("\n" + ui.t("done", n=session.answers), style="bold")
    _summary(ui, session, store, pool)
    return 0


def _summary(ui: UI, session: Session, store: Store, pool: list[bank.Card]) -> None:
    """End of a session: the ratings given, the time spent, and when the next card is due."""
    if not session.log:
        return
    counts = {r: sum(e["rating"] == r for e in session.log) for r in (1, 2, 3, 4)}
    seconds = sum(e["seconds"] for e in session.log)
    parts = " · ".join(f"{ui.rating(r)} {n}" for r, n in counts.items())
    mins, secs = divmod(round(seconds), 60)
    ui.say(ui.t("summary", parts=parts, mins=mins, secs=secs))
    states = store.states()
    upcoming = sorted((states[c.id][0].due, c.id) for c in pool if c.id in states)
    if upcoming:
        due, cid = upcoming[0]
        when = _human_delta(due - _now(), ui.lang)
        ui.say(ui.t("next_due", cid=cid, when=when, at=local_time(due)))


def _mock_chain(first: bank.Card, cards: list[bank.Card], rounds: int) -> list[bank.Card]:
    """The main question, then its follow-ups depth-first (an interviewer digs into the last answer),
    staying on the main question's topic: follow-ups into other chapters come only once the chapter's own
    reachable follow-ups are used up."""
    by_id = {c.id: c for c in cards}
    chain: list[bank.Card] = []
    stack = [first.id]  # same chapter, depth-first
    later: list[str] = []  # other chapters, in the order they were met
    seen: set[str] = set()
    while (stack or later) and len(chain) < rounds:
        cid = stack.pop() if stack else later.pop(0)
        if cid in seen or cid not in by_id:
            continue
        seen.add(cid)
        chain.append(by_id[cid])
        fus = [f for f in by_id[cid].follow_ups if f in by_id and f not in seen]
        stack.extend(reversed([f for f in fus if by_id[f].chapter == first.chapter]))
        later.extend(f for f in fus if by_id[f].chapter != first.chapter)
    return chain


def cmd_mock(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card], session: Session) -> int:
    basics = [c for c in _ordered(_filter(cards, args.chapter)) if c.level == "basic"]
    if not basics:
        ui.say(ui.t("no_basic"))
        return 1
    rng = random.Random(args.seed)
    chain = _mock_chain(rng.choice(basics), cards, args.rounds)
    ui.say(
        ui.t("mock_intro", n=len(chain), budget=args.budget)
        + ui.t("mock_scheduled" if args.schedule else "mock_unscheduled"),
        style="dim",
    )
    sched = _scheduler(store)
    try:
        for i, card in enumerate(chain, 1):
            kind = ui.t("main_question" if i == 1 else "follow_up")
            _ask_card(
                ui,
                store,
                sched,
                card,
                args.lang,
                f"Q{i}/{len(chain)} · {kind} · {card.id}",
                "mock",
                session,
                cards,
                budget=args.budget,
                record=args.schedule,
            )
    except _Quit:
        pass
    if session.log:
        ui.rule(ui.t("mock_summary"))
        for e in session.log:
            cov = "" if e["result"] is None else ui.t(
                "mock_cov", covered=len(e["result"].covered), total=e["result"].total
            )
            ui.say(
                ui.t(
                    "mock_row", q=terminal_text(e["card"].question[args.lang]), cid=e["card"].id,
                    secs=e["seconds"], flag=ui.t("mock_over") if e["over"] else "",
                    rating=ui.rating(e["rating"]), cov=cov,
                )
            )
        n_over = sum(e["over"] for e in session.log)
        ui.say(ui.t("mock_n_over", over=n_over, n=len(session.log), budget=args.budget), style="bold")
    return 0

def cmd_list(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card]) -> int:
    from rich.text import Text

    now = _now()
    states = store.states()
    rows = []
    for c in _ordered(_filter(cards, args.chapter)):
        state, due = _state_label(states.get(c.id), now, ui.lang)
        rows.append(
            (
                c.id,
                f"{bank.CHAPTERS[c.chapter]['number']:02d} {c.chapter}",
                level_label(c.level, ui.lang),
                state,
                due,
                terminal_text(c.question[args.lang]),
            )
        )
    heads = tuple(ui.t("list_heads").split("|"))
    if ui.console is None:
        widths = [
            max(display_width(h), *(display_width(r[j]) for r in rows)) for j, h in enumerate(heads[:-1])
        ]
        print("  ".join(ui.ljust(h, w) for h, w in zip(heads[:-1], widths, strict=True)) + "  " + heads[-1])
        for r in rows:
            print("  ".join(ui.ljust(v, w) for v, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1])
    elif ui.console.width < NARROW:  # two lines per card: the full id first, the question cut to one line
        width = ui.console.width
        for r in rows:
            ui.console.print(Text(f"{r[0]}  ", style="bold") + Text(f"{r[1][:2]} · {r[2]} · {r[3]} · {r[4]}"))
            ui.console.print(Text(truncate(r[-1], width - 4, indent="    "), style="dim"), no_wrap=True)
    else:
        from rich.table import Table

        table = Table(*heads, show_lines=False)
        table.columns[0].no_wrap = True  # an id is never cut: two cards must never look the same
        for r in rows:
            table.add_row(*r)
        ui.console.print(table)
    ui.say(ui.t("n_cards", n=len(rows)))
    return 0


def cmd_stats(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card]) -> int:
    from .optimize import MIN_REVIEWS, _fsrs_version, countable_reviews, review_logs, stored_parameters

    s = compute_stats(cards, store, _now())
    rec = stored_parameters(store)
    if rec is None:
        have = countable_reviews(review_logs(store))
        params = ui.t("st_params_default", version=_fsrs_version(), min=MIN_REVIEWS, have=have)
    else:
        ll = rec.get("log_loss", [float("nan")] * 2)
        params = ui.t(
            "st_params_fitted", n=rec.get("reviews", "?"), day=str(rec.get("fitted_at", "?"))[:10],
            before=ll[0], after=ll[1],
        )
    rows = [
        ("st_bank", ui.t("st_bank_v", cards=s["cards"], seen=s["seen"], new=s["new"])),
        ("st_due", ui.t("st_due_v", due=s["due_now"], new=s["new"])),
        ("st_learned", ui.t("st_learned_v", n=s["learned"])),
        ("st_reviews", ui.t("st_reviews_v", n=s["reviews"], rate=s["again_rate"], secs=s["seconds_mean"])),
        ("st_params", params),
    ]
    colon = "：" if ui.lang == "zh" else ":"
    width = max(display_width(ui.t(k) + colon) for k, _ in rows) + 1
    ui.rule(ui.t("progress"))
    for key, value in rows:
        ui.say(ui.ljust(ui.t(key) + colon, width) + value)
    if not s["chapters"]:
        ui.say(ui.t("st_none"))
        return 0
    ui.say(ui.t("st_forecast", days=" · ".join(str(n) for n in s["forecast"]), total=sum(s["forecast"])))
    ui.say(ui.t("st_weakest"), style="bold")
    for slug, ch in list(s["chapters"].items())[:5]:
        detail = ui.t("st_chapter", rate=ch["again_rate"], n=int(ch["reviews"]), lapses=int(ch["lapses"]))
        ui.say(f"  {bank.CHAPTERS[slug]['number']:>2} {slug:<20} {detail}")
    return 0
