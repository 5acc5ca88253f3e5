"""Site-wide reading fixes: phone navigation, overflow, lighter pages, MathJax off the tab order, zh search.

What it does (each item is checked by tests/test_site_browser.py or tests/test_book.py):

- Phone navigation. pydata-sphinx-theme 0.17.x binds its sidebar dialogs to the *first* ``.primary-toggle``
  / ``.secondary-toggle`` in the page (pydata-sphinx-theme issue #2451); with sphinx-book-theme that is a
  hidden button in the theme's top navbar, so the visible ☰ in the article header does nothing on a phone.
  ``site.js`` forwards a click on any other toggle to the bound one (both themes' handlers then run as
  designed: a dialog on narrow screens, a collapsing sidebar on wide ones). ``site.css`` hides that navbar,
  which at desktop width is an empty 64 px band holding a second search box.
- Overflow on a 390 px phone: display math scrolls inside its own box (with a fading edge as the cue),
  too-wide inline math becomes a small scroll box (``site.js`` marks it), table cells keep a minimum width
  inside the theme's scrolling table container, admonitions scroll instead of clipping.
- Weight: ``fontawesome.js`` (1.49 MB, the SVG build of the icons) is dropped from every page, since the
  theme's CSS already ships the same icons as web fonts; ``searchindex.js`` is loaded only by the search page
  (search-as-you-type is off, so no other page uses it). ``lighten.py`` then trims the theme's CSS to the
  selectors the site can use, cuts the icon fonts to the icons that CSS names and re-encodes the figures
  with a palette where no pixel changes visibly (numbers in the build log).
- The "Suggest edit" button of a notebook page would open raw notebook JSON in GitHub's editor: on notebook
  pages it opens the notebook in github.dev (the web editor opens .ipynb files as notebooks: cells,
  markdown and outputs, and proposes the change as a commit or pull request); markdown pages keep GitHub's
  edit link.
- Build time: Sphinx 7.4's Chinese search splitter (``html_search_language: zh``) keeps every Latin term it
  has seen in a list that only grows and tests ``word in list`` for each of ~50,000 words (O(n²): about 60 s
  of a 130 s build here). ``_fast_zh_latin_terms`` makes that a set with the same ``extend``; membership,
  and so the search index, is unchanged (later Sphinx releases made the same change).
- The repository URL has one setting, ``repository.url`` in ``_config.yml``: it is also offered to MyST
  pages as the substitution ``{{ repo_url }}``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.fileutil import copy_asset_file

logger = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "site_static"
ASSETS = ("site.css", "site.js", "favicon.png")
# Written by the theme's template (not via the script list): removed from the written pages.
FONTAWESOME_TAG = re.compile(
    r'\s*<script defer src="(?:\.\./)*_static/scripts/fontawesome\.js[^"]*"></script>'
)
SEARCHINDEX_TAG = re.compile(r'\s*<script src="(?:\.\./)*searchindex\.js"></script>')
# An inline formula and the punctuation around it ("($W_Q$", "$d_k$)." or "$W_O$。") stay on one line: a
# <math> element is an atomic inline, next to which a browser may break before ")" or after "(".
FORMULA_PUNCT = re.compile(
    r'(?P<pre>[(\[（“]?)(?P<math><span class="math notranslate nohighlight"><math display="inline">'
    r'(?:(?!</math>).)*</math></span>)(?P<post>[)\].,;:!?，。；：）、”]*)',
    re.S,
)


def keep_punctuation(html: str) -> str:
    """Wrap each inline formula that has punctuation next to it, with that punctuation, in a nowrap span.

    A page this already ran on (an incremental build leaves unchanged pages as they were) is returned as is.
    """
    if 'class="sa-nobr"' in html:
        return html

    def wrap(m: re.Match[str]) -> str:
        if not (m.group("pre") or m.group("post")):
            return m.group(0)
        return f'<span class="sa-nobr">{m.group(0)}</span>'

    return FORMULA_PUNCT.sub(wrap, html)


def repo_url(app: Sphinx) -> str:
    """The repository URL set once in _config.yml (jupyter-book passes it on as a theme option)."""
    return str((app.config.html_theme_options or {}).get("repository_url", "")).rstrip("/")


def share_repo_url(app: Sphinx, config: Any) -> None:
    subs = dict(getattr(config, "myst_substitutions", {}) or {})
    subs.setdefault("repo_url", str((config.html_theme_options or {}).get("repository_url", "")).rstrip("/"))
    config.myst_substitutions = subs


def github_dev_url(app: Sphinx, pagename: str) -> str | None:
    """The notebook of `pagename` in github.dev, GitHub's web editor (it edits .ipynb files as notebooks)."""
    url = repo_url(app)
    if not url.startswith("https://github.com/"):
        return None
    options = app.config.html_theme_options or {}
    branch = options.get("repository_branch") or "main"
    folder = str(options.get("path_to_docs") or "").strip("/")
    path = f"{folder}/{pagename}.ipynb" if folder else f"{pagename}.ipynb"
    return f"https://github.dev/{url.removeprefix('https://github.com/')}/blob/{branch}/{path}"


def page_context(app: Sphinx, pagename: str, template: str, context: dict[str, Any], doctree: Any) -> None:
    """Point a notebook page's edit button at the notebook in github.dev (not at raw JSON)."""
    if context.get("page_source_suffix") != ".ipynb":
        return
    url = github_dev_url(app, pagename)
    for button in _buttons(context.get("header_buttons", [])):
        if button.get("label") == "source-edit-button" and url:
            button["url"] = url
            button["text"] = "Suggest edit"
            button["tooltip"] = "Edit this notebook in github.dev"


def _buttons(buttons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for b in buttons:
        out.append(b)
        out += _buttons(b.get("buttons", []))
    return out


def finish(app: Sphinx, exception: Exception | None) -> None:
    """Copy the static files; strip fontawesome.js from every page, searchindex.js from all but search."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for name in ASSETS:
        copy_asset_file(str(STATIC / name), str(out / "_static"))
    stripped = 0
    for page in out.rglob("*.html"):
        if page.parent.name in ("_static", "_sources"):
            continue
        html = page.read_text(encoding="utf-8")
        lighter = FONTAWESOME_TAG.sub("", html, count=1)
        lighter = keep_punctuation(lighter)
        if page.name != "search.html":
            lighter = SEARCHINDEX_TAG.sub("", lighter, count=1)
        if lighter != html:
            page.write_text(lighter, encoding="utf-8")
            stripped += 1
    logger.info(f"site_fixes: lighter script list on {stripped} pages")
    lighter_assets(out)


# The stylesheets every page loads that carry rules for far more than the site uses.
PURGED_CSS = (
    "styles/pydata-sphinx-theme.css",
    "styles/sphinx-book-theme.css",
    "sphinx-design.min.css",
    "mystnb.*.css",
)


def lighter_assets(out: Path) -> None:
    """Purge the theme CSS, cut the icon fonts, palette-encode the figures (see lighten.py)."""
    import lighten

    static = out / "_static"
    pages = [p for p in out.rglob("*.html") if not {"_static", "_sources"} & set(p.relative_to(out).parts)]
    scripts = [p for p in static.rglob("*.js") if "mathjax" not in p.parts]
    known = lighten.words([p.read_text(encoding="utf-8") for p in pages]
                          + [p.read_text(encoding="utf-8", errors="ignore") for p in scripts])
    before = after = 0
    for pattern in PURGED_CSS:
        for css_file in static.glob(pattern):
            css = css_file.read_text(encoding="utf-8")
            lighter = lighten.purge_css(css, known)
            if "fontawesome/webfonts" in lighter:
                lighter, cut = lighten.subset_icon_fonts(lighter, static)
                logger.info(f"site_fixes: icon fonts cut to the glyphs the CSS names: {cut}")
            before, after = before + len(css.encode()), after + len(lighter.encode())
            css_file.write_text(lighter, encoding="utf-8")
    logger.info(f"site_fixes: theme CSS {before // 1000} KB -> {after // 1000} KB")
    images = [lighten.quantize_png(p) for p in sorted((out / "_images").glob("*.png"))]
    logger.info(
        f"site_fixes: figures {sum(a for a, _ in images) // 1000} KB -> "
        f"{sum(b for _, b in images) // 1000} KB "
        f"({sum(a != b for a, b in images)} of {len(images)} palette-encoded)"
    )


class _TermSet(set):
    """A set with the list method Sphinx's Chinese splitter calls (``extend``)."""

    def extend(self, terms: Any) -> None:
        self.update(terms)


def _fast_zh_latin_terms() -> None:
    from sphinx.search import zh

    if not isinstance(zh.SearchChinese.latin_terms, set):
        zh.SearchChinese.latin_terms = _TermSet(zh.SearchChinese.latin_terms)


def setup(app: Sphinx) -> dict[str, Any]:
    _fast_zh_latin_terms()
    app.connect("config-inited", share_repo_url)
    app.connect("html-page-context", page_context, priority=900)  # after the themes built their buttons
    app.connect("build-finished", finish)
    app.add_css_file("site.css")
    app.add_js_file("site.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
