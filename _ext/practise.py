"""The practise page: spaced repetition in the browser, offline, with the terminal's scheduler.

``{practise-app}`` renders every card of the bank (the same YAML the drill and the terminal read) into the
page at build time, in both languages, formulas as MathML like every other page, inside a hidden bank that
``practise.js`` shows one card at a time. No card text is copied anywhere else: the script reads the
rendered cards from the page; the JSON it gets holds only ids, chapters and levels.

The scheduler is ts-fsrs from npm (``web/package.json``, pinned by ``web/package-lock.json``; ``tasks.py
book`` and ``tasks.py test`` run ``npm ci`` there). Its browser build and ``web/core.js`` (the settings and
conventions shared with py-fsrs, checked by tests/test_practise_parity.py) are copied into
``_static/practise/`` and loaded by this page only: no request leaves the site.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.fileutil import copy_asset_file

from selfattention.interview.bank import CHAPTERS, LEVELS
from selfattention.interview.sphinx_ext import _CardDirective, _paragraphs, plain_math_to_myst

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
STATIC = Path(__file__).resolve().parent / "practise_static"
TS_FSRS = WEB / "node_modules" / "ts-fsrs" / "dist" / "index.umd.js"
PAGE = "practise"
SCRIPTS = ("practise/ts-fsrs.umd.js", "practise/core.js", "practise/practise.js")
LEVEL_ZH = {"basic": "基础", "follow-up": "追问", "deep": "深入"}


def _shell(chapters: list[tuple[str, dict[str, Any]]]) -> str:
    """The page's controls (the script fills them in and switches their language)."""
    options = "".join(
        f'<option value="{slug}">{info["number"]}. {html.escape(info["en"])} · '
        f'{html.escape(info["zh"])}</option>'
        for slug, info in chapters
    )
    levels = "".join(f'<option value="{lv}">{lv} · {LEVEL_ZH.get(lv, lv)}</option>' for lv in LEVELS)
    ratings = "".join(
        f'<button type="button" class="sa-pr-rate-btn sa-pr-r{r}" data-rating="{r}" disabled>'
        f'<span class="sa-pr-rname" data-i18n="r{r}"></span><span class="sa-pr-ivl"></span>'
        f'<kbd class="sa-pr-key" aria-hidden="true">{r}</kbd></button>'
        for r in (1, 2, 3, 4)
    )
    return f"""
<div id="sa-practise" class="sa-pr" data-ready="false">
<noscript><p class="sa-pr-msg">This page needs JavaScript (本页需要 JavaScript). The drill page lists every
question without it.</p></noscript>
<p class="sa-pr-msg sa-pr-storage" id="sa-pr-storage" role="alert" hidden></p>
<div class="sa-pr-controls">
 <div class="sa-pr-langs" role="group" aria-label="Language · 语言">
  <button type="button" class="sa-pr-lang" data-lang="en" aria-pressed="true">English</button>
  <button type="button" class="sa-pr-lang" data-lang="zh" aria-pressed="false">中文</button>
 </div>
 <label class="sa-pr-field"><span data-i18n="chapter">Chapter</span>
  <select id="sa-pr-chapter"><option value="" data-i18n="allChapters">All chapters</option>{options}
  </select></label>
 <label class="sa-pr-field"><span data-i18n="level">Level</span>
  <select id="sa-pr-level"><option value="" data-i18n="allLevels">All levels</option>{levels}</select></label>
 <label class="sa-pr-field"><span data-i18n="newPerDay">New cards a day</span>
  <input id="sa-pr-newlimit" type="number" inputmode="numeric" min="0" max="999" value="10"></label>
</div>
<p class="sa-pr-summary" id="sa-pr-summary"></p>
<section class="sa-pr-stage" id="sa-pr-stage" aria-labelledby="sa-pr-where" hidden>
 <div class="sa-pr-head"><span id="sa-pr-where"></span>
  <span class="sa-pr-timer" id="sa-pr-timer" role="timer" aria-live="off">0:00</span></div>
 <div id="sa-pr-slot" class="sa-pr-slot" tabindex="-1"></div>
 <div class="sa-pr-steps">
  <button type="button" id="sa-pr-back" class="sa-pr-btn" data-i18n="back" disabled>← Back</button>
  <button type="button" id="sa-pr-show" class="sa-pr-btn sa-pr-primary" data-i18n="show">Show answer</button>
 </div>
 <p class="sa-pr-hint" data-i18n="keys"></p>
 <div class="sa-pr-rates" id="sa-pr-rates" role="group" aria-label="Rate your answer">{ratings}</div>
</section>
<div class="sa-pr-done" id="sa-pr-done" hidden><p id="sa-pr-done-text"></p></div>
<div class="sa-pr-tools">
 <button type="button" id="sa-pr-export" class="sa-pr-btn" data-i18n="export">Export progress</button>
 <label class="sa-pr-btn sa-pr-file"><span data-i18n="import">Import progress</span>
  <input type="file" id="sa-pr-import" accept="application/json,.json"></label>
 <button type="button" id="sa-pr-reset" class="sa-pr-btn" data-i18n="reset">Reset</button>
 <span id="sa-pr-confirm" class="sa-pr-confirm" hidden><span id="sa-pr-confirm-text"></span>
  <button type="button" id="sa-pr-reset-yes" class="sa-pr-btn sa-pr-danger" data-i18n="erase">Erase</button>
  <button type="button" id="sa-pr-reset-no" class="sa-pr-btn" data-i18n="keep">Keep</button></span>
</div>
<p class="sa-pr-msg" id="sa-pr-note" role="status"></p>
<div class="sa-pr-live" id="sa-pr-live" aria-live="polite" aria-atomic="true"></div>
</div>
"""


class PractiseAppDirective(_CardDirective):
    """``{practise-app}``: the practise page's controls and every card, rendered, in a hidden bank."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        cards = self.load()
        chapters = [(slug, info) for slug, info in CHAPTERS.items() if any(c.chapter == slug for c in cards)]
        meta = {
            "cards": [{"id": c.id, "chapter": c.chapter, "level": c.level} for c in cards],
            "chapters": {slug: {"number": info["number"], "en": info["en"], "zh": info["zh"]}
                         for slug, info in chapters},
        }
        out: list[nodes.Node] = [nodes.raw("", _shell(chapters), format="html")]
        data = json.dumps(meta, ensure_ascii=False).replace("</", "<\\/")
        out.append(nodes.raw("", f'<script type="application/json" id="sa-pr-meta">{data}</script>',
                             format="html"))
        bank = nodes.container(classes=["sa-pr-bank"])
        bank["ids"].append("sa-pr-bank")
        for card in cards:
            box = nodes.container(classes=["sa-pr-card"])
            box["ids"].append(f"pr-{card.id}")
            for lang in ("en", "zh"):
                part = nodes.container(classes=["sa-pr-lang-part", f"sa-pr-{lang}"])
                sections = {
                    "q": [plain_math_to_myst(card.question[lang]), ""],
                    "short": _paragraphs(card.short[lang]),
                    "spoken": _paragraphs(card.spoken[lang]),
                    "points": [*(f"- {plain_math_to_myst(p)}" for p in card.key_points[lang]), ""],
                    "myths": [*(f"- {plain_math_to_myst(m[lang])}" for m in card.misconceptions), ""],
                }
                for name, lines in sections.items():
                    piece = nodes.container(classes=[f"sa-pr-{name}"])
                    if any(line.strip() for line in lines):
                        self.parse(lines, piece)
                    part += piece
                box += part
            bank += box
        out.append(bank)
        return out


def _page_assets(app: Sphinx, pagename: str, template: str, context: dict[str, Any], doctree: Any) -> None:
    if pagename != PAGE:
        return
    app.add_css_file("practise/practise.css")
    for script in SCRIPTS:
        app.add_js_file(script, loading_method="defer")


def _check_ts_fsrs(app: Sphinx) -> None:
    if not TS_FSRS.exists():
        raise ExtensionError(
            f"the practise page needs ts-fsrs: {TS_FSRS} is missing. Run `npm ci` in {WEB} "
            "(python3 tasks.py book does it)"
        )


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "practise"
    target.mkdir(parents=True, exist_ok=True)
    copy_asset_file(str(TS_FSRS), str(target / "ts-fsrs.umd.js"))
    copy_asset_file(str(WEB / "core.js"), str(target))
    for name in ("practise.js", "practise.css"):
        copy_asset_file(str(STATIC / name), str(target))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("practise-app", PractiseAppDirective)
    app.connect("builder-inited", _check_ts_fsrs)
    app.connect("html-page-context", _page_assets)
    app.connect("build-finished", _copy, priority=400)  # before site_fixes lightens pages and CSS (500)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
