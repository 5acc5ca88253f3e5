#!/usr/bin/env python3
"""One entry point for everything a reader or contributor runs. Needs only Python 3.11.

    python3 tasks.py book    # set up .venv if needed, then build the site into _build/html
    python3 tasks.py test    # set up .venv if needed, then run the whole test suite (pytest)
    python3 tasks.py lab     # set up .venv if needed, then open the notebooks in JupyterLab
    python3 tasks.py bench   # set up .venv if needed, then run the attention benchmark (bench/)
    python3 tasks.py bench-checker   # the typed-answer check on tests/data/answer_corpus (dev, heldout)
    python3 tasks.py store [CHAPTER ...]  # re-execute notebooks (all, or e.g. `03`) in the pinned
                                          # environment, save their outputs, lint what nbval compares
    python3 tasks.py set-repo-url URL [--branch B]  # a fork: point the book (_config.yml), every notebook's
                                          # install cell and the pages at another repository (no .venv needed)

Set-up is idempotent: it creates `.venv`, installs `requirements.txt` (exact pins, the package itself
editable), registers a Jupyter kernel, and remembers a hash of what it installed so the next call is instant.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
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


WEB = ROOT / "web"  # the practise page's scheduler: ts-fsrs from npm, pinned in web/package-lock.json
WEB_STAMP = WEB / "node_modules" / ".installed-hash"


def ensure_web() -> None:
    """`npm ci` in web/ (the practise page bundles ts-fsrs at build time); Node.js from apt when missing."""
    lock = WEB / "package-lock.json"
    if not lock.exists():
        return
    want = hashlib.sha256(lock.read_bytes()).hexdigest()
    if WEB_STAMP.exists() and WEB_STAMP.read_text().strip() == want:
        return
    if not shutil.which("npm") and os.name == "posix" and shutil.which("apt-get") and os.geteuid() == 0:
        say("installing Debian's nodejs and npm for the practise page's scheduler (ts-fsrs)")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        run(["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL)
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nodejs", "npm"], env=env,
            stdout=subprocess.DEVNULL)
    npm = shutil.which("npm")
    if not npm:
        raise SystemExit("[tasks] npm not found: install Node.js 20 (the practise page needs ts-fsrs)")
    run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=WEB)
    WEB_STAMP.write_text(want)


def venv_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env.setdefault("PYTHONHASHSEED", "0")
    # the typed-answer check's similarity index, cached inside the project (gitignored) and built once
    env.setdefault("SELFATTENTION_CACHE", str(ROOT / ".cache" / "selfattention"))
    return env


def warm_checker() -> None:
    """Build the similarity fallback's index (~25 s) once, before the test workers start; they load it."""
    run([PY, "-c", "from selfattention.interview import similar; similar.index()"], env=venv_env())


def book(extra: list[str]) -> None:
    setup()
    ensure_web()
    t0 = time.time()
    run([BIN / "jupyter-book", "build", ".", "-W", "-n", "--keep-going", *extra], env=venv_env())
    say(f"site built in {time.time() - t0:.0f} s: open {ROOT / '_build/html/index.html'}")


def test(extra: list[str]) -> None:
    setup()
    ensure_web()
    ensure_browser()
    t0 = time.time()
    workers = min(os.cpu_count() or 1, 4)
    if workers > 1 and not any(a.startswith(("-n", "--numprocesses")) or a == "no:xdist" for a in extra):
        # pytest-xdist: one worker per core (at most 4); a notebook, a test file, stays in one worker
        extra = ["-n", str(workers), "--dist", "loadscope", *extra]
    try:
        warm_checker()
        run([PY, "-m", "pytest", *extra], env=venv_env())
    finally:
        say(f"tests took {time.time() - t0:.0f} s")


def lab(extra: list[str]) -> None:
    setup()
    run([BIN / "jupyter", "lab", "chapters", *extra], env=venv_env())


def bench(extra: list[str]) -> None:
    setup()
    run([PY, "bench/bench_attention.py", *extra], env=venv_env())


def bench_checker(extra: list[str]) -> None:
    """The typed-answer check on the labelled answer corpus (dev and heldout), per language."""
    setup()
    run([PY, "-m", "selfattention.interview.bench", *extra], env=venv_env())


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


# --- One setting for the repository URL -------------------------------------------------------------------
# `repository.url` (and `repository.branch`) in _config.yml is the setting; the book's buttons derive from it.
# Copies of it that Sphinx cannot fill in: the install cell of every notebook (`%pip install -q "selfattention
# @ git+URL"`, with `@BRANCH` unless the branch is main), `git clone URL` + `cd NAME` in the markdown pages.
CONFIG = ROOT / "_config.yml"
URL_RE = r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9._~%-]+)+"  # no quote, space, backslash or @
BRANCH_RE = r"[A-Za-z0-9._/-]+"
INSTALL_RE = re.compile(rf"(selfattention @ git\+)({URL_RE})(@{BRANCH_RE})?")
CLONE_RE = re.compile(rf"(git clone )({URL_RE})(\s*\n\s*cd )([A-Za-z0-9._-]+)")
PAGE_GLOBS = ("*.md", "chapters/*.ipynb", "bench/*.md", "_ext/*.md")


def config_repository(text: str) -> tuple[str, str]:
    """(url, branch) of the `repository:` block of _config.yml (read as text: no PyYAML before .venv)."""
    block = re.search(r"^repository:[ \t]*\n((?:[ \t]+.*\n|[ \t]*\n)*)", text, re.M)
    if not block:
        raise SystemExit("[tasks] _config.yml has no `repository:` block")
    url = re.search(r"^[ \t]+url:[ \t]*[\"']?([^\"'\s#]+)", block.group(1), re.M)
    branch = re.search(r"^[ \t]+branch:[ \t]*[\"']?([^\"'\s#]+)", block.group(1), re.M)
    if not url:
        raise SystemExit("[tasks] _config.yml: `repository:` has no `url:`")
    return url.group(1), branch.group(1) if branch else "main"


def install_spec(url: str, branch: str) -> str:
    """What the notebooks' install cell passes to pip: `selfattention @ git+URL[@BRANCH]`."""
    return f"selfattention @ git+{url}" + ("" if branch == "main" else f"@{branch}")


def _set_config(text: str, url: str, branch: str) -> str:
    head, sep, rest = text.partition("\nrepository:")
    block_end = re.search(r"\n(?=\S)", rest)
    block, tail = (rest[: block_end.start()], rest[block_end.start():]) if block_end else (rest, "")
    block = re.sub(r"(\n[ \t]+url:[ \t]*)[\"']?[^\"'\s#]+[\"']?", lambda m: m.group(1) + url, block, count=1)
    if re.search(r"\n[ \t]+branch:", block):
        block = re.sub(r"(\n[ \t]+branch:[ \t]*)[\"']?[^\"'\s#]+[\"']?", lambda m: m.group(1) + branch, block,
                       count=1)
    elif branch != "main":
        indent = re.search(r"\n([ \t]+)url:", block).group(1)
        block = re.sub(r"(\n[ \t]+url:[^\n]*)", lambda m: f"{m.group(1)}\n{indent}branch: {branch}", block,
                       count=1)
    return head + sep + block + tail


def _rewrite_text(text: str, old_url: str, url: str, branch: str) -> str:
    """Every install spec, every `git clone URL / cd NAME`, then any other copy of the old URL."""
    text = INSTALL_RE.sub(lambda m: m.group(1) + install_spec(url, branch)[len(m.group(1)):], text)
    name = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    text = CLONE_RE.sub(lambda m: m.group(1) + url + m.group(3) + name, text)
    return re.sub(re.escape(old_url) + r"(?![A-Za-z0-9._~%/-])", lambda m: url, text)


def _rewrite_notebook(path: Path, old_url: str, url: str, branch: str) -> bool:
    """Rewrite the URL inside the notebook's cell sources only; every other byte of the file stays."""
    raw = path.read_text(encoding="utf-8")
    nb = json.loads(raw)
    changed = []
    for cell in nb.get("cells", []):
        src = cell.get("source", [])
        lines = [src] if isinstance(src, str) else list(src)
        new = [_rewrite_text(line, old_url, url, branch) for line in lines]
        if new != lines:
            changed.append((lines, new))
            cell["source"] = new[0] if isinstance(src, str) else new
    if not changed:
        return False
    out = raw
    for lines, new in changed:  # the same substitution on the JSON text (URLs hold nothing JSON escapes)
        for old_line, new_line in zip(lines, new, strict=True):
            if old_line != new_line:
                old_json, new_json = json.dumps(old_line, ensure_ascii=False), json.dumps(new_line,
                                                                                         ensure_ascii=False)
                if old_json not in out:
                    raise SystemExit(f"[tasks] {path.name}: cannot find {old_json} in the file as written")
                out = out.replace(old_json, new_json)
    if json.loads(out) != nb:
        raise SystemExit(f"[tasks] {path.name}: the rewrite would change more than the URL; nothing written")
    path.write_text(out, encoding="utf-8")
    return True


def set_repo_url(extra: list[str]) -> None:
    """Point _config.yml's repository (url, branch) and every copy of the URL at another repository."""
    parser = argparse.ArgumentParser(prog="tasks.py set-repo-url", description=set_repo_url.__doc__)
    parser.add_argument("url", help="e.g. https://github.com/you/self-attention-executed")
    parser.add_argument("--branch", help="the branch the book links to and installs from (default: as set)")
    args = parser.parse_args(extra)
    url = args.url.rstrip("/").removesuffix(".git")
    if not re.fullmatch(URL_RE, url):
        raise SystemExit(f"[tasks] not an http(s) repository URL without spaces, quotes or '@': {args.url!r}")
    config = CONFIG.read_text(encoding="utf-8")
    old_url, old_branch = config_repository(config)
    branch = args.branch or old_branch
    if not re.fullmatch(BRANCH_RE, branch):
        raise SystemExit(f"[tasks] not a branch name: {branch!r}")
    written = []
    new_config = _set_config(config, url, branch)
    if config_repository(new_config) != (url, branch):
        raise SystemExit("[tasks] could not rewrite `repository:` in _config.yml; nothing written")
    if new_config != config:
        CONFIG.write_text(new_config, encoding="utf-8")
        written.append(CONFIG)
    for path in sorted({p for g in PAGE_GLOBS for p in ROOT.glob(g)}):
        if path.suffix == ".ipynb":
            if _rewrite_notebook(path, old_url, url, branch):
                written.append(path)
            continue
        text = path.read_text(encoding="utf-8")
        new = _rewrite_text(text, old_url, url, branch)
        if new != text:
            path.write_text(new, encoding="utf-8")
            written.append(path)
    for path in written:
        say(f"rewrote {path.relative_to(ROOT)}")
    say(f"repository: {url} (branch {branch}); {len(written)} file(s) changed")


COMMANDS = {
    "setup": lambda extra: setup(), "book": book, "test": test, "lab": lab, "bench": bench,
    "bench-checker": bench_checker, "store": store,
    "set-repo-url": set_repo_url,
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
