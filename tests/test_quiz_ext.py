"""The {quiz} directive (_ext/quiz.py): parsing, validation, and what a real Sphinx build makes of it."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

import quiz  # noqa: E402  (the local Sphinx extension, found through _ext on sys.path)

GOOD = """\
Over which axis does the softmax in $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})$ normalise?

- [ ] Over the queries: each column of $A$ sums to 1.
- [x] Over the keys: each row of $A$ sums to 1.
- [ ] Over all $n^2$ entries at once.

Each query needs its own distribution over the keys it may read from, so every row sums to 1.
"""


def lines(text: str) -> list[str]:
    return text.splitlines()


# ------------------------------------------------------------------------------------------ parse


def test_parse_splits_question_options_explanation():
    src = lines(GOOD)
    spec = quiz.parse_quiz(src)
    assert spec.errors == []
    assert src[slice(*spec.question)] == [src[0]]
    assert [o.correct for o in spec.options] == [False, True, False]
    assert [o.text for o in spec.options] == [
        "Over the queries: each column of $A$ sums to 1.",
        "Over the keys: each row of $A$ sums to 1.",
        "Over all $n^2$ entries at once.",
    ]
    assert [o.line for o in spec.options] == [2, 3, 4]
    assert src[slice(*spec.explanation)] == [src[6]]


def test_parse_multiline_question_continuation_and_capital_x():
    src = lines("First line\nsecond line.\n\n* [ ] one\n  continued\n* [X] two\n\nWhy.\n\nMore why.")
    spec = quiz.parse_quiz(src)
    assert spec.errors == []
    assert spec.question == (0, 2)
    assert [(o.correct, o.text) for o in spec.options] == [(False, "one continued"), (True, "two")]
    assert spec.explanation == (7, 10)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q?\n\n- [x] a\n- [x] b\n\nE.", "exactly one option marked [x], found 2"),
        ("Q?\n\n- [ ] a\n- [ ] b\n\nE.", "exactly one option marked [x], found 0"),
        ("Q?\n\n- [x] a\n\nE.", "at least 2 options, found 1"),
        ("Q? no list here\n\nE.", "no options"),
        ("- [x] a\n- [ ] b\n\nE.", "no question text"),
        ("Q?\n\n- [x] a\n- [ ] b", "no explanation"),
        ("Q?\n\n- [x] a\n- [ ] a\n\nE.", "duplicate option"),
        ("Q?\n\n- [x] a\n- [ ] b\n\nE.\n\n- [ ] c", "one list"),
    ],
)
def test_parse_reports_each_mistake(text, message):
    errors = quiz.parse_quiz(lines(text)).errors
    assert any(message in e for e in errors), errors


def test_a_plain_bullet_is_not_an_option():
    spec = quiz.parse_quiz(lines("Q?\n\n- [x] a\n- [ ] b\n\nE.\n\n- a bullet in the explanation"))
    assert spec.errors == []
    assert len(spec.options) == 2


@pytest.mark.parametrize(
    ("quiz_id", "ok"),
    [
        ("flow-axis", True),
        ("a_1", True),
        ("Q3", True),
        (None, False),
        ("", False),
        ("has space", False),
        ("-lead", False),
        ("ü", False),
    ],
)
def test_check_id(quiz_id, ok):
    assert (quiz.check_id(quiz_id) is None) is ok


def test_duplicate_ids():
    registry = {"a": [("ch1", 3)], "b": [("ch2", 9), ("ch1", 5)]}
    assert quiz.duplicate_ids(registry) == {"b": [("ch1", 5), ("ch2", 9)]}


# --------------------------------------------------------------------------- a real Sphinx build


def sphinx_build(tmp_path: Path, docs: dict[str, str]) -> tuple[str, Path]:
    """Build `docs` (name -> MyST) with Sphinx + MyST + the quiz extension; return warnings, outdir."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinx.ext.mathjax', 'quiz']\n"
        "myst_enable_extensions = ['dollarmath']\n"
        "exclude_patterns = ['_build']\n"
    )
    names = list(docs)
    (src / "index.md").write_text("# Index\n\n```{toctree}\n" + "\n".join(names) + "\n```\n")
    for name, text in docs.items():
        (src / f"{name}.md").write_text(text)
    out = tmp_path / "out"
    warnings = io.StringIO()
    with docutils_namespace():  # several Sphinx apps in one process must not share docutils registrations
        app = Sphinx(
            str(src),
            str(src),
            str(out),
            str(tmp_path / "doctrees"),
            "html",
            status=None,
            warning=warnings,
            freshenv=True,
        )
        app.build()
    return warnings.getvalue(), out


def block(quiz_id: str | None, body: str) -> str:
    head = f":id: {quiz_id}\n" if quiz_id else ""
    return f"```{{quiz}}\n{head}{body}```\n"


def test_build_renders_good_quiz_deterministically(tmp_path):
    page = "# A\n\n" + block("flow-axis", GOOD)
    warnings, out = sphinx_build(tmp_path / "one", {"a": page})
    assert "quiz" not in warnings, warnings
    html = (out / "a.html").read_text()
    assert 'id="quiz-flow-axis"' in html
    assert html.count('class="quiz-option"') == 3
    assert html.count('data-correct="true"') == 1
    assert 'id="quiz-flow-axis-option-b"' in html and 'data-letter="B"' in html
    # a native radio group (arrow keys move between options), the letters not hidden from screen readers
    assert html.count('<input class="quiz-radio" type="radio" name="quiz-flow-axis"') == 3
    assert re.search(r'<fieldset [^>]*class="quiz-options"', html)
    assert html.count('<span class="quiz-letter">') == 3  # not aria-hidden
    # inline math in the question and the options becomes math nodes for MathJax, not literal dollars
    assert html.count('<span class="math notranslate nohighlight">') == 4
    assert "$A$" not in html
    assert '<details class="quiz-explanation"' in html and "every row sums to 1" in html
    assert (out / "_static" / "quiz.js").exists() and (out / "_static" / "quiz.css").exists()
    assert 'src="_static/quiz.js' in html
    # the same input gives byte-identical markup (no random ids)
    _, out2 = sphinx_build(tmp_path / "two", {"a": page})
    assert (out2 / "a.html").read_text() == html


def test_build_warns_naming_document_and_id(tmp_path):
    pages = {
        "first": "# First\n\n" + block("same", "Q?\n\n- [x] a\n- [ ] b\n\nE.\n"),
        "second": "# Second\n\n"
        + block("same", "Q2?\n\n- [x] a\n- [ ] b\n\nE.\n")
        + "\n"
        + block("two-right", "Q?\n\n- [x] a\n- [x] b\n\nE.\n")
        + "\n"
        + block("lonely", "Q?\n\n- [x] a\n\nE.\n")
        + "\n"
        + block(None, "Q?\n\n- [x] a\n- [ ] b\n\nE.\n"),
    }
    warnings, out = sphinx_build(tmp_path, pages)
    assert "second.md" in warnings
    assert "quiz 'two-right' in second: needs exactly one option marked [x], found 2" in warnings
    assert "quiz 'lonely' in second: needs at least 2 options, found 1" in warnings
    assert "quiz in second: missing ':id:'" in warnings
    assert "quiz 'same' in first: the id is used 2 times" in warnings
    assert "quiz 'same' in second: the id is used 2 times" in warnings
    assert warnings.count("WARNING") == 5, warnings
    html = (out / "second.html").read_text()
    assert "quiz-two-right" not in html and "quiz-lonely" not in html  # a broken question is not rendered


def test_warning_fails_a_w_build(tmp_path):
    from sphinx.application import Sphinx
    from sphinx.errors import SphinxWarning
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / '_ext')!r})\nextensions = ['myst_parser', 'quiz']\n"
    )
    (src / "index.md").write_text("# I\n\n" + block("x", "Q?\n\n- [x] a\n- [x] b\n\nE.\n"))
    with docutils_namespace(), pytest.raises(SphinxWarning, match="needs exactly one option"):
        app = Sphinx(
            str(src),
            str(src),
            str(tmp_path / "out"),
            str(tmp_path / "dt"),
            "html",
            status=None,
            warning=io.StringIO(),
            freshenv=True,
            warningiserror=True,
        )
        app.build()
