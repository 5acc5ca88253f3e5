"""_ext/site_fixes.py: the build-time fix for Sphinx's Chinese search splitter (the rest: browser tests)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

import site_fixes  # noqa: E402  (the local Sphinx extension, found through _ext on sys.path)
from sphinx.search import zh  # noqa: E402


def _splitter() -> zh.SearchChinese:
    s = zh.SearchChinese({})
    return s


def test_latin_terms_are_a_set_so_each_lookup_is_constant_time():
    # Sphinx 7.4 keeps them in a list that grows with every page and scans it once per word (O(n^2) per build)
    site_fixes._fast_zh_latin_terms()
    assert isinstance(zh.SearchChinese.latin_terms, set)
    site_fixes._fast_zh_latin_terms()  # idempotent: a second setup() keeps the same set
    assert isinstance(zh.SearchChinese.latin_terms, site_fixes._TermSet)


def test_stemming_is_unchanged():
    # a Latin term seen by split() and too short once stemmed keeps its own form ("its" -> "its", not "it");
    # one never seen is stemmed as usual; Chinese words go through jieba as before
    site_fixes._fast_zh_latin_terms()
    s = _splitter()
    words = s.split("its 注意力 机制 softmax")
    assert "its" in words and "softmax" in words and any("注意" in w for w in words)
    assert s.stem("its") == "its"
    assert s.stem("scaling") == "scale"
    assert s.stem("ZZq") == "zzq"
