"""The similarity index, as reviewed in session 16 (review of 451c5e2, findings M3, M4, M5, L1, L2).

- M3: an install without the tests folder had no dev-corpus or probe exemplars (9 of 514 complete answers
  flagged there); they are now package data, `similar.EXEMPLARS`, kept equal to their sources here.
- M4: building the index switched the fallback off for the whole process (a `warm()` thread could leave it
  off); the build now asks the cards for their patterns alone (`Card.check(..., patterns_only=True)`).
- M5: the cache digest omitted matcher.py and bank.py, which choose the stating clauses.
- L1, L2: a cache of the wrong shape crashed the load; old caches and temporary files were never removed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selfattention.interview import bank, similar

ROOT = Path(__file__).resolve().parents[1]


def test_packaged_exemplars_equal_their_sources():
    blob = similar.export_exemplars(out=None)
    assert similar.EXEMPLARS.read_bytes() == blob, (
        "the dev corpus or the probes changed: run `python -m selfattention.interview.similar --export`"
    )
    entries, probes = similar.load_exemplars()
    assert len(entries) == len(similar.load_corpus(similar.CORPUS_DEV)) >= 2000
    assert probes == similar.load_probes() and sum(map(len, probes.values())) >= 4000


def test_an_install_without_the_tests_folder_has_the_exemplars(tmp_path):
    # the package alone, as a wheel installs it: no tests/ above it
    site = tmp_path / "site"
    shutil.copytree(ROOT / "src" / "selfattention", site / "selfattention",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "from selfattention.interview import similar\n"
        "assert not similar.CORPUS_DEV.exists() and not similar.PROBES.exists()\n"
        "import hashlib, json\n"
        "entries, probes = similar.load_exemplars()\n"
        "print(hashlib.sha256(json.dumps([entries, probes], sort_keys=True).encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    keep = ("card", "lang", "kind", "myths", "text")
    entries = [{k: e.get(k) for k in keep} for e in similar.load_corpus(similar.CORPUS_DEV)]
    want = hashlib.sha256(json.dumps([entries, similar.load_probes()], sort_keys=True).encode()).hexdigest()
    assert out.stdout.strip() == want  # the same entries and probes as tests/data holds


def test_build_reads_nothing_from_the_tests_folder(monkeypatch, tmp_path):
    seen: list = []
    real = similar.load_corpus

    def spy(directory):
        seen.append(directory)
        return real(directory)

    monkeypatch.setattr(similar, "load_corpus", spy)
    monkeypatch.setattr(similar, "load_probes", lambda *a, **k: pytest.fail("probes read from tests/"))
    cards = bank.load_cards()[:2]
    idx = similar.build(cards)
    assert seen == []
    assert any(x.source for exs in idx.correct.values() for x in exs)  # the packaged dev answers are there


def test_patterns_only_skips_the_fallback(monkeypatch):
    calls: list = []

    def hook(card, answer):
        calls.append(answer)
        return lambda cls: {}

    monkeypatch.setattr(bank, "FALLBACK", hook)
    card = bank.load_cards()[0]
    card.check("Scores are divided by d_k.")
    assert calls == ["Scores are divided by d_k."]
    card.check("Scores are divided by d_k.", patterns_only=True)
    assert len(calls) == 1


def test_building_the_index_leaves_the_fallback_on(monkeypatch, tmp_path):
    monkeypatch.setenv("SELFATTENTION_CACHE", str(tmp_path))
    seen: list = []

    def fake_build(cards, *a, **k):
        seen.append(bank.FALLBACK)
        return similar.Index({}, 1.0, {}, {}, {}, {})

    monkeypatch.setattr(similar, "build", fake_build)
    monkeypatch.setattr(bank, "FALLBACK", similar.fallback)
    similar.load_or_build()
    assert seen == [similar.fallback]  # a concurrent check keeps the fallback while the index is built
    assert bank.FALLBACK is similar.fallback


def test_the_digest_covers_every_module_and_the_exemplars():
    names = {p.name for p in similar._inputs()}
    here = Path(similar.__file__).parent
    assert {p.name for p in here.glob("*.py")} <= names
    assert {"matcher.py", "bank.py", "language.py", "similar.py", "exemplars.json.gz"} <= names


@pytest.mark.parametrize("payload", ["[]", '{"idf": 3}', '{"idf": {}, "default_idf": 1, "myth": [1]}', "nope"])
def test_a_cache_of_the_wrong_shape_is_rebuilt(monkeypatch, tmp_path, payload):
    monkeypatch.setenv("SELFATTENTION_CACHE", str(tmp_path))
    built = similar.Index({"x": 1.0}, 1.0, {}, {}, {}, {})
    monkeypatch.setattr(similar, "build", lambda cards, *a, **k: built)
    path = tmp_path / f"similar-{similar._digest()}.json"
    path.write_text(payload, encoding="utf-8")
    assert similar.load_or_build() is built
    assert json.loads(path.read_text(encoding="utf-8"))["idf"] == {"x": 1.0}  # and the cache is replaced


def test_old_caches_and_stray_temporary_files_are_removed(tmp_path):
    idx = similar.Index({"x": 1.0}, 1.0, {}, {}, {}, {})
    now = time.time()
    olds = []
    for k in range(5):
        f = tmp_path / f"similar-old{k}.json"
        f.write_text("{}")
        os.utime(f, (now - 100 * (k + 1), now - 100 * (k + 1)))
        olds.append(f)
    stale = tmp_path / "similar-abc.tmp"
    stale.write_text("")
    os.utime(stale, (now - 7200, now - 7200))
    fresh = tmp_path / "similar-def.tmp"  # another process may be writing it
    fresh.write_text("")
    other = tmp_path / "notes.json"  # not ours
    other.write_text("{}")
    path = tmp_path / "similar-new.json"
    similar._store(idx, path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["similar-new.json", "similar-old0.json", "similar-old1.json", "similar-def.tmp",
                           "notes.json"])


def test_a_failed_write_leaves_no_temporary_file(monkeypatch, tmp_path):
    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(similar.json, "dump", boom)
    similar._store(similar.Index({}, 1.0, {}, {}, {}, {}), tmp_path / "similar-x.json")
    assert list(tmp_path.iterdir()) == []
