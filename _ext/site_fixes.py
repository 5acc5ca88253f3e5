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
  (search-as-you-type is off, so no other page uses it).
- The "Suggest edit" button of a notebook page would open raw notebook JSON in GitHub's editor: on notebook
  pages it opens a new issue about that page instead; markdown pages keep the edit link.
- The repository URL has one setting, ``repository.url`` in ``_config.yml``: it is also offered to MyST
  pages as the substitution ``{{ repo_url }}``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

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


def repo_url(app: Sphinx) -> str:
    """The repository URL set once in _config.yml (jupyter-book passes it on as a theme option)."""
    return str((app.config.html_theme_options or {}).get("repository_url", "")).rstrip("/")


def share_repo_url(app: Sphinx, config: Any) -> None:
    subs = dict(getattr(config, "myst_substitutions", {}) or {})
    subs.setdefault("repo_url", str((config.html_theme_options or {}).get("repository_url", "")).rstrip("/"))
    config.myst_substitutions = subs


def page_context(app: Sphinx, pagename: str, template: str, context: dict[str, Any], doctree: Any) -> None:
    """Point a notebook page's edit button at a new issue about that page."""
    if context.get("page_source_suffix") != ".ipynb":
        return
    url = repo_url(app)
    title = quote(f"Suggestion for {pagename}")
    body = quote(f"Page: {pagename} ({pagename}.ipynb)\n\nWhat should change, and why:\n")
    for button in _buttons(context.get("header_buttons", [])):
        if button.get("label") == "source-edit-button" and url:
            button["url"] = f"{url}/issues/new?title={title}&body={body}"
            button["text"] = button["tooltip"] = "Suggest a change"


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
        if page.name != "search.html":
            lighter = SEARCHINDEX_TAG.sub("", lighter, count=1)
        if lighter != html:
            page.write_text(lighter, encoding="utf-8")
            stripped += 1
    logger.info(f"site_fixes: lighter script list on {stripped} pages")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", share_repo_url)
    app.connect("html-page-context", page_context, priority=900)  # after the themes built their buttons
    app.connect("build-finished", finish)
    app.add_css_file("site.css")
    app.add_js_file("site.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
