"""Run the practise page's scheduling core (web/core.js: ts-fsrs from npm) under Node.js, for the tests."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"


def node_missing() -> str | None:
    """Why the Node.js side cannot run here (None: it can). `python3 tasks.py test` installs web/ first."""
    if shutil.which("node") is None:
        return "Node.js is not installed"
    if not (WEB / "node_modules" / "ts-fsrs" / "package.json").exists():
        return "web/node_modules has no ts-fsrs: run `npm ci` in web/ (tasks.py book/test does)"
    return None


def node_replay(reviews: list[dict[str, Any]], parameters: list[float] | None) -> dict[str, Any]:
    """Every card's state after `reviews`, as ts-fsrs schedules them through web/core.js."""
    proc = subprocess.run(
        ["node", str(WEB / "replay.js")], input=json.dumps({"reviews": reviews, "parameters": parameters}),
        capture_output=True, text=True, timeout=60, check=True,
    )
    return json.loads(proc.stdout)
