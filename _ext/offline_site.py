"""A site that loads cleanly: no duplicate scripts.

Formulas need no script at all: they are MathML written at build time (``_ext/mathml.py``); nothing is
requested from another host (the browser test checks every page).

sphinx-thebe 0.3.1 registers its inline ``const THEBE_JS_URL = ...`` config once per build phase, and the
second copy is a console error ("Identifier 'THEBE_JS_URL' has already been declared") on every page: this
extension keeps the first of identical script entries.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ConfigError


def check_config(app: Sphinx) -> None:
    renderer = app.config.html_math_renderer
    if renderer != "mathml":
        raise ConfigError(
            f"html_math_renderer is {renderer!r}: formulas are MathML written at build time ('mathml', "
            "_ext/mathml.py), so that no page loads a math script"
        )


def dedupe_scripts(app: Sphinx, pagename: str, template: str, context: dict[str, Any], doctree: Any) -> None:
    """Keep the first of identical script entries (same file or inline body, same attributes).

    In place and early (priority 100): the list is the builder's own, which later handlers append to, and
    html-page-context stops calling handlers once one returns a template name.
    """
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for js in scripts:
        attributes = getattr(js, "attributes", {})
        # the same inline script is registered once with filename None and once with '' (Sphinx 7.4)
        key = (getattr(js, "filename", js) or "", getattr(js, "priority", 0), *sorted(attributes.items()))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("mathml")
    app.connect("builder-inited", check_config)
    app.connect("html-page-context", dedupe_scripts, priority=100)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
