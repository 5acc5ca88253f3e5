"""Read `bench/results.json` only when it holds a full run: what chapter 6 prints beside its own timings.

The file is absent outside the repository (Colab, a downloaded notebook), and
`bench/bench_attention.py --quick` (the smoke test) measures fewer lengths. A chapter cell that asserts on the
full run's rows must skip both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["full_training_rows"]


def full_training_rows(
    path: str | Path, need: Iterable[int] = (1024, 4096)
) -> dict[int, dict[str, Any]] | None:
    """The "training" rows of a benchmark results file by n, or None unless it is a full run.

    None when the file does not exist, is not valid JSON, was written by ``--quick`` (its config says so),
    or has no training row for some n in ``need``.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(result, dict) or result.get("config", {}).get("quick", False):
        return None
    try:
        rows = {int(r["n"]): r for r in result.get("training", [])}
    except (KeyError, TypeError, ValueError):
        return None
    return rows if rows and set(need) <= set(rows) else None
