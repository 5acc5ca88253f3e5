"""``attention-rehearse``: the command line (arguments, dispatch to the session loop, the store, the grader).

Subcommands: ``study`` (default), ``mock``, ``list``, ``stats``, ``optimize``, ``export-anki``, ``import``,
``export-log``, ``drill``,
``grade``.
Progress lives in SQLite (see ``store.py``); every answer is committed the moment it is rated.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import bank
from .anki import export_anki
from .optimize import MIN_REVIEWS
from .render import UI
from .schedule import ENV_NOW, _filter, _now
from .session import Session, cmd_list, cmd_mock, cmd_stats, cmd_study
from .store import ENV_DB, Store, StoreError, default_db_path

MORE_HELP = "`attention-rehearse --help` explains the answer check and the progress file."
ENV_CARDS = "ATTENTION_REHEARSE_CARDS"
ENV_DAY_START = "ATTENTION_REHEARSE_DAY_START"
DEFAULT_DAY_START = 4

def _epilog() -> str:
    """The --help epilog (computed when the parser is built, so it shows the current default path)."""
    return f"""\
how it works:
  study shows each due question, counts the seconds you take, and waits while you answer aloud or type. \
An empty line (Enter) reveals the short answer and a numbered checklist of the key points; rate yourself \
with one key: 1 again / 2 hard / 3 good / 4 easy (Enter = good; each button shows the interval it would \
give; 重来/困难/良好/简单 work too), s shows the spoken answer and the common myths, u takes back the \
previous rating, q stops. Cards are scheduled with FSRS and each rating is saved at once: Ctrl-C (exit \
130) or closing the terminal loses nothing already rated. Before each session the progress file is copied \
to backups/ beside it (the last 5 are kept).
  The day turns at 4 am local time (--day-starts HOUR, or ${ENV_DAY_START}); --new N counts the new cards \
started in study since then (cards first met in a mock interview do not count: a mock picks its questions \
itself); learning cards due within 20 min come into the session.

what the typed-answer check can and cannot judge:
  If you type an answer, a key point is ticked only by a clause that states it: its concepts together in \
one clause (words lemmatised, Chinese segmented, synonyms and formulas like √d_k or QKᵀ read alike), each \
tick quoting that clause. A negated clause does not count ("we do not scale by sqrt(d_k)" ticks nothing), \
and a common misconception is caught by meaning and quoted. It reads patterns, not understanding: a \
correct paraphrase outside them is reported missed. A checklist, not a grade: rate yourself honestly.

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
  attention-rehearse optimize --dry-run   fit FSRS to your own reviews and show what would change
  attention-rehearse drill sdpa --out sdpa.py && attention-rehearse grade sdpa.py
"""

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


def _hour(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an hour 0-23, got {text!r}") from None
    if not 0 <= value <= 23:
        raise argparse.ArgumentTypeError(f"expected an hour 0-23, got {value}")
    return value

_positive_int = _int_at_least(1)

def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value

def _add_common(p: argparse.ArgumentParser, top: bool, anki_lang: bool = False) -> None:
    """Options every subcommand accepts; subparsers default to SUPPRESS so they don't reset the top level."""
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument(
        "--db",
        metavar="PATH",
        default=d(None),
        help=f"progress database (default: ${ENV_DB} or the user data dir)",
    )
    if not anki_lang:
        p.add_argument(
            "--lang", choices=bank.LANGS, default=None if top else argparse.SUPPRESS,
            help="language of questions, answers and the interface (default en)",
        )
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
        help="at most N never-seen cards a day (default 10; cards first met in mock do not count)",
    )
    p.add_argument(
        "--day-starts",
        type=_hour,
        default=d(None),
        metavar="HOUR",
        help=f"the study day starts at HOUR o'clock local time (default ${ENV_DAY_START} or 4, as Anki)",
    )

def _wrap_epilog(text: str, width: int) -> str:
    """The epilog wrapped at word boundaries to ``width`` columns (CJK-aware); a continuation line is
    indented under the text of its line (an example's comment under the comment)."""
    import re

    from .render import wrap

    out = []
    for line in text.splitlines():
        lead = re.match(r"^\s*", line).group(0)  # type: ignore[union-attr]
        m = re.match(r"^(\s*\S.*?\s{2,})\S", line) if lead else None  # "  command    comment"
        hang = " " * len(m.group(1)) if m and len(m.group(1)) < width - 20 else lead
        out += wrap(line[len(lead):], width, indent=lead, hang=hang) if line.strip() else [""]
    return "\n".join(out) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser (exposed for tests and docs)."""
    import shutil

    epilog = _wrap_epilog(_epilog(), max(40, shutil.get_terminal_size().columns - 1))
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
            description=f"{help_}\n\n({MORE_HELP})",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        _add_common(sp, top=False, anki_lang=name == "export-anki")
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
    sp.add_argument(
        "--no-schedule", dest="schedule", action="store_false",
        help="practise only: mock ratings do not change your spaced-repetition schedule",
    )

    sp = add("list", "list the cards: id, chapter, level, due state")
    _add_selection(sp, top=False)

    add("stats", "progress: due now, learned, reviews, weakest chapters, FSRS parameters in use")

    sp = add(
        "optimize",
        f"fit the FSRS parameters to your own review log (needs {MIN_REVIEWS} reviews a day or more apart)",
    )
    sp.add_argument("--dry-run", action="store_true", help="fit and show, store nothing")
    sp.add_argument("--yes", action="store_true", help="store the fitted parameters without asking")
    sp.add_argument("--reset", action="store_true", help="go back to py-fsrs's default parameters")

    sp = add("export-anki", "write an Anki deck (.apkg) with every card, in both languages or one")
    _add_selection(sp, top=False)
    sp.add_argument(
        "--lang", dest="anki_lang", choices=("both", *bank.LANGS), default=None,
        help="both (default): an English and a 中文 card per note; en or zh: one card per note, in a deck "
        "and note type of its own",
    )
    sp.add_argument("path", metavar="PATH", help="output file, e.g. attention.apkg")
    sp.add_argument("--force", action="store_true", help="overwrite PATH if it exists")

    sp = add("import", "merge a review log exported by the book's practise page into the progress file")
    sp.add_argument("file", metavar="FILE", help="the JSON review log (practise page: 'Export progress')")

    sp = add("export-log", "write the progress as a JSON review log that the book's practise page imports")
    sp.add_argument("path", metavar="PATH", help="output file, e.g. progress-log.json ('-': standard output)")
    sp.add_argument("--force", action="store_true", help="overwrite PATH if it exists")

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
    sp.add_argument("--seed", type=int, metavar="N", help="the inputs of an earlier run (it prints its seed)")
    return parser

def resolve_chapter(value: str) -> str:
    """'3', '03', '03_scaling' or 'scaling' -> '03_scaling'; ValueError naming the valid values otherwise."""
    v = value.strip().lower()
    for slug, info in bank.CHAPTERS.items():
        if v == slug or v == slug.split("_", 1)[1] or (v.isdigit() and int(v) == int(info["number"])):
            return slug
    valid = ", ".join(f"{info['number']} ({slug})" for slug, info in bank.CHAPTERS.items())
    raise ValueError(f"unknown chapter {value!r}; valid chapters: {valid}")

def _load_bank(args: argparse.Namespace) -> list[bank.Card]:
    directory = args.cards or os.environ.get(ENV_CARDS) or None
    return bank.load_cards(Path(directory) if directory else None)

def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``attention-rehearse``; returns the exit code (argparse errors exit 2, Ctrl-C 130)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "study"
    args.explicit_lang = args.lang  # None unless --lang was given (before the subcommand)
    args.lang = args.lang or "en"
    if getattr(args, "chapter", None) is not None:
        try:
            args.chapter = resolve_chapter(args.chapter)
        except ValueError as exc:
            parser.error(f"argument --chapter: {exc}")
    try:
        _now()
    except ValueError as exc:
        parser.error(f"environment variable {ENV_NOW}: {exc}")
    if getattr(args, "db", None) == "":
        parser.error("argument --db: empty path (omit --db to use the default progress file)")
    if hasattr(args, "day_starts") and args.day_starts is None:
        env = os.environ.get(ENV_DAY_START)
        try:
            args.day_starts = DEFAULT_DAY_START if not env else _hour(env)
        except argparse.ArgumentTypeError as exc:
            parser.error(f"environment variable {ENV_DAY_START}: {exc}")
    plain = bool(args.plain) or not (sys.stdin.isatty() and sys.stdout.isatty())
    session = Session()
    try:
        return _dispatch(command, args, parser, plain, session)
    except BrokenPipeError:  # `attention-rehearse list | head -1`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush does not fail again
        return 141  # 128 + SIGPIPE, what a shell tool killed by the closed pipe reports
    except KeyboardInterrupt:
        ui = UI(True, args.lang)
        lost = ui.t("interrupted_lost", card=session.pending) if session.pending else ""
        n = session.answers
        print("\n" + ui.t("interrupted", n=n, s="s" if n != 1 else "") + lost, flush=True)
        return 130

def _dispatch(
    command: str, args: argparse.Namespace, parser: argparse.ArgumentParser, plain: bool, session: Session
) -> int:
    ui = UI(plain, args.lang)

    def error(msg: object) -> int:
        if ui.lang == "zh" and getattr(msg, "zh", None):
            msg = msg.zh  # type: ignore[attr-defined]
        print(ui.t("error", msg=msg), file=sys.stderr, flush=True)
        return 1

    if command in ("drill", "grade"):
        from . import grader

        if command == "drill":
            return grader.cmd_drill(args, parser, ui)
        return grader.cmd_grade(Path(args.file), timeout=args.timeout, plain=plain, seed=args.seed, ui=ui)
    try:
        cards = _load_bank(args)
    except bank.BankError as exc:
        return error(ui.t("bank_error", msg=exc))
    if command == "export-anki":
        target = Path(args.path)
        if target.is_dir():
            return error(ui.t("cannot_write", path=target, reason=ui.t("is_a_folder")))
        if target.exists() and not args.force:
            return error(ui.t("exists", path=target))
        variant = args.anki_lang or args.explicit_lang or "both"
        try:
            n = export_anki(_filter(cards, args.chapter), target, variant)
        except OSError as exc:  # a read-only file system, no permission, a file where a folder should be
            return error(ui.t("cannot_write", path=exc.filename or target, reason=exc.strerror or exc))
        what = {
            "both": ("English and 中文 cards", "英文和中文卡片"), "en": ("English cards", "英文卡片"),
            "zh": ("中文 cards", "中文卡片"),
        }[variant][ui.lang == "zh"]
        print(ui.t("wrote_anki", n=n, what=what, path=target))
        return 0
    db = Path(args.db) if args.db else default_db_path()
    if command in ("import", "export-log"):
        return _review_log(command, args, db, cards, error)
    if command == "optimize":
        from .optimize import cmd_optimize

        try:
            return cmd_optimize(args, ui, db)
        except StoreError as exc:
            return error(exc)
    reading = command in ("list", "stats")  # only read: never create the file, accept a read-only one
    try:
        if reading and (not db.exists() or (db.is_file() and db.stat().st_size == 0)):
            opened = Store.empty(db)
        else:
            opened = Store(db, write=not reading)
        with opened as store:
            if command in ("study", "mock"):
                store.backup(_now())  # before the session changes anything: the last BACKUPS_KEPT are kept
                from . import similar

                if similar.auto_enable():  # the typed-answer check's fallback; its index loads meanwhile
                    similar.warm()
            runners: dict[str, Callable[[], int]] = {
                "study": lambda: cmd_study(args, ui, store, cards, session),
                "mock": lambda: cmd_mock(args, ui, store, cards, session),
                "list": lambda: cmd_list(args, ui, store, cards),
                "stats": lambda: cmd_stats(args, ui, store, cards),
            }
            return runners[command]()
    except StoreError as exc:
        return error(exc)


def _review_log(command: str, args: argparse.Namespace, db: Path, cards: list[bank.Card],
                error: Callable[[object], int]) -> int:
    """``import FILE`` and ``export-log PATH``: the review log shared with the book's practise page."""
    import json

    from . import weblog
    from .store import local_time

    if command == "export-log":
        target = None if args.path == "-" else Path(args.path)
        if target is not None and target.exists() and not args.force:
            return error(f"{target} exists; pass --force to overwrite it")
        try:
            opened = Store.empty(db) if not db.exists() else Store(db, write=False)
            with opened as store:
                log = weblog.export_log(store, _now())
        except StoreError as exc:
            return error(exc)
        text = json.dumps(log, indent=1, ensure_ascii=False) + "\n"
        if target is None:
            sys.stdout.write(text)
            return 0
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            return error(f"cannot write {target}: {exc.strerror or exc}")
        print(f"wrote {len(log['reviews'])} reviews of {len(log['due'])} cards to {target} "
              f"(open the book's practise page, 'Import progress')")
        return 0
    try:
        log = weblog.read_log(Path(args.file))
        with Store(db, write=True) as store:
            store.backup(_now())
            result = weblog.import_log(store, log, cards)
    except (weblog.LogError, StoreError) as exc:
        return error(exc)
    print(f"imported {result.added} review(s) from {args.file} into {db} "
          f"({result.already} already there)")
    if result.unknown:
        print(f"skipped the reviews of {len(result.unknown)} card(s) not in the bank: "
              f"{', '.join(result.unknown[:5])}")
    if result.parameters_adopted:
        print("the log's fitted FSRS parameters are newer than this file's: they are now in use")
    for card_id, due in sorted(result.cards.items(), key=lambda kv: kv[1]):
        print(f"  {card_id:<40} due {local_time(due)}  ({weblog.iso(due)})")
    return 0
