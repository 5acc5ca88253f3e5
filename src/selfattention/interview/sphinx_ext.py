r"""Sphinx extension: render the interview question bank in the book.

Directives (for MyST markdown pages and notebooks):

- ``{interview-answer} <chapter>``: the basic card, spoken answer in English / 中文 tabs + key points.
- ``{follow-up-questions} <chapter>``: every other card of the chapter as a dropdown.
- ``{question-drill}``: every question grouped by chapter, answers hidden in dropdowns.
- ``{cheat-sheet}``: every card's short answer on one printable page.
- ``{practise} <chapter>``: how to practise the chapter: the ``attention-rehearse --chapter N`` commands,
  the practise page with the chapter preselected, the chapter's cards on the drill page, and the next
  question of the book (next chapter in the toc).

The drill and the cheat sheet put each chapter under its own heading (a section: it appears in the
page's contents panel), with the ids ``drill-<NN-slug>`` and ``cheat-<NN-slug>``.

Each rendered card is wrapped in an element whose HTML id is ``card-<id>``. Card text is MyST
markdown (inline math ``$...$`` included) and is parsed with the page's own parser, so sphinx-design
tabs and dropdowns and the math extension do the rendering. Links to other cards point at the
card's home chapter page and are resolved once all documents are known (plain text if the chapter
page is not in the book yet). Every page that uses a directive depends on the YAML files and on this
module, so a card edit rebuilds it.

Cards are written for the terminal, so their formulas are plain text (``W_Q W_K^T``, ``sqrt(d_k)``,
``√d_model``, ``O(n^2)``). `plain_math_to_myst` turns those tokens into MyST inline math (``$W_Q W_K^\top$``,
``$\sqrt{d_k}$``) where a card becomes page content; the bank itself stays plain text.
"""
from __future__ import annotations

import re
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
DRILL_DOC = "drill"  # the page holding {question-drill}; links to it become text when it is absent
PRACTISE_DOC = "practise"  # the practise page (_ext/practise.py); ?chapter=<slug> preselects a chapter
LEVEL_BADGE = {"basic": "bdg-primary", "follow-up": "bdg-info", "deep": "bdg-warning"}

_cache: dict[tuple[tuple[str, float], ...], list[Card]] = {}


def _cards() -> list[Card]:
    """The bank, reloaded only when a YAML file changed (keyed on names and mtimes)."""
    key = tuple((str(p), p.stat().st_mtime) for p in card_files())
    if key not in _cache:
        _cache.clear()
        _cache[key] = load_cards()
    return _cache[key]


# --- plain-text math in card text -> MyST inline math -------------------------------------------------------

_GREEK = ("theta", "delta", "alpha", "beta", "gamma", "sigma", "tau", "phi", "mu", "pi")
_WORDS = ("head", "base")  # upright words that carry an index or a power: head_i, base^(-2i/d)
_SUB = r"(?:\{[^{}\s]+\}|[A-Za-z0-9]+)"
_PAREN = r"\((?:[^()\s]|\([^()\s]*\))*\)"  # one level of nesting: s^(d/(d-2))
_SUP = rf"(?:{_PAREN}|-?[A-Za-z0-9]+)"
# an atom: [coefficient][short product prefix]base[_sub][^sup], with at least one of _sub / ^sup;
# e.g. d_k, W_K^T, 4n^2, nmd_a, XX^T, d_model^2, theta_i, 2^(-8k/H)
_ATOM = re.compile(
    rf"(?<![A-Za-z0-9_\\])(?P<coef>\d*)(?P<pre>[A-Za-z]{{0,3}}?)"
    rf"(?P<base>{'|'.join(_GREEK + _WORDS)}|[A-Za-z\u03b1-\u03c9\u0391-\u03a9]"
    r"|(?<=\d)(?=\^)|(?<![A-Za-z0-9]))"
    rf"(?:_(?P<sub>{_SUB}))?(?:\^(?P<sup>{_SUP}))?(?![A-Za-z0-9_])"
)
_SQRT = re.compile(
    r"(?<![A-Za-z0-9_])(?:sqrt\((?P<arg>[^()\s]+)\)|√(?P<bare>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)?))"
)
_POWER_AFTER_PAREN = re.compile(r"(?<=\))\^(?P<sup>\d+|\([^()\s]+\))")
_SKIP = re.compile(r"(\$[^$]+\$|`[^`]*`)")  # math and code spans the author already marked
_MATH_SPAN = re.compile(r"\$([^$]+)\$")
_JOIN = re.compile(r"\$([^$]+)\$(\s?[·*]\s?| )\$([^$]+)\$")


def _tex_sub(sub: str) -> str:
    sub = sub.strip("{}")
    if len(sub) >= 2 and sub.isalpha() and sub.islower() and sub not in ("ij", "kv"):
        return rf"_{{\text{{{sub}}}}}"
    if sub == "kv":
        return r"_{\text{kv}}"
    return f"_{{{sub}}}" if len(sub) > 1 else f"_{sub}"


def _tex_sup(sup: str) -> str:
    inner = sup[1:-1] if sup.startswith("(") else sup
    inner = inner.replace("T", r"\top") if re.fullmatch(r"-?T", inner) else inner
    return f"^{{{inner}}}" if len(inner) > 1 else f"^{inner}"


def _atom_tex(m: re.Match[str]) -> str | None:
    sub, sup, base, pre = m.group("sub"), m.group("sup"), m.group("base"), m.group("pre")
    if sub is None and sup is None:
        return None
    if sub is not None and not base:
        return None
    # a word with an underscore is an identifier (is_causal, attn_mask, kv_heads), not an indexed symbol
    long_sub = sub is not None and len(sub.strip("{}")) >= 3
    if long_sub and (pre or base in _WORDS or base in _GREEK or not base.isalpha()):
        return None
    if pre and sub is not None and len(sub) > 2:
        return None
    if base in _GREEK:
        tex_base = "\\" + base
    elif base in _WORDS:
        tex_base = rf"\text{{{base}}}"
    else:
        tex_base = base
    out = m.group("coef") + pre + (tex_base or ("" if m.group("coef") else "{}"))
    if sub is not None:
        out += _tex_sub(sub)
    if sup is not None:
        out += _tex_sup(sup)
    return out


def _atoms(text: str) -> str:
    def sqrt(m: re.Match[str]) -> str:
        arg = m.group("arg") or m.group("bare")
        inner = _ATOM.sub(lambda a: _atom_tex(a) or a.group(0), arg)
        return "$\\sqrt{" + inner + "}$"

    text = _SQRT.sub(sqrt, text)
    pieces = _MATH_SPAN.split(text)
    for i in range(0, len(pieces), 2):  # outside the math just made
        pieces[i] = _ATOM.sub(lambda a: f"${_atom_tex(a)}$" if _atom_tex(a) else a.group(0), pieces[i])
        pieces[i] = _POWER_AFTER_PAREN.sub(lambda p: f"${{}}{_tex_sup(p.group('sup'))}$", pieces[i])
    for i in range(1, len(pieces), 2):
        pieces[i] = f"${pieces[i]}$"
    return "".join(pieces)


def inline_nodes(text: str) -> list[nodes.Node]:
    """Plain card text as docutils inline nodes: text, and math nodes for its formulas (for link texts)."""
    out: list[nodes.Node] = []
    for i, piece in enumerate(re.split(r"\$([^$]+)\$", plain_math_to_myst(text))):
        if i % 2:
            out.append(nodes.math(piece, piece))
        elif piece:
            out.append(nodes.Text(piece))
    return out


def _product(separator: str) -> str:
    return "\\cdot " if separator.strip() in ("·", "*") else ""


def plain_math_to_myst(text: str) -> str:
    """Card text with its plain-text formula tokens as MyST inline math (``$...$``, ``code`` untouched).

    ``W_Q W_K^T`` -> ``$W_Q W_K^\\top$``, ``sqrt(d_k)`` and ``√d_k`` -> ``$\\sqrt{d_k}$``, ``d_model`` ->
    ``$d_{\\text{model}}$``, ``O(n^2)`` -> ``O($n^2$)``, ``q_i·k_j`` -> ``$q_i \\cdot k_j$``.
    Identifiers such as
    ``is_causal`` or ``attn_mask`` stay text.
    """
    parts = _SKIP.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = _atoms(parts[i])
    out = "".join(parts)
    while True:  # neighbouring formulas joined by a space or a product sign become one formula
        joined = _JOIN.sub(lambda m: f"${m.group(1)} {_product(m.group(2))}{m.group(3)}$", out)
        if joined == out:
            return out
        out = joined


class card_link(nodes.inline):  # noqa: N801  (docutils node classes are lower case)
    """Placeholder for a link to a card on its chapter page; resolved in `_resolve_card_links`."""


class chapter_link(nodes.inline):  # noqa: N801
    """Placeholder for a link to a chapter page; resolved in `_resolve_card_links`."""


class page_link(nodes.inline):  # noqa: N801
    """Placeholder for a link to ``target`` (a docname) and ``anchor``; resolved in `_resolve_card_links`."""


class next_question(nodes.inline):  # noqa: N801
    """Placeholder for 'the next question': the next chapter page after this one in the book's order."""


def _visit_skip(self: Any, node: nodes.Node) -> None:  # pragma: no cover - never reached after resolution
    raise nodes.SkipNode


def _tabs(en: list[str], zh: list[str]) -> list[str]:
    """MyST lines for an English / 中文 tab set whose tabs stay in sync across the page."""
    lines = ["::::{tab-set}", ":sync-group: lang", ":class: sa-lang-tabs", ""]
    for label, sync, body in (("English", "en", en), ("中文", "zh", zh)):
        lines += [f":::{{tab-item}} {label}", f":sync: {sync}", "", *body, ":::", ""]
    return [*lines, "::::", ""]


def _bullets(title: str, items: list[str]) -> list[str]:
    return [f"**{title}**", "", *[f"- {plain_math_to_myst(item)}" for item in items], ""]


def _paragraphs(text: str) -> list[str]:
    return [*(plain_math_to_myst(line.strip()) for line in text.strip().splitlines()), ""]


def _question(card: Card) -> str:
    """The question in both languages, its formulas as math."""
    return plain_math_to_myst(f"{card.question['en']} · {card.question['zh']}")


def _misconception_lines(card: Card, lang: str) -> list[str]:
    if not card.misconceptions:
        return []
    title = "Common misconceptions" if lang == "en" else "常见误区"
    return _bullets(title, [m[lang] for m in card.misconceptions])


class _CardDirective(SphinxDirective):
    """Shared plumbing: dependency on the YAML files, card loading, markdown parsing into a card box."""

    def load(self) -> list[Card]:
        for path in (*card_files(), Path(__file__)):  # a card edit or a change to this renderer rebuilds
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
            link += inline_nodes(target.question["en"])
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
        lines = [f"**{plain_math_to_myst(card.question['en'])}** · {plain_math_to_myst(card.question['zh'])}",
                 "", *_tabs(body["en"], body["zh"])]
        return [self.parse(lines, box)]


def _dropdown(card: Card, body_en: list[str], body_zh: list[str], open_: bool = False) -> list[str]:
    """MyST lines for a dropdown titled by the question in both languages, tabs inside."""
    badge = f"{{{LEVEL_BADGE[card.level]}}}`{card.level}`"
    lines = [f":::::{{dropdown}} {_question(card)}", ":class-container: sa-dropdown", ":chevron: down-up"]
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
    """``{question-drill}``: every question, one section per chapter, answers hidden until clicked."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for slug, cards in cards_by_chapter(self.load()).items():
            section = _chapter_section(slug, len(cards), "drill")
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
                section += box
            out.append(section)
        return out


def _anchor(slug: str, page: str) -> str:
    """The HTML id of a chapter's section on the drill (``page="drill"``) or cheat sheet (``"cheat"``)."""
    return f"{page}-{slug.replace('_', '-')}"


def _chapter_section(slug: str, count: int, page: str) -> nodes.section:
    """A section titled 'N. Chapter · 章节', its first paragraph linking to the chapter page."""
    info = CHAPTERS[slug]
    section = nodes.section(classes=["sa-chapter-section", f"sa-{page}-chapter"])
    section["ids"].append(_anchor(slug, page))
    title_text = f"{info['number']}. {info['en']} · {info['zh']}"
    section["names"].append(nodes.fully_normalize_name(f"{page} {title_text}"))
    section += nodes.title(title_text, "", *inline_nodes(title_text))
    para = nodes.paragraph(classes=["sa-chapter-intro"])
    para += nodes.Text(f"{count} question{'s' if count != 1 else ''} · ")
    link = chapter_link(chapter=slug)
    link += nodes.Text("read the chapter · 阅读本章")
    para += link
    section += para
    return section


class CheatSheetDirective(_CardDirective):
    """``{cheat-sheet}``: one compact, printable list of every card's short answer, a section per chapter."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for slug, cards in cards_by_chapter(self.load()).items():
            section = _chapter_section(slug, len(cards), "cheat")
            section["classes"].append("sa-cheatsheet")
            for card in cards:
                lines = [
                    f"**{plain_math_to_myst(card.question['en'])}** · "
                    f"{plain_math_to_myst(card.question['zh'])}",
                    "",
                    *_paragraphs(card.short["en"]),
                    *_paragraphs(card.short["zh"]),
                ]
                section += self.parse(lines, self.card_box(card, "cheat"))
            out.append(section)
        return out


class PractiseDirective(_CardDirective):
    """``{practise} <chapter>``: rehearse commands, the chapter's cards on the drill page, what is next."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        slug = self.chapter_arg()
        cards = cards_by_chapter(self.load())[slug]
        number = CHAPTERS[slug]["number"]
        box = nodes.container(classes=["sa-practise"])
        self.set_source_info(box)
        box["ids"].append(f"practise-{slug.replace('_', '-')}")
        lines = [
            "Rehearse this chapter's questions out loud, with a timer and spaced repetition, in a terminal "
            "where the package is installed (在终端中练习本章的面试题):",
            "",
            "```bash",
            f"attention-rehearse --chapter {number}",
            f"attention-rehearse --chapter {number} --lang zh",
            "```",
            "",
        ]
        self.parse(lines, box)
        web = nodes.paragraph(classes=["sa-practise-web"])
        web += nodes.strong(text="In the browser (在浏览器中练习): ")
        link = page_link(target=PRACTISE_DOC, anchor="", query=f"?chapter={slug}")
        link += nodes.Text(
            f"practise chapter {number} one card at a time, with a timer and spaced repetition"
        )
        web += link
        box += web
        drill = nodes.paragraph(classes=["sa-practise-drill"])
        drill += nodes.strong(text="On the drill page (练习页): ")
        link = page_link(target=DRILL_DOC, anchor=_anchor(slug, "drill"))
        link += nodes.Text(f"chapter {number}, {len(cards)} question{'s' if len(cards) != 1 else ''}")
        drill += link
        box += drill
        items = nodes.bullet_list(classes=["sa-practise-cards"])
        for card in cards:
            item = nodes.list_item()
            para = nodes.paragraph()
            ref = page_link(target=DRILL_DOC, anchor=card.anchor)
            ref += inline_nodes(card.question["en"])
            para += ref
            para += inline_nodes(f" · {card.question['zh']}")
            item += para
            items += item
        box += items
        nxt = nodes.paragraph(classes=["sa-practise-next"])
        nxt += nodes.strong(text="Next question (下一题): ")
        nxt += next_question()
        box += nxt
        return [box]


def _uri(app: Sphinx, docname: str, target_doc: str, anchor: str) -> str | None:
    """Relative URI from ``docname`` to ``target_doc#anchor``; None if the target is not in the book."""
    if target_doc not in app.env.all_docs:
        return None
    if target_doc == docname:
        return anchor or "#"
    try:
        return app.builder.get_relative_uri(docname, target_doc) + anchor
    except Exception:  # builders without page URIs (e.g. a text builder)
        return None


def _next_chapter(app: Sphinx, docname: str) -> str | None:
    """The first chapter page after ``docname`` in the book's reading order (the toc), or None."""
    relations = app.env.collect_relations()
    seen = {docname}
    current = docname
    while current in relations and relations[current][2] and relations[current][2] not in seen:
        current = relations[current][2]
        seen.add(current)
        slug = current.removeprefix("chapters/")
        if current.startswith("chapters/") and slug in CHAPTERS:
            return slug
    return None


def _next_question_node(app: Sphinx, docname: str) -> nodes.Node:
    slug = _next_chapter(app, docname)
    if slug is None:  # the last chapter: the drill page is what comes next
        uri = _uri(app, docname, DRILL_DOC, "")
        text = "that was the last chapter: drill every question · 最后一章：练习全部题目"
        if uri is None:
            return nodes.inline("", text)
        return nodes.reference("", text, internal=True, refuri=uri, classes=["sa-card-link"])
    card = chapter_card(_cards(), slug)
    text = f"{CHAPTERS[slug]['number']}. {card.question['en']} · {card.question['zh']}"
    uri = _uri(app, docname, CHAPTER_DOC.format(slug=slug), "")
    return nodes.reference("", "", *inline_nodes(text), internal=True, refuri=uri, classes=["sa-card-link"])


def _resolve_card_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn link placeholders into references (plain text where the target page is not in the book)."""
    kinds = card_link | chapter_link | page_link | next_question
    for node in list(doctree.findall(lambda n: isinstance(n, kinds))):
        if isinstance(node, next_question):
            node.replace_self(_next_question_node(app, docname))
            continue
        children = list(node.children)
        if isinstance(node, page_link):
            target_doc, anchor = node["target"], f"#{node['anchor']}" if node.get("anchor") else ""
            anchor = node.get("query", "") + anchor
        else:
            target_doc = CHAPTER_DOC.format(slug=node["chapter"])
            anchor = f"#card-{node['card_id']}" if isinstance(node, card_link) else ""
        uri = _uri(app, docname, target_doc, anchor)
        if uri is None:
            node.replace_self(nodes.inline("", "", *children, classes=["sa-missing-chapter"]))
            continue
        ref = nodes.reference("", "", *children, internal=True, refuri=uri, classes=["sa-card-link"])
        node.replace_self(ref)


def _copy_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        copy_asset_file(str(CSS_FILE), str(Path(app.outdir) / "_static"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_design")
    app.add_node(card_link, html=(_visit_skip, None), latex=(_visit_skip, None), text=(_visit_skip, None))
    for node in (chapter_link, page_link, next_question):
        app.add_node(node, html=(_visit_skip, None), latex=(_visit_skip, None), text=(_visit_skip, None))
    app.add_directive("interview-answer", InterviewAnswerDirective)
    app.add_directive("follow-up-questions", FollowUpQuestionsDirective)
    app.add_directive("question-drill", QuestionDrillDirective)
    app.add_directive("cheat-sheet", CheatSheetDirective)
    app.add_directive("practise", PractiseDirective)
    app.connect("doctree-resolved", _resolve_card_links)
    app.connect("build-finished", _copy_css)
    app.add_css_file(CSS_FILE.name)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
