"""A site that works offline and loads cleanly: MathJax 3 served from the site itself, no duplicate scripts.

The MathJax files come from the PyPI package ``sphinx-mathjax-offline`` (MathJax 3.2.2, es5 build), installed
by ``requirements.txt``. We do not enable that package as an extension (it would copy all 24 MB, including
bundles we never load); this extension copies MathJax's ``startup.js`` and the components the pages load
(``core``, ``input/tex``, ``output/chtml``, ``a11y/assistive-mml``, TeX extensions on demand, CHTML fonts)
into ``_build/html/_static/mathjax/``. That is about 650 KB instead of the 1.16 MB of the combined
``tex-chtml.js``, which also carries the context menu (426 KB of it); the menu made every formula a tab stop
and is switched off. ``mathjax3_config.loader.load`` in ``_config.yml`` names the components (`LOAD`).

``mathjax_path`` in ``_config.yml`` must point there (``mathjax/startup.js``, relative to ``_static``);
a remote ``mathjax_path`` is an error, because the site must not request anything from another host.

It also drops repeated entries from each page's script list: sphinx-thebe 0.3.1 registers its inline
``const THEBE_JS_URL = ...`` config once per build phase, and the second copy is a console error
("Identifier 'THEBE_JS_URL' has already been declared") on every page.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "sphinx-mathjax-offline"  # the distribution's top-level folder really has dashes in its name
ENTRY = "startup.js"
# The components every page loads (the hidden MathML of assistive-mml is what screen readers read).
LOAD = ["input/tex", "output/chtml", "a11y/assistive-mml"]
# Everything those may load at run time: core, TeX extensions named with \require or autoloaded, fonts.
PARTS = (ENTRY, "core.js", "input/tex.js", "output/chtml.js", "a11y/assistive-mml.js", "input/tex/extensions",
         "output/chtml/fonts/tex.js", "output/chtml/fonts/woff-v2")


def mathjax_source() -> Path:
    """The folder holding MathJax's es5 files inside the installed package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ExtensionError(
            f"MathJax is served from the site itself and comes from the PyPI package {PACKAGE!r}, "
            "which is not installed: run `python3 tasks.py book` (it installs requirements.txt)"
        )
    folder = Path(spec.origin).parent / "static" / "mathjax"
    if not (folder / ENTRY).is_file():
        raise ExtensionError(f"{PACKAGE} is installed but {folder / ENTRY} is missing")
    return folder


def check_config(app: Sphinx) -> None:
    path = app.config.mathjax_path
    if "://" in path or path.startswith("//"):
        raise ConfigError(f"mathjax_path {path!r} is remote: the site must work offline ('mathjax/{ENTRY}')")
    if path != f"mathjax/{ENTRY}":
        raise ConfigError(f"mathjax_path is {path!r}; offline_site serves only 'mathjax/{ENTRY}'")
    mathjax_source()  # fail early, before reading every page, when the package is missing
    load = ((app.config.mathjax3_config or {}).get("loader") or {}).get("load")
    if load != LOAD:
        raise ConfigError(f"mathjax3_config.loader.load is {load!r}; offline_site serves exactly {LOAD!r}")


def copy_tree(src: Path, dst: Path) -> int:
    """Copy the files of `src` into `dst` that are missing or differ in size/mtime; return how many."""
    copied = 0
    files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
    for f in files:
        target = dst if src.is_file() else dst / f.relative_to(src)
        same = target.exists() and (target.stat().st_size, target.stat().st_mtime) == (
            f.stat().st_size,
            f.stat().st_mtime,
        )
        if same:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        copied += 1
    return copied


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    src, dst = mathjax_source(), Path(app.outdir) / "_static" / "mathjax"
    copied = sum(copy_tree(src / part, dst / part) for part in PARTS)
    logger.info(f"offline_site: MathJax in {dst} ({copied} files updated)")


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
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("builder-inited", check_config)
    app.connect("build-finished", copy_mathjax)
    app.connect("html-page-context", dedupe_scripts, priority=100)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
