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
# Raw TeX that MathJax should have replaced: a control word, or $...$ / \( \) / \[ \] delimiters.
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\$[^$\s][^$]*\$|\\\(|\\\[")


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
    untypeset_math: list[str] = field(default_factory=list)  # math elements with no MathJax output in them
    mjx_containers: int = 0
    raw_tex: list[str] = field(default_factory=list)  # TeX left in the page's text outside code
    images: int = 0
    broken_images: list[str] = field(default_factory=list)
    mathjax_error: str | None = None

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
    if report.mathjax_error:
        out.append(f"MathJax: {report.mathjax_error}")
    if report.untypeset_math:
        out.append(f"{len(report.untypeset_math)} formula(s) not typeset, e.g. {report.untypeset_math[:3]}")
    if report.math_elements and report.mjx_containers == 0:
        out.append(f"{report.math_elements} math element(s) but no mjx-container: MathJax did not typeset")
    if report.raw_tex:
        out.append(f"raw TeX in the visible text: {report.raw_tex[:5]}")
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


_WAIT_MATHJAX = """async (ms) => {
  const t0 = Date.now();
  while (!(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)) {
    if (Date.now() - t0 > ms) return "MathJax never started (script missing or failed to load)";
    await new Promise(r => setTimeout(r, 50));
  }
  try { await window.MathJax.startup.promise; } catch (e) { return "typesetting failed: " + e; }
  return null;
}"""

_LOAD_IMAGES = """async (ms) => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = "eager"; });
  await Promise.race([
    Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = r; i.onerror = r; }))),
    new Promise(r => setTimeout(r, ms)),
  ]);
  return imgs.map(i => ({src: i.getAttribute("src"), ok: i.complete && i.naturalWidth > 0}));
}"""

_MATH = """() => {
  const maths = Array.from(document.querySelectorAll(".math"));
  const bad = maths.filter(m => !m.querySelector("mjx-container"))
                   .map(m => m.textContent.trim().slice(0, 60));
  const clone = (document.querySelector("main") || document.body).cloneNode(true);
  clone.querySelectorAll("pre, code, kbd, samp, script, style, textarea, .highlight, mjx-container")
       .forEach(e => e.remove());
  return {count: maths.length, bad: bad, mjx: document.querySelectorAll("mjx-container").length,
          text: clone.textContent};
}"""


def inspect_page(
    page: Any, url: str, report: PageReport | None = None, mathjax_ms: int = 15_000
) -> PageReport:
    """Load `url` in `page` (`watch`ed into `report` if given); gather every fact `problems` judges."""
    if report is None:
        report = PageReport(url)
        watch(page, report)
    page.goto(url, wait_until="load")
    has_mathjax_script = page.evaluate("() => !!document.querySelector('script[src*=\"mathjax\"]')")
    math = page.evaluate(_MATH)
    if has_mathjax_script:
        report.mathjax_error = page.evaluate(_WAIT_MATHJAX, mathjax_ms)
        math = page.evaluate(_MATH)
    elif math["count"]:
        report.mathjax_error = f"{math['count']} formula(s) on the page but no MathJax script"
    report.math_elements, report.untypeset_math = math["count"], math["bad"]
    report.mjx_containers = math["mjx"]
    report.raw_tex = sorted({m.group(0) for m in RAW_TEX.finditer(math["text"])})
    images = page.evaluate(_LOAD_IMAGES, 10000)
    report.images = len(images)
    report.broken_images = [i["src"] for i in images if not i["ok"]]
    return report
