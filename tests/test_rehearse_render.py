"""Width-aware wrapping for the terminal: a Chinese character takes two columns, Chinese breaks between any
two characters but never before closing punctuation, English breaks at spaces, hanging indents are kept."""

from __future__ import annotations

import unicodedata

from selfattention.interview.render import UI, display_width, truncate, wrap


def _cols(text: str) -> int:  # measured here, independently of the code under test
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_display_width_counts_wide_characters_twice() -> None:
    assert display_width("abc") == 3 and display_width("注意力") == 6 and display_width("QKᵀ，") == 5


def test_chinese_wraps_between_characters_and_fits_the_width() -> None:
    text = (
        "自注意力把 n 个向量变成 n 个新向量，每个新向量都看过整个序列。"
        "第一步，用三个可学习的线性变换投影。"
    )
    lines = wrap(text, 20)
    assert "".join(ln.replace(" ", "") for ln in lines) == text.replace(" ", "")  # nothing lost
    assert all(_cols(ln) <= 20 for ln in lines), lines
    assert len(lines) >= 5 and max(_cols(ln) for ln in lines) >= 18  # lines are filled, not ragged
    assert not any(ln[:1] in "，。、；：？！）" for ln in lines), lines
    # the comma would fall on column 11 of a 10-column line: it takes the character before it along
    assert wrap("一二三四五，六七八。", 10) == ["一二三四", "五，六七", "八。"]


def test_english_wraps_at_spaces_and_keeps_the_hanging_indent() -> None:
    text = "the quick brown fox jumps over the lazy dog again and again"
    lines = wrap(text, 20, indent="  - ", hang="    ")
    assert lines[0].startswith("  - ") and all(ln.startswith("    ") for ln in lines[1:])
    assert all(_cols(ln) <= 20 for ln in lines)
    assert " ".join(ln.strip(" -") for ln in lines) == text


def test_ui_wrapping_finds_the_marker_for_the_hanging_indent() -> None:
    ui = UI(plain=True, lang="zh")
    out = ui._wrapped("  ! 误区：" + "缩放放在 softmax 之后也一样" * 3, 30).split("\n")
    assert out[0].startswith("  ! 误区：") and all(ln.startswith("    ") for ln in out[1:])
    assert all(_cols(ln) <= 30 for ln in out)


def test_truncate_marks_the_cut() -> None:
    assert truncate("short", 20, indent="  ") == "  short"
    cut = truncate("为什么要把注意力分数除以根号 d_k？", 16, indent="  ")
    assert cut.endswith("…") and _cols(cut) <= 16
