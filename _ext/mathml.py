"""Formulas rendered to MathML when the site is built: no MathJax runtime on any page.

Every math node Sphinx, MyST and the course's directives produce (``$..$``, ``$$..$$``, ``{math}``, amsmath
environments, math in quiz options and in card-derived content) is converted with the pinned PyPI package
``latex2mathml`` and written as MathML Core, which Chromium, Firefox and Safari render natively. A page then
loads no script for its formulas (MathJax was 650-900 KB per page); formulas are no tab stops (MathML elements
are not focusable) and screen readers read the MathML itself.

A formula latex2mathml cannot convert, or converts with a command left over (a backslash in the output), is a
build warning naming the document and the TeX, so ``jupyter-book build -W`` fails rather than showing raw TeX.

The markup is the one Sphinx's MathJax renderer writes around a formula (``span.math`` / ``div.math`` with the
equation number), with a ``<math>`` element inside instead of the TeX source.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

_ENTITY = re.compile(r"&#x([0-9A-Fa-f]+);")
# latex2mathml writes \operatorname{softmax} as <mo>softmax</mo>: an operator gets thick spaces on both sides;
# a multi-letter identifier (<mi>) is what MathML Core renders upright with TeX's spacing for a function name.
_WORD_MO = re.compile(r"<mo>([A-Za-z]{2,})</mo>")
_KEEP_MO = {"mod"}  # \bmod is a binary operator
# \mathrel{+} comes out as <mo><mrow><mo>+</mo></mrow></mo> (an mo may hold only text)
_NESTED_MO = re.compile(r"<mo>(?:<mrow>)?<mo>([^<]*)</mo>(?:</mrow>)?</mo>")
_XMLNS = ' xmlns="http://www.w3.org/1998/Math/MathML"'


class MathMLError(ValueError):
    """A formula that latex2mathml cannot render faithfully."""


def _char(match: re.Match[str]) -> str:
    ch = chr(int(match.group(1), 16))
    return html.escape(ch, quote=False) if ch in "<>&" else ch


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """The MathML Core markup (one ``<math>`` element) of a TeX formula; MathMLError if it cannot convert."""
    from latex2mathml.converter import convert

    source = tex.strip()
    if not source:
        raise MathMLError("empty formula")
    try:
        out = convert(source, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises its own exception types and plain ones
        raise MathMLError(f"latex2mathml cannot convert {source!r}: {exc}") from exc
    out = _ENTITY.sub(_char, out).replace(_XMLNS, "")
    out = _NESTED_MO.sub(r"<mo>\1</mo>", out)
    out = _WORD_MO.sub(lambda m: m.group(0) if m.group(1) in _KEEP_MO else f"<mi>{m.group(1)}</mi>", out)
    if "\\" in out or "<merror" in out:
        raise MathMLError(f"latex2mathml left TeX in the output of {source!r}: {out[:200]}")
    return out


def display_source(node: nodes.math_block) -> str:
    """The TeX of a display block as Sphinx's MathJax renderer would typeset it (parts, split, aligned)."""
    if node.get("nowrap"):
        return node.astext()
    parts = [p for p in node.astext().split("\n\n") if p.strip()]
    parts = [rf"\begin{{split}}{p}\end{{split}}" if r"\\" in p else p for p in parts]
    if len(parts) > 1:
        return r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
    return parts[0] if parts else ""


def _render(self: Any, node: nodes.Node, tex: str, display: bool) -> str:
    try:
        return tex_to_mathml(tex, display=display)
    except MathMLError as exc:
        logger.warning(f"mathml: {exc}", location=node, type="mathml", subtype="convert")
        return f'<code class="math-error">{self.encode(tex)}</code>'


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_render(self, node, node.astext(), display=False) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_render(self, node, display_source(node), display=True) + "</div>\n")
    raise nodes.SkipNode


def renderer_version() -> str:
    """A digest of this file and latex2mathml's version: when either changes, every page is written again."""
    import hashlib
    from importlib.metadata import version

    return hashlib.sha256(Path(__file__).read_bytes() + version("latex2mathml").encode()).hexdigest()[:16]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    # a config value that changes with the renderer: an incremental build re-reads every page then
    app.add_config_value("mathml_renderer_version", renderer_version(), "env")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
