"""Root pytest hooks: they see every test, including the notebooks under chapters/."""

from __future__ import annotations

import pytest

# -- per-notebook run time, printed at the end of every session (the course promises fast notebooks)
_NOTEBOOK_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        _NOTEBOOK_SECONDS[path] = _NOTEBOOK_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    if not _NOTEBOOK_SECONDS:
        return
    terminalreporter.section("notebook run times (nbval, kernel start excluded)")
    for path, seconds in sorted(_NOTEBOOK_SECONDS.items()):
        terminalreporter.write_line(f"{seconds:7.1f} s  {path}")
    terminalreporter.write_line(f"{sum(_NOTEBOOK_SECONDS.values()):7.1f} s  in all")


# -- the other-kernel nbval pass (tests/test_travel.py): started as soon as collection ends, so it runs on the
#    second core beside the rest of the suite; the test that waits for it is moved to the end of the run.
_OTHER_PASS_TEST = "test_notebooks_pass_under_other_kernels"


def _under_xdist() -> bool:
    import os

    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def _start_other_pass():
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent
    if str(root / "tests") not in sys.path:
        sys.path.insert(0, str(root / "tests"))
    from travel import OtherKernelPass

    return OtherKernelPass(root, sorted((root / "chapters").glob("*.ipynb")))


def pytest_collection_modifyitems(session, config, items) -> None:  # noqa: ARG001
    """Alone, the pass runs in the background and its test goes last. Under pytest-xdist (`tasks.py test`
    runs `-n 2 --dist loadscope`) its test goes first: the worker that gets tests/test_travel.py starts the
    pass and waits for it while the other workers run everything else."""
    for item in [item for item in items if item.name == _OTHER_PASS_TEST]:
        items.remove(item)
        if _under_xdist():
            items.insert(0, item)
        else:
            items.append(item)


def pytest_collection_finish(session) -> None:
    """Start the pass only if its test survived selection (-k, -m, paths); it then runs in the background."""
    if _under_xdist() or not any(item.name == _OTHER_PASS_TEST for item in session.items):
        return
    session.config.stash[_PASS_KEY] = _start_other_pass()


_PASS_KEY = pytest.StashKey()


@pytest.fixture(scope="session")
def other_kernel_pass(request):
    """The background other-kernel nbval pass started at collection (tests/travel.py: OtherKernelPass)."""
    handle = request.config.stash.get(_PASS_KEY, None)
    if handle is None and _under_xdist():
        handle = request.config.stash[_PASS_KEY] = _start_other_pass()
    if handle is None:
        pytest.fail("the other-kernel pass was not started at collection")
    return handle


def pytest_unconfigure(config) -> None:
    handle = config.stash.get(_PASS_KEY, None)
    if handle is not None:
        handle.stop()
