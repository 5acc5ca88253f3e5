"""One setting for the repository URL: `repository.url` (and `.branch`) in _config.yml.

Every copy of it in the repository (each notebook's install cell, `git clone` in the pages, any link to the
repository) must equal it, and `python3 tasks.py set-repo-url URL [--branch B]` (run here on a copy of the
repository, never on the worktree) rewrites them all, changing nothing else in a notebook, byte for byte.
The scanner below is written independently of tasks.py's rewriter: its regexes, YAML through PyYAML.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
# Files that may hold a copy of the URL (prose, notebooks, configuration, scripts). tests/ and tasks.py are
# left out: they hold example URLs of made-up forks, not copies of the setting.
SUFFIXES = {".md", ".ipynb", ".yml", ".yaml", ".py", ".txt", ".toml", ".cfg", ".ini", ".sh", ".html", ""}
SKIP_DIRS = {".git", ".venv", "_build", "tests", "test-output", "node_modules", "__pycache__", ".ruff_cache",
             ".pytest_cache", ".hypothesis", ".jupyter_cache", ".ipynb_checkpoints"}
SKIP_FILES = {"tasks.py"}
URL = r"https?://[^\s\"'\\)<>`@\]]+"
INSTALL = re.compile(rf"selfattention\s*@\s*git\+({URL})(?:@([^\s\"'\\]+))?")
CLONE = re.compile(rf"git clone ({URL})(?:[ \t]*\n[ \t]*cd ([^\s]+))?")
HOSTED = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/([^/\s\"'\\)<>`#?@]+)/([^/\s\"'\\)<>`#?@]+)")
LAUNCH = re.compile(r"https?://(?:mybinder\.org/v2/gh|colab\.research\.google\.com/github)/([^/\s\"'\\)@]+)/"
                    r"([^/\s\"'\\)@]+)")


def setting(root: Path) -> tuple[str, str]:
    repo = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))["repository"]
    return str(repo["url"]).rstrip("/"), str(repo.get("branch", "main"))


def scanned_files(root: Path) -> list[Path]:
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts[:-1]):
            continue
        if path.is_file() and path.suffix in SUFFIXES and path.name not in SKIP_FILES:
            out.append(path)
    return out


def owner_repo(url: str) -> tuple[str, str]:
    owner, repo = url.rstrip("/").split("/")[-2:]
    return owner, repo.removesuffix(".git")


def mismatches(root: Path) -> tuple[list[str], int]:
    """(every copy of the repository URL that differs from _config.yml's, how many copies were checked)."""
    url, branch = setting(root)
    want_owner_repo = owner_repo(url)
    bad, seen = [], 0
    for path in scanned_files(root):
        if path.name == "_config.yml" and path.parent == root:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(root).as_posix()
        for m in INSTALL.finditer(text):
            seen += 1
            if m.group(1).rstrip("/") != url:
                bad.append(f"{rel}: installs from {m.group(1)}, _config.yml says {url}")
            want_ref = None if branch == "main" else branch
            if m.group(2) != want_ref:
                bad.append(f"{rel}: installs ref {m.group(2)!r}; branch {branch!r} wants {want_ref!r}")
        for m in CLONE.finditer(text):
            seen += 1
            if m.group(1).rstrip("/").removesuffix(".git") != url:
                bad.append(f"{rel}: clones {m.group(1)}, _config.yml says {url}")
            if m.group(2) is not None and m.group(2) != want_owner_repo[1]:
                bad.append(f"{rel}: `cd {m.group(2)}` after the clone; the clone makes {want_owner_repo[1]}")
        for pattern in (HOSTED, LAUNCH):
            for m in pattern.finditer(text):
                seen += 1
                if (m.group(1), m.group(2).removesuffix(".git")) != want_owner_repo:
                    bad.append(f"{rel}: links to {m.group(0)}, _config.yml says {url}")
    for nb_path in sorted((root / "chapters").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        first = "".join(code[0]["source"]) if code else ""
        specs = INSTALL.findall(first)
        if len(specs) != 1 or "nbval-skip" not in code[0].get("metadata", {}).get("tags", []):
            bad.append(f"chapters/{nb_path.name}: the first code cell is not the install cell "
                       f"(tag nbval-skip, one `selfattention @ git+URL`)")
    return bad, seen


def copy_repo(dest: Path) -> Path:
    """The worktree's files as they are on disk (tracked and untracked-but-not-ignored), without .git."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def set_repo_url(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / "tasks.py"), "set-repo-url", *args], cwd=root,
                          capture_output=True, text=True, timeout=120)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("repo"))


def test_every_copy_of_the_repository_url_equals_the_setting() -> None:
    bad, seen = mismatches(ROOT)
    assert bad == []
    assert seen >= len(list((ROOT / "chapters").glob("*.ipynb"))) + 1  # every install cell + the clone line


@pytest.mark.parametrize("edit", ["other_url", "stray_ref", "no_install_cell"])
def test_the_check_fails_when_one_notebook_differs(tmp_path, repo_copy, edit) -> None:
    root = tmp_path / "r"
    shutil.copytree(repo_copy, root)
    url, _ = setting(root)
    nb = root / "chapters" / "07_vs_rnn.ipynb"
    raw = nb.read_text(encoding="utf-8")
    spec = f"selfattention @ git+{url}"
    assert raw.count(spec) == 1
    changed = {"other_url": raw.replace(spec, "selfattention @ git+https://github.com/someone/else"),
               "stray_ref": raw.replace(spec, spec + "@dev"),
               "no_install_cell": raw.replace(spec, "selfattention")}[edit]
    nb.write_text(changed, encoding="utf-8")
    bad, _ = mismatches(root)
    assert bad and all("07_vs_rnn.ipynb" in line for line in bad), bad


def test_set_repo_url_rewrites_every_copy_and_nothing_else(tmp_path, repo_copy) -> None:
    root = tmp_path / "r"
    shutil.copytree(repo_copy, root)
    before = snapshot(root)
    old_url, old_branch = setting(root)
    assert old_branch == "main"
    new_url = "https://github.com/someone/fork-of-the-course"
    done = set_repo_url(root, new_url + "/", "--branch", "dev")
    assert done.returncode == 0, done.stderr
    assert setting(root) == (new_url, "dev")
    bad, seen = mismatches(root)
    assert bad == [] and seen > 12
    after = snapshot(root)
    left = [rel for rel, data in after.items() if old_url.encode() in data]
    assert not [rel for rel in left if not rel.startswith("tests/") and rel != "tasks.py"], left
    # notebooks: still valid, and the file is the old file with only the install spec's string replaced
    old_spec, new_spec = f"selfattention @ git+{old_url}", f"selfattention @ git+{new_url}@dev"
    notebooks = sorted(rel for rel in after if rel.startswith("chapters/") and rel.endswith(".ipynb"))
    assert len(notebooks) >= 12
    for rel in notebooks:
        nbformat.validate(nbformat.reads(after[rel].decode("utf-8"), as_version=4))
        old_text = before[rel].decode("utf-8")
        assert old_text.count(old_spec) == 1, rel
        assert after[rel].decode("utf-8") == old_text.replace(old_spec, new_spec), rel
    # the pages: the clone line and the directory it makes
    page = after["how_to_use.md"].decode("utf-8")
    assert f"git clone {new_url}\ncd fork-of-the-course\n" in page
    assert new_url.encode() in after["README.md"] and new_url.encode() in after["CONTRIBUTING.md"]
    # nothing else changed
    changed = {rel for rel in before if before[rel] != after.get(rel)}
    assert changed <= {"_config.yml", "README.md", "CONTRIBUTING.md", "how_to_use.md", *notebooks}, changed
    assert set(after) == set(before)
    # idempotent, and setting the old URL back restores every file byte for byte
    assert set_repo_url(root, new_url, "--branch", "dev").returncode == 0
    assert snapshot(root) == after
    assert set_repo_url(root, old_url, "--branch", "main").returncode == 0
    assert snapshot(root) == before


@pytest.mark.parametrize("bad_url", ["https://github.com/a b/c", "git@github.com:a/b.git", 'https://x.org/"q"'])
def test_set_repo_url_refuses_a_bad_url_and_writes_nothing(tmp_path, repo_copy, bad_url) -> None:
    root = tmp_path / "r"
    shutil.copytree(repo_copy, root)
    before = snapshot(root)
    done = set_repo_url(root, bad_url)
    assert done.returncode != 0 and "not an http(s) repository URL" in done.stderr
    assert snapshot(root) == before
