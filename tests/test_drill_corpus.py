"""The drill grader on a corpus of solutions (issue 20, point 7): every ``correct_*`` passes, every
``wrong_*`` and ``cheat_*`` is refused, and every cheat is refused at run time too, not only by the static
read of the source (so a cheat that hides its names from the static check is still caught).

The corpus (``tests/data/drill_corpus/<drill>/``, ≥ 10 files per drill) and how it was written:
``tests/data/drill_corpus/README.md``. One zygote process imports torch once and forks a fresh sandbox per
file; two files are graded at a time.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from selfattention.interview.drills import DRILLS, detect_drill
from selfattention.interview.grader import STATIC_CHECK, GradeReport, grade_file

CORPUS = Path(__file__).resolve().parent / "data" / "drill_corpus"
FILES = sorted(CORPUS.glob("*/*.py"))
KINDS = ("correct", "wrong", "cheat")


def _kind(path: Path) -> str:
    return path.name.split("_")[0]


def test_corpus_layout() -> None:
    for drill in DRILLS:
        files = [p for p in FILES if p.parent.name == drill]
        assert len(files) >= 10, (drill, len(files))
        assert {_kind(p) for p in files} == set(KINDS), drill
    for p in FILES:
        assert _kind(p) in KINDS, p
        assert detect_drill(p.read_text(encoding="utf-8")) == p.parent.name, p


@pytest.fixture(scope="module")
def verdicts() -> dict[Path, GradeReport]:
    from selfattention.interview.drills._common import Zygote

    torch.set_num_threads(1)
    zygote = Zygote()
    start = time.monotonic()
    try:
        with ThreadPoolExecutor(2) as pool:
            reports = dict(zip(FILES, pool.map(lambda p: grade_file(p, timeout=60.0, zygote=zygote), FILES),
                               strict=True))
    finally:
        zygote.close()
    print(f"\ngraded {len(FILES)} corpus files in {time.monotonic() - start:.1f} s")
    return reports


def _why(report: GradeReport) -> str:
    return "; ".join(f"{r.name}: {r.message}" for r in report.results if r.status == "fail") or report.error


def test_no_false_pass_and_no_false_refusal(verdicts: dict[Path, GradeReport]) -> None:
    false_refusals = {str(p.relative_to(CORPUS)): _why(r) for p, r in verdicts.items()
                      if _kind(p) == "correct" and not r.passed}
    false_passes = [str(p.relative_to(CORPUS)) for p, r in verdicts.items()
                    if _kind(p) != "correct" and r.passed]
    assert false_refusals == {} and false_passes == []


def test_every_cheat_is_refused_at_run_time(verdicts: dict[Path, GradeReport]) -> None:
    """Not only by the static check: some check that ran the code fails too."""
    only_static = [
        str(p.relative_to(CORPUS)) for p, r in verdicts.items()
        if _kind(p) == "cheat" and not any(x.status == "fail" and x.name != STATIC_CHECK for x in r.results)
    ]
    assert only_static == []


def test_every_run_used_random_inputs(verdicts: dict[Path, GradeReport]) -> None:
    seeds = [r.seed for r in verdicts.values()]
    assert None not in seeds and len(set(seeds)) > len(seeds) // 2
