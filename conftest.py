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
