"""Stored notebook outputs travel: they do not depend on the CPU, its vector units or the thread count.

- `test_lint_*`: no output nbval compares holds a float with more than 6 significant digits (a raw
  float from a matmul or a training run differs in its last digits between machines).
- `test_notebooks_pass_under_other_kernels`: every notebook passes nbval strict again in a separate
  process whose PyTorch, MKL, oneDNN and OpenBLAS use other kernels and another thread count. The root
  conftest.py starts that process as soon as collection ends, so it runs beside the rest of the suite,
  and runs this test last.
- `test_the_other_kernel_pass_catches_a_full_precision_float`: the check is not vacuous: a scratch
  notebook that prints a matmul's sum at full precision passes nbval on the native kernels and fails
  under the other ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from travel import MAX_DIGITS, long_floats, other_kernel_env, significant_digits

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_lint_no_long_float_in_compared_outputs(path: Path) -> None:
    hits = long_floats(path)
    assert not hits, (
        f"{len(hits)} compared output(s) hold a float with more than {MAX_DIGITS} significant digits; "
        "round it to the precision the prose quotes (or, if it is volatile by nature, ignore the cell's "
        "output and keep its asserts):\n"
        + "\n".join(f"  {h}" for h in hits)
    )


def _notebook(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(source: str, outputs: list[dict], tags: list[str] | None = None) -> dict:
    meta = {"tags": tags} if tags else {}
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": str(abs(hash(source)))[:8],
        "metadata": meta,
        "outputs": outputs,
        "source": source,
    }


def test_lint_finds_long_floats_where_nbval_compares(tmp_path: Path) -> None:
    glue = {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": "ratio", "mime_prefix": ""}},
        "data": {"application/papermill.record/text/plain": "0.5185546875"},
    }
    cells = [
        _code(
            "print(x)",
            [{"output_type": "stream", "name": "stdout", "text": "loss 0.0191 then 5044.70531004687\n"}],
        ),
        _code("glue('ratio', r)", [glue]),
        _code(
            "# NBVAL_IGNORE_OUTPUT\nprint(t)",
            [{"output_type": "stream", "name": "stdout", "text": "1.23456789 s"}],
        ),
        _code(
            "x",
            [
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": "tensor([0.1235, 12.5])", "image/png": "iVBORw0KGgo1.23456789"},
                }
            ],
        ),
        _code(
            "y",
            [
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": "9.671739826444536e-05 and 123456.7"},
                }
            ],
            tags=["nbval-ignore-output"],
        ),
        _code(
            "# NBVAL_IGNORE_OUTPUT: nbval reads no marker in this line\nt",
            [{"output_type": "stream", "name": "stdout", "text": "2.718281828"}],
        ),
        _code(
            "z",
            [
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": "[0.3333333333333333, 1e-12, 2.5e-07]"},
                }
            ],
        ),
    ]
    path = tmp_path / "scratch.ipynb"
    path.write_text(json.dumps(_notebook(cells)))
    hits = long_floats(path)
    assert [(h.cell, h.where, h.value) for h in hits] == [
        (0, "stdout", "5044.70531004687"),
        (1, "glue 'ratio'", "0.5185546875"),
        (5, "stdout", "2.718281828"),
        (6, "text/plain", "0.3333333333333333"),
    ]
    assert "scratch.ipynb cell 1 (glue 'ratio'): 0.5185546875" in str(hits[1])


@pytest.mark.parametrize(
    ("literal", "digits"),
    [("0.0120", 3), ("5044.70531", 9), ("-1.5e-07", 2), (".25", 2), ("100.0", 4), ("0.5185546875", 10)],
)
def test_lint_counts_significant_digits(literal: str, digits: int) -> None:
    assert significant_digits(literal) == digits


def test_notebooks_pass_under_other_kernels(other_kernel_pass) -> None:
    """Every notebook, nbval strict, in a separate process with other CPU kernels and one thread."""
    result = other_kernel_pass.wait()
    assert result.returncode == 0, (
        f"nbval strict failed under {result.name} ({result.env_summary}) after {result.seconds:.0f} s: "
        f"a compared output depends on the CPU's kernels.\n{result.tail}"
    )
    print(f"\n[travel] every notebook passed nbval strict under {result.name} in {result.seconds:.0f} s")


SCRATCH_SOURCE = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "a, b = torch.randn(200, 300), torch.randn(300, 100)\n"
    "print(float((a @ b).sum()))  # full precision: the last digits depend on the matmul kernel\n"
)


def _nbval(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(path.parent),
            "-c",
            os.devnull,
            "--nbval",
            "--nbval-current-env",
            str(path),
        ],
        cwd=path.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _run_scratch(env: dict[str, str]) -> str:
    code = SCRATCH_SOURCE.replace("  # full", "  # (")
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    ).stdout


def test_the_other_kernel_pass_catches_a_full_precision_float(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if _run_scratch(env) == _run_scratch({**env, **other_kernel_env()}):
        pytest.skip(
            "on this machine the other kernels give the scratch matmul the same bits: nothing to catch"
        )
    path = tmp_path / "scratch.ipynb"
    path.write_text(json.dumps(_notebook([_code(SCRATCH_SOURCE, [])])))
    stored = subprocess.run(
        [
            Path(sys.executable).with_name("jupyter"),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--inplace",
            "--ExecutePreprocessor.kernel_name=python3",
            str(path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert stored.returncode == 0, stored.stderr[-2000:]
    printed = "".join(json.loads(path.read_text())["cells"][0]["outputs"][0]["text"])
    assert significant_digits(printed.split()[0]) > MAX_DIGITS  # the lint would flag it too
    native = _nbval(path, env)
    assert native.returncode == 0, (
        f"the scratch notebook should pass on the kernels that stored it:\n{native.stdout}"
    )
    other = _nbval(path, {**env, **other_kernel_env()})
    assert other.returncode == 1 and "Cell outputs differ" in other.stdout, (
        f"the other-kernel pass did not catch a full-precision matmul (exit {other.returncode}):\n"
        + other.stdout[-3000:]
    )
