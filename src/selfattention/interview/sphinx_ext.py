"""Sphinx extension: render the interview question bank in the book.

Directives (for MyST markdown pages and notebooks):

- ``{interview-answer} <chapter>``: the basic card, spoken answer in English / 中文 tabs + key points.
- ``{follow-up-questions} <chapter>``: every other card of the chapter as a dropdown.
- ``{question-drill}``: every question grouped by chapter, answers hidden in dropdowns.
- ``{cheat-sheet}``: every card's short answer on one printable page.

Each rendered card is wrapped in an element whose HTML id is ``card-<id>``. Card text is MyST
markdown (inline math ``$...$`` included) and is parsed with the page's own parser, so sphinx-design
tabs and dropdowns and the math extension do the rendering. Links to other cards point at the
card's home chapter page and are resolved once all documents are known (plain text if the chapter
page is not in the book yet). Every page that uses a directive depends on the YAML files, so a card
edit rebuilds it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.fileutil import copy_asset_file
from sphinx_design.shared import is_component

from .bank import CHAPTERS, BankError, Card, card_files, cards_by_chapter, chapter_card, get_card, load_cards

CSS_FILE = Path(__file__).with_suffix(".css")
CHAPTER_DOC = "chapters/{slug}"
LEVEL_BADGE = {"basic": "bdg-primary", "follow-up": "bdg-info", "deep": "bdg-warning"}

_cache: dict[tuple[tuple[str, float], ...], list[Card]] = {}


def _cards() -> list[Card]:
    """The bank, reloaded only when a YAML file changed (keyed on names and mtimes)."""
    key = tuple((str(p), p.stat().st_mtime) for p in card_files())
    if key not in _cache:
        _cache.clear()
        _cache[key] = load_cards()
    return _cache[key]


class card_link(nodes.inline):  # noqa: N801  (docutils node classes are lower case)
    """Placeholder for a link to a card on its chapter page; resolved in `_resolve_card_links`."""


class chapter_link(nodes.inline):  # noqa: N801
    """Placeholder for a link to a chapter page; resolved in `_resolve_card_links`."""


def _visit_skip(self: Any, node: nodes.Node) -> None:  # pragma: no cover - never reached after resolution
    raise nodes.SkipNode


def _tabs(en: list[str], zh: list[str]) -> list[str]:
    """MyST lines for an English / 中文 tab set whose tabs stay in sync across the page."""
    lines = ["::::{tab-set}", ":sync-group: lang", ":class: sa-lang-tabs", ""]
    for label, sync, body in (("English", "en", en), ("中文", "zh", zh)):
        lines += [f":::{{tab-item}} {label}", f":sync: {sync}", "", *body, ":::", ""]
    return [*lines, "::::", ""]


def _bullets(title: str, items: list[str]) -> list[str]:
    return [f"**{title}**", "", *[f"- {item}" for item in items], ""]


def _paragraphs(text: str) -> list[str]:
    return [*(line.strip() for line in text.strip().splitlines()), ""]


def _misconception_lines(card: Card, lang: str) -> list[str]:
    if not card.misconceptions:
        return []
    title = "Common misconceptions" if lang == "en" else "常见误区"
    return _bullets(title, [m[lang] for m in card.misconceptions])


class _CardDirective(SphinxDirective):
    """Shared plumbing: dependency on the YAML files, card loading, markdown parsing into a card box."""

    def load(self) -> list[Card]:
        for path in card_files():
            self.env.note_dependency(str(path))
        try:
            return _cards()
        except BankError as exc:
            raise self.error(f"interview bank: {exc}") from exc

    def chapter_arg(self) -> str:
        slug = self.arguments[0].strip()
        if slug not in CHAPTERS:
            raise self.error(f"unknown chapter {slug!r}; expected one of {', '.join(CHAPTERS)}")
        return slug

    def parse(self, lines: list[str], node: nodes.Element) -> nodes.Element:
        self.state.nested_parse(StringList(lines, source=self.env.docname), self.content_offset, node)
        return node

    def card_box(self, card: Card, kind: str) -> nodes.container:
        box = nodes.container(classes=["sa-card", f"sa-card-{kind}", f"sa-level-{card.level}"])
        box["ids"].append(card.anchor)
        self.set_source_info(box)
        return box

    def links_paragraph(self, card: Card, lang_label: str = "Go further") -> nodes.paragraph | None:
        """A paragraph 'Go further: <question> (ch. N); ...' linking to the follow-up cards."""
        if not card.follow_ups:
            return None
        para = nodes.paragraph(classes=["sa-follow-links"])
        para += nodes.strong(text=f"{lang_label}: ")
        cards = self.load()
        for i, target_id in enumerate(card.follow_ups):
            target = get_card(cards, target_id)
            if i:
                para += nodes.Text(" · ")
            link = card_link(card_id=target.id, chapter=target.chapter)
            link += nodes.Text(target.question["en"])
            para += link
            para += nodes.Text(f" (ch. {CHAPTERS[target.chapter]['number']})")
        return para


class InterviewAnswerDirective(_CardDirective):
    """``{interview-answer} <chapter>``: the chapter question's 60–90 second spoken answer, en / 中文."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        slug = self.chapter_arg()
        try:
            card = chapter_card(self.load(), slug)
        except BankError as exc:
            raise self.error(f"interview bank: {exc}") from exc
        body = {
            lang: [
                *_paragraphs(card.spoken[lang]),
                *_bullets("Key points" if lang == "en" else "要点", card.key_points[lang]),
            ]
            for lang in ("en", "zh")
        }
        box = self.card_box(card, "answer")
        lines = [f"**{card.question['en']}** · {card.question['zh']}", "", *_tabs(body["en"], body["zh"])]
        return [self.parse(lines, box)]


def _dropdown(card: Card, body_en: list[str], body_zh: list[str], open_: bool = False) -> list[str]:
    """MyST lines for a dropdown titled by the question in both languages, tabs inside."""
    badge = f"{{{LEVEL_BADGE[card.level]}}}`{card.level}`"
    title = f"{card.question['en']} · {card.question['zh']}"
    lines = [f":::::{{dropdown}} {title}", ":class-container: sa-dropdown", ":chevron: down-up"]
    if open_:
        lines.append(":open:")
    return [*lines, "", badge, "", *_tabs(body_en, body_zh), ":::::", ""]


class FollowUpQuestionsDirective(_CardDirective):
    """``{follow-up-questions} <chapter>``: the chapter's other cards as dropdowns with short answers."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        slug = self.chapter_arg()
        cards = [c for c in cards_by_chapter(self.load())[slug] if c.level != "basic"]
        if not cards:
            raise self.error(f"chapter {slug!r} has no follow-up cards in the interview bank")
        out: list[nodes.Node] = []
        for card in cards:
            body = {
                lang: [
                    *_paragraphs(card.short[lang]),
                    *_bullets("Key points" if lang == "en" else "要点", card.key_points[lang]),
                ]
                for lang in ("en", "zh")
            }
            box = self.parse(_dropdown(card, body["en"], body["zh"]), self.card_box(card, "follow-up"))
            links = self.links_paragraph(card)
            if links is not None:
                _dropdown_body(box).append(links)
            out.append(box)
        return out


def _dropdown_body(box: nodes.Element) -> nodes.Element:
    """The element inside a parsed dropdown where extra content goes (falls back to the box)."""
    for node in box.findall(lambda n: is_component(n, "dropdown")):
        return node
    return box


class QuestionDrillDirective(_CardDirective):
    """``{question-drill}``: every question, grouped by chapter, answers hidden until clicked."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for slug, cards in cards_by_chapter(self.load()).items():
            out.append(_chapter_rubric(slug, len(cards)))
            for card in cards:
                body = {
                    lang: [
                        f"**{'Short answer' if lang == 'en' else '简短回答'}**",
                        "",
                        *_paragraphs(card.short[lang]),
                        f"**{'Say it in 60–90 seconds' if lang == 'en' else '面试时可以这样答'}**",
                        "",
                        *_paragraphs(card.spoken[lang]),
                        *_bullets("Key points" if lang == "en" else "要点", card.key_points[lang]),
                        *_misconception_lines(card, lang),
                    ]
                    for lang in ("en", "zh")
                }
                box = self.parse(_dropdown(card, body["en"], body["zh"]), self.card_box(card, "drill"))
                links = self.links_paragraph(card)
                if links is not None:
                    _dropdown_body(box).append(links)
                out.append(box)
        return out


def _chapter_rubric(slug: str, count: int) -> nodes.rubric:
    info = CHAPTERS[slug]
    rubric = nodes.rubric(classes=["sa-chapter-rubric"])
    rubric["ids"].append(f"drill-{slug.replace('_', '-')}")
    link = chapter_link(chapter=slug)
    link += nodes.Text(f"{info['number']}. {info['en']} · {info['zh']}")
    rubric += link
    rubric += nodes.Text(f" ({count})")
    return rubric


class CheatSheetDirective(_CardDirective):
    """``{cheat-sheet}``: one compact, printable list of every card's short answer in both languages."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        sheet = nodes.container(classes=["sa-cheatsheet"])
        for slug, cards in cards_by_chapter(self.load()).items():
            section = nodes.container(classes=["sa-cheat-chapter"])
            section += _chapter_rubric(slug, len(cards))
            for card in cards:
                lines = [
                    f"**{card.question['en']}** · {card.question['zh']}",
                    "",
                    *_paragraphs(card.short["en"]),
                    *_paragraphs(card.short["zh"]),
                ]
                section += self.parse(lines, self.card_box(card, "cheat"))
            sheet += section
        return [sheet]


def _resolve_card_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn card/chapter link placeholders into references to the chapter pages (text if absent)."""
    for node in list(doctree.findall(lambda n: isinstance(n, card_link | chapter_link))):
        target_doc = CHAPTER_DOC.format(slug=node["chapter"])
        children = list(node.children)
        if target_doc not in app.env.all_docs:
            node.replace_self(nodes.inline("", "", *children, classes=["sa-missing-chapter"]))
            continue
        anchor = f"#card-{node['card_id']}" if isinstance(node, card_link) else ""
        if target_doc == docname:
            uri = anchor or "#"
        else:
            try:
                uri = app.builder.get_relative_uri(docname, target_doc) + anchor
            except Exception:  # builders without page URIs (e.g. a text builder): keep the text
                node.replace_self(nodes.inline("", "", *children))
                continue
        ref = nodes.reference("", "", *children, internal=True, refuri=uri, classes=["sa-card-link"])
        node.replace_self(ref)


def _copy_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        copy_asset_file(str(CSS_FILE), str(Path(app.outdir) / "_static"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_design")
    app.add_node(card_link, html=(_visit_skip, None), latex=(_visit_skip, None), text=(_visit_skip, None))
    app.add_node(chapter_link, html=(_visit_skip, None), latex=(_visit_skip, None), text=(_visit_skip, None))
    app.add_directive("interview-answer", InterviewAnswerDirective)
    app.add_directive("follow-up-questions", FollowUpQuestionsDirective)
    app.add_directive("question-drill", QuestionDrillDirective)
    app.add_directive("cheat-sheet", CheatSheetDirective)
    app.connect("doctree-resolved", _resolve_card_links)
    app.connect("build-finished", _copy_css)
    app.add_css_file(CSS_FILE.name)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
