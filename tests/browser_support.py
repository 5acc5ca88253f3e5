"""Helpers for the real-browser tests: serve a folder on 127.0.0.1, find and launch Chromium, inspect a page.

The checks are plain functions (`inspect_page` gathers facts, `problems` judges them) so that
tests/test_site_browser.py can prove each one fails on a deliberately broken page.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
# As the machine notes say: without the background-networking flags Chromium keeps trying Google's hosts.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_SCHEMES = ("data", "blob", "about")
# Raw TeX that the build should have turned into MathML: a control word, or $...$ / \( \) / \[ \] delimiters.
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\$[^$\s][^$]*\$|\\\(|\\\[")
# A formula written as plain text (the cards' terminal notation) that the site should show as math:
# d_k, W_Q, W_K^T, n^2, sqrt(, √d. Identifiers such as is_causal or attn_mask do not match.
PLAIN_MATH = re.compile(
    r"(?<![A-Za-z0-9_])(?:[A-Za-z]_[A-Za-z0-9]{1,2}(?:\^[A-Za-z0-9]+)?(?![A-Za-z0-9_])|sqrt\(|√[A-Za-z]"
    r"|[A-Za-z0-9)]\^[A-Za-z0-9(])"
)


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary, or None. SELFATTENTION_CHROMIUM overrides the search."""
    override = os.environ.get("SELFATTENTION_CHROMIUM")
    if override:
        return override if Path(override).exists() else None
    for name in CHROMIUM_CANDIDATES:
        path = name if Path(name).is_absolute() and Path(name).exists() else shutil.which(name)
        if path:
            return path
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's signature)
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on 127.0.0.1 (a free port) in a thread; yield the base URL ending in '/'."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def is_local(url: str) -> bool:
    """True for requests that stay on this machine's loopback address (or need no network at all)."""
    parsed = urlparse(url)
    return parsed.scheme in LOCAL_SCHEMES or parsed.hostname == "127.0.0.1"


@dataclass
class PageReport:
    """What a browser saw on one page."""

    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # requests that failed or answered >= 400
    math_elements: int = 0  # elements Sphinx marked as math (span.math / div.math)
    untypeset_math: list[str] = field(default_factory=list)  # math elements with no MathML in them
    typeset: int = 0  # rendered formulas: <math> elements (written at build time)
    math_errors: list[str] = field(default_factory=list)  # <merror> or a formula the build could not convert
    math_scripts: list[str] = field(default_factory=list)  # MathJax/KaTeX scripts: formulas need none
    raw_tex: list[str] = field(default_factory=list)  # TeX left in the page's text outside code
    plain_math: list[str] = field(default_factory=list)  # plain-text formulas in card-derived text
    images: int = 0
    broken_images: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return problems(self)


def problems(report: PageReport) -> list[str]:
    """Everything wrong with a page, one readable line each; empty when the page is fine."""
    out: list[str] = []
    external = sorted({u for u in report.requests if not is_local(u)})
    if external:
        out.append(f"requests to another host: {external[:5]}")
    if report.console_errors:
        out.append(f"console errors: {report.console_errors[:5]}")
    if report.failed:
        out.append(f"failed requests: {report.failed[:5]}")
    if report.math_scripts:
        out.append(f"a math script is loaded (formulas are MathML built into the page): {report.math_scripts[:3]}")
    if report.math_errors:
        out.append(f"{len(report.math_errors)} formula(s) with a conversion error, e.g. {report.math_errors[:3]}")
    if report.untypeset_math:
        out.append(f"{len(report.untypeset_math)} formula(s) not typeset, e.g. {report.untypeset_math[:3]}")
    if report.raw_tex:
        out.append(f"raw TeX in the visible text: {report.raw_tex[:5]}")
    if report.plain_math:
        out.append(f"plain-text formula in card text: {report.plain_math[:8]}")
    if report.broken_images:
        out.append(f"broken images: {report.broken_images[:5]}")
    return out


def watch(page: Any, report: PageReport) -> None:
    """Record every request, console error, uncaught exception and failed response of `page` into `report`."""
    page.on("request", lambda req: report.requests.append(req.url))
    page.on("console", lambda msg: report.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: report.console_errors.append(f"uncaught: {exc}"))
    page.on("requestfailed", lambda req: report.failed.append(f"{req.url} ({req.failure})"))
    page.on("response", lambda r: r.status >= 400 and report.failed.append(f"{r.url} (HTTP {r.status})"))


def block_other_hosts(context: Any) -> None:
    """Abort any request that would leave 127.0.0.1, so a test is hermetic; the page still records it."""
    context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), lambda route: route.abort("blockedbyclient"))


_LOAD_IMAGES = """async (ms) => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = "eager"; });
  await Promise.race([
    Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = r; i.onerror = r; }))),
    new Promise(r => setTimeout(r, ms)),
  ]);
  return imgs.map(i => ({src: i.getAttribute("src"), ok: i.complete && i.naturalWidth > 0}));
}"""

# A formula is typeset when its span.math / div.math holds a rendered <math> element (MathML, which the
# browser lays out: a <math> element it does not know would have no box) and no <merror>.
_MATH = """() => {
  const maths = Array.from(document.querySelectorAll(".math"));
  const rendered = (m) => { const e = m.querySelector("math");
    return e && e.namespaceURI === "http://www.w3.org/1998/Math/MathML" && e.getBoundingClientRect().height > 0; };
  // hidden formulas (a closed dropdown, the other language's tab) have no box, but must hold MathML
  const bad = maths.filter(m => !m.querySelector("math") || (m.checkVisibility() && !rendered(m)))
                   .map(m => m.textContent.trim().slice(0, 60));
  const errors = Array.from(document.querySelectorAll("merror, .math-error"))
                      .map(e => (e.closest(".math") || e).textContent.trim().slice(0, 60));
  const scripts = Array.from(document.scripts).map(s => s.src).filter(s => /mathjax|katex/i.test(s));
  const clone = (document.querySelector("main") || document.body).cloneNode(true);
  clone.querySelectorAll("pre, code:not(.math-error), kbd, samp, script, style, textarea, .highlight")
       .forEach(e => e.remove());
  const cards = Array.from(clone.querySelectorAll(".sa-card")).map(c => c.textContent).join(" ");
  return {count: maths.length, bad: bad, typeset: document.querySelectorAll(".math math").length,
          errors: errors, scripts: scripts, text: clone.textContent, cards: cards};
}"""


def inspect_page(page: Any, url: str, report: PageReport | None = None) -> PageReport:
    """Load `url` in `page` (`watch`ed into `report` if given); gather every fact `problems` judges."""
    if report is None:
        report = PageReport(url)
        watch(page, report)
    page.goto(url, wait_until="load")
    math = page.evaluate(_MATH)
    report.math_elements, report.untypeset_math = math["count"], math["bad"]
    report.typeset, report.math_errors, report.math_scripts = math["typeset"], math["errors"], math["scripts"]
    report.raw_tex = sorted({m.group(0) for m in RAW_TEX.finditer(math["text"])})
    report.plain_math = sorted({m.group(0) for m in PLAIN_MATH.finditer(math["cards"])})
    images = page.evaluate(_LOAD_IMAGES, 10000)
    report.images = len(images)
    report.broken_images = [i["src"] for i in images if not i["ok"]]
    return report


# ------------------------------------------------------------------------------- reading layout checks

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
CODE_COLUMNS = (
    88  # the course's line limit: a code block this wide must fit without scrolling at desktop width
)

# Facts about the layout of the loaded page at the current viewport. A formula is "clipped" when it reaches
# past an ancestor that hides overflow (overflow hidden/clip), or past the viewport, without sitting in a box
# that scrolls. An element "overflows the page" when its right edge passes the viewport and no ancestor
# scrolls or clips it horizontally.
_LAYOUT = """([codeColumns, vw]) => {
  // vw: the device width. A phone's innerWidth grows to the page's width when the page is too wide.
  const root = document.documentElement;
  const article = document.querySelector("main") || document.body;
  const name = (e) => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += "#" + e.id;
    const cls = (typeof e.className === "string" ? e.className : "").trim().split(/\\s+/).filter(Boolean);
    if (cls.length) s += "." + cls.slice(0, 2).join(".");
    const text = (e.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40);
    return text ? `${s} "${text}"` : s;
  };
  const ox = (e) => getComputedStyle(e).overflowX;
  const scrolls = (e) => ["auto", "scroll"].includes(ox(e));
  const clips = (e) => ["hidden", "clip"].includes(ox(e));
  const inScroller = (e, stop) => {
    for (let a = e.parentElement; a && a !== stop; a = a.parentElement) if (scrolls(a)) return a;
    return null;
  };
  const visible = (e) => e.checkVisibility ? e.checkVisibility() : e.offsetParent !== null;

  // elements past the right edge of the viewport that nothing contains
  const wide = [];
  article.querySelectorAll("*").forEach((e) => {
    if (!visible(e)) return;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 1) return;
    for (let a = e.parentElement; a && a !== root; a = a.parentElement) {
      if (scrolls(a) || clips(a)) {
        if (a.getBoundingClientRect().right <= vw + 1) return;  // contained by a box that fits
      }
    }
    wide.push({node: e, el: name(e), width: Math.round(r.width), right: Math.round(r.right)});
  });
  // the innermost offenders name the culprit (a formula, a table); the outer ones only contain it
  const nodes = new Set(wide.map((w) => w.node));
  const outer = wide.filter((w) => !Array.from(w.node.querySelectorAll("*")).some((c) => nodes.has(c)))
                    .map(({node, ...rest}) => rest);

  // clipped formulas
  const clipped = [];
  document.querySelectorAll("span.math, div.math").forEach((m) => {
    if (!visible(m)) return;
    const r = m.getBoundingClientRect();
    if (scrolls(m)) {  // a display formula (or a marked wide inline one) that scrolls in its own box ...
      // ... can still hide its start: a box scrolls only to the right, so content left of it is out of reach
      const inner = m.firstElementChild;
      const ir = inner ? inner.getBoundingClientRect() : r;
      if (ir.left < r.left - 1) {
        clipped.push({el: name(m), width: Math.round(ir.width), box: "its own scroll box, start out of reach",
                      boxWidth: Math.round(r.width)});
      }
      return;
    }
    const scroller = inScroller(m, null);
    for (let a = m.parentElement; a && a !== root; a = a.parentElement) {
      if (a === scroller) break;
      if (clips(a)) {
        const ar = a.getBoundingClientRect();
        if (r.right > ar.right + 1 || r.left < ar.left - 1) {
          clipped.push({el: name(m), width: Math.round(r.width), box: name(a), boxWidth: Math.round(ar.width)});
          return;
        }
      }
    }
    if (!scroller && r.right > vw + 1) clipped.push({el: name(m), width: Math.round(r.width), box: "viewport", boxWidth: vw});
  });
  const short = document.querySelector(".admonition.tip");
  const shortClipped = [];
  if (short) short.querySelectorAll("span.math, div.math").forEach((m) => {
    const hit = clipped.find((c) => c.el === name(m));
    if (hit) shortClipped.push(hit);
  });

  // tables: wider than their box is fine only inside a horizontal scroller that fits the viewport
  const tables = [];
  article.querySelectorAll("table").forEach((t) => {
    if (!visible(t)) return;
    const r = t.getBoundingClientRect(), s = inScroller(t, null);
    const ok = s ? s.getBoundingClientRect().right <= vw + 1 : r.right <= vw + 1;
    if (!ok) tables.push({el: name(t), width: Math.round(r.width)});
    // a cell squeezed to about one character per line
    t.querySelectorAll("td, th").forEach((c) => {
      const txt = (c.textContent || "").trim();
      if (txt.length >= 4 && c.getBoundingClientRect().width < 40)
        tables.push({el: name(c), width: Math.round(c.getBoundingClientRect().width), squeezed: true});
    });
  });

  // figures: every content image has a caption and alt text that is not a file name or path
  const figures = [];
  article.querySelectorAll("img").forEach((img) => {
    if (img.closest(".navbar-brand, .logo, .sd-card-header, .bd-header-article")) return;
    const alt = (img.getAttribute("alt") || "").trim();
    const fig = img.closest("figure");
    const caption = fig && fig.querySelector("figcaption");
    const capText = caption ? caption.textContent.trim() : "";
    // a path has no spaces: "../_images/ab12.png", "fig/x.png" (a sentence with "1/16" in it is not one)
    const pathy = !alt || (!/\\s/.test(alt) && /[\\/\\\\]/.test(alt)) || /\\.(png|jpe?g|svg|gif|webp)$/i.test(alt)
      || alt === img.getAttribute("src");
    const problems = [];
    if (pathy) problems.push(alt ? `alt text is a path (${alt.slice(0, 50)})` : "no alt text");
    if (!capText) problems.push("no caption");
    else if (!/^(Figure|Fig\\.)\\s*\\d+/.test(capText)) problems.push("caption has no figure number");
    if (problems.length) figures.push({src: (img.getAttribute("src") || "").split("/").pop(), problems});
  });

  // code blocks: one whose longest line fits the course's limit must not need scrolling
  const code = [];
  article.querySelectorAll("div.highlight pre").forEach((pre) => {
    if (!visible(pre)) return;
    const longest = Math.max(0, ...pre.textContent.replace(/\\n$/, "").split("\\n").map((l) => l.length));
    if (pre.scrollWidth > pre.clientWidth + 1)
      code.push({columns: longest, fitsLimit: longest <= codeColumns, width: pre.clientWidth,
                 needed: pre.scrollWidth, first: pre.textContent.trim().split("\\n")[0].slice(0, 50)});
  });

  return {viewport: vw, scrollWidth: root.scrollWidth, wide: outer.slice(0, 8), wideCount: outer.length,
          clipped, shortClipped, tables, figures, code};
}"""


@dataclass
class Layout:
    """What `layout` found on a page at one viewport width."""

    page: str
    width: int
    scroll_width: int = 0
    wide: list[dict[str, Any]] = field(default_factory=list)  # elements past the viewport's right edge
    clipped: list[dict[str, Any]] = field(default_factory=list)  # formulas cut by a box that hides overflow
    short_clipped: list[dict[str, Any]] = field(default_factory=list)  # ... inside the short-answer box
    tables: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    code: list[dict[str, Any]] = field(default_factory=list)  # code blocks that scroll at this width

    def problems(self) -> list[str]:
        """One line per failed check, naming the element and how wide it is."""
        out: list[str] = []
        where = f"{self.page} @ {self.width}px"
        if self.scroll_width > self.width:
            worst = ", ".join(f"{w['el']} ({w['width']} px, right edge {w['right']})" for w in self.wide[:3])
            out.append(
                f"{where}: page is {self.scroll_width} px wide (viewport {self.width}); widest: {worst}"
            )
        for c in self.short_clipped:
            out.append(
                f"{where}: formula clipped in the short-answer box: {c['el']} {c['width']} px in "
                f"{c['box']} {c['boxWidth']} px"
            )
        for c in self.clipped:
            if c not in self.short_clipped:
                out.append(
                    f"{where}: formula clipped: {c['el']} {c['width']} px in {c['box']} {c['boxWidth']} px"
                )
        for t in self.tables:
            what = (
                "table cell squeezed to one character per line"
                if t.get("squeezed")
                else "table wider than the screen"
            )
            out.append(f"{where}: {what}: {t['el']} ({t['width']} px)")
        for f in self.figures:
            out.append(f"{where}: figure {f['src']}: {'; '.join(f['problems'])}")
        for c in self.code:
            if c["fitsLimit"] and self.width >= 1000:  # on a phone, code may scroll in its box
                out.append(
                    f"{where}: a {c['columns']}-column code block scrolls ({c['needed']} px in {c['width']} px): "
                    f"{c['first']!r}"
                )
        return out


def layout(page: Any, name: str, width: int) -> Layout:
    """Run the layout checks on the loaded `page` at its current viewport `width`."""
    facts = page.evaluate(_LAYOUT, [CODE_COLUMNS, width])
    return Layout(
        page=name,
        width=width,
        scroll_width=facts["scrollWidth"],
        wide=facts["wide"],
        clipped=facts["clipped"],
        short_clipped=facts["shortClipped"],
        tables=facts["tables"],
        figures=facts["figures"],
        code=facts["code"],
    )


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour with channels 0-255."""

    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: tuple[float, float, float], bg: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio (1..21) of two opaque colours."""
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# The text colour of an element and the colour behind it: background colours of the element and its
# ancestors composited (alpha) from the page background up, so a translucent tint counts.
_COLOURS = """(el) => {
  const parse = (s) => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const layers = [];
  for (let a = el; a; a = a.parentElement) layers.push(parse(getComputedStyle(a).backgroundColor));
  let bg = [255, 255, 255];
  const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
  if (canvas[3] > 0) bg = canvas.slice(0, 3);
  for (const [r, g, b, al] of layers.reverse()) bg = [r * al + bg[0] * (1 - al), g * al + bg[1] * (1 - al), b * al + bg[2] * (1 - al)];
  const fg = parse(getComputedStyle(el).color);
  const col = [fg[0] * fg[3] + bg[0] * (1 - fg[3]), fg[1] * fg[3] + bg[1] * (1 - fg[3]), fg[2] * fg[3] + bg[2] * (1 - fg[3])];
  return {fg: col, bg: bg};
}"""


def colours(element: Any) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(text colour, effective background colour) of a Playwright element handle or locator."""
    found = element.evaluate(_COLOURS)
    return tuple(found["fg"]), tuple(found["bg"])
