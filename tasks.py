#!/usr/bin/env python3
"""One entry point for everything a reader or contributor runs. Needs only Python 3.11.

    python3 tasks.py book    # set up .venv if needed, then build the site into _build/html
    python3 tasks.py test    # set up .venv if needed, then run the whole test suite (pytest)
    python3 tasks.py lab     # set up .venv if needed, then open the notebooks in JupyterLab
    python3 tasks.py bench   # set up .venv if needed, then run the attention benchmark (bench/)
    python3 tasks.py store [CHAPTER ...]  # re-execute notebooks (all, or e.g. `03`) in the pinned
                                          # environment, save their outputs, lint what nbval compares

Set-up is idempotent: it creates `.venv`, installs `requirements.txt` (exact pins, the package itself
editable), registers a Jupyter kernel, and remembers a hash of what it installed so the next call is instant.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".installed-hash"
INPUTS = ("requirements.txt", "pyproject.toml")


def say(msg: str) -> None:
    print(f"[tasks] {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    say("$ " + " ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, cwd=kw.pop("cwd", ROOT), **kw)


def wanted_hash() -> str:
    h = hashlib.sha256()
    for name in INPUTS:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()


def setup() -> None:
    """Create .venv and install the pinned requirements (skipped when nothing changed)."""
    if sys.version_info[:2] != (3, 11):
        say(f"warning: Python {sys.version.split()[0]}; pins (torch==2.13.0 CPU wheel) target 3.11")
    if not PY.exists():
        say("creating .venv")
        run([sys.executable, "-m", "venv", VENV])
    if STAMP.exists() and STAMP.read_text().strip() == wanted_hash():
        say("environment up to date")
        return
    t0 = time.time()
    run([PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", "requirements.txt"])
    run([PY, "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3", "--display-name",
         "Python 3 (selfattention)"], stdout=subprocess.DEVNULL)
    STAMP.write_text(wanted_hash())
    say(f"installed in {time.time() - t0:.0f} s")


def ensure_browser() -> None:
    """Install Debian's Chromium for the browser test when it is missing and we may (root + apt)."""
    have_fonts = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc").exists()
    if (shutil.which("chromium") and have_fonts) or os.environ.get("SELFATTENTION_NO_BROWSER_INSTALL"):
        return
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        say("chromium or CJK fonts missing and not installable (needs root, apt): browser tests may skip")
        return
    say("installing Debian's chromium (and CJK fonts for the 中文 text) for the browser test")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run(["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL)
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium",
             "fonts-noto-cjk"], env=env,
            stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError as exc:
        say(f"could not install chromium ({exc}); the browser tests will be skipped")


def venv_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def book(extra: list[str]) -> None:
    setup()
    t0 = time.time()
    run([BIN / "jupyter-book", "build", ".", "-W", "-n", "--keep-going", *extra], env=venv_env())
    say(f"site built in {time.time() - t0:.0f} s: open {ROOT / '_build/html/index.html'}")


def test(extra: list[str]) -> None:
    setup()
    ensure_browser()
    t0 = time.time()
    try:
        run([PY, "-m", "pytest", *extra], env=venv_env())
    finally:
        say(f"tests took {time.time() - t0:.0f} s")


def lab(extra: list[str]) -> None:
    setup()
    run([BIN / "jupyter", "lab", "chapters", *extra], env=venv_env())


def bench(extra: list[str]) -> None:
    setup()
    run([PY, "bench/bench_attention.py", *extra], env=venv_env())


def chapter_paths(names: list[str]) -> list[Path]:
    """Notebooks named by number ("03"), stem ("03_scaling") or path; all chapters when none is named."""
    every = sorted((ROOT / "chapters").glob("*.ipynb"))
    if not names:
        return every
    found = []
    for name in names:
        path = (ROOT / name) if name.endswith(".ipynb") else None
        matches = [path] if path and path.exists() else [p for p in every if p.stem.startswith(name)]
        if len(matches) != 1:
            raise SystemExit(f"[tasks] {name!r} names {len(matches)} notebooks in chapters/: name one")
        found += matches
    return found


def store(extra: list[str]) -> None:
    """Execute notebooks in the pinned environment, save their outputs, lint what nbval compares."""
    setup()
    import json

    paths = chapter_paths(extra)
    for path in paths:
        t0 = time.time()
        run([BIN / "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
             "--ExecutePreprocessor.kernel_name=python3", "--ExecutePreprocessor.timeout=600",
             "--ExecutePreprocessor.record_timing=False", path], env=venv_env(), cwd=path.parent)
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:  # wall-clock stamps of an earlier run would only add noise to diffs
            cell.get("metadata", {}).pop("execution", None)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        say(f"stored {path.relative_to(ROOT)} in {time.time() - t0:.0f} s")
    run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_travel.py", "-k", "lint"],
        env=venv_env())
    say("now run `python3 tasks.py test` (nbval compares what was stored, also under other CPU kernels)")


COMMANDS = {
    "setup": lambda extra: setup(), "book": book, "test": test, "lab": lab, "bench": bench, "store": store,
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        COMMANDS[argv[0]](argv[1:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
