"""The daily loop (issue 20, point 6): each defect found in tmux at 80x24, with a test that failed on the code
before the fix, and the Anki-style rating (interval previews, one key, Enter = good, 中文 labels, undo),
the local day rollover and the automatic backups.

Terminal tests use a forked child on a pty (``Term`` from test_rehearse_cli) or tmux at 80x24.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import pexpect
import pytest
import test_rehearse_cli as _cli

from selfattention.interview import bank
from selfattention.interview.grader import CheckResult, GradeReport, format_report
from selfattention.interview.rehearse import main
from selfattention.interview.render import UI, _human_delta, terminal_text
from selfattention.interview.store import Store

T0, _db_rows, _run_piped, _spawn = _cli.T0, _cli._db_rows, _cli._run_piped, _cli._spawn
cards_dir, env, term = _cli.cards_dir, _cli.env, _cli.term  # the fixtures (a fixture bank, pinned now, a pty)


def _err_line(capsys: pytest.CaptureFixture) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err  # one clear line
    return lines[0]


# -- export-anki and drill: a folder or an unwritable place is one clear line, exit 1 ----------------------
def test_export_anki_to_a_folder_or_an_unwritable_place_is_one_line(env, tmp_path, capsys) -> None:
    folder = tmp_path / "decks"
    folder.mkdir()
    assert main(["export-anki", str(folder), "--force"]) == 1
    assert f"cannot write {folder}: it is a folder" in _err_line(capsys)
    assert main(["export-anki", "/proc/attention.apkg"]) == 1  # /proc refuses new files, even to root
    assert "attention-rehearse: error: cannot write /proc/attention.apkg" in _err_line(capsys)
    assert main(["--lang", "zh", "export-anki", str(folder), "--force"]) == 1
    assert f"attention-rehearse：错误：无法写入 {folder}：这是一个文件夹" in _err_line(capsys)


def test_drill_to_a_folder_or_an_unwritable_place_is_one_line(tmp_path, capsys) -> None:
    assert main(["drill", "sdpa", "--out", str(tmp_path), "--force"]) == 1
    assert f"cannot write {tmp_path}: it is a folder" in _err_line(capsys)
    assert main(["drill", "sdpa", "--out", "/proc/drill.py"]) == 1
    assert "attention-rehearse: error: cannot write /proc/drill.py" in _err_line(capsys)
    assert main(["--lang", "zh", "drill", "sdpa", "--out", str(tmp_path / "d.py")]) == 0
    assert "已把练习 'sdpa'" in capsys.readouterr().out and (tmp_path / "d.py").exists()


# -- a locked file: the message at once, Ctrl-C at once ---------------------------------------------------
def test_locked_file_says_so_at_once_and_ctrl_c_stops_the_wait_at_once(tmp_path) -> None:
    db = tmp_path / "p.sqlite3"
    sched = fsrs.Scheduler(enable_fuzzing=False)
    with Store(db) as s:
        card, _ = sched.review_card(s.fsrs_card("a", T0), fsrs.Rating.Good, review_datetime=T0)
        s.record("a", "01_flow", card, 3, T0, 1.0, "study", "en")
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta VALUES ('other-writer', 'x')")
    busy_at: list[float] = []
    t0 = time.monotonic()
    timer = threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    # a process started in the background by a shell ignores SIGINT (then Python installs no handler and the
    # wait never ends): Ctrl-C's own handler for this test, and the lock released at 15 s whatever happens
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    guard = threading.Timer(15.0, lambda: other.execute("ROLLBACK"))
    guard.daemon = timer.daemon = True
    store = Store(db)
    try:
        timer.start()
        guard.start()
        with pytest.raises(KeyboardInterrupt):
            store.record("a", "01_flow", card, 3, T0, 1.0, "study", "en",
                         on_busy=lambda n: busy_at.append(time.monotonic() - t0))
        stopped = time.monotonic() - t0
    finally:
        timer.cancel()
        guard.cancel()
        signal.signal(signal.SIGINT, was)
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()
        store.close()
    assert busy_at and busy_at[0] < 1.0, busy_at  # was 10 s: SQLite's busy timeout ran first, silently
    assert stopped < 3.0, stopped  # Ctrl-C at 2 s stops within a second (was ~10 s: blocked in C)


# -- the local day: rollover at 4 am local (configurable), times in local time -----------------------------
@pytest.fixture()
def beijing(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def test_new_card_day_turns_at_4_am_local_not_at_utc_midnight(env, monkeypatch, capsys, beijing) -> None:
    # 07:30 in Beijing (23:30 UTC the day before): one new card
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-01-04T23:30:00+00:00")
    out = _run_piped(["--plain", "--new", "1", "--limit", "1"], "\n4\n", monkeypatch, capsys)
    assert "(0 due, 1 new)" in out
    assert "(2026-01-" in out and " CST)" in out and " UTC)" not in out  # the next review in local time
    # 08:30 in Beijing (00:30 UTC): the UTC day turned, the user's day did not: no second batch
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-01-05T00:30:00+00:00")
    out = _run_piped(["--plain", "--new", "1"], "", monkeypatch, capsys)
    assert "new" not in out.split("\n")[0] or "(0 due, 1 new)" not in out
    assert "daily limit (--new 1) is used up: 1 started today" in out, out
    assert "2026-01-06 04:00 CST" in out  # when the day turns
    # 04:30 the next morning (20:30 UTC): a new day, a new card
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-01-05T20:30:00+00:00")
    out = _run_piped(["--plain", "--new", "1", "--limit", "1"], "", monkeypatch, capsys)
    assert "(0 due, 1 new)" in out, out
    # --day-starts 6: at 05:30 the day has not turned yet
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-01-05T21:30:00+00:00")
    with Store(env["ATTENTION_REHEARSE_DB"]) as s:
        assert s.new_today(datetime(2026, 1, 5, 20, 0, tzinfo=UTC), 4) == 0
        assert s.new_today(datetime(2026, 1, 5, 19, 0, tzinfo=UTC), 4) == 1  # 03:00: still Jan 5's day
        assert s.new_today(datetime(2026, 1, 5, 21, 30, tzinfo=UTC), 6) == 1  # 05:30 < 06:00


# -- the new-card limit: explained when it blocks; cards first met in mock do not count --------------------
def test_new_card_limit_is_explained_and_mock_does_not_use_it(env, monkeypatch, capsys) -> None:
    argv = ["mock", "--chapter", "3", "--seed", "0", "--rounds", "1", "--plain"]
    out = _run_piped(argv, "\n3\n", monkeypatch, capsys)
    assert out.count("Saved (good)") == 1  # fx-scale: a new card first met in a mock interview today
    out = _run_piped(["--plain", "--new", "1", "--chapter", "3"], "\n4\n\n4\n", monkeypatch, capsys)
    assert "2 card(s) to rehearse (1 due, 1 new)" in out, out  # the mock did not use the day's new card
    out = _run_piped(["--plain", "--new", "1", "--chapter", "3"], "", monkeypatch, capsys)
    assert "Nothing is due right now." in out
    assert "daily limit (--new 1) is used up: 1 started today in study; 1 more wait" in out, out
    assert "or now with --new 2" in out
    assert "(1 card(s) first met in a mock interview today do not count.)" in out


# -- one interval formatter -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("delta", "en", "zh"),
    [
        (timedelta(minutes=59, seconds=50), "in 1 h", "1 小时后"),
        (timedelta(hours=23, minutes=40), "in 1 day", "1 天后"),
        (timedelta(days=1), "in 1 day", "1 天后"),
        (timedelta(hours=30), "in 1 day", "1 天后"),
        (timedelta(days=3), "in 3 days", "3 天后"),
        (timedelta(minutes=10), "in 10 min", "10 分钟后"),
    ],
)
def test_one_interval_formatter(delta, en, zh) -> None:
    assert _human_delta(delta, "en") == en and _human_delta(delta, "zh") == zh


# -- Chinese everywhere under --lang zh ------------------------------------------------------------------
def test_chinese_rating_labels_headers_and_ctrl_c(env, monkeypatch, capsys, term) -> None:
    out = _run_piped(["--plain", "--lang", "zh", "--limit", "2"], "\n良好\n\n重来\n", monkeypatch, capsys)
    assert "已保存（良好）" in out and "已保存（重来）" in out
    assert "[1/2] 第 3 章 · 基础 · fx-scale" in out and "ch." not in out
    t = _spawn(term, ["--lang", "zh", "--limit", "1"])
    t.expect("空行回车显示答案")
    t.send("\x03")  # Ctrl-C typed into the terminal, once the answer prompt reads (Term.waiting_for_input)
    t.expect("进度已保存：本次 0 个回答")
    code, _ = t.finish()
    assert code == 130


def test_grade_report_in_chinese_and_wrapped_at_word_boundaries(tmp_path) -> None:
    msg = "the scores were not divided by sqrt(d_k) before the softmax, so wide heads saturate immediately"
    report = GradeReport(tmp_path / "x.py", "sdpa", [CheckResult("file loads", "pass"),
                                                     CheckResult("matches torch", "fail", msg)])
    text = format_report(report, plain=False, lang="zh", width=60)
    assert "通过 1/2 项检查" in text and "评分 x.py" in text
    lines = text.splitlines()
    assert all(len(ln) <= 60 for ln in lines), lines
    words = set(msg.split())
    fail = [ln for ln in lines if ln.startswith("      ")]
    assert len(fail) >= 2 and all(w in words for ln in fail for w in ln.replace("->", "").split())


# -- wrapping at word boundaries: --help epilog and drill --list at 80 columns -----------------------------
def _words_whole(lines: list[str], source: str) -> None:
    words = set(source.split())
    broken = [w for ln in lines for w in ln.split() if w not in words]
    assert not broken, broken[:5]


def test_help_epilog_and_drill_list_wrap_at_word_boundaries(monkeypatch, capsys) -> None:
    from selfattention.interview.cli import _epilog

    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    lines = out.split("how it works:")[1].splitlines()
    assert all(len(ln) <= 80 for ln in lines), max(lines, key=len)
    monkeypatch.setenv("COLUMNS", "400")
    _words_whole(lines, _epilog())
    child = pexpect.spawn(sys.executable, ["-m", "selfattention.rehearse", "drill", "--list"],
                          env={**os.environ, "COLUMNS": "80"}, encoding="utf-8", timeout=60,
                          dimensions=(24, 80))
    child.expect(pexpect.EOF)
    child.close()
    lines = child.before.replace("\r", "").splitlines()
    assert lines and all(len(ln) <= 80 for ln in lines), max(lines, key=len)
    from selfattention.interview.drills import DRILLS

    _words_whole(lines, " ".join(f"{d.name} {d.title}: {d.summary}" for d in DRILLS.values()))


# -- --cards with one copied chapter; YAML errors name the file --------------------------------------------
def test_one_copied_chapter_loads_and_yaml_errors_name_the_file(tmp_path) -> None:
    d = tmp_path / "mine"
    d.mkdir()
    shutil.copy(bank.CARDS_DIR / "03_scaling.yaml", d)
    full = {c.id: c for c in bank.load_cards()}
    crossing = [c for c in full.values() if c.chapter == "03_scaling"
                and any(full[f].chapter != "03_scaling" for f in c.follow_ups)]
    assert crossing  # the bank's chapter 3 has a follow-up into another chapter
    cards = bank.load_cards(d)
    assert {c.chapter for c in cards} == {"03_scaling"}
    assert all(f in {c.id for c in cards} for c in cards for f in c.follow_ups)
    bad = d / "zz_typo.yaml"
    bad.write_text("- id: x\n  question: {en: [unclosed\n", encoding="utf-8")
    with pytest.raises(bank.BankError) as info:
        bank.load_cards(d)
    assert str(bad) in str(info.value) and "<unicode string>" not in str(info.value)
    bad.write_text((bank.CARDS_DIR / "03_scaling.yaml").read_text(encoding="utf-8").replace(
        "follow_ups: [", "follow_ups: [no-such-card, ", 1), encoding="utf-8")
    (d / "03_scaling.yaml").unlink()
    with pytest.raises(bank.BankError, match="no-such-card"):  # a typo in a follow-up still fails
        bank.load_cards(d)


# -- a refused database gets nothing created beside it -----------------------------------------------------
@pytest.mark.parametrize("command", [["stats"], ["list"], []])
def test_refused_database_gets_no_wal_or_shm_files(tmp_path, capsys, command) -> None:
    db = tmp_path / "p.sqlite3"
    with Store(db):
        pass
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    before = sorted(os.listdir(tmp_path))
    assert main([*command, "--db", str(db), "--plain"]) == 1
    assert "newer than this program understands" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == before == ["p.sqlite3"]


# -- undo of the last rating -------------------------------------------------------------------------------
def test_undo_takes_back_the_last_rating_and_asks_again(env, monkeypatch, capsys) -> None:
    out = _run_piped(["--plain", "--limit", "2"], "\n3\n\nu\n\n1\n\nq\n", monkeypatch, capsys)
    assert "Undone: fx-scale (good) is taken back; it is asked again." in out
    assert out.count("== [1/2] ch.3 · basic · fx-scale ==") == 2 and "back (last: good)" not in out
    reviews, cards = _db_rows(env["ATTENTION_REHEARSE_DB"])
    assert [(r[0], r[1]) for r in reviews] == [("fx-scale", 1)]  # the good is gone, the again stays
    assert datetime.fromisoformat(cards["fx-scale"][0]) == T0 + timedelta(minutes=1)
    assert "fx-variance" not in cards
    out = _run_piped(["--plain", "--limit", "1", "--chapter", "5"], "\nu\nq\n", monkeypatch, capsys)
    assert "Nothing to undo yet." in out  # the first card of a session: nothing of this session to undo


# -- automatic backups -------------------------------------------------------------------------------------
def test_progress_file_is_backed_up_before_each_session_keeping_five(env, monkeypatch, capsys) -> None:
    db = Path(env["ATTENTION_REHEARSE_DB"])
    for k in range(7):
        monkeypatch.setenv("ATTENTION_REHEARSE_NOW", (T0 + timedelta(days=k)).isoformat())
        _run_piped(["--plain", "--limit", "1", "--new", "1"], "\n3\n", monkeypatch, capsys)
    copies = sorted((db.parent / "backups").glob("progress-*.sqlite3"))
    assert [c.name for c in copies] == [f"progress-202601{6 + k:02d}-090000.sqlite3" for k in range(1, 6)]
    con = sqlite3.connect(copies[-1])
    assert con.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 6  # taken before the 7th session
    con.close()


# -- one key rates; Enter = good; interval previews --------------------------------------------------------
def test_one_key_rates_without_enter_and_enter_is_good(env, term) -> None:
    t = _spawn(term, ["--limit", "2"])
    t.expect(r"Enter on an empty line reveals")
    t.sendline("")
    t.expect(r"1 again 1 min  2 hard 6 min  3 good 10 min  4 easy \d+ days? >")
    t.send("4")  # no Enter
    t.child.expect(r"Saved \(easy\)", timeout=5)
    t.expect(r"Enter on an empty line reveals")
    t.sendline("")
    t.expect(r"How did it go\?")
    t.send("\r")
    t.child.expect(r"Saved \(good\)", timeout=5)
    t.expect(r"back \(last: good\)")  # due in 10 min: it comes back; stop there
    t.sendline("")
    t.expect(r"How did it go\?")
    t.send("q")
    code, _ = t.finish()
    assert code == 0
    reviews, _ = _db_rows(os.environ["ATTENTION_REHEARSE_DB"])
    assert [r[1] for r in reviews] == [4, 3]


# -- the reveal fits 80x24: question, short answer, key points and the rating prompt on one screen (tmux) --
def _tmux_screen(tmp_path: Path, lang: str, chapter: str, typed: str) -> list[str]:
    sock = f"rehearse-{os.getpid()}-{lang}"
    env = {k: v for k, v in os.environ.items() if k != "ATTENTION_REHEARSE_CARDS"}
    env["ATTENTION_REHEARSE_DB"] = str(tmp_path / f"{lang}.sqlite3")
    env.pop("COLUMNS", None)
    cmd = f"{sys.executable} -m selfattention.rehearse --chapter {chapter} --limit 1 --lang {lang}; sleep 30"
    tm = ["tmux", "-L", sock]
    subprocess.run([*tm, "new-session", "-d", "-s", "s", "-x", "80", "-y", "24", cmd], env=env, check=True)
    try:
        prompt = "How did it go?" if lang == "en" else "答得怎么样"
        reveal = "Enter on an empty line" if lang == "en" else "空行回车"

        def screen() -> list[str]:
            return subprocess.run([*tm, "capture-pane", "-p", "-t", "s"], capture_output=True, text=True,
                                  check=True).stdout.splitlines()

        def wait(needle: str) -> list[str]:
            for _ in range(300):
                lines = screen()
                if any(needle in ln for ln in lines):
                    return lines
                time.sleep(0.1)
            raise AssertionError(f"{needle!r} never shown:\n" + "\n".join(screen()))

        wait(reveal)
        subprocess.run([*tm, "send-keys", "-t", "s", "-l", typed], check=True)
        subprocess.run([*tm, "send-keys", "-t", "s", "Enter", "Enter"], check=True)
        wait(prompt)
        time.sleep(0.3)
        lines = screen()
        while lines and not lines[-1].strip():
            lines.pop()
        return lines
    finally:
        subprocess.run([*tm, "kill-server"], capture_output=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize(("lang", "chapter", "typed"), [
    ("en", "3", "we divide by sqrt d_k so the variance stays 1"),
    ("zh", "3", "除以根号d_k，让方差回到1"),
    ("en", "12", "flash attention recomputes the scores in the backward pass"),
])
def test_reveal_and_rating_prompt_fit_on_one_80x24_screen(tmp_path, lang, chapter, typed) -> None:
    lines = _tmux_screen(tmp_path, lang, chapter, typed)
    assert len(lines) <= 24
    card = next(c for c in bank.load_cards() if c.chapter.startswith(f"{int(chapter):02d}_")
                and c.level == "basic")
    text = "\n".join(lines)
    label = "Question: " if lang == "en" else "问题："
    assert any(ln.startswith(label + terminal_text(card.question[lang])[:10]) for ln in lines), text
    assert ("Short answer" if lang == "en" else "简短回答") in text
    n_points = len(card.key_points[lang])
    assert all(any(ln.startswith(f"{i:>2} ") for ln in lines) for i in range(1, n_points + 1)), text
    assert lines[-1].startswith("How did it go?" if lang == "en" else "答得怎么样") or any(
        ln.startswith("How did it go?" if lang == "en" else "答得怎么样") for ln in lines[-2:]), text


def test_every_card_s_reveal_fits_24_rows_at_80_columns() -> None:
    """Every card of the bank, both languages: header, question, a one-line typed answer, the short answer,
    the numbered checklist and the rating prompt take at most 24 rows at 80 columns (rows counted here)."""
    import io

    from rich.console import Console

    from selfattention.interview import session as S

    cards = bank.load_cards()
    rows = {}
    for lang in ("en", "zh"):
        for c in cards:
            ui = UI(False, lang)
            buf = io.StringIO()
            ui.console = Console(file=buf, width=80, highlight=False, soft_wrap=False, color_system=None)
            ui.rule(f"[20/20] ch.12 · follow-up · {c.id} · back (last: again)")
            ui.say(("Question: " if lang == "en" else "问题：") + terminal_text(c.question[lang]))
            S._show_reveal(ui, c, lang, "a one-line answer", cards, 5.0)
            lines = buf.getvalue().splitlines()
            assert all(sum(2 if ord(ch) > 0x2E80 else 1 for ch in ln) <= 80 for ln in lines)
            rows[(lang, c.id)] = len(lines) + 3  # + the typed line, the empty line, the rating prompt
    over = {k: n for k, n in rows.items() if n > 24}
    assert not over, over
    assert max(rows.values()) >= 20  # the measure is not vacuous: the longest reveal is close to the limit


def test_plain_mock_summary_in_an_80_column_terminal_wraps_at_word_boundaries(tmp_path) -> None:
    """--plain in a real terminal (no rich): the mock summary and the rest wrap at word boundaries instead of
    being cut mid-word by the terminal."""
    e = {k: v for k, v in os.environ.items() if k != "ATTENTION_REHEARSE_CARDS"}
    e.update(ATTENTION_REHEARSE_DB=str(tmp_path / "p.sqlite3"), COLUMNS="80", NO_COLOR="1")
    child = pexpect.spawn(sys.executable, ["-m", "selfattention.rehearse", "mock", "--plain", "--chapter",
                                           "3",
                                           "--rounds", "2", "--seed", "1"],
                          env=e, encoding="utf-8", timeout=60, dimensions=(24, 80))
    for _ in range(2):
        child.expect("Enter on an empty line reveals")
        child.sendline("")
        child.expect("How did it go")
        child.sendline("3")
    child.expect(pexpect.EOF)
    child.close()
    text = child.before.replace("\r", "")
    summary = text.split("== Mock interview summary ==")[1].splitlines()
    assert all(len(ln) <= 80 for ln in text.splitlines()), max(text.splitlines(), key=len)
    cards = {c.id: c for c in bank.load_cards()}
    tail = "s, rated good 0 of 2 answer(s) over the 90 s budget."
    source = " ".join(f"{terminal_text(c.question['en'])} ({c.id}): {tail}" for c in cards.values())
    words = set(source.split()) | {f"{n}" for n in range(100)}
    broken = [w for ln in summary for w in ln.split() if w not in words and not w.rstrip(",").isdigit()]
    assert not broken, (broken, summary)


def test_blackboard_e_and_thin_spaces_read_in_a_terminal() -> None:
    text = r"$\mathbb{E}[q_i]\,\mathbb{E}[k_i] = 0$, $x \in \mathbb{R}^d$"
    assert terminal_text(text) == "E[q_i] E[k_i] = 0, x ∈ ℝ^d"  # was 'mathbbE[q_i]\\,mathbbE[k_i]'


def test_store_errors_are_in_chinese_under_lang_zh(tmp_path, capsys) -> None:
    db = tmp_path / "p.sqlite3"
    with Store(db):
        pass
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    assert main(["--lang", "zh", "--db", str(db), "--plain"]) == 1
    line = _err_line(capsys)
    assert line.startswith("attention-rehearse：错误：") and "格式版本是 '99'" in line, line
    assert main(["--lang", "zh", "--db", str(tmp_path), "--plain"]) == 1
    assert f"进度文件路径 {tmp_path} 是一个文件夹" in _err_line(capsys)


# -- the time-up reminder and Enter at the same moment -----------------------------------------------------
def test_time_up_reminder_racing_enter_is_safe(monkeypatch, capsys) -> None:
    """The reminder (a timer thread) reads the prompt, prints, then redraws the prompt and the typed text. If
    Enter ends the line while it prints, the main thread has set the prompt to None: the reminder must not
    add None to a string (a traceback in the user's terminal) nor redraw a prompt that no longer reads."""
    ui = UI(plain=True)
    fake_readline = type(sys)("readline")
    fake_readline.get_line_buffer = lambda: "half an answ"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "readline", fake_readline)
    printed = []

    def say(text: str = "", style: str | None = None) -> None:
        printed.append(text)
        ui._prompt = None  # Enter pressed while the reminder prints

    monkeypatch.setattr(ui, "say", say)
    ui._prompt = "> "
    ui.interrupt("time is up")
    assert printed == ["\ntime is up"]
    assert "half an answ" not in capsys.readouterr().out
    ui.say = lambda text="", style=None: printed.append(text)  # still at the prompt: it is redrawn
    ui._prompt = "> "
    ui.interrupt("time is up")
    assert capsys.readouterr().out == "> half an answ"

    def next_line(text: str = "", style: str | None = None) -> None:  # Enter, then the next "> " line is up
        ui._asked += 1

    ui.say = next_line
    ui.interrupt("time is up")  # the same prompt string, another line: the old buffer is not redrawn
    assert capsys.readouterr().out == ""


def test_an_answer_ended_when_the_reminder_fires_is_over_budget(env, monkeypatch, capsys) -> None:
    """The answer's clock and the reminder's are one: Enter pressed the moment "1 s are up" shows is over
    budget. (The answer's clock once started after the reminder's, so on a loaded machine such an answer
    measured 0.99 s: reminded, yet not over budget, and the mock summary said nothing.) Every call of the
    clock here takes 1 ms; the fake reminder fires, and Enter comes, exactly ``budget`` after it was set."""
    from selfattention.interview import session as session_mod

    clock = [1000.0]

    def monotonic() -> float:
        clock[0] += 0.001
        return clock[0]

    live: list[float] = []  # when the live reminder fires

    class Reminder:
        def __init__(self, interval: float, function) -> None:
            self.interval, self.function, self.daemon = interval, function, False
            live.append(monotonic() + interval)

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            live.clear()

    def ask(ui: UI, prompt: str) -> str | None:
        if live:  # the answer prompt: time runs to the reminder, which fires; then Enter
            clock[0] = live[0]
        return sys.stdin.readline().rstrip("\n")

    monkeypatch.setattr(session_mod.time, "monotonic", monotonic)
    monkeypatch.setattr(session_mod.threading, "Timer", Reminder)
    monkeypatch.setattr(UI, "ask", ask)
    monkeypatch.setattr(session_mod, "_read_key", lambda ui, prompt: ui.ask(prompt))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n2\n\n3\n\n3\n"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    capsys.readouterr()
    assert main(["mock", "--chapter", "scaling", "--budget", "1", "--seed", "0", "--no-schedule"]) == 0
    out = capsys.readouterr().out
    assert out.count("over budget: 1 s for a 1 s answer") == 3, out
    assert out.count("OVER BUDGET") == 3, out
