"""The GitHub workflows parse, have the keys GitHub needs, and run the same commands as a local check."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{name} is not a YAML mapping"
    if True in data:  # YAML 1.1 reads the key `on` as the boolean True
        data["on"] = data.pop(True)
    return data


def steps(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    return workflow["jobs"][job]["steps"]


def runs(workflow: dict[str, Any], job: str) -> list[str]:
    return [s["run"].strip() for s in steps(workflow, job) if "run" in s]


def uses(workflow: dict[str, Any], job: str) -> dict[str, dict[str, Any]]:
    """action name (without @version) -> the step that uses it."""
    return {s["uses"].split("@")[0]: s for s in steps(workflow, job) if "uses" in s}


def tasks_python() -> str:
    """The Python version tasks.py expects (it warns on any other)."""
    match = re.search(r"sys\.version_info\[:2\] != \((\d+), (\d+)\)", (ROOT / "tasks.py").read_text())
    assert match, "tasks.py no longer states which Python it expects"
    return f"{match.group(1)}.{match.group(2)}"


def tasks_commands() -> set[str]:
    match = re.search(r"^COMMANDS = \{(.*?)\}$", (ROOT / "tasks.py").read_text(), re.M | re.S)
    assert match, "tasks.py has no COMMANDS table"
    return set(re.findall(r'"(\w+)":', match.group(1)))


@pytest.mark.parametrize("name", ["pages.yml", "ci.yml"])
def test_workflow_is_well_formed(name):
    wf = load(name)
    assert wf.get("name"), f"{name}: no name"
    assert wf.get("on"), f"{name}: no trigger"
    assert wf.get("jobs"), f"{name}: no jobs"
    for job_name, job in wf["jobs"].items():
        assert job.get("runs-on") in ("ubuntu-latest", "${{ matrix.os }}"), f"{name}:{job_name}: runs-on"
        assert job.get("steps"), f"{name}:{job_name}: no steps"
        for step in job["steps"]:
            assert ("run" in step) != ("uses" in step), f"{name}:{job_name}: one of run/uses"
            if "uses" in step:
                action, _, version = step["uses"].partition("@")
                assert re.fullmatch(r"v\d+", version), f"{name}: {action} must be pinned to a major version"


@pytest.mark.parametrize("name", ["pages.yml", "ci.yml"])
def test_workflow_uses_the_python_that_tasks_expects(name):
    wf = load(name)
    for job_name in wf["jobs"]:
        setup = uses(wf, job_name).get("actions/setup-python")
        if setup is not None:
            assert str(setup["with"]["python-version"]) == tasks_python()
            assert uses(wf, job_name).get("actions/checkout") is not None


def test_pages_builds_with_the_book_command_and_deploys():
    wf = load("pages.yml")
    assert "main" in wf["on"]["push"]["branches"]
    assert wf["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert "book" in tasks_commands()
    assert runs(wf, "build") == ["python3 tasks.py book"]
    build = uses(wf, "build")
    assert {
        "actions/checkout",
        "actions/setup-python",
        "actions/configure-pages",
        "actions/upload-pages-artifact",
    } <= set(build)
    # the folder uploaded is the folder tasks.py builds into
    assert build["actions/upload-pages-artifact"]["with"]["path"] == "_build/html"
    assert "_build/html" in (ROOT / "tasks.py").read_text()
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert "actions/deploy-pages" in uses(wf, "deploy")


def test_ci_runs_on_linux_x86_and_macos_arm():
    """Stored outputs must travel: the test command runs on two CPU architectures, every leg to the end."""
    job = load("ci.yml")["jobs"]["test"]
    assert job["runs-on"] == "${{ matrix.os }}"
    assert set(job["strategy"]["matrix"]["os"]) == {"ubuntu-latest", "macos-14"}  # macos-14 runners are arm64
    assert job["strategy"]["fail-fast"] is False


def test_ci_runs_the_same_script_as_local_ci():
    wf = load("ci.yml")
    assert "pull_request" in wf["on"] and "push" in wf["on"]
    assert runs(wf, "test") == ["bash .ci/run"]
    assert wf["jobs"]["test"]["timeout-minutes"] <= 90  # the project's CI budget
    script = (ROOT / ".ci" / "run").read_text()
    assert "python3 tasks.py test" in script
    assert "test" in tasks_commands()


@pytest.mark.parametrize("name", ["pages.yml", "ci.yml"])
def test_workflow_installs_torch_cpu_not_cuda(name):
    """On GitHub there is no wheel on disk; without the CPU index pip would fetch the multi-GB CUDA build."""
    env = load(name).get("env", {})
    assert env.get("PIP_EXTRA_INDEX_URL", "").endswith("/whl/cpu")
