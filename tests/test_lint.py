"""`ruff check` is clean on the package, the tests and the scripts (the rules in `pyproject.toml`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    paths = [p for p in ("src", "tests", "conftest.py", "tasks.py", "bench", "_ext") if (ROOT / p).exists()]
    cmd = [sys.executable, "-m", "ruff", "check", *paths]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"ruff check found problems:\n{proc.stdout}{proc.stderr}"
