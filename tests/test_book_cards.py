"""The built site shows every interview card: on its chapter page, in the drill and on the cheat sheet."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from selfattention.interview.bank import CHAPTERS, Card, cards_by_chapter, load_cards
from selfattention.interview.sphinx_ext import plain_math_to_myst

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_cards()
BY_CHAPTER = cards_by_chapter(CARDS)

pytestmark = pytest.mark.book


class _Text(HTMLParser):
    """The visible text of a page (script and style bodies dropped)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2026": "..."})


def _plain(text: str) -> str:
    """Straight quotes (Sphinx 'smartens' them), collapsed whitespace."""
    return " ".join(html.unescape(text).translate(_QUOTES).split())


def page(built_book, name: str) -> tuple[str, str]:
    """(raw HTML, visible text) of a built page."""
    path = built_book.html / f"{name}.html"
    assert path.exists(), f"{path} was not built: is {name} listed in _toc.yml?"
    raw = path.read_text(encoding="utf-8")
    parser = _Text()
    parser.feed(raw)
    return raw, _plain(" ".join(parser.parts))


def prose_chunks(text: str) -> list[str]:
    """The card text outside inline math (its own $..$ and the plain-text formulas the site shows as math),
    markdown markers removed: what must appear verbatim on the page."""
    chunks = re.split(r"\$[^$]+\$", plain_math_to_myst(text))
    out = []
    for chunk in chunks:
        # punctuation next to a formula stays on its line with it (a separate text node on the page)
        chunk = _plain(chunk.replace("**", "").replace("`", "")).strip(" ,.;:()[]，。；：、（）\"'")
        if len(chunk) >= 3:
            out.append(chunk)
    return out


def assert_shows(text: str, card: Card, field: str, where: str) -> None:
    for lang in ("en", "zh"):
        for chunk in prose_chunks(getattr(card, field)[lang]):
            assert chunk in text, f"{where}: {card.id}.{field}.{lang} missing: {chunk[:80]!r}"


def assert_anchor(raw: str, card: Card, where: str) -> None:
    assert f'id="{card.anchor}"' in raw, f"{where}: no element with id {card.anchor}"


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_chapter_page_shows_its_cards(built_book, slug: str) -> None:
    if not (ROOT / "chapters" / f"{slug}.ipynb").exists():
        pytest.skip(f"chapters/{slug}.ipynb is not written yet")
    raw, text = page(built_book, f"chapters/{slug}")
    basic, *others = BY_CHAPTER[slug]
    assert_anchor(raw, basic, slug)
    assert_shows(text, basic, "spoken", slug)  # "How to say it in the interview", English and 中文 tabs
    for lang in ("en", "zh"):
        for point in basic.key_points[lang]:
            for chunk in prose_chunks(point):
                assert chunk in text, f"{slug}: key point missing: {point!r} ({chunk!r})"
    for card in others:  # "Follow-up questions": question as the dropdown title, short answer inside
        assert_anchor(raw, card, slug)
        assert_shows(text, card, "question", slug)
        assert_shows(text, card, "short", slug)


def test_drill_shows_every_question_with_hidden_answers(built_book) -> None:
    raw, text = page(built_book, "drill")
    for card in CARDS:
        assert_anchor(raw, card, "drill")
        for field in ("question", "short", "spoken"):
            assert_shows(text, card, field, "drill")
    # answers are folded: one <details> dropdown per card
    assert raw.count('<details class="sd-sphinx-override sd-dropdown') == len(CARDS)
    # follow-up links point at the card on its chapter page, where that page exists
    for card in CARDS:
        for target in card.follow_ups:
            chapter = next(c.chapter for c in CARDS if c.id == target)
            if (built_book.html / "chapters" / f"{chapter}.html").exists():
                assert f'href="chapters/{chapter}.html#card-{target}"' in raw, f"drill: no link to {target}"


def test_cheat_sheet_shows_every_short_answer(built_book) -> None:
    raw, text = page(built_book, "cheatsheet")
    for card in CARDS:
        assert_anchor(raw, card, "cheatsheet")
        assert_shows(text, card, "short", "cheatsheet")
    css = built_book.html / "_static" / "sphinx_ext.css"
    assert "_static/sphinx_ext.css" in raw and css.exists()
    assert "@media print" in css.read_text(encoding="utf-8")
    assert 'class="math notranslate nohighlight"' in raw  # inline math became math nodes, not literal $


# --- the extension on its own: a two-page Sphinx project, independent of the chapter notebooks ------------

CONF = """
extensions = ["myst_parser", "sphinx_design", "selfattention.interview.sphinx_ext"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
exclude_patterns = ["_build"]
"""


def _sphinx(src: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-n", "-q", str(src), str(src / "_build")],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_extension_renders_and_links_cards_in_a_minimal_project(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "index.md").write_text(
        "# Index\n\n```{toctree}\nchapters/01_flow\ndrill\n```\n", encoding="utf-8"
    )
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "01_flow.md").write_text(
        "# Flow\n\n## Say it\n\n```{interview-answer} 01_flow\n```\n\n"
        "## Follow-ups\n\n```{follow-up-questions} 01_flow\n```\n\n"
        "## Practise\n\n```{practise} 01_flow\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "drill.md").write_text("# Drill\n\n```{question-drill}\n```\n", encoding="utf-8")
    proc = _sphinx(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    chapter = (tmp_path / "_build" / "chapters" / "01_flow.html").read_text(encoding="utf-8")
    drill = (tmp_path / "_build" / "drill.html").read_text(encoding="utf-8")
    for card in BY_CHAPTER["01_flow"]:
        assert f'id="{card.anchor}"' in chapter
    assert 'class="math notranslate nohighlight"' in chapter
    # follow-up links: to the card on this very page, or into the chapter page from the drill
    basic = BY_CHAPTER["01_flow"][0]
    assert 'href="#card-flow-what-is-transformer"' in chapter
    assert f'href="chapters/01_flow.html#card-{basic.follow_ups[0]}"' in drill
    # a card whose chapter page is not in this project is named but not linked
    assert 'href="chapters/03_scaling.html' not in drill
    assert 'class="sa-missing-chapter"' in drill
    # one section (heading) per chapter on the drill page, so the contents panel lists the chapters
    assert drill.count('<section class="sa-chapter-section sa-drill-chapter" id="drill-') == len(CHAPTERS)


def test_unknown_chapter_fails_the_build_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "index.md").write_text("# Index\n\n```{interview-answer} 10_nowhere\n```\n", encoding="utf-8")
    proc = _sphinx(tmp_path)
    assert proc.returncode != 0
    assert "unknown chapter '10_nowhere'" in proc.stderr, proc.stderr[-2000:]


def test_practise_links_rehearsal_drill_and_next_question(tmp_path: Path) -> None:
    """{practise}: the rehearse commands, the chapter's cards on the drill page, the next toc chapter."""
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    # toc order 05 -> 03 (not the numeric order): "next" must follow the toc, and 03 is last
    (tmp_path / "index.md").write_text(
        "# Index\n\n```{toctree}\nchapters/05_masking\nchapters/03_scaling\ndrill\n```\n", encoding="utf-8"
    )
    (tmp_path / "chapters").mkdir()
    for slug in ("05_masking", "03_scaling"):
        (tmp_path / "chapters" / f"{slug}.md").write_text(
            f"# {slug}\n\n## Practise\n\n```{{practise}} {slug}\n```\n", encoding="utf-8"
        )
    (tmp_path / "drill.md").write_text("# Drill\n\n```{question-drill}\n```\n", encoding="utf-8")
    proc = _sphinx(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    masking = (tmp_path / "_build" / "chapters" / "05_masking.html").read_text(encoding="utf-8")
    text = _plain(re.sub(r"<[^>]+>", "", masking))
    assert "attention-rehearse --chapter 5" in text and "attention-rehearse --chapter 5 --lang zh" in text
    assert 'href="../drill.html#drill-05-masking"' in masking
    for card in BY_CHAPTER["05_masking"]:
        assert f'href="../drill.html#card-{card.id}"' in masking, card.id
    nxt = re.search(r'sa-practise-next.*?href="([^"]+)">(.*?)</a>', masking, flags=re.S)
    assert nxt and nxt.group(1) == "03_scaling.html", nxt
    link_text = _plain(html.unescape(re.sub(r"<[^>]+>", "", nxt.group(2))))
    for chunk in prose_chunks(BY_CHAPTER["03_scaling"][0].question["en"]):
        assert chunk in link_text, (chunk, link_text)
    assert 'class="math' in nxt.group(2), "the formula in the next question's title is not math"
    scaling = (tmp_path / "_build" / "chapters" / "03_scaling.html").read_text(encoding="utf-8")
    last = re.search(r'sa-practise-next.*?href="([^"]+)"', scaling, flags=re.S)
    assert last and last.group(1) == "../drill.html", "the last chapter should lead to the drill page"


# --- plain-text formulas in cards become math on the site -------------------------------------------------


@pytest.mark.parametrize(
    ("plain", "myst"),
    [
        ("scores W_Q W_K^T, divided by sqrt(d_k).", "scores $W_Q W_K^{\\top}$, divided by $\\sqrt{d_k}$."),
        ("√d_k and √d_model", "$\\sqrt{d_k}$ and $\\sqrt{d_{\\text{model}}}$"),
        ("O(n^2) memory, 4nd^2 FLOPs", "O($n^2$) memory, $4nd^2$ FLOPs"),
        ("q_i·k_j summed", "$q_i \\cdot k_j$ summed"),
        ("d_model/h per head, h_kv groups", "$d_{\\text{model}}$/h per head, $h_{\\text{kv}}$ groups"),
        ("base^(-2i/d), 2^(-8k/H), s^(d/(d-2))", "$\\text{base}^{-2i/d}$, $2^{-8k/H}$, $s^{d/(d-2)}$"),
        ("θ_i and theta_i, A_ij", "$θ_i$ and $\\theta_i$, $A_{ij}$"),
        ("除以√d_k，d_k越大", "除以$\\sqrt{d_k}$，$d_k$越大"),
        ("W_K R^-T and (q_i k_i)^2", "$W_K R^{-\\top}$ and ($q_i k_i$)${}^2$"),
    ],
)
def test_plain_math_becomes_inline_math(plain: str, myst: str) -> None:
    assert plain_math_to_myst(plain) == myst


@pytest.mark.parametrize(
    "text",
    [
        "is_causal=True and attn_mask, kv_heads, key_padding_mask, dropout_p",
        "F.scaled_dot_product_attention in 12_attention_at_scale",
        "already $x_i$ and `d_k` and `W_Q W_K^T`",
        "no formula at all: softmax over keys",
    ],
)
def test_identifiers_code_and_marked_math_stay_as_they_are(text: str) -> None:
    assert plain_math_to_myst(text) == text


def test_every_formula_made_from_the_cards_converts_to_mathml() -> None:
    """Each formula the conversion makes from the bank's text is TeX the site's MathML writer accepts."""
    sys.path.insert(0, str(ROOT / "_ext"))
    from mathml import tex_to_mathml

    made = set()
    for card in CARDS:
        for lang in ("en", "zh"):
            fields = [card.question[lang], card.short[lang], card.spoken[lang], *card.key_points[lang]]
            fields += [m[lang] for m in card.misconceptions]
            for text in fields:
                made |= set(re.findall(r"\$([^$]+)\$", plain_math_to_myst(text)))
    assert len(made) > 50, "the cards have fewer plain-text formulas than expected: is the conversion on?"
    for tex in sorted(made):
        assert "<math" in tex_to_mathml(tex), tex
