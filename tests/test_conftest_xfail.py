"""tests/conftest.py's handling of tests/data/similar_open.txt, run by pytest on a small project of its own:
a listed test passes only by failing an assertion (a crash or a pass fails the run), and a listed id that
names no test fails the run; ``-k``, a run of other files and a run of ``file.py::test`` keep working."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the project's conftest: the real tests/conftest.py, its list read from the project's own similar_open.txt
REAL = str(ROOT / "tests" / "conftest.py")
CONFTEST = f'''
import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("selfattention_tests_conftest", {REAL!r})
real = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real)
real._SIMILAR_OPEN = Path(__file__).with_name("similar_open.txt")
real._SIMILAR_ON = True  # as in the suite, also when this test runs with SELFATTENTION_SIMILAR=0
pytest_make_collect_report = real.pytest_make_collect_report
pytest_collection_modifyitems = real.pytest_collection_modifyitems
'''

ZH = "让 logit a::b 合适"  # a parameter with non-ASCII characters and a "::"
TEST_A = f'''
import pytest


def test_wrong():
    assert 1 == 2


def test_crash():
    raise TypeError("boom")


def test_right():
    pass


@pytest.mark.parametrize("text", [{ZH!r}])
def test_zh(text):
    assert text == "x"


class TestC:
    def test_m(self):
        assert False
'''

A = "tests/test_a.py"
# pytest writes a non-ASCII parameter of a node id as \\u escapes, and similar_open.txt stores it so
ZH_ID = f"{A}::test_zh[{ZH.encode('unicode_escape').decode('ascii')}]"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # rootdir: the project
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / A).write_text(TEST_A, encoding="utf-8")
    (tmp_path / "tests" / "test_b.py").write_text("def test_b():\n    pass\n", encoding="utf-8")
    return tmp_path


def listing(project: Path, *ids: str) -> None:
    text = "# the project's known false alarms\n" + "".join(f"{i}\n" for i in ids)
    (project / "similar_open.txt").write_text(text, encoding="utf-8")


def run(project: Path, *args: str) -> tuple[int, str, dict[str, str]]:
    """pytest in the project: exit code, output, {node id: PASSED / FAILED / XFAIL / ERROR}."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH")) if p)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # no nbval & co. (2 s a run); xdist is asked for with -p
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", *args],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )
    out = proc.stdout + proc.stderr
    got = {}
    for line in out.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "XFAIL", "XPASS", "ERROR"):
            got[rest.split(" - ")[0]] = word
    return proc.returncode, out, got


def test_a_listed_test_passes_only_by_failing_an_assertion(project):
    listing(project, f"{A}::test_wrong", f"{A}::test_crash", f"{A}::test_right", ZH_ID, f"{A}::TestC::test_m")
    code, out, got = run(project, A)
    assert got == {
        f"{A}::test_wrong": "XFAIL", ZH_ID: "XFAIL", f"{A}::TestC::test_m": "XFAIL",
        f"{A}::test_crash": "FAILED",  # a crash is no known false alarm ...
        f"{A}::test_right": "FAILED",  # ... and a listed test that passes must leave the list
    }, out
    assert "TypeError: boom" in out and "XPASS(strict)" in out and code == 1


@pytest.mark.parametrize("stale", [
    f"{A}::test_gone",  # a renamed test
    f"{A}::test_zh[other]",  # a changed parameter
    f"{A}::TestC::test_gone",  # a renamed method
    f"{A}::TestGone::test_m",  # a renamed class
    "tests/test_gone.py::test_x",  # a removed file
])
def test_an_id_that_names_no_test_fails_the_run(project, stale):
    listing(project, f"{A}::test_wrong", stale)
    # -k deselects after collection: the module's report still holds every test of it
    code, out, got = run(project, A, "-k", "right")
    assert code != 0 and "name no test" in out and stale in out, out
    assert f"{A}::test_right" not in got  # nothing ran


def test_a_stale_id_stops_a_run_under_xdist_too(project):
    pytest.importorskip("xdist")
    listing(project, f"{A}::test_gone")
    code, out, _ = run(project, A, "-p", "xdist", "-n", "2")
    assert code != 0 and "name no test" in out and f"{A}::test_gone" in out, out


def test_runs_that_do_not_collect_a_listed_test_still_work(project):
    listing(project, f"{A}::test_wrong", f"{A}::TestC::test_m", ZH_ID)
    assert run(project, A, "-k", "right")[::2] == (0, {f"{A}::test_right": "PASSED"})
    assert run(project, f"{A}::test_right")[::2] == (0, {f"{A}::test_right": "PASSED"})
    listing(project, f"{A}::test_gone")  # stale, but this run does not collect its file
    assert run(project, "tests/test_b.py")[::2] == (0, {"tests/test_b.py::test_b": "PASSED"})
