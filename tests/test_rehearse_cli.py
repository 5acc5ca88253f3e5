"""``attention-rehearse`` end to end: study/mock in a real pseudo-terminal (pexpect), piped --plain mode,
Ctrl-C then resume, corrupt databases, Anki export, listing/stats, and usage errors.

Most terminal sessions run ``main()`` in a child on a fresh pty (``pty.fork``: a real terminal,
``isatty()`` is true, Ctrl-C is a real SIGINT from the line discipline) that execs a new interpreter at
once: a child that went on running Python after forking a test process with threads (pytest-xdist's I/O
thread) could inherit a lock held at the fork and hang; one test runs ``python -m selfattention.rehearse``
through pexpect.spawn.
Scheduling is deterministic: "now" is pinned with ``ATTENTION_REHEARSE_NOW`` and fuzzing is off.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import platform
import pty
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import textwrap
import time
import unicodedata
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pexpect
import pexpect.fdpexpect
import pytest

from selfattention.interview import bank
from selfattention.interview.rehearse import (
    ANKI_DECK_ID,
    ANKI_MODEL_ID,
    build_parser,
    main,
    resolve_chapter,
    terminal_text,
)

NOW = "2026-01-05T09:00:00+00:00"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _card(cid: str, chapter: str, level: str, q: str, follow: list[str], kw: list[list[str]]) -> str:
    points = [f"Point {i} of {cid} about {alts[0]}." for i, alts in enumerate(kw)]
    return textwrap.dedent(f"""\
        - id: {cid}
          chapter: {chapter}
          level: {level}
          question: {{en: "{q}", zh: "问题 {cid}？"}}
          short: {{en: "Short answer of {cid}: divide by $\\\\sqrt{{d_k}}$.", zh: "{cid} 的简短回答。"}}
          spoken: {{en: "Spoken answer of {cid}.", zh: "{cid} 的口语回答。"}}
          key_points:
            en: {json.dumps(points)}
            zh: {json.dumps([f"要点 {i}" for i in range(len(kw))], ensure_ascii=False)}
            keywords: {json.dumps(kw)}
            claims: {json.dumps([[" | ".join(alts)] for alts in kw])}
          misconceptions:
            - {{en: "A misconception about {cid}.", zh: "关于 {cid} 的误区。"}}
          follow_ups: {json.dumps(follow)}
        """)


FIXTURE = (
    _card(
        "fx-scale",
        "03_scaling",
        "basic",
        "Why divide by the square root of d_k?",
        ["fx-variance"],
        [["variance"], ["sqrt", "root"], ["softmax", "saturate"]],
    )
    + _card(
        "fx-variance",
        "03_scaling",
        "follow-up",
        "What is the variance of q dot k?",
        ["fx-deep"],
        [["d_k", "dk"], ["independent"], ["unit variance", "variance 1"]],
    )
    + _card(
        "fx-deep",
        "03_scaling",
        "deep",
        "What if d_k is tiny?",
        [],
        [["small"], ["flat", "uniform"], ["temperature"]],
    )
    + _card(
        "fx-mask",
        "05_masking",
        "basic",
        "How does a causal mask work?",
        [],
        [["lower triangular", "tril"], ["-inf", "minus infinity"], ["future"]],
    )
)
FIXTURE_IDS = ["fx-scale", "fx-variance", "fx-deep", "fx-mask"]


@pytest.fixture()
def cards_dir(tmp_path: Path) -> Path:
    d = tmp_path / "cards"
    d.mkdir()
    (d / "fixture.yaml").write_text(FIXTURE, encoding="utf-8")
    assert [c.id for c in bank.load_cards(d)] == FIXTURE_IDS  # the fixture itself is a valid bank
    return d


@pytest.fixture()
def env(tmp_path: Path, cards_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    e = {
        "ATTENTION_REHEARSE_DB": str(tmp_path / "progress.sqlite3"),
        "ATTENTION_REHEARSE_CARDS": str(cards_dir),
        "ATTENTION_REHEARSE_NOW": NOW,
        "NO_COLOR": "1",
        "TERM": "xterm",
        "COLUMNS": "120",
        "TZ": "UTC",  # times print in local time: pin it, so the expected clock times travel
    }
    for k, v in e.items():
        monkeypatch.setenv(k, v)
    time.tzset()
    return e


def _db_rows(db: str) -> tuple[list[tuple], dict[str, tuple]]:
    con = sqlite3.connect(db)
    reviews = con.execute(
        "SELECT card_id, rating, mode, reviewed_at, due_after, covered, total FROM reviews ORDER BY id"
    ).fetchall()
    cards = {r[0]: r[1:] for r in con.execute("SELECT card_id, due, state, reps, lapses FROM cards")}
    con.close()
    return reviews, cards


# -- a real pty around main() in a forked child ----------------------------------------------------------
_CHILD = (
    "import faulthandler, signal, sys\n"
    "faulthandler.register(signal.SIGUSR1, all_threads=True)\n"  # a stuck child shows its stacks (expect)
    "from selfattention.interview.rehearse import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)  # the child's program: the environment (os.environ, set by the `env` fixture) is inherited through exec

# the system calls that block on the terminal, per machine: number -> its first argument when it must be
# the terminal's (read(0, ...), select/pselect6 with nfds 1: fd 0 only), or None (poll/ppoll)
_READING: dict[str, dict[int, int | None]] = {
    "x86_64": {0: 0, 23: 1, 270: 1, 7: None, 271: None},
    "aarch64": {63: 0, 72: 1, 73: None},
}


class Term:
    """A forked child running ``main(argv)`` on a fresh pseudo-terminal, driven with pexpect."""

    def __init__(self, argv: list[str], program: str = _CHILD) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # child: a real terminal on fds 0/1/2; exec at once (nothing inherited is locked)
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # before main() asks
                # a terminal's Ctrl-C, even when the runner ignores it (as a shell's background job does)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.execv(sys.executable, [sys.executable, "-c", program, *argv])
            finally:
                os._exit(99)  # only if exec failed
        self.pid = pid
        self.reaped = False  # once waited for, the pid may be reused: never signal it again
        self.child = pexpect.fdpexpect.fdspawn(fd, timeout=60, encoding="utf-8")

    def expect(self, pattern: str) -> None:
        try:
            self.child.expect(pattern)
        except pexpect.TIMEOUT:  # say what the child printed and where each of its threads waits
            seen = self.child.before or ""
            stacks = ""
            if not self.reaped:
                os.kill(self.pid, signal.SIGUSR1)
                try:  # whatever the dump prints within 3 s
                    self.child.expect(pexpect.TIMEOUT, timeout=3)
                except pexpect.EOF:
                    pass
                stacks = self.child.before or ""
            raise AssertionError(
                f"no {pattern!r} within {self.child.timeout} s; the child printed (last 1500 chars):\n"
                f"{seen[-1500:]}\n-- its threads on SIGUSR1 --\n{stacks[-4000:]}"
            ) from None

    def waiting_for_input(self, timeout: float = 30.0) -> bool:
        """Wait until the child's main thread is blocked reading the terminal (read, select or poll on fd 0),
        as it is whenever a person types. A Ctrl-C that lands between the prompt being printed and readline's
        select() is only noticed at the next signal (CPython's readline loop), so the tests press keys the
        way a person does: while the program waits for them. False if /proc cannot tell (then waits 0.5 s).
        It orders a key after the prompt it answers, not two keys sent in a row."""
        calls = _READING.get(platform.machine())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                fields = Path(f"/proc/{self.pid}/syscall").read_text().split()
            except OSError:
                fields = []
            if fields[:1] == ["running"]:
                time.sleep(0.005)
                continue
            if calls is None or not fields or not fields[0].isdigit():  # no /proc, another machine
                time.sleep(0.5)
                return False
            nr = int(fields[0])
            if nr in calls and calls[nr] in (None, int(fields[1], 16)):
                return True
            time.sleep(0.005)
        raise AssertionError(f"the child did not wait for input within {timeout} s")

    def send(self, text: str) -> None:
        """Type ``text`` (no Enter) once the child waits for input."""
        self.waiting_for_input()
        self.child.send(text)

    def sendline(self, text: str = "") -> None:
        self.waiting_for_input()
        self.child.sendline(text)

    def finish(self) -> tuple[int, str]:
        """Read to EOF; return (exit code, the remaining output)."""
        self.child.expect(pexpect.EOF)
        rest = self.child.before
        return self.wait(), rest

    def wait(self) -> int:
        """Reap the child; return its exit code (negative signal number if killed)."""
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        return os.waitstatus_to_exitcode(status)


@pytest.fixture()
def term() -> Iterator[list[Term]]:
    made: list[Term] = []
    yield made
    for t in made:  # never leave a child behind if a test fails mid-session
        if not t.reaped:  # still our (possibly zombie) child, so the pid cannot belong to anyone else
            os.kill(t.pid, signal.SIGKILL)
            t.wait()


def _spawn(made: list[Term], argv: list[str]) -> Term:
    t = Term(argv)
    made.append(t)
    return t


def test_term_types_only_while_the_child_waits_for_input(term) -> None:
    """Term.send waits for the child's main thread to block on the terminal: it does not while the child
    computes, and it does once readline's select() (or a one-key read) waits."""
    busy = Term([], program="import time\nt = time.monotonic()\nwhile time.monotonic() - t < 20: pass\n")
    term.append(busy)
    try:
        Path(f"/proc/{busy.pid}/syscall").read_text()
    except OSError:
        pytest.skip("the child's /proc/PID/syscall is unreadable here: Term then waits 0.5 s instead")
    if _READING.get(platform.machine()) is None:
        pytest.skip("no system-call table for this machine: Term then waits 0.5 s instead")
    # computing, sleeping, or blocked on another file (select of a pipe: nfds 5, not 1) is not waiting
    others = ["import os, select\nr, w = os.pipe()\nr2, w2 = os.pipe()\nselect.select([r, r2], [], [])\n",
              "import time\ntime.sleep(20)\n",
              "import os\nr, w = os.pipe()\nos.read(r, 1)\n"]
    for t in [busy] + [Term([], program=p) for p in others]:
        term.append(t)
        t0 = time.monotonic()
        with pytest.raises(AssertionError, match="did not wait for input"):
            t.waiting_for_input(timeout=1.5)
        assert time.monotonic() - t0 >= 1.5
    for program in ("import readline\nprint(repr(input('? ')))\n",
                    "import os, tty\ntty.setcbreak(0)\nprint(repr(os.read(0, 8)))\n"):
        t = Term([], program=program)
        term.append(t)
        assert t.waiting_for_input(timeout=20) is True
        t.send("x\r")
        t.child.expect(r"'x")
        assert t.wait() == 0


# -- study in a terminal ---------------------------------------------------------------------------------
def test_study_session_in_a_terminal_records_reviews_and_moves_due_dates(env, term) -> None:
    t = _spawn(term, ["--limit", "3"])
    t.expect(r"3 card\(s\) to rehearse \(0 due, 3 new\)")
    # card 1: type an answer that mentions two of the three key points, then reveal with an empty line
    t.expect(r"Why divide by the square root of d_k\?")
    t.expect(r"Enter on an empty line reveals")
    t.sendline("the variance grows, so divide by sqrt(d_k)")
    t.sendline("")
    t.expect(r"Short answer of fx-scale: divide by √d_k")  # LaTeX made readable in the terminal
    t.expect(r"Key points \(\d+ s\): ✓ = a clause of yours states it \(s: which\); not a grade:")
    t.expect(r"1 ✓ Point 0 of fx-scale about variance")
    t.expect(r"2 ✓ Point 1 of fx-scale about sqrt")
    t.expect(r"3 ✗ Point 2 of fx-scale about softmax")
    # the rating buttons preview each interval (new card: again 1 min, hard 6 min, good 10 min)
    t.expect(r"How did it go\?  1 again 1 min  2 hard 6 min  3 good 10 min  4 easy \d+ days")
    assert "Spoken answer of fx-scale" not in t.child.before  # the spoken answer comes on demand
    t.send("s")
    t.expect(r"What your answer matched:")  # s quotes the clause behind each tick, then the spoken answer
    t.expect(r"1 ✓ you wrote: “the variance grows”")
    t.expect(r"Spoken answer of fx-scale")
    t.expect(r"How did it go\?")
    t.sendline("3")
    t.expect(r"Saved \(good\)\. Next review in 10 min \(2026-01-05 09:10 UTC\)")
    # card 2 (ordered by chapter, basic first): answer aloud, reveal at once, rate "again"
    t.expect(r"What is the variance of q dot k\?")
    t.sendline("")
    t.expect(r"• Point 0 of fx-variance")  # nothing typed: key points listed without ticks
    t.expect(r"How did it go\?")
    t.sendline("x")
    t.expect(r"Please press 1, 2, 3 or 4")
    t.sendline("again")
    t.expect(r"Saved \(again\)\. Next review in 1 min")
    # card 3: easy -> graduates to long-term review
    t.expect(r"What if d_k is tiny\?")
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("4")
    t.expect(r"Saved \(easy\)\. Next review in \d+ days")
    # learning steps: fx-scale (due in 10 min) comes back in the same session; stop there
    t.expect(r"\[4/5\] ch\.3 · basic · fx-scale · back \(last: good\)")
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("q")
    t.expect(r"Done: 3 answer\(s\) saved this session")
    t.expect(r"This session: again 1 · hard 0 · good 1 · easy 1 · 0 min \d+ s in all\.")
    t.expect(r"Next due: fx-variance in 1 min")
    code, _ = t.finish()
    assert code == 0

    reviews, cards = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1], r[2]) for r in reviews] == [
        ("fx-scale", 3, "study"),
        ("fx-variance", 1, "study"),
        ("fx-deep", 4, "study"),
    ]
    assert [(r[5], r[6]) for r in reviews] == [(2, 3), (None, None), (None, None)]  # typed vs spoken
    assert all(datetime.fromisoformat(r[3]) == T0 for r in reviews)
    due = {cid: datetime.fromisoformat(v[0]) for cid, v in cards.items()}
    assert due["fx-scale"] == T0 + timedelta(minutes=10)
    assert due["fx-variance"] == T0 + timedelta(minutes=1)
    assert due["fx-deep"] >= T0 + timedelta(days=1) and cards["fx-deep"][1] == 2  # State.Review
    assert cards["fx-variance"][3] == 0  # "again" on a new card is not a lapse (nothing was learned yet)
    assert "fx-mask" not in cards  # --limit 3 kept the 4th card new


def test_study_next_day_shows_only_due_cards(env, monkeypatch, capsys) -> None:
    """A restart at the same instant takes the two learning cards due within 20 min (Anki's learn-ahead: an
    interrupted session's learning steps are not lost); the long-interval card is not due; 15 minutes later
    the two short-step cards are due."""
    db = env["ATTENTION_REHEARSE_DB"]
    answers = "\n3\n\n1\n\n4\n"  # three cards: good, again, easy (spoken: reveal at once)
    _run_piped(["--plain", "--limit", "3"], answers, monkeypatch, capsys)
    out = _run_piped(["--plain", "--new", "0"], "", monkeypatch, capsys)
    assert "2 card(s) to rehearse (2 due, 0 new)" in out and "fx-deep" not in out
    assert out.index("fx-variance") < out.index("Done")  # the one due first (09:01) is asked first
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(hours=1)).isoformat())
    out = _run_piped(["--plain", "--new", "0", "--chapter", "5"], "", monkeypatch, capsys)
    assert "Nothing is due right now." in out
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", T0.isoformat())
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(minutes=15)).isoformat())
    out = _run_piped(["--plain", "--new", "0"], "\n3\n\n3\n", monkeypatch, capsys)
    assert "2 card(s) to rehearse (2 due, 0 new)" in out
    assert out.index("fx-variance") < out.index("fx-scale")  # earliest due first: 09:01 before 09:10
    reviews, _ = _db_rows(db)
    assert len(reviews) == 5


def _run_piped(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> str:
    """main() in-process with piped stdin/stdout (not a TTY): plain mode, answers read from the pipe."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    assert main(argv) == 0
    return capsys.readouterr().out


def test_ctrl_c_mid_session_saves_everything_answered_and_resumes(env, term) -> None:
    t = _spawn(term, ["--limit", "4"])
    t.expect(r"Why divide by the square root of d_k\?")
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("3")
    t.expect(r"Saved \(good\)")
    t.expect(r"What is the variance of q dot k\?")
    t.sendline("I was typing an answer when")
    t.expect(r"answer when\s*\r?\n> ")  # the line was read and the next line's prompt is up
    t.send("\x03")  # Ctrl-C typed into the terminal: the line discipline sends SIGINT
    t.expect(r"progress saved: 1 answer this session")
    code, _ = t.finish()
    assert code == 130
    reviews, _ = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1]) for r in reviews] == [("fx-scale", 3)]

    # resume: the interrupted one comes first; the answered card (due in 10 min: learn-ahead) comes last
    t2 = _spawn(term, ["--limit", "4"])
    t2.expect(r"4 card\(s\) to rehearse \(1 due, 3 new\)")
    t2.expect(r"\[1/4\] ch\.3 · follow-up · fx-variance")
    t2.sendline("")
    t2.expect(r"How did it go\?")
    t2.sendline("q")
    t2.expect(r"Done: 0 answer\(s\) saved this session")
    code, _ = t2.finish()
    assert code == 0
    reviews, _ = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert len(reviews) == 1  # "q" at the rating prompt records nothing


def test_killed_process_loses_no_rated_answer(env, term) -> None:
    """SIGKILL right after a rating (no cleanup code runs): the answer is already committed."""
    t = _spawn(term, [])
    t.expect(r"Why divide by the square root of d_k\?")
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("2")
    t.expect(r"Saved \(hard\)")
    t.expect(r"What is the variance of q dot k\?")
    os.kill(t.pid, signal.SIGKILL)
    assert t.wait() == -signal.SIGKILL
    reviews, cards = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1]) for r in reviews] == [("fx-scale", 2)]
    assert cards["fx-scale"][2] == 1  # reps


def test_mock_interview_chains_follow_ups_and_warns_over_budget(env, term) -> None:
    t = _spawn(term, ["mock", "--chapter", "scaling", "--budget", "1", "--seed", "0"])
    t.expect(r"Mock interview: 3 question\(s\), 1 s budget per answer")
    t.expect(r"Your ratings update the schedule \(--no-schedule: practise without\)")
    t.expect(r"Q1/3 · main question · fx-scale")
    t.expect(r"Time budget: 1 s")
    t.expect(r"1 s are up: wrap up your answer")  # the live reminder fires while you are still answering
    t.sendline("")
    t.expect(r"over budget: \d+ s for a 1 s answer")
    t.expect(r"How did it go\?")
    t.sendline("2")
    t.expect(r"Q2/3 · follow-up · fx-variance")  # the basic card's follow-up ...
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("3")
    t.expect(r"Q3/3 · follow-up · fx-deep")  # ... then the follow-up's own follow-up
    t.sendline("")
    t.expect(r"How did it go\?")
    t.sendline("3")
    t.expect(r"Mock interview summary")
    t.expect(r"Why divide by the square root of d_k\? \(fx-scale\): \d+ s OVER BUDGET, rated hard")
    code, _ = t.finish()
    assert code == 0
    reviews, _ = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1], r[2]) for r in reviews] == [
        ("fx-scale", 2, "mock"),
        ("fx-variance", 3, "mock"),
        ("fx-deep", 3, "mock"),
    ]


def test_piped_plain_mode_end_to_end_with_python_dash_m(env, tmp_path) -> None:
    """The real entry point (python -m selfattention.rehearse) on pipes: plain text, scriptable."""
    answers = "we scale because the variance grows; sqrt\n\n3\n\nq\n"
    proc = subprocess.run(
        [sys.executable, "-m", "selfattention.rehearse", "study", "--lang", "zh", "--limit", "2"],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **env),
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b[" not in out  # no colour / cursor codes when piped
    assert "问题 fx-scale？" in out and "fx-scale 的简短回答。" in out
    assert "[x] 要点 0" in out and "[x] 要点 1" in out and "[ ] 要点 2" in out  # ASCII marks in plain mode
    assert "完成：本次保存了 1 个回答。" in out  # the interface speaks the --lang too
    reviews, _ = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1], r[5], r[6]) for r in reviews] == [("fx-scale", 3, 2, 3)]


def test_end_of_input_stops_cleanly(env, monkeypatch, capsys) -> None:
    out = _run_piped(["--plain"], "an answer without end", monkeypatch, capsys)
    assert "Done: 0 answer(s) saved this session." in out


# -- corrupt / foreign database --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["garbage", "foreign-sqlite"])
def test_corrupt_or_foreign_database_is_reported_and_left_untouched(env, tmp_path, capsys, kind) -> None:
    db = tmp_path / f"{kind}.db"
    if kind == "garbage":
        db.write_bytes(os.urandom(4096))
    else:
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE notes (t TEXT)")
        con.execute("INSERT INTO notes VALUES ('mine')")
        con.commit()
        con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for argv in (["--db", str(db), "--plain"], ["stats", "--db", str(db)], ["list", "--db", str(db)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert str(db) in err and "left untouched" in err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(kind)) == [db.name]


def test_corrupt_database_in_a_terminal(env, tmp_path, term) -> None:
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(2000))
    before = db.read_bytes()
    t = _spawn(term, ["--db", str(db)])
    t.expect(
        r"error: .*broken\.sqlite3 is not a SQLite database|error: .*broken\.sqlite3 is a SQLite database "
        r"but not an attention-rehearse"
    )
    code, _ = t.finish()
    assert code == 1
    assert db.read_bytes() == before


# -- list, stats, export ---------------------------------------------------------------------------------
def test_list_and_stats_reflect_progress(env, monkeypatch, capsys) -> None:
    out = _run_piped(["list", "--plain"], "", monkeypatch, capsys)
    assert "4 card(s)." in out
    assert all(cid in out for cid in FIXTURE_IDS)
    assert out.count(" new ") >= 4
    out = _run_piped(["stats"], "", monkeypatch, capsys)
    assert "No answers yet" in out
    _run_piped(["--plain", "--chapter", "3", "--limit", "3"], "\n1\n\n1\n\n3\n", monkeypatch, capsys)
    _run_piped(["--plain", "--chapter", "05_masking"], "\n3\n", monkeypatch, capsys)
    out = _run_piped(["list", "--chapter", "scaling"], "", monkeypatch, capsys)
    assert "fx-mask" not in out and "3 card(s)." in out
    assert "learning" in out and "in 1 min" in out
    out = _run_piped(["stats"], "", monkeypatch, capsys)
    assert "cards in the bank: 4  (seen 4, never seen 0)" in out
    assert "reviews:           4  (again-rate 50%" in out
    # weakest first: chapter 3 had 2 "again" of 3 reviews, chapter 5 none
    assert out.index("03_scaling") < out.index("05_masking")
    assert "again 67% of 3 review(s), 0 lapse(s)" in out  # new cards failing are not lapses
    # 7-day forecast: all 4 cards are in learning, due within minutes, so all fall due today
    assert "due in the next 7 days (today first): 4 · 0 · 0 · 0 · 0 · 0 · 0  (4 in all)" in out


def test_export_anki_is_an_apkg_with_every_note_in_both_languages(env, tmp_path, capsys) -> None:
    path = tmp_path / "deck.apkg"
    assert main(["export-anki", str(path)]) == 0
    assert "wrote 4 notes" in capsys.readouterr().out
    assert zipfile.is_zipfile(path)
    with zipfile.ZipFile(path) as z:
        assert "collection.anki2" in z.namelist()
        (tmp_path / "col.anki2").write_bytes(z.read("collection.anki2"))
    con = sqlite3.connect(tmp_path / "col.anki2")
    notes = con.execute("SELECT flds, tags FROM notes").fetchall()
    decks = json.loads(con.execute("SELECT decks FROM col").fetchone()[0])
    models = json.loads(con.execute("SELECT models FROM col").fetchone()[0])
    n_cards = con.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    con.close()
    assert len(notes) == 4 and n_cards == 8  # one English and one 中文 card per note
    fields = {f.split("\x1f")[0]: f.split("\x1f") for f, _ in notes}
    assert set(fields) == set(FIXTURE_IDS)
    scale = fields["fx-scale"]
    assert "Why divide by the square root of d_k?" in scale and "问题 fx-scale？" in scale
    assert any("\\(\\sqrt{d_k}\\)" in f for f in scale)  # $..$ became MathJax for Anki
    assert str(ANKI_DECK_ID) in decks and str(ANKI_MODEL_ID) in models
    # misconceptions and follow-ups travel too (issue 15, point 11); the 中文 template speaks Chinese
    model = models[str(ANKI_MODEL_ID)]
    names = [f["name"] for f in model["flds"]]
    assert names[-4:] == ["Myths_en", "Myths_zh", "FollowUps_en", "FollowUps_zh"]
    assert "<i>Myth:</i> A misconception about fx-scale." in scale[names.index("Myths_en")]
    assert "What is the variance of q dot k?" in scale[names.index("FollowUps_en")]
    zh = next(t for t in model["tmpls"] if t["name"] == "中文")["afmt"]
    assert "面试时可以这样答" in zh and "spoken" not in zh and "常见误区" in zh
    # never overwritten silently
    before = path.read_bytes()
    assert main(["export-anki", str(path)]) == 1
    assert "exists; not overwriting it" in capsys.readouterr().err and path.read_bytes() == before
    assert main(["export-anki", str(path), "--force"]) == 0


def test_real_bank_lists_and_exports(tmp_path, monkeypatch, capsys) -> None:
    """Smoke test over the real bank: every card is listed and exported; a mock interview can start."""
    monkeypatch.delenv("ATTENTION_REHEARSE_CARDS", raising=False)
    monkeypatch.setenv("ATTENTION_REHEARSE_DB", str(tmp_path / "p.db"))
    cards = bank.load_cards()
    monkeypatch.setattr(bank, "load_cards", lambda directory=None: cards)  # parse the YAML once, not 4 times
    out = _run_piped(["list", "--plain", "--lang", "zh"], "", monkeypatch, capsys)
    assert f"共 {len(cards)} 张卡片。" in out
    assert all(c.id in out for c in cards)
    assert main(["export-anki", str(tmp_path / "real.apkg")]) == 0
    assert f"wrote {len(cards)} notes" in capsys.readouterr().out
    out = _run_piped(["mock", "--seed", "1", "--chapter", "4"], "\nq\n", monkeypatch, capsys)
    basic = bank.chapter_card(cards, "04_multi_head")
    assert "Q1/" in out and basic.id in out and "main question" in out


# -- usage errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, needles",
    [
        (["--chapter", "99"], ["unknown chapter '99'", "1 (01_flow)", "12 (12_attention_at_scale)"]),
        (["study", "--chapter", "attention"], ["unknown chapter 'attention'", "3 (03_scaling)"]),
        (["--lang", "fr"], ["argument --lang: invalid choice: 'fr'", "'en'", "'zh'"]),
        (["--limit", "-1"], ["argument --limit", "must be >= 1, got -1"]),
        (["--new", "many"], ["argument --new", "expected a whole number >= 0, got 'many'"]),
        (["mock", "--budget", "0"], ["argument --budget", "must be a number of seconds > 0"]),
        (["drill", "flash"], ["unknown drill 'flash'", "sdpa", "kv_cache", "alibi"]),
        (["drill"], ["give a NAME or --list", "mha"]),
        (["rehearse"], ["invalid choice: 'rehearse'", "study", "mock"]),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(env, capsys, argv, needles) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: attention-rehearse")
    for needle in needles:
        assert needle in err


def test_bad_now_environment_variable(env, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "yesterday")
    with pytest.raises(SystemExit) as exc:
        main(["list"])
    assert exc.value.code == 2
    assert "ATTENTION_REHEARSE_NOW: not an ISO 8601 timestamp: 'yesterday'" in capsys.readouterr().err


def test_bad_arguments_in_a_terminal(env, term) -> None:
    t = _spawn(term, ["--lang", "fr"])
    t.expect(r"invalid choice: 'fr'")
    code, _ = t.finish()
    assert code == 2


def test_help_explains_the_typed_answer_check() -> None:
    text = " ".join(build_parser().format_help().split())
    assert "only by a clause that states it" in text and "reads patterns, not understanding" in text
    assert '"we do not scale by sqrt(d_k)" ticks nothing' in text  # the old help said it covers the point
    for cmd in ("study", "mock", "list", "stats", "export-anki", "drill", "grade"):
        assert cmd in text


def test_resolve_chapter_and_terminal_text() -> None:
    assert resolve_chapter("3") == resolve_chapter("03") == resolve_chapter("scaling") == "03_scaling"
    assert resolve_chapter("09_DOT_VS_ADDITIVE") == "09_dot_vs_additive"
    with pytest.raises(ValueError, match="unknown chapter '0'"):
        resolve_chapter("0")
    assert terminal_text(r"$\operatorname{softmax}(QK^\top/\sqrt{d_k})V$ costs $O(n^2 d)$") == (
        "softmax(QKᵀ/√d_k)V costs O(n^2 d)"
    )
    assert terminal_text("no math, 5 dollars") == "no math, 5 dollars"


# -- small breakages (issue 15, point 6) -----------------------------------------------------------------
def test_list_into_a_closed_pipe_exits_quietly(env) -> None:
    """`list | head -1`: the reader is gone before we write; no BrokenPipeError traceback, every time."""
    for command in (["list"], ["stats"]):
        r, w = os.pipe()
        os.close(r)  # the reader left: every write fails (deterministic, unlike a race with head)
        proc = subprocess.run(
            [sys.executable, "-m", "selfattention.rehearse", *command, "--plain"], stdout=w,
            stderr=subprocess.PIPE, text=True, env=dict(os.environ), timeout=120,
        )
        os.close(w)
        assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
        assert proc.returncode == 141, (proc.returncode, proc.stderr)


def test_empty_db_path_is_an_error_not_the_default_file(env, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["list", "--db", ""])
    assert info.value.code == 2
    assert "argument --db: empty path" in capsys.readouterr().err


def test_help_epilog_is_not_repeated_under_each_subcommand(capsys) -> None:
    top = build_parser().format_help()
    assert "typed-answer" in top or "keyword" in top
    for command in ("list", "stats", "mock", "grade"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert text.count("Examples") == 0 and "each key point counts" not in text, command
        assert "`attention-rehearse --help` explains" in text


def test_arrow_keys_edit_the_typed_line(env) -> None:
    """Left arrow moves the cursor (readline), so 'root' then 4 x Left then 'no ' reads 'no root'
    (a negated keyword: not covered); without line editing the escape codes land in the answer."""
    # the real program (a forked pytest child may already have readline loaded by pytest itself)
    child = pexpect.spawn(
        sys.executable, ["-m", "selfattention.rehearse", "--limit", "1"], env=dict(os.environ),
        encoding="utf-8", timeout=60, dimensions=(40, 120),
    )
    try:
        child.expect(r"Enter on an empty line reveals")
        child.send("root" + "\x1b[D" * 4 + "no \r")
        child.sendline("")
        child.expect(r"(.) Point 1 of fx-scale about sqrt")  # "no root": negated, not ticked
        assert child.match.group(1) == "✗"
        child.expect(r"How did it go\?")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


# -- Chinese interface at 80 columns (issue 15, point 8) -------------------------------------------------
def display_width(text: str) -> int:
    """Terminal columns (measured here, not by the code under test): wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_chinese_mode_at_80_columns_is_translated_and_wrapped(env, tmp_path) -> None:
    """--lang zh on a real 80-column terminal: interface strings in Chinese, every line fits in 80 display
    columns (a Chinese character is two), no line starts with closing punctuation, hanging indents."""
    e = {**os.environ, "COLUMNS": "80"}
    e.pop("ATTENTION_REHEARSE_CARDS")  # the real bank: long Chinese text
    child = pexpect.spawn(
        sys.executable, ["-m", "selfattention.rehearse", "--lang", "zh", "--chapter", "5", "--limit", "1"],
        env=e, encoding="utf-8", timeout=60, dimensions=(50, 80),
    )
    child.logfile_read = log = io.StringIO()
    try:
        child.expect("空行回车显示答案")
        child.sendline("")
        child.expect("答得怎么样")
        child.sendline("3")
        child.expect("第 5 章")
        child.expect("再次（上次：良好）")  # due again in 10 min: the card comes back in this session
        child.sendline("")
        child.expect("答得怎么样")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    transcript = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", log.getvalue())
    assert child.exitstatus == 0
    assert "已保存（良好）" in transcript and "完成：本次保存了 1 个回答。" in transcript
    lines = transcript.replace("\r", "").splitlines()
    assert lines and all(display_width(ln) <= 80 for ln in lines), max(lines, key=display_width)
    starts = [ln for ln in lines if ln.strip()[:1] in set("，。、；：？！）")]
    assert not starts, starts
    # a key point that wraps keeps a hanging indent: its next line starts with 4 spaces, not at column 0
    i = next(j for j, ln in enumerate(lines) if re.match(r" \d • ", ln) and display_width(ln) > 70)
    assert lines[i + 1].startswith("     ") and lines[i + 1].strip()[:1] != "•", lines[i : i + 2]


def test_list_at_80_columns_shows_every_id_whole_and_one_line_per_question(env) -> None:
    e = {**os.environ, "COLUMNS": "80"}
    e.pop("ATTENTION_REHEARSE_CARDS")
    child = pexpect.spawn(
        sys.executable, ["-m", "selfattention.rehearse", "list"], env=e, encoding="utf-8", timeout=60,
        dimensions=(50, 80),
    )
    child.logfile_read = log = io.StringIO()
    child.expect(pexpect.EOF)
    child.close()
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", log.getvalue()).replace("\r", "").splitlines()
    ids = [c.id for c in bank.load_cards()]
    assert all(display_width(ln) <= 80 for ln in lines), max(lines, key=display_width)
    firsts = [ln.split()[0] for ln in lines if ln and not ln.startswith(" ")]
    assert firsts[: len(ids)] == ids  # every id whole, in bank order, on a line of its own
    assert lines[-1].strip() == f"{len(ids)} card(s)."
    assert len([ln for ln in lines if ln.strip()]) == 2 * len(ids) + 1  # one line per question



def test_learning_steps_summary_and_per_day_new_limit(env, monkeypatch, capsys) -> None:
    """A card rated again comes back in the same session (not a lapse); the session ends with a breakdown;
    new cards started earlier today count against --new."""
    out = _run_piped(["--plain", "--limit", "1", "--new", "2"], "\n1\n\n3\n\nq\n", monkeypatch, capsys)
    assert out.count("fx-scale") >= 3 and "[2/2] ch.3 · basic · fx-scale · back (last: again)" in out
    assert "This session: again 1 · hard 0 · good 1 · easy 0 · 0 min 0 s in all." in out
    reviews, cards = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1]) for r in reviews] == [("fx-scale", 1), ("fx-scale", 3)]
    assert cards["fx-scale"][3] == 0
    # later the same day: one new card was started, so --new 2 leaves room for exactly one more
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(hours=3)).isoformat())
    out = _run_piped(["--plain", "--new", "2"], "\n3\n\nq\n\nq\n", monkeypatch, capsys)
    assert "(1 due, 1 new)" in out



def test_mock_with_no_schedule_saves_nothing(env, monkeypatch, capsys) -> None:
    out = _run_piped(["mock", "--chapter", "scaling", "--seed", "0", "--no-schedule", "--plain"],
                     "\n3\n\n3\n\n3\n", monkeypatch, capsys)
    assert "--no-schedule: nothing is saved." in out and out.count("Not saved to your schedule (good)") == 3
    assert "What is the variance of q dot k? (fx-variance)" in out  # the summary names the questions
    reviews, cards = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert reviews == [] and cards == {}



def test_mock_follow_ups_stay_on_the_main_question_s_topic() -> None:
    """Every chapter's mock chain uses the chapter's own reachable follow-ups before any other chapter."""
    from selfattention.interview.session import _mock_chain

    cards = bank.load_cards()
    by_id = {c.id: c for c in cards}
    for slug in bank.CHAPTERS:
        first = bank.chapter_card(cards, slug)
        reach, todo = set(), [first.id]  # follow-up links inside the chapter, computed here
        while todo:
            cid = todo.pop()
            if cid not in reach:
                reach.add(cid)
                todo += [f for f in by_id[cid].follow_ups if by_id[f].chapter == slug]
        chain = _mock_chain(first, cards, 4)
        in_chapter = [c.chapter == slug for c in chain]
        k = min(4, len(reach))
        assert in_chapter[:k] == [True] * k, (slug, [c.id for c in chain])



def test_time_up_alert_keeps_the_line_being_typed(env) -> None:
    """The mock time-up alert prints on its own line, then redraws the prompt with what was typed so far."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "selfattention.rehearse", "mock", "--chapter", "3", "--budget", "1", "--seed", "0"],
        env=dict(os.environ), encoding="utf-8", timeout=60, dimensions=(40, 120),
    )
    try:
        child.expect(r"Enter on an empty line reveals\) ")
        child.send("the variance")
        child.expect(r"1 s are up: wrap up your answer\.")
        child.expect(r"\(answer aloud or type; Enter on an empty line reveals\) the variance")
        child.send(" grows\r")
        child.sendline("")
        child.expect(r"How did it go\?")
        child.send("s")  # in a terminal the matched clauses come with s
        child.expect(r"you wrote: “the variance grows”")  # the line stayed one answer
        child.expect(r"How did it go\?")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


# -- list and stats in Chinese; one "due now" label (issue 15, points 8 and 7) ----------------------------
_ENGLISH_UI = re.compile(
    r"card\(s\)|\b(?:id|chapter|level|state|due|question|new|learning|review|basic|follow-up|deep|"
    r"cards in the bank|seen|learned|reviews|again-rate|lapses?|Weakest|Progress|parameters|defaults|"
    r"in all|now|min|days)\b"
)


def _terminal(argv: list[str], env: dict[str, str], cols: int) -> list[str]:
    """The real command on a pseudo-terminal ``cols`` wide (pexpect); its screen lines, escapes removed."""
    child = pexpect.spawn(
        sys.executable, ["-m", "selfattention.rehearse", *argv], env={**os.environ, "COLUMNS": str(cols)},
        encoding="utf-8", timeout=60, dimensions=(50, cols),
    )
    child.logfile_read = log = io.StringIO()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, log.getvalue()
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", log.getvalue()).replace("\r", "").splitlines()


def _english_left(lines: list[str]) -> list[str]:
    """English interface words left on the screen once card ids, chapter slugs and `commands` are removed."""
    text = "\n".join(lines)
    for cid in FIXTURE_IDS:
        text = text.replace(cid, "")
    text = re.sub(r"\b\d\d_[a-z_]+\b|`[^`]*`|py-fsrs \S+|FSRS|UTC|--\w+", "", text)
    return _ENGLISH_UI.findall(text)


def test_list_and_stats_speak_chinese_in_a_terminal(env, monkeypatch, capsys) -> None:
    """--lang zh: every interface string of `list` and `stats` in Chinese, at 80 and 120 columns, each
    line within the terminal's width (a Chinese character is two columns)."""
    _run_piped(["--plain", "--limit", "3"], "\n3\n\n1\n\n4\n", monkeypatch, capsys)  # good, again, easy
    for cols in (80, 120):  # 80: two lines per card; 120: the table
        lines = _terminal(["list", "--lang", "zh"], env, cols)
        text = "\n".join(lines)
        assert all(display_width(ln) <= cols for ln in lines), max(lines, key=display_width)
        assert lines[-1].strip() == "共 4 张卡片。"
        assert "学习中" in text and "复习中" in text and "新卡" in text and "基础" in text and "追问" in text
        assert "10 分钟后" in text and "1 分钟后" in text
        assert "问题 fx-scale？" in text
        if cols == 120:
            assert all(h in text for h in ("编号", "章节", "难度", "状态", "到期", "问题"))
        assert not _english_left(lines), _english_left(lines)
    lines = _terminal(["stats", "--lang", "zh"], env, 80)
    text = "\n".join(lines)
    assert all(display_width(ln) <= 80 for ln in lines), max(lines, key=display_width)
    for needle in ("学习进度", "题库卡片：", "4（学过 3，没学过 1）", "现在到期：", "已掌握：", "复习次数：",
                   "重来率 33%", "FSRS 参数：", "默认参数", "未来 7 天到期（从今天起）：", "最薄弱的章节",
                   "3 次复习中重来 33%，遗忘 0 次"):
        assert needle in text, needle
    assert not _english_left(lines), _english_left(lines)
    # and English stays English
    lines = _terminal(["stats"], env, 80)
    assert "cards in the bank: 4  (seen 3, never seen 1)" in "\n".join(lines)


@pytest.mark.parametrize("lang, label, summary", [
    ("en", "due now", "Next due: fx-variance due now (2026-01-05 09:01 UTC)."),
    ("zh", "现在到期", "下一张到期：fx-variance，现在到期（2026-01-05 09:01 UTC）。"),
])
def test_one_due_now_label_in_list_stats_and_study(env, monkeypatch, capsys, lang, label, summary) -> None:
    """A card that is due reads the same in `list`, `stats` and the end of a study session; a card due in
    30 s is not called due (study would not show it)."""
    _run_piped(["--plain", "--limit", "2"], "\n1\n\n1\n", monkeypatch, capsys)  # both "again": due 09:01
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(seconds=30)).isoformat())
    out = _run_piped(["list", "--plain", "--lang", lang], "", monkeypatch, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("fx-variance"))
    assert ("in 1 min" if lang == "en" else "1 分钟后") in row and label not in row
    out = _run_piped(["--plain", "--new", "0", "--lang", lang], "", monkeypatch, capsys)
    # study takes learning cards due within 20 min (Anki's learn-ahead), though list does not call them due
    assert ("2 card(s) to rehearse (2 due" if lang == "en" else "本次复习 2 张卡片（2 张到期") in out
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(minutes=5)).isoformat())
    out = _run_piped(["list", "--plain", "--lang", lang], "", monkeypatch, capsys)
    row = next(ln for ln in out.splitlines() if ln.startswith("fx-variance"))
    assert re.search(rf"\s{label}\s", row), row
    out = _run_piped(["stats", "--lang", lang], "", monkeypatch, capsys)
    assert re.search(rf"^{label}[:：]\s*2", out, re.M), out
    # study one of the two due cards (easy): the summary says the other one is due, with the same label
    out = _run_piped(["--plain", "--new", "0", "--limit", "1", "--lang", lang], "\n4\n", monkeypatch, capsys)
    assert summary in out, out


def test_mock_interview_speaks_chinese_in_a_terminal(env, term) -> None:
    """--lang zh in a mock interview: intro, headers, over-budget warning, summary rows all in Chinese."""
    t = _spawn(term, ["mock", "--lang", "zh", "--seed", "1", "--chapter", "3", "--budget", "0.5"])
    t.expect("模拟面试：")
    t.expect("主问题")
    t.expect("面试官")
    t.expect("空行回车显示答案")
    t.expect("秒到了")  # the 0.5 s alert, then reveal: over budget
    t.sendline("")
    t.expect("超时")
    t.expect("答得怎么样")
    t.sendline("3")
    t.expect("追问")
    t.sendline("")
    t.expect("答得怎么样")
    t.sendline("q")
    t.expect("模拟面试小结")
    t.expect(r"问题 fx-scale？（fx-scale）：\d+ 秒，超时，自评良好")
    t.expect(r"1 个回答中有 1 个超过了 0\.5 秒。")
    code, rest = t.finish()
    assert code == 0
    out = t.child.before + rest
    for english in ("Mock interview", "main question", "follow-up", "rated", "OVER BUDGET", "answer(s)"):
        assert english not in out, english
