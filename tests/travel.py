"""Outputs that travel: what nbval compares must not depend on the CPU, its vector units or thread count.

Two tools used by tests/test_travel.py and by `python3 tasks.py store`:

- `long_floats(path)`: every float with more than `MAX_DIGITS` significant digits in an output nbval compares
  (stdout, text/plain and other text mime types, myst-nb glue records); ignored and skipped cells excepted.
- `OTHER_KERNELS`: environments that make PyTorch, MKL, oneDNN and OpenBLAS pick other kernels and another
  thread count; the suite re-runs every notebook under nbval strict in a separate process with one of them.
"""

from __future__ import annotations

import json
import platform
import re
from dataclasses import dataclass
from pathlib import Path

MAX_DIGITS = 6

# A decimal float (optionally with an exponent); integers are not floats and are left alone.
_FLOAT = re.compile(
    r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|"
    r"(?<![\w.])[-+]?\d+[eE][-+]?\d+(?![\w.])"
)
_IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip"}
_IMAGE_PREFIXES = ("image/",)

# Kernel and thread configurations other than the machine's native one. Each makes at least one library
# choose different code than it would by itself: ATen's vectorised CPU kernels (ATEN_CPU_CAPABILITY),
# MKL's instruction set, oneDNN's ISA, OpenBLAS's core type (numpy; x86-64 names only), and the thread count.
OTHER_KERNELS: dict[str, dict[str, str]] = {
    "baseline-isa-1-thread": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "OPENBLAS_CORETYPE": "Prescott",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    },
    "avx2-3-threads": {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "OPENBLAS_CORETYPE": "Haswell",
        "OMP_NUM_THREADS": "3",
        "MKL_NUM_THREADS": "3",
        "OPENBLAS_NUM_THREADS": "3",
    },
}
IN_SUITE = "baseline-isa-1-thread"  # the configuration tests/test_travel.py re-runs every notebook under


def other_kernel_env(name: str = IN_SUITE) -> dict[str, str]:
    """The environment variables of configuration `name` that apply on this machine's architecture."""
    env = dict(OTHER_KERNELS[name])
    if platform.machine().lower() not in ("x86_64", "amd64"):
        # OpenBLAS core names and the x86 ISA caps mean nothing elsewhere; the thread count still changes.
        for key in ("OPENBLAS_CORETYPE", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA"):
            env.pop(key)
    return env


@dataclass(frozen=True)
class LongFloat:
    notebook: str
    cell: int  # index in the notebook's cell list
    where: str  # "stdout", "text/plain", "glue 'name'", ...
    value: str

    def __str__(self) -> str:
        return f"{self.notebook} cell {self.cell} ({self.where}): {self.value}"


def significant_digits(number: str) -> int:
    """Significant digits written in a decimal float literal: '0.0120' -> 3, '5044.70531' -> 9."""
    mantissa = re.split(r"[eE]", number.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits)


def _compared(cell: dict) -> bool:
    """Does nbval compare this cell's outputs? (its own comment-marker parser, so the two cannot disagree)"""
    from nbval.plugin import find_comment_markers

    if cell.get("cell_type") != "code":
        return False
    markers = dict(find_comment_markers("".join(cell.get("source", ""))))
    tags = set(cell.get("metadata", {}).get("tags", []))
    return not (markers.get("check") is False or markers.get("skip") or tags & _IGNORE_TAGS)


def _texts(output: dict) -> list[tuple[str, str]]:
    """(where, text) for every text nbval compares in one output."""
    found = []
    if output.get("output_type") == "stream":
        found.append((output.get("name", "stream"), "".join(output.get("text", ""))))
    name = output.get("metadata", {}).get("scrapbook", {}).get("name")
    for mime, value in output.get("data", {}).items():
        if mime.startswith(_IMAGE_PREFIXES) or mime == "application/javascript":
            continue
        text = (
            "".join(value)
            if isinstance(value, list)
            else (value if isinstance(value, str) else json.dumps(value))
        )
        where = f"glue {name!r}" if mime.startswith("application/papermill.record") and name else mime
        found.append((where, text))
    if output.get("output_type") == "error":
        found.append(("error", "\n".join(output.get("traceback", []))))
    return found


def long_floats(path: Path, max_digits: int = MAX_DIGITS) -> list[LongFloat]:
    """Every float over `max_digits` significant digits in the compared outputs of the notebook at `path`."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    hits = []
    for index, cell in enumerate(nb.get("cells", [])):
        if not _compared(cell):
            continue
        for output in cell.get("outputs", []):
            for where, text in _texts(output):
                for match in _FLOAT.finditer(text):
                    if significant_digits(match.group()) > max_digits:
                        hits.append(LongFloat(path.name, index, where, match.group()))
    return hits


@dataclass
class PassResult:
    name: str
    env_summary: str
    returncode: int
    seconds: float
    tail: str


class OtherKernelPass:
    """nbval strict over `notebooks` in a child pytest whose environment selects other kernels; runs in the
    background from the moment it is started, so the rest of the suite goes on beside it."""

    def __init__(self, root: Path, notebooks: list[Path], name: str = IN_SUITE) -> None:
        import os
        import subprocess
        import sys
        import tempfile
        import time

        self.name, self.env = name, other_kernel_env(name)
        self._log = tempfile.NamedTemporaryFile(
            "w+", prefix="nbval-other-kernels-", suffix=".log", delete=False
        )
        env = {**os.environ, **self.env, "PYTHONHASHSEED": "0"}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *map(str, notebooks)]
        self._t0 = time.monotonic()
        self._proc = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        self._time = time.monotonic

    def wait(self, timeout: float = 1500) -> PassResult:
        code = self._proc.wait(timeout=timeout)
        seconds = self._time() - self._t0
        self._log.seek(0)
        text = self._log.read()
        summary = " ".join(f"{k}={v}" for k, v in self.env.items())
        failed = [line for line in text.splitlines() if line.startswith("FAILED ")]
        tail = "\n".join(failed) + f"\n(full log: {self._log.name})\n" + text[-6000:]
        return PassResult(self.name, summary, code, seconds, tail)

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
