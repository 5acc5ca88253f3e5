"""``attention-rehearse``: rehearse the interview questions in a terminal, with spaced repetition (FSRS).

Subcommands: ``study`` (default), ``mock``, ``list``, ``stats``, ``export-anki``, ``drill``, ``grade``.
Progress lives in SQLite (see ``store.py``); every answer is committed the moment it is rated.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from . import bank
from .matcher import MatchResult
from .store import ENV_DB, Store, StoreError, default_db_path, parse_now

__all__ = ["main", "build_parser", "resolve_chapter", "terminal_text", "select_study"]

ENV_NOW = "ATTENTION_REHEARSE_NOW"
ENV_CARDS = "ATTENTION_REHEARSE_CARDS"
RATINGS = {1: "again", 2: "hard", 3: "good", 4: "easy"}
_RATING_WORDS = {
    "1": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "a": 1,
    "again": 1,
    "h": 2,
    "hard": 2,
    "g": 3,
    "good": 3,
    "e": 4,
    "easy": 4,
}
ANKI_MODEL_ID = 1_704_310_001  # fixed so re-imports update the same note type and deck in Anki
ANKI_DECK_ID = 1_704_310_002


def _epilog() -> str:
    """The --help epilog (computed when the parser is built, so it shows the current default path)."""
    return f"""\
how it works:
  study shows each due question, counts the seconds you take, and waits while you answer aloud or type.
  An empty line (Enter) reveals the reference answer (short + spoken) and its key points; rate yourself
  1 again / 2 hard / 3 good / 4 easy and the card is scheduled with FSRS. Each rating is saved at once:
  Ctrl-C (exit 130) or closing the terminal loses nothing already rated.

what the typed-answer check can and cannot judge:
  If you type an answer, each key point counts as covered when one of its keywords appears (case-insensitive,
  simple normalisation, √ read as sqrt, plain English endings like -s/-ed/-ing allowed). It matches WORDS,
  not understanding: "we do not scale by sqrt(d_k)" still covers the sqrt point, and a correct paraphrase
  with other words is reported missed. Use it as a checklist of what to mention, and rate yourself honestly.

files and environment:
  progress database  --db PATH, else ${ENV_DB}, else {default_db_path()}
  ${ENV_NOW}  ISO timestamp used as "now" (reproducible schedules, tests)
  ${ENV_CARDS} / --cards DIR  another folder of YAML cards in the bank's schema
  NO_COLOR  disables colour; --plain (or piped stdin/stdout) gives plain text that scripts can drive

examples:
  attention-rehearse                      study what is due (up to 20 cards, at most 10 new)
  attention-rehearse --chapter 3 --lang zh
  attention-rehearse mock --budget 90     a basic question and its follow-ups, 90 s per answer
  attention-rehearse stats
  attention-rehearse drill sdpa --out sdpa.py && attention-rehearse grade sdpa.py
"""


# ----------------------------------------------------------------------------------------------------------
# argument parsing
# ----------------------------------------------------------------------------------------------------------
def _int_at_least(minimum: int):
    """An argparse type: a whole number >= ``minimum``, with a message naming the bad value."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


_non_negative_int = _int_at_least(0)
_positive_int = _int_at_least(1)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def _add_common(p: argparse.ArgumentParser, top: bool) -> None:
    """Options every subcommand accepts; subparsers default to SUPPRESS so they don't reset the top level."""
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument(
        "--db",
        metavar="PATH",
        default=d(None),
        help=f"progress database (default: ${ENV_DB} or the user data dir)",
    )
    p.add_argument("--lang", choices=bank.LANGS, default=d("en"), help="language of questions and answers")
    p.add_argument(
        "--plain",
        action="store_true",
        default=d(False),
        help="plain text, no colour (automatic when stdin/stdout is not a terminal)",
    )
    p.add_argument(
        "--cards", metavar="DIR", default=d(None), help="use the YAML cards in DIR instead of the bank"
    )


def _add_selection(p: argparse.ArgumentParser, top: bool) -> None:
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument(
        "--chapter",
        metavar="SLUG_OR_NUMBER",
        default=d(None),
        help="only this chapter: a number (3), a slug (03_scaling) or its name (scaling)",
    )


def _add_study(p: argparse.ArgumentParser, top: bool) -> None:
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument(
        "--limit", type=_positive_int, default=d(20), metavar="N", help="at most N cards (default 20)"
    )
    p.add_argument(
        "--new",
        type=_non_negative_int,
        default=d(10),
        metavar="N",
        help="at most N never-seen cards (default 10)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser (exposed for tests and docs)."""
    epilog = _epilog()
    parser = argparse.ArgumentParser(
        prog="attention-rehearse",
        description="Rehearse self-attention interview answers in the terminal: spaced repetition (FSRS),\n"
        "mock interviews with a time budget, and 'hand-write attention' coding drills with a grader.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(parser, top=True)
    _add_selection(parser, top=True)
    _add_study(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(
            name,
            help=help_,
            description=help_,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        _add_common(sp, top=False)
        return sp

    sp = add("study", "study the cards that are due (the default command)")
    _add_selection(sp, top=False)
    _add_study(sp, top=False)

    sp = add("mock", "mock interview: a random basic question, then its follow-ups, with a time budget")
    _add_selection(sp, top=False)
    sp.add_argument(
        "--budget",
        type=_positive_float,
        default=90.0,
        metavar="SECONDS",
        help="time budget per answer (default 90 s); you are warned when over it",
    )
    sp.add_argument(
        "--rounds",
        type=_positive_int,
        default=4,
        metavar="N",
        help="questions in the interview, main one included (default 4)",
    )
    sp.add_argument("--seed", type=int, default=None, help="pick the main question reproducibly")

    sp = add("list", "list the cards: id, chapter, level, due state")
    _add_selection(sp, top=False)

    add("stats", "progress: due now, learned, reviews, weakest chapters")

    sp = add("export-anki", "write an Anki deck (.apkg) with every card, both languages")
    _add_selection(sp, top=False)
    sp.add_argument("path", metavar="PATH", help="output file, e.g. attention.apkg")

    sp = add("drill", "write a 'hand-write attention' coding scaffold (see --list)")
    sp.add_argument("name", nargs="?", metavar="NAME", help="which drill (see --list)")
    sp.add_argument("--list", action="store_true", dest="list_drills", help="list the drills")
    sp.add_argument("--out", metavar="FILE", help="scaffold file to write (default: drill_NAME.py)")
    sp.add_argument("--force", action="store_true", help="overwrite FILE if it exists")

    sp = add("grade", "grade a drill file (detects '# drill: NAME'); exit 0 when every check passes")
    sp.add_argument("file", metavar="FILE", help="your solution")
    sp.add_argument(
        "--timeout",
        type=_positive_float,
        default=20.0,
        metavar="SECONDS",
        help="time limit for running your code (default 20 s)",
    )
    return parser


def resolve_chapter(value: str) -> str:
    """'3', '03', '03_scaling' or 'scaling' -> '03_scaling'; ValueError naming the valid values otherwise."""
    v = value.strip().lower()
    for slug, info in bank.CHAPTERS.items():
        if v == slug or v == slug.split("_", 1)[1] or (v.isdigit() and int(v) == int(info["number"])):
            return slug
    valid = ", ".join(f"{info['number']} ({slug})" for slug, info in bank.CHAPTERS.items())
    raise ValueError(f"unknown chapter {value!r}; valid chapters: {valid}")


# ----------------------------------------------------------------------------------------------------------
# terminal output
# ----------------------------------------------------------------------------------------------------------
_MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_TEX = [
    (r"\\operatorname\{([^{}]*)\}", r"\1"),
    (r"\\(?:mathrm|text|mathbf|boldsymbol|mathit)\{([^{}]*)\}", r"\1"),
    (r"\\sqrt\{([^{}]*)\}", r"√\1"),
    (r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)"),
    (r"\^\{?\\top\}?", "ᵀ"),
    (r"\^\{?T\}?(?![a-zA-Z])", "ᵀ"),
    (r"\\mathbb\{R\}", "ℝ"),
    (r"\\cdot", "·"),
    (r"\\times", "×"),
    (r"\\in\b", "∈"),
    (r"\\le(?:q)?\b", "≤"),
    (r"\\ge(?:q)?\b", "≥"),
    (r"\\approx", "≈"),
    (r"\\infty", "∞"),
    (r"\\to\b", "→"),
    (r"\\sum", "Σ"),
    (r"\\ldots|\\dots", "…"),
    (r"\\sqrt\s*", "√"),
    (r"\\([a-zA-Z]+)", r"\1"),
    (r"\\([_{}%$])", r"\1"),
    (r"[{}]", ""),
]


def terminal_text(text: str) -> str:
    """Card text (MyST with $...$ math) made readable in a terminal: $\\sqrt{d_k}$ -> √d_k, K^\\top -> Kᵀ."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(1) or m.group(2)
        for pat, sub in _TEX:
            s = re.sub(pat, sub, s)
        return s

    return _MATH_RE.sub(repl, text)


class UI:
    """Plain text or rich output, and line input that returns None at end of input."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain
        self.console: Any = None
        if not plain:
            from rich.console import Console

            self.console = Console(highlight=False, soft_wrap=False)
        self.ok = "[x]" if plain else "✓"
        self.no = "[ ]" if plain else "✗"

    def say(self, text: str = "", style: str | None = None) -> None:
        if self.console is None:
            print(text, flush=True)
        else:
            from rich.text import Text

            self.console.print(Text(text, style=style or ""))

    def rule(self, title: str) -> None:
        if self.console is None:
            print(f"\n== {title} ==", flush=True)
        else:
            self.console.rule(title, style="cyan")

    def block(self, title: str, body: str, style: str = "") -> None:
        if self.console is None:
            print(f"-- {title} --\n{body}", flush=True)
        else:
            from rich.panel import Panel
            from rich.text import Text

            self.console.print(
                Panel(Text(body), title=title, title_align="left", border_style=style or "blue")
            )

    def ask(self, prompt: str) -> str | None:
        """One line from stdin (None at EOF)."""
        try:
            line = input(prompt)
        except EOFError:
            print(flush=True)
            return None
        if not sys.stdin.isatty():
            print(line, flush=True)  # echo piped input so the transcript reads like a session
        return line


# ----------------------------------------------------------------------------------------------------------
# session logic
# ----------------------------------------------------------------------------------------------------------
@dataclass
class Session:
    """What happened in this run (for the Ctrl-C message and the summary)."""

    answers: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    pending: str = ""  # a rating given but not yet on disk (waiting for a locked file)


class _Quit(Exception):
    """The user asked to stop (q at the rating prompt, or end of input)."""


def _now() -> datetime:
    return parse_now(os.environ.get(ENV_NOW))


def _human_delta(delta: timedelta) -> str:
    s = delta.total_seconds()
    if s < 60:
        return "now"
    if s < 3600:
        return f"in {round(s / 60)} min"
    if s < 86400:
        return f"in {round(s / 3600)} h"
    return f"in {round(s / 86400)} days"


def _scheduler() -> Any:
    import fsrs

    return fsrs.Scheduler(enable_fuzzing=False)  # deterministic intervals; the deck is small


def select_study(
    cards: Sequence[bank.Card], states: dict[str, Any], now: datetime, limit: int, new_limit: int
) -> list[bank.Card]:
    """Due cards (earliest first), then at most ``new_limit`` unseen cards in bank order; ``limit`` in all."""
    due = sorted(
        (c for c in cards if c.id in states and states[c.id][0].due <= now), key=lambda c: states[c.id][0].due
    )
    new = [c for c in cards if c.id not in states][:new_limit]
    return (due + new)[:limit]


def _read_answer(ui: UI) -> tuple[str, float, bool]:
    """Lines until an empty one; returns (typed text, seconds, eof)."""
    t0 = time.monotonic()
    lines: list[str] = []
    while True:
        line = ui.ask("> " if lines else "> (answer aloud or type; Enter on an empty line reveals) ")
        if line is None:
            return "\n".join(lines), time.monotonic() - t0, True
        if not line.strip():
            return "\n".join(lines), time.monotonic() - t0, False
        lines.append(line)


def _ask_rating(ui: UI) -> int:
    while True:
        raw = ui.ask(
            "How did it go?  1 again · 2 hard · 3 good · 4 easy  (q = stop) > "
            if not ui.plain
            else "How did it go? 1 again / 2 hard / 3 good / 4 easy (q = stop) > "
        )
        if raw is None:
            raise _Quit
        key = raw.strip().lower()
        if key in ("q", "quit"):
            raise _Quit
        if key in _RATING_WORDS:
            return _RATING_WORDS[key]
        ui.say(f"Please type 1, 2, 3 or 4 (or q to stop); got {raw.strip()!r}.", style="yellow")


def _show_reveal(
    ui: UI, card: bank.Card, lang: str, typed: str, cards: Sequence[bank.Card]
) -> MatchResult | None:
    ui.block("Short answer" if lang == "en" else "简短回答", terminal_text(card.short[lang]), "green")
    ui.block(
        "Say it like this (60-90 s)" if lang == "en" else "面试时可以这样答",
        terminal_text(card.spoken[lang]),
        "green",
    )
    result = card.check(typed) if typed.strip() else None
    zh = lang == "zh"
    ui.say("Key points:" if not zh else "要点：", style="bold")
    for i, point in enumerate(card.key_points[lang]):
        if result is None:
            ui.say(f"  • {terminal_text(point)}" if not ui.plain else f"  - {terminal_text(point)}")
        else:
            hit = i in result.covered
            ui.say(f"  {ui.ok if hit else ui.no} {terminal_text(point)}", style="green" if hit else "red")
    if result is not None:
        for j in result.stated:
            myth, fix = bank.split_misconception(card.misconceptions[j][lang], lang)
            ui.say(
                "Your answer states a common misconception:" if not zh else "你的回答里有一个常见误区：",
                style="bold red",
            )
            ui.say(f"  {'Myth: ' if not zh else '误区：'}{terminal_text(myth)}", style="red")
            if fix:
                ui.say(f"  {'Correction: ' if not zh else '正解：'}{terminal_text(fix)}", style="green")
            voided = [i for i, k in result.blocked.items() if k == j and i in result.hits]
            if voided:
                ui.say(
                    "  So these do not count as covered: " + ", ".join(f"#{i + 1}" for i in voided)
                    if not zh
                    else "  所以这些要点不算提到：" + "、".join(f"第 {i + 1} 条" for i in voided),
                    style="red",
                )
        ui.say(
            f"Your typed answer mentions {len(result.covered)}/{result.total} key points "
            "(a keyword check: words, not understanding)."
            if not zh
            else f"你的回答提到了 {len(result.covered)}/{result.total} 个要点"
            "（关键词检查：只看用词，不看理解）。",
            style="bold",
        )
        if result.missed:
            ui.say("Missed:" if not zh else "没提到：", style="red")
            for i in result.missed:
                ui.say(f"  - {terminal_text(card.key_points[lang][i])}", style="red")
    if card.misconceptions:
        ui.say("Watch out:" if not zh else "常见误区：", style="bold")
        for m in card.misconceptions[:3]:
            myth, fix = bank.split_misconception(m[lang], lang)
            ui.say(f"  ! {'Myth: ' if not zh else '误区：'}{terminal_text(myth)}", style="yellow")
            if fix:
                ui.say(f"    {'Correction: ' if not zh else '正解：'}{terminal_text(fix)}")
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
) -> dict[str, Any]:
    """Question -> timed answer -> reveal -> rating -> FSRS schedule -> committed. Raises _Quit to stop."""
    import fsrs

    ui.rule(header)
    ui.block("Interviewer" if mode == "mock" else "Question", terminal_text(card.question[lang]), "cyan")
    if budget is not None:
        ui.say(f"Time budget: {budget:g} s.", style="dim")
    timer = None
    if budget is not None and not ui.plain:
        timer = threading.Timer(
            budget, lambda: ui.say(f"\n⏰ {budget:g} s are up: wrap up your answer.", style="bold red")
        )
        timer.daemon = True
        timer.start()
    try:
        typed, seconds, eof = _read_answer(ui)
    finally:
        if timer is not None:
            timer.cancel()
    if eof and not typed.strip():
        raise _Quit
    ui.say(f"You took {seconds:.0f} s.", style="bold")
    over = budget is not None and seconds > budget
    if over:
        ui.say(
            f"⚠ over budget: {seconds:.0f} s for a {budget:g} s answer. Lead with the short answer, "
            "then stop and let the interviewer ask."
            if not ui.plain
            else f"WARNING over budget: {seconds:.0f} s for a {budget:g} s answer.",
            style="bold red",
        )
    result = _show_reveal(ui, card, lang, typed, cards)
    rating = _ask_rating(ui)
    now = _now()
    state = store.fsrs_card(card.id, now)
    new_state, _log = sched.review_card(
        state, fsrs.Rating(rating), review_datetime=now, review_duration=int(seconds * 1000)
    )
    def busy(attempt: int) -> None:
        if attempt == 1:
            ui.say(
                f"The progress file is locked by another program; your rating ({RATINGS[rating]}) is kept "
                "and will be saved as soon as it is free. Waiting… (Ctrl-C gives up on this rating)",
                style="yellow",
            )

    session.pending = f"{card.id} ({RATINGS[rating]})"
    try:
        store.record(
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
        raise StoreError(f"{exc}; your rating of {session.pending} was NOT saved") from exc
    session.pending = ""
    session.answers += 1
    when = new_state.due.astimezone(UTC)
    ui.say(
        f"Saved ({RATINGS[rating]}). Next review {_human_delta(when - now)} ({when:%Y-%m-%d %H:%M} UTC).",
        style="dim",
    )
    entry = {"card": card, "seconds": seconds, "rating": rating, "over": over, "result": result}
    session.log.append(entry)
    return entry


def _filter(cards: list[bank.Card], chapter: str | None) -> list[bank.Card]:
    return [c for c in cards if chapter is None or c.chapter == chapter]


def _ordered(cards: list[bank.Card]) -> list[bank.Card]:
    """Chapter order, basic card first within a chapter."""
    return [c for group in bank.cards_by_chapter(cards).values() for c in group]


def cmd_study(
    args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card], session: Session
) -> int:
    pool = _ordered(_filter(cards, args.chapter))
    now = _now()
    states = store.states()
    queue = select_study(pool, states, now, args.limit, args.new)
    if not queue:
        upcoming = sorted((states[c.id][0].due, c.id) for c in pool if c.id in states)
        ui.say("Nothing is due right now.")
        if upcoming:
            due, cid = upcoming[0]
            ui.say(f"Next due: {cid} {_human_delta(due - now)} ({due.astimezone(UTC):%Y-%m-%d %H:%M} UTC).")
        ui.say("Try `attention-rehearse mock`, or --new N to add new cards.")
        return 0
    n_new = sum(1 for c in queue if c.id not in states)
    ui.say(
        f"{len(queue)} card(s) to rehearse ({len(queue) - n_new} due, {n_new} new). Progress: {store.path}",
        style="dim",
    )
    sched = _scheduler()
    try:
        for i, card in enumerate(queue, 1):
            num = bank.CHAPTERS[card.chapter]["number"]
            header = f"[{i}/{len(queue)}] ch.{num} · {card.level} · {card.id}"
            _ask_card(ui, store, sched, card, args.lang, header, "study", session, cards)
    except _Quit:
        pass
    ui.say(f"\nDone: {session.answers} answer(s) saved this session.", style="bold")
    return 0


def _mock_chain(first: bank.Card, cards: list[bank.Card], rounds: int) -> list[bank.Card]:
    """The main question, then its follow-ups depth-first (an interviewer digs into the last answer)."""
    by_id = {c.id: c for c in cards}
    chain: list[bank.Card] = []
    stack = [first.id]
    seen: set[str] = set()
    while stack and len(chain) < rounds:
        cid = stack.pop()
        if cid in seen or cid not in by_id:
            continue
        seen.add(cid)
        chain.append(by_id[cid])
        stack.extend(reversed(by_id[cid].follow_ups))
    return chain


def cmd_mock(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card], session: Session) -> int:
    basics = [c for c in _ordered(_filter(cards, args.chapter)) if c.level == "basic"]
    if not basics:
        ui.say("No basic question to start a mock interview with.")
        return 1
    rng = random.Random(args.seed)
    chain = _mock_chain(rng.choice(basics), cards, args.rounds)
    ui.say(
        f"Mock interview: {len(chain)} question(s), {args.budget:g} s budget per answer. "
        "Answer aloud as you would in the room; Enter on an empty line when you are done.",
        style="dim",
    )
    sched = _scheduler()
    try:
        for i, card in enumerate(chain, 1):
            kind = "main question" if i == 1 else "follow-up"
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
            )
    except _Quit:
        pass
    if session.log:
        ui.rule("Mock interview summary")
        for e in session.log:
            flag = " OVER BUDGET" if e["over"] else ""
            cov = (
                "" if e["result"] is None else f", {len(e['result'].covered)}/{e['result'].total} key points"
            )
            ui.say(f"{e['card'].id}: {e['seconds']:.0f} s{flag}, rated {RATINGS[e['rating']]}{cov}")
        n_over = sum(e["over"] for e in session.log)
        ui.say(f"{n_over} of {len(session.log)} answer(s) over the {args.budget:g} s budget.", style="bold")
    return 0


def _state_label(entry: Any, now: datetime) -> tuple[str, str]:
    if entry is None:
        return "new", "-"
    card = entry[0]
    state = {1: "learning", 2: "review", 3: "relearning"}[int(card.state)]
    due = "due now" if card.due <= now else _human_delta(card.due - now)
    return state, due


def cmd_list(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card]) -> int:
    now = _now()
    states = store.states()
    rows = []
    for c in _ordered(_filter(cards, args.chapter)):
        state, due = _state_label(states.get(c.id), now)
        rows.append(
            (
                c.id,
                f"{bank.CHAPTERS[c.chapter]['number']:02d} {c.chapter}",
                c.level,
                state,
                due,
                terminal_text(c.question[args.lang]),
            )
        )
    heads = ("id", "chapter", "level", "state", "due", "question")
    if ui.console is None:
        widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(heads[:-1])]
        print("  ".join(h.ljust(w) for h, w in zip(heads[:-1], widths, strict=True)) + "  question")
        for r in rows:
            print("  ".join(v.ljust(w) for v, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1])
    else:
        from rich.table import Table

        table = Table(*heads, show_lines=False)
        for r in rows:
            table.add_row(*r)
        ui.console.print(table)
    ui.say(f"{len(rows)} card(s).")
    return 0


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
    return {
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


def cmd_stats(args: argparse.Namespace, ui: UI, store: Store, cards: list[bank.Card]) -> int:
    s = compute_stats(cards, store, _now())
    ui.rule("Progress")
    ui.say(f"cards in the bank: {s['cards']}  (seen {s['seen']}, never seen {s['new']})")
    ui.say(f"due now:           {s['due_now']}  (+ {s['new']} new)")
    ui.say(f"learned:           {s['learned']}  (in long-term review)")
    ui.say(
        f"reviews:           {s['reviews']}  (again-rate {s['again_rate']:.0%}, "
        f"mean {s['seconds_mean']:.0f} s per answer)"
    )
    if not s["chapters"]:
        ui.say("No answers yet: run `attention-rehearse` to start.")
        return 0
    ui.say("Weakest chapters (again-rate, lapses):", style="bold")
    for slug, ch in list(s["chapters"].items())[:5]:
        ui.say(
            f"  {bank.CHAPTERS[slug]['number']:>2} {slug:<20} again {ch['again_rate']:.0%} "
            f"of {int(ch['reviews'])} review(s), {int(ch['lapses'])} lapse(s)"
        )
    return 0


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


# ----------------------------------------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------------------------------------
def _load_bank(args: argparse.Namespace) -> list[bank.Card]:
    directory = args.cards or os.environ.get(ENV_CARDS) or None
    return bank.load_cards(Path(directory) if directory else None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``attention-rehearse``; returns the exit code (argparse errors exit 2, Ctrl-C 130)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "study"
    if getattr(args, "chapter", None) is not None:
        try:
            args.chapter = resolve_chapter(args.chapter)
        except ValueError as exc:
            parser.error(f"argument --chapter: {exc}")
    try:
        _now()
    except ValueError as exc:
        parser.error(f"environment variable {ENV_NOW}: {exc}")
    plain = bool(args.plain) or not (sys.stdin.isatty() and sys.stdout.isatty())
    session = Session()
    try:
        return _dispatch(command, args, parser, plain, session)
    except KeyboardInterrupt:
        n = session.answers
        lost = f"; the rating of {session.pending} was NOT saved" if session.pending else ""
        print(f"\nprogress saved: {n} answer{'s' if n != 1 else ''} this session{lost}", flush=True)
        return 130


def _dispatch(
    command: str, args: argparse.Namespace, parser: argparse.ArgumentParser, plain: bool, session: Session
) -> int:
    if command in ("drill", "grade"):
        from . import grader

        if command == "drill":
            return grader.cmd_drill(args, parser)
        return grader.cmd_grade(Path(args.file), timeout=args.timeout, plain=plain)
    try:
        cards = _load_bank(args)
    except bank.BankError as exc:
        print(f"attention-rehearse: error: question bank: {exc}", file=sys.stderr)
        return 1
    if command == "export-anki":
        n = export_anki(_filter(cards, args.chapter), Path(args.path))
        print(f"wrote {n} notes (English and 中文 cards) to {args.path}")
        return 0
    ui = UI(plain)
    db = Path(args.db) if args.db else default_db_path()
    reading = command in ("list", "stats")  # only read: never create the file, accept a read-only one
    try:
        if reading and (not db.exists() or (db.is_file() and db.stat().st_size == 0)):
            opened = Store.empty(db)
        else:
            opened = Store(db, write=not reading)
        with opened as store:
            runners: dict[str, Callable[[], int]] = {
                "study": lambda: cmd_study(args, ui, store, cards, session),
                "mock": lambda: cmd_mock(args, ui, store, cards, session),
                "list": lambda: cmd_list(args, ui, store, cards),
                "stats": lambda: cmd_stats(args, ui, store, cards),
            }
            return runners[command]()
    except StoreError as exc:
        print(f"attention-rehearse: error: {exc}", file=sys.stderr)
        return 1
