"""The review log shared by the practise page and the terminal: `attention-rehearse import` / `export-log`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from selfattention.interview import weblog
from selfattention.interview.bank import load_cards
from selfattention.interview.cli import main
from selfattention.interview.optimize import DEFAULTS, save_parameters, scheduler_parameters
from selfattention.interview.store import Store

T0 = datetime(2026, 3, 2, 9, 15, tzinfo=UTC)


@pytest.fixture(scope="module")
def ids() -> list[str]:
    return [c.id for c in load_cards()][:6]


def site_log(ids: list[str], extra: list[dict] | None = None, **fields) -> dict:
    reviews = []
    for i, cid in enumerate(ids[:4]):
        for k, rating in enumerate((3, 3, 2 + i % 3)):
            at = T0 + timedelta(minutes=7 * i) + timedelta(days=(0, 0.01, 3)[k])
            reviews.append({"card": cid, "rating": rating, "at": weblog.iso(at), "seconds": 30.5,
                            "lang": "zh"})
    return {"format": weblog.FORMAT, "version": 1, "source": "site", "parameters": list(DEFAULTS),
            "fitted": None, "reviews": reviews + (extra or []), **fields}


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_import_merges_the_log_and_shows_the_due_dates(tmp_path, ids, capsys):
    db = tmp_path / "p.sqlite3"
    log = site_log(ids, extra=[{"card": "not-a-card", "rating": 3, "at": weblog.iso(T0)}])
    assert main(["import", str(write(tmp_path, "log.json", log)), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "imported 12 review(s)" in out and "not-a-card" in out
    expected = weblog.replay(
        [(r["card"], r["rating"], weblog.parse_iso(r["at"])) for r in log["reviews"][:12]])
    with Store(db, write=False) as store:
        states = store.states()
        assert {cid: s[0].due for cid, s in states.items()} == {
            cid: r.card.due for cid, r in expected.items()}
        assert all(weblog.iso(expected[cid].card.due) in out for cid in expected)  # the terminal shows them
        assert {r.card_id for r in store.reviews()} == set(ids[:4]) and store.count_reviews() == 12
    # the same log again adds nothing; the terminal's own later answers stay
    assert main(["import", str(db.parent / "log.json"), "--db", str(db)]) == 0
    assert "imported 0 review(s)" in capsys.readouterr().out


def test_import_interleaves_with_terminal_answers(tmp_path, ids):
    """A card answered in the terminal and on the page: its state is the merged history replayed."""
    db = tmp_path / "p.sqlite3"
    sched = weblog.scheduler()
    import fsrs

    with Store(db) as store:
        card = store.fsrs_card(ids[0], T0 - timedelta(days=1))
        card, _ = sched.review_card(card, fsrs.Rating.Good, review_datetime=T0 - timedelta(days=1))
        store.record(ids[0], "01_flow", card, 3, T0 - timedelta(days=1), 10.0, "study", "en")
    log = site_log(ids)
    assert main(["import", str(write(tmp_path, "log.json", log)), "--db", str(db)]) == 0
    history = [(ids[0], 3, T0 - timedelta(days=1))] + [
        (r["card"], r["rating"], weblog.parse_iso(r["at"])) for r in log["reviews"] if r["card"] == ids[0]]
    with Store(db, write=False) as store:
        assert store.states()[ids[0]][0].due == weblog.replay(history)[ids[0]].card.due
        assert store.states()[ids[0]][1] == 4  # reps


def test_export_log_round_trips_and_carries_fitted_parameters(tmp_path, ids, capsys):
    db = tmp_path / "p.sqlite3"
    assert main(["import", str(write(tmp_path, "log.json", site_log(ids))), "--db", str(db)]) == 0
    fitted = [w * 1.05 for w in DEFAULTS]
    with Store(db) as store:
        save_parameters(store, {"parameters": fitted, "fitted_at": "2026-03-01T00:00:00+00:00",
                                "reviews": 600})
    out = tmp_path / "out.json"
    assert main(["export-log", str(out), "--db", str(db)]) == 0
    assert main(["export-log", str(out), "--db", str(db)]) == 1  # no overwrite without --force
    log = weblog.read_log(out)
    assert log["parameters"] == pytest.approx(fitted) and log["fitted"]["reviews"] == 600
    with Store(db, write=False) as store:
        assert log["due"] == {cid: weblog.iso(s[0].due) for cid, s in store.states().items()}
    # into a fresh progress file: the reviews and the fitted parameters arrive
    db2 = tmp_path / "q.sqlite3"
    capsys.readouterr()
    assert main(["import", str(out), "--db", str(db2)]) == 0
    assert "fitted FSRS parameters" in capsys.readouterr().out
    with Store(db2, write=False) as store:
        assert scheduler_parameters(store) == pytest.approx(fitted)
        assert {cid: weblog.iso(s[0].due) for cid, s in store.states().items()} == {
            cid: weblog.iso(r.card.due) for cid, r in weblog.replay(
                [(r["card"], r["rating"], weblog.parse_iso(r["at"])) for r in log["reviews"]],
                fitted).items()}


@pytest.mark.parametrize(
    ("data", "message"),
    [({"format": "other"}, "is not a review log"),
     ({"format": weblog.FORMAT, "version": 9, "reviews": []}, "log version 9"),
     ({"format": weblog.FORMAT, "version": 1, "reviews": [{"card": "x", "rating": 7, "at": "2026"}]},
      "review 1 is malformed"),
     ({"format": weblog.FORMAT, "version": 1, "reviews": [], "parameters": [1, 2]},
      "parameters are unusable")],
)
def test_a_bad_log_is_refused_and_the_file_untouched(tmp_path, capsys, data, message):
    db = tmp_path / "p.sqlite3"
    assert main(["import", str(write(tmp_path, "bad.json", data)), "--db", str(db)]) == 1
    assert message in capsys.readouterr().err
    assert not db.exists()
