"""Rehearsal progress in SQLite: one FSRS card state per question and one row per answer, committed at once.

The database refuses to touch any file that is not its own: an existing file must carry the SQLite magic
header *and* our ``application_id`` in that header (checked by reading bytes, before SQLite opens it), and
then a ``meta`` table with our app id and a schema version we understand. Anything else raises `StoreError`
naming the path; the file is left byte-for-byte as it was.

WAL journal, ``busy_timeout`` and one short ``BEGIN IMMEDIATE`` transaction per answer let two terminals
rehearse against the same file; an answer is on disk as soon as `Store.record` returns.

Faults are found when the file is opened, before anything is asked: a read-only file, a folder or file system
that cannot be written (SQLite writes its journal next to the database), and a damaged file (``PRAGMA
quick_check``) raise `StoreError` naming the cause, and the file is left byte-for-byte as it was. A file that
another program keeps locked while a rating is saved is waited for: `Store.record` retries (telling the caller
through ``on_busy``) until the rating is on disk. ``Store(path, write=False)`` (``list``, ``stats``) only
reads: it never creates a missing file (`Store.empty` stands in) and accepts a read-only one.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs

__all__ = [
    "APP_ID",
    "SQLITE_APPLICATION_ID",
    "SCHEMA_VERSION",
    "Store",
    "StoreError",
    "ReviewRow",
    "default_db_path",
    "fsrs_card_id",
]

APP_ID = "selfattention.attention-rehearse"
SQLITE_APPLICATION_ID = 0x53415452  # "SATR", stored at byte 68 of the SQLite header
SCHEMA_VERSION = 1
_MAGIC = b"SQLite format 3\x00"
ENV_DB = "ATTENTION_REHEARSE_DB"
BUSY_TIMEOUT_S = 10.0  # SQLite's own wait for a lock, per attempt
RETRY_PAUSE_S = 0.2  # between attempts once SQLite gave up waiting
RECORD_BUSY_SLICE_S = 0.2  # SQLite's wait per attempt while saving a rating (then Python retries)
BACKUPS_KEPT = 5  # automatic copies of the progress file, one per session

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (
    card_id   TEXT PRIMARY KEY,
    fsrs      TEXT NOT NULL,          -- fsrs.Card.to_json()
    due       TEXT NOT NULL,          -- ISO 8601 UTC, copied from fsrs for queries
    state     INTEGER NOT NULL,       -- fsrs.State value
    reps      INTEGER NOT NULL DEFAULT 0,
    lapses    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS reviews (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    card_id     TEXT NOT NULL,
    chapter     TEXT NOT NULL,
    rating      INTEGER NOT NULL,     -- 1 again, 2 hard, 3 good, 4 easy
    reviewed_at TEXT NOT NULL,
    seconds     REAL NOT NULL,
    mode        TEXT NOT NULL,        -- study | mock
    lang        TEXT NOT NULL,
    covered     INTEGER,              -- key points matched in a typed answer (NULL if spoken)
    total       INTEGER,
    due_after   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_card ON reviews(card_id);
"""


class StoreError(RuntimeError):
    """The progress database cannot be used (foreign, corrupt, newer schema, unreadable); ``zh`` holds the
    message in Chinese where one is written (shown under --lang zh)."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh


@dataclass(frozen=True)
class ReviewRow:
    """One stored answer."""

    card_id: str
    chapter: str
    rating: int
    reviewed_at: datetime
    seconds: float
    mode: str
    due_after: datetime


def default_db_path() -> Path:
    """``$ATTENTION_REHEARSE_DB`` if set, else ``progress.sqlite3`` in the user data dir (platformdirs)."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("selfattention", appauthor=False)) / "progress.sqlite3"


def fsrs_card_id(card_id: str) -> int:
    """A stable positive integer for the fsrs.Card (fsrs wants ints; ours are strings)."""
    return zlib.crc32(card_id.encode("utf-8")) + 1


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _check_header(path: Path) -> None:
    """Raise StoreError unless ``path`` (existing, non-empty) is a SQLite file with our application_id."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise StoreError(f"cannot read progress database {path}: {exc.strerror or exc}") from exc
    if len(head) < 100 or not head.startswith(_MAGIC):
        raise StoreError(
            f"{path} is not a SQLite database (corrupt, or some other file); it was left untouched. "
            f"Move it away or pass another --db PATH.",
            zh=f"{path} 不是 SQLite 数据库（已损坏，或是别的文件）；没有动它。"
            f"把它移开，或用 --db 换一个路径。",
        )
    app = int.from_bytes(head[68:72], "big")
    if app != SQLITE_APPLICATION_ID:
        raise StoreError(
            f"{path} is a SQLite database but not an attention-rehearse progress file "
            f"(application_id {app:#x}, expected {SQLITE_APPLICATION_ID:#x}); it was left untouched. "
            f"Pass another --db PATH.",
            zh=f"{path} 是 SQLite 数据库，但不是 attention-rehearse 的进度文件；没有动它。"
            f"用 --db 换一个路径。",
        )


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _check_writable(path: Path) -> None:
    """Raise StoreError if ``path`` (existing) or its folder cannot be written: nothing could be saved."""
    folder = path.parent
    untouched = "nothing was asked and the file was left untouched"
    if _read_only_fs(folder):
        raise StoreError(
            f"progress database {path} is on a read-only file system: your ratings could not be saved, so "
            f"{untouched}. Pass a --db PATH on a writable disk.",
            zh=f"进度文件 {path} 在只读文件系统上：评分无法保存，所以什么都没问，文件也没有动。"
            f"用 --db 指定可写磁盘上的路径。",
        )
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(
            f"progress database {path} is read-only (no write permission): your ratings could not be saved, "
            f"so {untouched}. Make it writable (chmod u+w {path}) or pass another --db PATH.",
            zh=f"进度文件 {path} 是只读的（没有写权限）：评分无法保存，所以什么都没问，文件也没有动。"
            f"让它可写（chmod u+w {path}），或用 --db 换一个路径。",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(
            f"cannot write in the folder {folder} (SQLite keeps its journal next to the database "
            f"{path.name}): your ratings could not be saved, so {untouched}. Pass another --db PATH.",
            zh=f"无法在文件夹 {folder} 里写入（SQLite 把日志放在数据库 {path.name} 旁边）：评分无法保存，"
            f"所以什么都没问，文件也没有动。用 --db 换一个路径。",
        )


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class Store:
    """Progress database at ``path``; create it if missing. Use as a context manager or call `close`.

    ``write=False`` opens an existing file for reading only (nothing is created or checked for writability).
    """

    def __init__(self, path: str | os.PathLike[str], write: bool = True, _memory: bool = False) -> None:
        self.path = Path(path).expanduser()
        if _memory:
            self.conn = sqlite3.connect(":memory:", isolation_level=None)
            self._create()
            return
        if self.path.exists() and self.path.is_dir():
            raise StoreError(
                f"progress database path {self.path} is a directory",
                zh=f"进度文件路径 {self.path} 是一个文件夹",
            )
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if fresh and not write:
            raise StoreError(f"no progress database at {self.path} yet")
        if not fresh:
            _check_header(self.path)
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.path}: {exc.strerror or exc}") from exc
        if write:
            _check_writable(self.path)
        checked = False
        if not fresh and not Path(f"{self.path}-wal").exists():
            # check with an immutable connection first: a refused file gets no -wal/-shm created beside it
            # (a read-only connection to a WAL file leaves them behind; immutable is safe with no -wal file)
            self._precheck()
            checked = True
        try:
            if write:
                self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            else:
                uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro"
                if _read_only_fs(self.path.parent) or not os.access(self.path.parent, os.W_OK):
                    uri += "&immutable=1"  # no -shm can be made there: read without locking
                self.conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open progress database {self.path}: {exc}") from exc
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if fresh:
                self._create()
            elif not checked:
                self._check_meta()
                self._check_integrity()
            if write:
                self.conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"progress database {self.path} is unreadable or corrupt: {exc}") from exc
        except StoreError:
            self.conn.close()
            raise

    def _precheck(self) -> None:
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro&immutable=1"
        try:
            self.conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open progress database {self.path}: {exc}") from exc
        try:
            self._check_meta()
            self._check_integrity()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"progress database {self.path} is unreadable or corrupt: {exc}") from exc
        finally:
            self.conn.close()

    # -- setup -------------------------------------------------------------------------------------
    def _create(self) -> None:
        """Header app id, tables and meta rows in one transaction (idempotent if two processes race)."""
        try:
            self.conn.executescript(
                "BEGIN IMMEDIATE;"
                f"PRAGMA application_id = {SQLITE_APPLICATION_ID};"
                + _SCHEMA
                + f"INSERT OR IGNORE INTO meta VALUES ('app_id', '{APP_ID}');"
                f"INSERT OR IGNORE INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');"
                "COMMIT;"
            )
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    @classmethod
    def empty(cls, path: str | os.PathLike[str]) -> Store:
        """An in-memory store with no answers, standing in for a file that does not exist yet."""
        return cls(path, _memory=True)

    def _check_integrity(self) -> None:
        """``PRAGMA quick_check``: a damaged page is reported now, not as a traceback mid-session."""
        rows = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)").fetchall()]
        if rows != ["ok"]:
            raise StoreError(
                f"progress database {self.path} is damaged (SQLite integrity check: {'; '.join(rows)}); "
                f"nothing was asked and the file was left untouched. Move it away (a backup of it may still "
                f"hold your ratings) or pass another --db PATH.",
                zh=f"进度文件 {self.path} 已损坏（SQLite 完整性检查：{'; '.join(rows)}）；"
                f"什么都没问，文件也没有动。"
                f"把它移开（它的备份，例如 backups/ 里的，可能还保存着你的评分），或用 --db 换一个路径。",
            )

    def _check_meta(self) -> None:
        """Read-only checks of the meta table (no writes happen before they pass)."""
        try:
            rows = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                msg = f"cannot read progress database {self.path}: {exc}; it was left untouched"
                raise StoreError(msg) from exc
            raise StoreError(
                f"{self.path} has our header but no meta table ({exc}); it was left untouched"
            ) from exc
        if rows.get("app_id") != APP_ID:
            raise StoreError(
                f"{self.path} is not an attention-rehearse progress file "
                f"(meta app_id {rows.get('app_id')!r}); "
                f"it was left untouched"
            )
        version = rows.get("schema_version", "")
        if not version.isdigit() or int(version) > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version!r}, newer than this program understands "
                f"({SCHEMA_VERSION}); upgrade selfattention. The file was left untouched.",
                zh=f"{self.path} 的格式版本是 {version!r}，比本程序能读的（{SCHEMA_VERSION}）新；"
                f"请升级 selfattention。"
                f"文件没有动。",
            )

    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- cards -------------------------------------------------------------------------------------
    def fsrs_card(self, card_id: str, now: datetime) -> fsrs.Card:
        """The stored FSRS state of ``card_id``, or a new card due ``now``."""
        row = self.conn.execute("SELECT fsrs FROM cards WHERE card_id = ?", (card_id,)).fetchone()
        if row is None:
            return fsrs.Card(card_id=fsrs_card_id(card_id), due=_utc(now))
        return fsrs.Card.from_json(row[0])

    def states(self) -> dict[str, tuple[fsrs.Card, int, int]]:
        """card_id -> (fsrs card, reps, lapses) for every card answered at least once."""
        out: dict[str, tuple[fsrs.Card, int, int]] = {}
        for cid, js, reps, lapses in self.conn.execute("SELECT card_id, fsrs, reps, lapses FROM cards"):
            out[cid] = (fsrs.Card.from_json(js), reps, lapses)
        return out

    def record(
        self,
        card_id: str,
        chapter: str,
        card: fsrs.Card,
        rating: int,
        reviewed_at: datetime,
        seconds: float,
        mode: str,
        lang: str,
        covered: int | None = None,
        total: int | None = None,
        on_busy: Callable[[int], None] | None = None,
    ) -> int:
        """Store the new FSRS state and the answer in one short transaction, committed before returning.

        While another program holds the write lock, wait and retry until it is saved (``on_busy(attempt)``
        is called before each retry; Ctrl-C interrupts). Any other failure raises `StoreError`.
        """
        attempt = 0
        # SQLite's busy wait runs in C, where Ctrl-C is not seen until it returns: wait in short slices
        # and loop here, so the "locked" message shows at once and Ctrl-C stops the wait at once
        self.conn.execute(f"PRAGMA busy_timeout = {int(RECORD_BUSY_SLICE_S * 1000)}")
        try:
            while True:
                try:
                    return self._record_once(
                        card_id, chapter, card, rating, reviewed_at, seconds, mode, lang, covered, total
                    )
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc):
                        raise StoreError(f"could not save to {self.path}: {exc}") from exc
                    attempt += 1
                    if on_busy is not None:
                        on_busy(attempt)
                    time.sleep(RETRY_PAUSE_S)
                except sqlite3.DatabaseError as exc:
                    raise StoreError(f"could not save to {self.path}: {exc}") from exc
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def _record_once(
        self,
        card_id: str,
        chapter: str,
        card: fsrs.Card,
        rating: int,
        reviewed_at: datetime,
        seconds: float,
        mode: str,
        lang: str,
        covered: int | None,
        total: int | None,
    ) -> int:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            prev = self.conn.execute("SELECT state FROM cards WHERE card_id = ?", (card_id,)).fetchone()
            # a lapse is forgetting a card that had graduated to review, not failing a new or learning one
            was_review = prev is not None and prev[0] == int(fsrs.State.Review)
            lapse = int(rating == int(fsrs.Rating.Again) and was_review)
            self.conn.execute(
                "INSERT INTO cards (card_id, fsrs, due, state, reps, lapses) VALUES (?, ?, ?, ?, 1, ?) "
                "ON CONFLICT(card_id) DO UPDATE SET fsrs = excluded.fsrs, due = excluded.due, "
                "state = excluded.state, reps = reps + 1, lapses = lapses + excluded.lapses",
                (card_id, card.to_json(), _utc(card.due).isoformat(), int(card.state), lapse),
            )
            cur = self.conn.execute(
                "INSERT INTO reviews (card_id, chapter, rating, reviewed_at, seconds, mode, lang, covered,"
                " total, due_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    card_id,
                    chapter,
                    int(rating),
                    _utc(reviewed_at).isoformat(),
                    round(float(seconds), 3),
                    mode,
                    lang,
                    covered,
                    total,
                    _utc(card.due).isoformat(),
                ),
            )
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        return int(cur.lastrowid or 0)

    def snapshot(self, card_id: str) -> tuple[str, str, int, int, int] | None:
        """The stored row of ``card_id`` (fsrs, due, state, reps, lapses), or None if never answered: what
        `undo` puts back."""
        row = self.conn.execute(
            "SELECT fsrs, due, state, reps, lapses FROM cards WHERE card_id = ?", (card_id,)
        ).fetchone()
        return None if row is None else tuple(row)  # type: ignore[return-value]

    def undo(self, review_id: int, card_id: str, before: tuple[str, str, int, int, int] | None) -> None:
        """Take back one rating: delete its review row and put the card's state back to ``before`` (its
        `snapshot` taken before the rating; None: the card becomes new again), in one transaction."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute("DELETE FROM reviews WHERE id = ? AND card_id = ?", (review_id, card_id))
            if before is None:
                self.conn.execute("DELETE FROM cards WHERE card_id = ?", (card_id,))
            else:
                self.conn.execute(
                    "UPDATE cards SET fsrs = ?, due = ?, state = ?, reps = ?, lapses = ? WHERE card_id = ?",
                    (*before, card_id),
                )
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def backup(self, stamp: datetime, keep: int = BACKUPS_KEPT) -> Path | None:
        """Copy the progress file (SQLite's online backup: consistent even mid-WAL) to
        ``backups/<name>-YYYYmmdd-HHMMSS.sqlite3`` beside it and keep the newest ``keep`` copies.
        Nothing is copied while the file holds no answer yet; returns the copy's path."""
        if self.count_reviews() == 0:
            return None
        folder = self.path.parent / "backups"
        try:
            folder.mkdir(exist_ok=True)
            target = folder / f"{self.path.stem}-{_utc(stamp):%Y%m%d-%H%M%S}{self.path.suffix}"
            dest = sqlite3.connect(target)
            try:
                self.conn.backup(dest)
            finally:
                dest.close()
            old = sorted(folder.glob(f"{self.path.stem}-*{self.path.suffix}"))
            for extra in old[: max(0, len(old) - keep)]:
                extra.unlink()
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"could not back up {self.path} into {folder}: {exc}") from exc
        return target

    def reviews(self, card_ids: Iterable[str] | None = None) -> list[ReviewRow]:
        """Stored answers, oldest first (optionally only for ``card_ids``)."""
        rows = self.conn.execute(
            "SELECT card_id, chapter, rating, reviewed_at, seconds, mode, due_after FROM reviews ORDER BY id"
        ).fetchall()
        wanted = None if card_ids is None else set(card_ids)
        return [
            ReviewRow(
                r[0], r[1], r[2], datetime.fromisoformat(r[3]), r[4], r[5], datetime.fromisoformat(r[6])
            )
            for r in rows
            if wanted is None or r[0] in wanted
        ]

    def new_today(self, now: datetime, day_start_hour: int = 4, modes: tuple[str, ...] = ("study",)) -> int:
        """Cards first answered since the start of the local day of ``now`` (the new-card limit is per day,
        as in Anki; the day starts at ``day_start_hour`` local time), counting only cards whose first answer
        was in one of ``modes``."""
        start, end = day_bounds(now, day_start_hour)
        firsts = self.conn.execute(
            "SELECT r.reviewed_at, r.mode FROM reviews r JOIN "
            "(SELECT card_id, MIN(id) AS first FROM reviews GROUP BY card_id) f ON r.id = f.first"
        ).fetchall()
        return sum(
            1 for at, mode in firsts if mode in modes and start <= _utc(datetime.fromisoformat(at)) < end
        )

    def count_reviews(self) -> int:
        """Number of stored answers."""
        return int(self.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    def meta(self) -> dict[str, str]:
        """The meta table as a dict."""
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())


def day_bounds(now: datetime, day_start_hour: int = 4) -> tuple[datetime, datetime]:
    """The study day holding ``now``, in UTC: from ``day_start_hour`` o'clock local time (the system time
    zone, $TZ) to the same hour the next day (Anki's "next day starts at", default 4 am)."""
    local = _utc(now).astimezone()
    start = local.replace(hour=day_start_hour, minute=0, second=0, microsecond=0)
    if local < start:
        start = (local - timedelta(days=1)).replace(hour=day_start_hour, minute=0, second=0, microsecond=0)
    start = start.replace(tzinfo=None).astimezone()  # the local offset of that day (DST changes)
    end = (start.replace(tzinfo=None) + timedelta(days=1)).astimezone()
    return start.astimezone(UTC), end.astimezone(UTC)


def local_time(dt: datetime) -> str:
    """A moment as the user reads it: local time with its zone, '2026-01-05 17:10 CST'."""
    return f"{_utc(dt).astimezone():%Y-%m-%d %H:%M %Z}"


def parse_now(value: str | None) -> datetime:
    """An ISO timestamp (naive = UTC) or, if None/empty, the current UTC time."""
    if not value:
        return datetime.now(UTC)
    try:
        return _utc(datetime.fromisoformat(value))
    except ValueError as exc:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r} (e.g. 2026-01-31T09:00:00+00:00)") from exc


def to_json_dict(card: fsrs.Card) -> dict[str, object]:
    """The fsrs card as a plain dict (for display and tests)."""
    return json.loads(card.to_json())
