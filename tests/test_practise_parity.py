"""The practise page (ts-fsrs, web/core.js under Node.js) and the terminal (py-fsrs) schedule alike.

Over a few hundred random review histories (ratings 1-4, gaps from a minute to months, any time of day),
with py-fsrs's default parameters and with a fitted-looking set, every card's due date after its log is the
same on both sides to the minute, and so are its state and stability. A changed parameter on one side only
must break that (the comparison can fail).
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from practise_support import node_missing, node_replay  # noqa: E402

from selfattention.interview import weblog  # noqa: E402
from selfattention.interview.optimize import DEFAULTS  # noqa: E402

pytestmark = pytest.mark.skipif(node_missing() is not None, reason=str(node_missing()))

GAPS_MIN = [1, 4, 10, 30, 5 * 60, 23 * 60, 25 * 60, 3 * 1440, 10 * 1440, 40 * 1440, 200 * 1440]


def histories(seed: int, cards: int = 300) -> list[dict]:
    rng = random.Random(seed)
    start = datetime(2026, 3, 1, tzinfo=UTC)
    out = []
    for c in range(cards):
        at = start + timedelta(minutes=rng.randrange(60 * 24 * 30), milliseconds=rng.randrange(1000))
        for _ in range(rng.randrange(1, 14)):
            out.append({"card": f"c{c}", "rating": rng.choice([1, 2, 3, 3, 3, 4]), "at": weblog.iso(at)})
            at += timedelta(minutes=rng.choice(GAPS_MIN) + rng.randrange(180), seconds=rng.randrange(60))
    return out


def fitted_like(seed: int) -> list[float]:
    """Parameters a fit could give: each default moved by up to 30 %, kept inside py-fsrs's bounds."""
    import fsrs.scheduler as s

    rng = random.Random(seed)
    lo, hi = s.LOWER_BOUNDS_PARAMETERS, s.UPPER_BOUNDS_PARAMETERS
    return [min(max(w * rng.uniform(0.7, 1.3), a), b) for w, a, b in zip(DEFAULTS, lo, hi, strict=True)]


def compare(reviews: list[dict], py_params: list[float], js_params: list[float]) -> list[str]:
    py = weblog.replay([(r["card"], r["rating"], weblog.parse_iso(r["at"])) for r in reviews], py_params)
    js = node_replay(reviews, js_params)
    assert set(js) == set(py)
    bad = []
    for cid, rec in py.items():
        due = weblog.parse_iso(js[cid]["due"])
        if abs((due - rec.card.due).total_seconds()) >= 60 or js[cid]["state"] != int(rec.card.state):
            bad.append(f"{cid}: py-fsrs due {rec.card.due:%Y-%m-%d %H:%M} state {int(rec.card.state)}, "
                       f"ts-fsrs due {due:%Y-%m-%d %H:%M} state {js[cid]['state']}")
        elif abs(js[cid]["stability"] - rec.card.stability) > 1e-6 * max(1.0, rec.card.stability):
            bad.append(f"{cid}: stability {rec.card.stability} vs {js[cid]['stability']}")
    return bad


@pytest.mark.parametrize("which", ["defaults", "fitted"])
def test_same_due_dates_as_py_fsrs(which):
    reviews = histories(1 if which == "defaults" else 2)
    params = list(DEFAULTS) if which == "defaults" else fitted_like(7)
    assert len({r["card"] for r in reviews}) == 300 and len(reviews) > 1500
    bad = compare(reviews, params, params)
    assert not bad, f"{len(bad)} of 300 cards differ:\n" + "\n".join(bad[:10])


def test_a_changed_parameter_breaks_parity():
    """The check can fail: ts-fsrs with w8 (stability growth on recall) 10 % higher than py-fsrs's."""
    reviews = histories(3, cards=120)
    changed = list(DEFAULTS)
    changed[8] *= 1.1
    bad = compare(reviews, list(DEFAULTS), changed)
    assert len(bad) > 10, bad
