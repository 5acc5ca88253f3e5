"""Shared fixtures: the book is built once per test session and shared by every test that reads the site."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The typed-answer check runs in the tests as in the rehearse command: its similarity fallback on, unless
# SELFATTENTION_SIMILAR=0. Rows it still flags against a test's word are listed, with the reason, in
# tests/data/similar_open.txt and run as strict xfails (an xfail that passes fails the run: remove the line).
from selfattention.interview import similar  # noqa: E402

_SIMILAR_ON = similar.auto_enable()
_SIMILAR_OPEN = ROOT / "tests" / "data" / "similar_open.txt"


def _similar_open() -> set[str]:
    if not _SIMILAR_ON or not _SIMILAR_OPEN.is_file():
        return set()
    lines = _SIMILAR_OPEN.read_text(encoding="utf-8").splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ARG001
    open_ids = _similar_open()
    for item in items:
        if item.nodeid in open_ids:
            item.add_marker(pytest.mark.xfail(
                reason="a known false alarm of the similarity fallback (tests/data/similar_open.txt)",
                strict=True,
            ))


@dataclass(frozen=True)
class BuiltBook:
    html: Path  # the _build/html folder
    log: str  # everything jupyter-book printed
    seconds: float


def _jupyter_book() -> str:
    exe = Path(sys.executable).with_name("jupyter-book")
    return str(exe) if exe.exists() else "jupyter-book"


def _build_book() -> BuiltBook:
    env = dict(os.environ, PYTHONHASHSEED="0")
    t0 = time.time()
    proc = subprocess.run(
        [_jupyter_book(), "build", ".", "-W", "-n", "--keep-going"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    book = BuiltBook(ROOT / "_build" / "html", proc.stdout + proc.stderr, time.time() - t0)
    if proc.returncode != 0:
        pytest.fail(f"jupyter-book build failed (exit {proc.returncode}):\n{book.log[-6000:]}")
    return book


@pytest.fixture(scope="session")
def built_book() -> BuiltBook:
    """Build the site with warnings as errors (`jupyter-book build . -W -n --keep-going`) once per run.

    Under pytest-xdist every worker is its own session: the first worker that needs the book builds it under
    a file lock and records the result with the run's id; the others wait on the lock and read the record."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return _build_book()
    import fcntl
    import json

    (ROOT / "_build").mkdir(exist_ok=True)
    record = ROOT / "_build" / ".selfattention-build.json"
    with open(ROOT / "_build" / ".selfattention-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        try:
            seen = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seen = {}
        if seen.get("run") == run_id:
            if seen.get("failed"):
                pytest.fail(f"jupyter-book build failed in another worker:\n{seen['log'][-6000:]}")
            return BuiltBook(ROOT / "_build" / "html", seen["log"], seen["seconds"])
        try:
            book = _build_book()
        except pytest.fail.Exception as exc:
            record.write_text(json.dumps({"run": run_id, "failed": True, "log": str(exc)}), encoding="utf-8")
            raise
        done = {"run": run_id, "log": book.log, "seconds": book.seconds}
        record.write_text(json.dumps(done), encoding="utf-8")
        return book


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for one browser-test module (skips when Chromium or playwright is missing)."""
    from browser_support import CHROMIUM_ARGS, find_chromium  # tests/ is on sys.path (conftest's folder)

    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set SELFATTENTION_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as pw:
        # launch() gives every run a fresh, empty profile (a new temporary user-data dir).
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
