"""Chapter 6 reads bench/results.json only when it holds a full run (not on Colab, not after --quick)."""

from __future__ import annotations

import json
from pathlib import Path

from selfattention.bench_results import full_training_rows

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, config: dict, ns: list[int]) -> Path:
    rows = [{"n": n, "fwd_fused_ms": 1.0} for n in ns]
    path.write_text(json.dumps({"config": config, "training": rows}), encoding="utf-8")
    return path


def test_a_full_run_gives_its_rows_by_length(tmp_path: Path) -> None:
    rows = full_training_rows(_write(tmp_path / "r.json", {"quick": False}, [256, 1024, 4096]))
    assert rows is not None and sorted(rows) == [256, 1024, 4096] and rows[4096]["n"] == 4096


def test_missing_quick_short_or_broken_files_give_none(tmp_path: Path) -> None:
    assert full_training_rows(tmp_path / "absent.json") is None  # Colab: no bench/ directory
    assert full_training_rows(_write(tmp_path / "q.json", {"quick": True}, [256, 1024, 4096])) is None
    assert full_training_rows(_write(tmp_path / "s.json", {}, [256, 1024])) is None  # an old --quick file
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert full_training_rows(tmp_path / "bad.json") is None
    assert full_training_rows(_write(tmp_path / "x.json", {}, [1024, 4096]), need=(8192,)) is None


def test_the_stored_results_are_a_full_run() -> None:
    assert full_training_rows(ROOT / "bench" / "results.json") is not None


def test_quick_run_writes_its_own_file_by_default() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_attention", ROOT / "bench" / "bench_attention.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.default_out(quick=True) == ROOT / "bench" / "results-quick.json"
    assert bench.default_out(quick=False) == ROOT / "bench" / "results.json"
