"""The ``{quiz}`` directive: a multiple-choice self-check question that works on the static site.

Syntax (MyST)::

    ```{quiz}
    :id: flow-axis
    Over which axis does the softmax in $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})$ normalise?

    - [ ] Over the queries: each column of $A$ sums to 1.
    - [x] Over the keys: each row of $A$ sums to 1.

    Each query needs its own distribution over the keys it may read from.
    ```

The text before the list is the question, each ``- [ ]`` / ``- [x]`` line an option (exactly one ``[x]``),
and the text after the list the explanation revealed once the reader answers. Question, options and
explanation are parsed as MyST, so inline math typesets. The ``:id:`` must be unique across the book.

Problems are reported as Sphinx warnings naming the document, the line and the quiz id, so a
``-W`` build fails. The HTML is deterministic (element ids derive from the quiz id) and needs only
``_static/quiz.js`` and ``_static/quiz.css``, both shipped next to this file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.fileutil import copy_asset_file

logger = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "quiz_static"
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
OPTION_RE = re.compile(r"^[-*+][ \t]+\[([ xX])\][ \t]+(\S.*)$")
MIN_OPTIONS = 2


# --------------------------------------------------------------------------------------- parsing


@dataclass
class Option:
    correct: bool
    text: str
    line: int  # 0-based index of the option's first line in the directive content


@dataclass
class QuizSpec:
    """The three parts of a quiz, as line ranges ``[start, end)`` into the directive content."""

    question: tuple[int, int] = (0, 0)
    options: list[Option] = field(default_factory=list)
    explanation: tuple[int, int] = (0, 0)
    errors: list[str] = field(default_factory=list)


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither starts nor ends with a blank line."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def parse_quiz(lines: list[str]) -> QuizSpec:
    """Split directive content into question, options and explanation, and list what is wrong with it."""
    spec = QuizSpec()
    first = next((i for i, line in enumerate(lines) if OPTION_RE.match(line)), None)
    if first is None:
        spec.question = _trim(lines, 0, len(lines))
        spec.errors.append("no options: write each option as '- [ ] text', the right one as '- [x] text'")
        return spec
    spec.question = _trim(lines, 0, first)
    i, after_options = first, len(lines)
    while i < len(lines):
        line = lines[i]
        match = OPTION_RE.match(line)
        if match:
            spec.options.append(Option(match.group(1).lower() == "x", match.group(2).strip(), i))
        elif line[:1] in (" ", "\t") and line.strip() and spec.options and lines[i - 1].strip():
            spec.options[-1].text += " " + line.strip()  # an indented continuation of the option above
        elif line.strip():
            after_options = i
            break
        i += 1
    spec.explanation = _trim(lines, after_options, len(lines))
    stray = [j + 1 for j in range(after_options, len(lines)) if OPTION_RE.match(lines[j])]
    if stray:
        spec.errors.append(f"the options must form one list; option line(s) {stray} follow the explanation")
    if spec.question[0] == spec.question[1]:
        spec.errors.append("no question text before the options")
    if len(spec.options) < MIN_OPTIONS:
        spec.errors.append(f"needs at least {MIN_OPTIONS} options, found {len(spec.options)}")
    n_correct = sum(o.correct for o in spec.options)
    if n_correct != 1:
        spec.errors.append(f"needs exactly one option marked [x], found {n_correct}")
    texts = [o.text for o in spec.options]
    dupes = sorted({t for t in texts if texts.count(t) > 1})
    if dupes:
        spec.errors.append(f"duplicate option(s): {dupes}")
    if spec.explanation[0] == spec.explanation[1]:
        spec.errors.append("no explanation: write it as a paragraph after the list of options")
    return spec


def check_id(quiz_id: str | None) -> str | None:
    """Return what is wrong with a quiz id, or None."""
    if not quiz_id:
        return "missing ':id:' option (a short name unique in the book, e.g. ':id: flow-axis')"
    if not ID_RE.match(quiz_id):
        return f"id {quiz_id!r} may use only letters, digits, '-' and '_', starting with a letter or digit"
    return None


def duplicate_ids(registry: dict[str, list[tuple[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    """Ids registered by more than one directive, with every (docname, line) that uses them."""
    return {qid: sorted(locs) for qid, locs in sorted(registry.items()) if len(locs) > 1}


# ----------------------------------------------------------------------------------------- nodes


class quiz(nodes.General, nodes.Element):  # noqa: N801 (docutils node naming)
    """The whole question: ``<div class="quiz" id="quiz-ID">``."""


class quiz_option(nodes.General, nodes.TextElement):  # noqa: N801
    """One answer: a native radio button in a ``<label>`` that carries whether it is the right one."""


class quiz_part(nodes.General, nodes.Element):  # noqa: N801
    """A ``<div>`` (question), ``<fieldset>`` (options: native radios) or ``<details>`` (explanation)."""


def visit_quiz_html(self: Any, node: quiz) -> None:
    self.body.append(
        self.starttag(
            node,
            "div",
            CLASS="quiz",
            ids=[f"quiz-{node['quiz_id']}"],
            **{"data-quiz-id": node["quiz_id"], "role": "group"},
        )
    )


def depart_quiz_html(self: Any, node: quiz) -> None:
    self.body.append("</div>\n")


def visit_part_html(self: Any, node: quiz_part) -> None:
    kind, qid = node["kind"], node["quiz_id"]
    if kind == "options":
        # A fieldset of native radios sharing one name: arrow keys move between the options and Tab
        # leaves the group, as a screen reader user expects; the question labels the group.
        self.body.append(
            self.starttag(
                node, "fieldset", CLASS="quiz-options", **{"aria-labelledby": f"quiz-{qid}-question"}
            )
        )
    elif kind == "question":
        self.body.append(self.starttag(node, "div", CLASS="quiz-question", ids=[f"quiz-{qid}-question"]))
        self.body.append('<span class="quiz-label">Self-check</span>')
    elif kind == "explanation":
        # <details> so that the explanation can still be opened when JavaScript is off.
        self.body.append(
            self.starttag(node, "details", CLASS="quiz-explanation", ids=[f"quiz-{qid}-explanation"])
        )
        self.body.append('<summary>Explanation</summary>\n<p class="quiz-feedback" aria-live="polite"></p>\n')
    else:  # pragma: no cover - the directive only makes the three kinds above
        raise ValueError(f"unknown quiz part {kind!r}")


def depart_part_html(self: Any, node: quiz_part) -> None:
    closing = {"options": "</fieldset>\n", "question": "</div>\n", "explanation": "</details>\n"}
    self.body.append(closing[node["kind"]])


def visit_option_html(self: Any, node: quiz_option) -> None:
    qid, index = node["quiz_id"], node["index"]
    letter = chr(ord("A") + index)
    self.body.append('<div class="quiz-choice">')
    self.body.append(
        self.starttag(
            node,
            "label",
            "",
            CLASS="quiz-option",
            ids=[f"quiz-{qid}-option-{letter.lower()}"],
            **{"data-correct": "true" if node["correct"] else "false", "data-letter": letter},
        )
    )
    # The letter is read out with the option ("A. ..."), so the feedback "you chose A" makes sense.
    self.body.append(
        f'<input class="quiz-radio" type="radio" name="quiz-{qid}" value="{letter.lower()}">'
        f'<span class="quiz-letter">{letter}.</span><span class="quiz-text">'
    )


def depart_option_html(self: Any, node: quiz_option) -> None:
    self.body.append("</span></label></div>\n")


def visit_plain(self: Any, node: nodes.Element) -> None:
    """Other builders (LaTeX, text, man, ...): render the children as they are."""


def depart_plain(self: Any, node: nodes.Element) -> None:
    pass


# ------------------------------------------------------------------------------------- directive


class QuizDirective(SphinxDirective):
    """Parse the quiz content, validate it, and build the quiz node tree."""

    has_content = True
    required_arguments = 0
    optional_arguments = 0
    final_argument_whitespace = False
    option_spec = {"id": directives.unchanged}

    def _warn(self, quiz_id: str | None, message: str, line: int | None = None) -> None:
        label = f"quiz {quiz_id!r}" if quiz_id else "quiz"
        logger.warning(
            f"{label} in {self.env.docname}: {message}",
            location=(self.env.docname, line if line is not None else self.lineno),
            type="quiz",
            subtype="invalid",
        )

    def _parse_block(self, start: int, end: int, parent: nodes.Element) -> None:
        if start < end:
            self.state.nested_parse(self.content[start:end], self.content_offset + start, parent)

    def run(self) -> list[nodes.Node]:
        quiz_id = (self.options.get("id") or "").strip() or None
        problem = check_id(quiz_id)
        if problem:
            self._warn(quiz_id, problem)
            quiz_id = None
        lines = list(self.content)
        spec = parse_quiz(lines)
        for error in spec.errors:
            self._warn(quiz_id, error)
        if quiz_id is None or spec.errors:
            return []  # the warning fails a -W build; never render a broken question

        registry_of(self.env).setdefault(quiz_id, []).append((self.env.docname, self.lineno))

        root = quiz(quiz_id=quiz_id)
        self.set_source_info(root)
        question = quiz_part(kind="question", quiz_id=quiz_id)
        self._parse_block(*spec.question, question)
        options = quiz_part(kind="options", quiz_id=quiz_id)
        for index, opt in enumerate(spec.options):
            inline, messages = self.state.inline_text(opt.text, self.content_offset + opt.line + 1)
            options += quiz_option("", "", *inline, quiz_id=quiz_id, index=index, correct=opt.correct)
            options += messages
        explanation = quiz_part(kind="explanation", quiz_id=quiz_id)
        self._parse_block(*spec.explanation, explanation)
        root += [question, options, explanation]
        return [root]


# --------------------------------------------------------------------------------- env bookkeeping


def registry_of(env: BuildEnvironment) -> dict[str, list[tuple[str, int]]]:
    """Quiz id -> every (docname, line) that defines it, kept on the (pickled) build environment."""
    if not hasattr(env, "selfattention_quiz_ids"):
        env.selfattention_quiz_ids = {}  # type: ignore[attr-defined]
    return env.selfattention_quiz_ids  # type: ignore[attr-defined]


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    registry = registry_of(env)
    for qid in list(registry):
        registry[qid] = [loc for loc in registry[qid] if loc[0] != docname]
        if not registry[qid]:
            del registry[qid]


def merge_info(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    registry = registry_of(env)
    for qid, locs in registry_of(other).items():
        registry.setdefault(qid, []).extend(locs)


def check_unique(app: Sphinx, env: BuildEnvironment) -> None:
    """Runs on every build (also incremental ones): an id used twice anywhere in the book is a warning."""
    for qid, locs in duplicate_ids(registry_of(env)).items():
        where = ", ".join(f"{doc}:{line}" for doc, line in locs)
        for doc, line in locs:
            logger.warning(
                f"quiz {qid!r} in {doc}: the id is used {len(locs)} times ({where}); quiz ids must be unique",
                location=(doc, line),
                type="quiz",
                subtype="duplicate",
            )


def copy_static(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        for name in ("quiz.js", "quiz.css"):
            copy_asset_file(str(STATIC / name), str(Path(app.outdir) / "_static"))


def setup(app: Sphinx) -> dict[str, Any]:
    plain = (visit_plain, depart_plain)
    formats = {fmt: plain for fmt in ("latex", "text", "man", "texinfo")}
    app.add_node(quiz, html=(visit_quiz_html, depart_quiz_html), **formats)
    app.add_node(quiz_part, html=(visit_part_html, depart_part_html), **formats)
    app.add_node(quiz_option, html=(visit_option_html, depart_option_html), **formats)
    app.add_directive("quiz", QuizDirective)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    app.connect("env-check-consistency", check_unique)
    app.connect("build-finished", copy_static)
    app.add_js_file("quiz.js", defer="defer")
    app.add_css_file("quiz.css")
    return {"version": "1.0", "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}
