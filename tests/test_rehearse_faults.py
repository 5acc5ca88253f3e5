"""Faults in the progress file never cost a rating (issue 15, point 4).

Each fault is made for real: a read-only file (as an unprivileged user when the tests run as root, since root
writes through file modes), a read-only file system (a read-only bind mount in a user namespace),
a file another program keeps locked for longer than SQLite's 10 s busy timeout, and a damaged page inside our
own database. The session must refuse *before the first question* (read-only, damaged) with a clear message
and leave the file byte-identical, or wait and keep the rating (locked).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import fsrs
import pytest

import selfattention
from selfattention.interview.rehearse import main
from selfattention.interview.store import Store

SRC = str(Path(selfattention.__file__).resolve().parents[1])  # the package under test (also for children)
NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CLI = [sys.executable, "-m", "selfattention.rehearse"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _seed(db: Path, ids: tuple[str, ...] = ("flow-computation", "scaling-why-sqrt-dk")) -> None:
    """A real progress file with a few answers (closed: WAL checkpointed into the main file)."""
    sched = fsrs.Scheduler(enable_fuzzing=False)
    with Store(db) as s:
        for cid in ids:
            card, _ = sched.review_card(s.fsrs_card(cid, NOW), fsrs.Rating.Good, review_datetime=NOW)
            s.record(cid, "01_flow", card, 3, NOW, 5.0, "study", "en")


@pytest.fixture()
def shared_dir() -> Iterator[Path]:
    """A folder any user can traverse (pytest's tmp_path is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="rehearse-fault-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _env() -> dict[str, str]:
    return {
        **os.environ, "PYTHONPATH": SRC, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1",
        "ATTENTION_REHEARSE_NOW": NOW.isoformat(), "HOME": "/tmp",
    }


def _refused_before_asking(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert needle in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Question" not in proc.stdout and "How did it go" not in proc.stdout, proc.stdout


def test_read_only_file_is_refused_before_the_first_question(shared_dir: Path) -> None:
    db = shared_dir / "progress.sqlite3"
    _seed(db)
    db.chmod(0o444)
    before = _sha(db)
    prefix: list[str] = []
    if os.geteuid() == 0:  # root writes through 0444: answer as an unprivileged user (nobody) instead
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot make a file read-only for the session")
        shared_dir.chmod(0o777)
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    # the fault is real: that user cannot write the file
    probe = subprocess.run([*prefix, "sh", "-c", f"echo x >> {db}"], capture_output=True, text=True)
    assert probe.returncode != 0 and _sha(db) == before, probe
    proc = subprocess.run(
        [*prefix, *CLI, "--db", str(db), "--plain", "--limit", "1"], input="my answer\n\n3\n",
        capture_output=True, text=True, env=_env(), timeout=120,
    )
    _refused_before_asking(proc, f"progress database {db} is read-only (no write permission)")
    assert "nothing was asked and the file was left untouched" in proc.stderr
    assert _sha(db) == before


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs unshare -rm (user + mount namespaces)")
def test_read_only_file_system_is_named_and_stats_still_reads(shared_dir: Path) -> None:
    db = shared_dir / "progress.sqlite3"
    _seed(db)
    before = _sha(db)

    def run(args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        script = (
            f"mount --bind {shared_dir} {shared_dir} && mount -o remount,bind,ro {shared_dir} && "
            f"exec {sys.executable} -m selfattention.rehearse --db {db} --plain {args}"
        )
        return subprocess.run(
            ["unshare", "-rm", "sh", "-c", script], input=stdin, capture_output=True, text=True, env=_env(),
            timeout=120,
        )

    study = run("--limit 1", "my answer\n\n3\n")
    _refused_before_asking(study, f"progress database {db} is on a read-only file system")
    assert "has our header but no meta table" not in study.stderr  # the old, misleading message
    stats = run("stats")
    assert stats.returncode == 0 and "reviews:           2" in stats.stdout, (stats.stdout, stats.stderr)
    assert _sha(db) == before


def _damage(db: Path) -> None:
    """Overwrite the inside of one b-tree page (not the header page) with garbage."""
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    n_pages = len(data) // page
    assert n_pages >= 3, n_pages
    victim = n_pages - 1
    data[victim * page + 8 : victim * page + page // 2] = b"\xa5" * (page // 2 - 8)
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("command", [[], ["stats"], ["list"], ["mock"]])
def test_damaged_page_is_refused_cleanly_by_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, command: list[str]
) -> None:
    db = tmp_path / "progress.sqlite3"
    _seed(db, ids=tuple(f"card-{i}" for i in range(60)))  # several pages
    _damage(db)
    before = _sha(db)
    monkeypatch.setattr(sys, "stdin", io.StringIO("my answer\n\n3\n"))
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", NOW.isoformat())
    code = main([*command, "--db", str(db), "--plain"])
    out, err = capsys.readouterr()
    assert code == 1
    assert f"progress database {db} is damaged (SQLite integrity check:" in err, err
    assert "Question" not in out and "Interviewer" not in out
    assert _sha(db) == before


def test_locked_file_waits_and_keeps_the_rating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Another writer holds the lock 11.5 s (> the 10 s busy timeout): the rating is kept and saved."""
    db = tmp_path / "progress.sqlite3"
    _seed(db, ids=("flow-what-is-transformer",))
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta VALUES ('other-writer', 'x')")
    release = threading.Timer(11.5, lambda: other.execute("COMMIT"))
    release.start()
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n3\n"))
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", NOW.isoformat())
    t0 = time.monotonic()
    try:
        code = main(["--db", str(db), "--plain", "--limit", "1", "--chapter", "1"])
    finally:
        release.join()
        other.close()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "The progress file is locked by another program; your rating (good) is kept" in out
    assert "Saved (good)." in out and "Done: 1 answer(s) saved" in out
    assert time.monotonic() - t0 >= 11.0
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT card_id, rating FROM reviews ORDER BY id").fetchall()
    assert rows == [("flow-what-is-transformer", 3), ("flow-computation", 3)]


def test_list_and_stats_do_not_create_a_database(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "nothing-here" / "progress.sqlite3"
    assert main(["list", "--db", str(db), "--plain"]) == 0
    assert main(["stats", "--db", str(db), "--plain"]) == 0
    assert not db.exists() and not db.parent.exists()
    assert "No answers yet" in capsys.readouterr().out
