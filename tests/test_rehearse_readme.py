"""The README's example session is real: its typed answer, run through ``attention-rehearse`` on the packaged
bank, ticks exactly the key points the README shows and reports the score the README states."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from selfattention.interview.rehearse import main

ROOT = Path(__file__).resolve().parents[1]


def _readme_session() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(\$ attention-rehearse.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "expected one example session in README.md"
    return blocks[0]


def test_readme_example_answer_scores_what_the_readme_shows(tmp_path, monkeypatch, capsys) -> None:
    session = _readme_session()
    argv = session.splitlines()[0].removeprefix("$ attention-rehearse").split()
    answer = re.search(r"^> \(answer aloud[^)]*\) (.+)$", session, flags=re.M).group(1)
    shown = [ln for ln in session.splitlines() if re.match(r" ?\d+ \[[x ]\] ", ln)]
    quotes = [ln for ln in session.splitlines() if ln.startswith("      you wrote: ")]
    assert len(shown) == 6 and sum("[x]" in ln for ln in shown) == len(quotes) == 4

    monkeypatch.setenv("ATTENTION_REHEARSE_DB", str(tmp_path / "p.sqlite3"))
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-11-29T09:00:00Z")
    monkeypatch.delenv("ATTENTION_REHEARSE_CARDS", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{answer}\n\n3\n"))
    capsys.readouterr()
    assert main([*argv, "--plain"]) == 0
    out = capsys.readouterr().out
    got = [ln for ln in out.splitlines() if re.match(r" ?\d+ \[[x ]\] ", ln)]
    assert got == shown
    assert [ln for ln in out.splitlines() if ln.startswith("      you wrote: ")] == quotes
    assert not re.search(r"\d/\d key points|\d+ ?%", out)  # a checklist, no score


@pytest.mark.parametrize("needle", ["根号", "不是", "misconception"])
def test_readme_documents_the_bilingual_and_misconception_check(needle) -> None:
    assert needle in (ROOT / "README.md").read_text(encoding="utf-8")


def _study(argv, stdin, tmp_path, monkeypatch, capsys) -> str:
    monkeypatch.setenv("ATTENTION_REHEARSE_DB", str(tmp_path / "p.sqlite3"))
    monkeypatch.setenv("ATTENTION_REHEARSE_NOW", "2026-11-29T09:00:00Z")
    monkeypatch.delenv("ATTENTION_REHEARSE_CARDS", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    assert main([*argv, "--plain"]) == 0
    return capsys.readouterr().out


def test_a_stated_myth_is_shown_with_its_correction_and_does_not_count(tmp_path, monkeypatch, capsys) -> None:
    answer = "We divide by d_k because the variance grows, it acts as a temperature, the root of it"
    out = _study(["--chapter", "3", "--limit", "1"], f"{answer}\n\n3\n", tmp_path, monkeypatch, capsys)
    lines = out.splitlines()
    i = lines.index("Your answer states a common misconception:")
    assert lines[i + 1] == "  you wrote: “We divide by d_k”"  # the clause that stated it
    assert lines[i + 2] == "  Myth: We divide by d_k."
    assert lines[i + 3].startswith("  Correction: For independent zero-mean unit-variance q and k")
    point = "Dividing by sqrt(d_k) restores unit variance for any d_k; it acts as a fixed temperature."
    assert not any(ln.endswith(f"[x] {point}") for ln in lines)


def test_a_chinese_answer_is_checked_in_chinese(tmp_path, monkeypatch, capsys) -> None:
    answer = "因为点积的方差随 d_k 增长，softmax 会饱和，梯度消失，所以除以根号 d_k"
    argv = ["--chapter", "3", "--limit", "1", "--lang", "zh"]
    out = _study(argv, f"{answer}\n\ns\n3\n", tmp_path, monkeypatch, capsys)  # s: spoken answer and myths
    assert "      你写的: “softmax 会饱和”" in out.splitlines()
    assert " 5 [ ] 除以 √d_k 对任意 d_k 恢复单位方差，相当于固定的温度。" in out.splitlines()
    assert "  ! 误区：是除以 d_k。" in out.splitlines()
