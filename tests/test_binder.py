"""Binder (repo2docker reads binder/ and ignores the root's requirements.txt once binder/ exists).

binder/requirements.txt holds the pins of requirements.txt one for one, except torch, which is the CPU build
(`torch==X+cpu` from PyTorch's CPU wheel index, not PyPI's CUDA-linked wheel); binder/runtime.txt asks for
Python 3.11; binder/postBuild installs the package itself. The build itself is not run here (no Docker).
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def pins(text: str) -> dict[str, str]:
    """{canonical name: exact version} of a requirements file; raises on anything but `name==version`."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#") or line.startswith("--") or line == "-e .":
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!_-]+)", line)
        if not m:
            raise ValueError(f"not an exact pin: {raw!r}")
        name = canonicalize_name(m.group(1))
        if name in out:
            raise ValueError(f"pinned twice: {name}")
        out[name] = m.group(2)
    return out


def pin_differences(root_text: str, binder_text: str) -> list[str]:
    """How binder's pins differ from the root's; torch must be the root's version + '+cpu'."""
    root, binder = pins(root_text), pins(binder_text)
    bad = [f"{n}: only in requirements.txt" for n in sorted(root.keys() - binder.keys())]
    bad += [f"{n}: only in binder/requirements.txt" for n in sorted(binder.keys() - root.keys())]
    for name in sorted(root.keys() & binder.keys()):
        want = f"{root[name]}+cpu" if name == "torch" else root[name]
        if binder[name] != want:
            bad.append(f"{name}: binder pins {binder[name]}, wants {want}")
    return bad


def test_runtime_is_python_3_11() -> None:
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"


def test_binder_pins_equal_requirements_except_torch_cpu() -> None:
    root_text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    binder_text = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    assert pin_differences(root_text, binder_text) == []
    binder = pins(binder_text)
    assert binder["torch"] == "2.13.0+cpu" and pins(root_text)["torch"] == "2.13.0"
    assert Version(binder["torch"]).local == "cpu"
    assert not [n for n in binder if n.startswith("nvidia-") or n == "triton"], "CUDA packages in binder"
    options = [line.split() for line in binder_text.splitlines() if line.startswith("--")]
    assert ["--extra-index-url", CPU_INDEX] in options  # the only index that has the +cpu wheels
    assert len(pins(root_text)) > 100  # the whole lock, not a stub


@pytest.mark.parametrize("drift", [
    ("numpy==2.4.6", "numpy==2.4.5", "numpy: binder pins 2.4.5, wants 2.4.6"),
    ("torch==2.13.0+cpu", "torch==2.13.0", "torch: binder pins 2.13.0, wants 2.13.0+cpu"),
    ("jieba==0.42.1\n", "", "jieba: only in requirements.txt"),
    ("zipp==4.1.2", "zipp==4.1.2\nextra-pkg==1.0", "extra-pkg: only in binder/requirements.txt"),
])
def test_a_drifted_pin_is_reported(drift) -> None:
    old, new, message = drift
    root_text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    binder_text = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    assert old in binder_text
    assert pin_differences(root_text, binder_text.replace(old, new, 1)) == [message]


def test_the_package_itself_gets_installed_without_pulling_another_torch() -> None:
    post = BINDER / "postBuild"
    text = post.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash\n") and os.access(post, os.X_OK)
    subprocess.run(["bash", "-n", str(post)], check=True)  # parses as a bash script
    commands = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    installs = [c for c in commands if re.search(r"\bpip install\b.*\s(-e\s+)?\.$", c)]
    assert len(installs) == 1 and "--no-deps" in installs[0], commands
    assert "set -euo pipefail" in commands  # a failed install fails the Binder build
    # what pip would otherwise resolve from pyproject's dependencies is already pinned, in range
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    binder = pins((BINDER / "requirements.txt").read_text(encoding="utf-8"))
    for dep in map(Requirement, deps):
        name = canonicalize_name(dep.name)
        assert name in binder and dep.specifier.contains(Version(binder[name]), prereleases=True), dep
