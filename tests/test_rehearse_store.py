"""The SQLite progress store: our app id, answers committed at once, foreign files never touched."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import pytest

from selfattention.interview.store import (
    APP_ID,
    SCHEMA_VERSION,
    SQLITE_APPLICATION_ID,
    Store,
    StoreError,
    default_db_path,
    parse_now,
)

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _review(store: Store, card_id: str, rating: fsrs.Rating, when: datetime) -> fsrs.Card:
    sched = fsrs.Scheduler(enable_fuzzing=False)
    card, _ = sched.review_card(store.fsrs_card(card_id, when), rating, review_datetime=when)
    store.record(card_id, "03_scaling", card, int(rating), when, 12.5, "study", "en", 2, 4)
    return card


def test_new_database_has_meta_app_id_schema_and_wal(tmp_path: Path) -> None:
    db = tmp_path / "sub" / "progress.sqlite3"
    with Store(db) as s:
        assert s.meta() == {"app_id": APP_ID, "schema_version": str(SCHEMA_VERSION)}
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    header = db.read_bytes()[:100]
    assert header.startswith(b"SQLite format 3\x00")
    assert int.from_bytes(header[68:72], "big") == SQLITE_APPLICATION_ID


def test_answer_is_visible_to_another_connection_immediately(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    s = Store(db)
    card = _review(s, "a", fsrs.Rating.Good, NOW)
    # a second, independent reader sees the committed row while the first store is still open
    other = sqlite3.connect(db)
    rows = other.execute("SELECT card_id, rating, seconds, covered, total FROM reviews").fetchall()
    assert rows == [("a", 3, 12.5, 2, 4)]
    assert other.execute("SELECT due FROM cards").fetchone()[0] == card.due.isoformat()
    other.close()
    s.close()


def test_fsrs_state_round_trips_and_counts_lapses(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as s:
        first = _review(s, "a", fsrs.Rating.Good, NOW)
        assert first.due == NOW + timedelta(minutes=10)  # fsrs default learning steps: 1 min, 10 min
        _review(s, "a", fsrs.Rating.Again, NOW + timedelta(minutes=10))
        _review(s, "b", fsrs.Rating.Easy, NOW)  # graduates to review at once
        _review(s, "b", fsrs.Rating.Again, NOW + timedelta(days=3))  # forgetting a learned card: a lapse
    with Store(db) as s:
        state, reps, lapses = s.states()["a"]
        assert (reps, lapses) == (2, 0)  # failing a card still in learning is not a lapse
        assert s.states()["b"][1:] == (2, 1)
        assert state.due == NOW + timedelta(minutes=11)  # Again -> back to the 1-minute step
        assert [r.rating for r in s.reviews(["a"])] == [3, 1]
        assert s.count_reviews() == 4
        assert s.new_today(NOW) == 2 and s.new_today(NOW + timedelta(days=3)) == 0


def test_unknown_card_is_new_and_due_now(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as s:
        c = s.fsrs_card("never-seen", NOW)
        assert c.due == NOW and c.last_review is None and c.state == fsrs.State.Learning


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"this is my shopping list\n" * 20, "is not a SQLite database"),
        (b"SQLite format 3\x00" + b"\x00" * 10, "is not a SQLite database"),  # truncated header
    ],
)
def test_non_sqlite_file_is_refused_and_untouched(tmp_path: Path, content: bytes, reason: str) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(content)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match=reason) as exc:
        Store(db)
    assert str(db) in str(exc.value)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no -wal/-shm/-journal created


def test_foreign_sqlite_database_is_refused_and_untouched(tmp_path: Path) -> None:
    db = tmp_path / "other.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    con.execute("INSERT INTO meta VALUES ('app_id', 'someone-else')")
    con.commit()
    con.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match="not an attention-rehearse progress file"):
        Store(db)
    assert db.read_bytes() == before


def test_our_header_but_wrong_meta_or_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db):
        pass
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match="schema version '99'"):
        Store(db)
    assert db.read_bytes() == before


def test_two_stores_write_the_same_file_concurrently(tmp_path: Path) -> None:
    """Two processes answering at once (two terminals): every answer lands, none lost to 'locked'."""
    db = tmp_path / "p.db"
    Store(db).close()
    code = (
        "import sys, fsrs; from datetime import datetime, UTC, timedelta\n"
        "from selfattention.interview.store import Store\n"
        "s = Store(sys.argv[1]); sched = fsrs.Scheduler(enable_fuzzing=False)\n"
        "t = datetime(2026, 1, 5, tzinfo=UTC)\n"
        "for i in range(40):\n"
        "    c, _ = sched.review_card(s.fsrs_card(sys.argv[2], t), fsrs.Rating.Good, review_datetime=t)\n"
        "    s.record(sys.argv[2], '01_flow', c, 3, t, 1.0, 'study', 'en')\n"
    )
    # the store module does not need torch; run it without importing the selfattention package's __init__
    src = Path(__file__).resolve().parents[1] / "src" / "selfattention" / "interview"
    boot = (
        "import importlib.util, sys, types\n"
        f"pkg = types.ModuleType('selfattention'); pkg.__path__ = [{str(src.parent)!r}]\n"
        "sys.modules['selfattention'] = pkg\n"
        f"sub = types.ModuleType('selfattention.interview'); sub.__path__ = [{str(src)!r}]\n"
        "sys.modules['selfattention.interview'] = sub\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", boot + code, str(db), name]) for name in ("left", "right")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    with Store(db) as s:
        assert s.count_reviews() == 80
        assert {cid: reps for cid, (_, reps, _) in s.states().items()} == {"left": 40, "right": 40}


def test_default_path_env_override_and_parse_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_REHEARSE_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"
    monkeypatch.delenv("ATTENTION_REHEARSE_DB")
    assert default_db_path().name == "progress.sqlite3" and "selfattention" in str(default_db_path())
    assert parse_now("2026-01-05T09:00:00") == NOW  # naive = UTC
    assert parse_now("2026-01-05T10:00:00+01:00") == NOW
    with pytest.raises(ValueError, match="not an ISO 8601 timestamp: 'tomorrow'"):
        parse_now("tomorrow")


def test_our_file_with_a_corrupt_body_is_refused_and_untouched(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as s:
        _review(s, "a", fsrs.Rating.Good, NOW)
    data = bytearray(db.read_bytes())
    assert len(data) >= 2 * 4096 and not (tmp_path / "p.db-wal").exists()  # closed cleanly, WAL checkpointed
    data[100:4096] = bytes(range(256)) * 15 + bytes(range(236))  # garble the schema page, keep the header
    db.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="unreadable or corrupt") as exc:
        Store(db)
    assert str(db) in str(exc.value)
    assert db.read_bytes() == bytes(data)


def test_empty_file_is_initialised(tmp_path: Path) -> None:
    """A 0-byte file holds nothing to lose (e.g. `touch`ed, or another terminal creating it right now)."""
    db = tmp_path / "p.db"
    db.touch()
    with Store(db) as s:
        assert s.meta()["app_id"] == APP_ID


def test_stats_forecast_counts_cards_due_on_each_of_the_next_7_days(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from selfattention.interview.schedule import compute_stats

    due_in = {"a": timedelta(hours=-30), "b": timedelta(hours=5), "c": timedelta(days=2, hours=1),
              "d": timedelta(days=2, hours=3), "e": timedelta(days=6, hours=2), "f": timedelta(days=9)}
    with Store(tmp_path / "p.db") as s:
        for cid, delta in due_in.items():
            card = fsrs.Card(card_id=1, state=fsrs.State.Review, due=NOW + delta)
            s.record(cid, "03_scaling", card, 3, NOW, 1.0, "study", "en")
        cards = [SimpleNamespace(id=cid, chapter="03_scaling") for cid in due_in]
        stats = compute_stats(cards, s, NOW)  # NOW is 09:00 UTC: +5 h is still today, +30 h ago is overdue
    assert stats["forecast"] == [2, 0, 2, 0, 0, 0, 1]
