"""The built site in a real browser (headless Chromium via Playwright), served on 127.0.0.1 only.

For every page in the table of contents: no console errors, no request to another host, every formula
typeset by the MathJax the site serves itself, every image loaded. On chapter 01 the English/中文 tabs
switch, a follow-up answer opens and a self-check question gives feedback; the search page finds "softmax".
A full-page screenshot of each chapter goes to test-output/screenshots/ (JPEG).

The first tests prove the checks can fail: each runs them on a deliberately broken page.
"""

from __future__ import annotations

import re
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from book_support import toc_pages  # noqa: E402  (tests/ is not a package)
from browser_support import (  # noqa: E402
    CHROMIUM_ARGS,
    PageReport,
    block_other_hosts,
    find_chromium,
    inspect_page,
    problems,
    serve,
    watch,
)

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-output" / "screenshots"
FLOW = "chapters/01_flow"

pytestmark = [pytest.mark.browser]


# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set SELFATTENTION_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as pw:
        # launch() gives every run a fresh, empty profile (a new temporary user-data dir).
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def context(browser: Any) -> Iterator[Any]:
    """One context for the module, so pages share the HTTP cache (MathJax is fetched and compiled once)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    block_other_hosts(ctx)
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def site(built_book: Any) -> Iterator[str]:
    with serve(built_book.html) as base:
        yield base


def open_page(context: Any, url: str, mathjax_ms: int = 15_000) -> tuple[Any, PageReport]:
    page = context.new_page()
    report = PageReport(url)
    watch(page, report)
    inspect_page(page, url, report, mathjax_ms=mathjax_ms)
    return page, report


# ------------------------------------------------------------- the checks fail on broken pages


def mathjax_dir() -> Path:
    """The MathJax the site serves (from the PyPI package), found the way the book build finds it."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import offline_site

    return offline_site.mathjax_source()


PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>t</title>{head}</head>
<body><main><p>A formula: <span class="math notranslate nohighlight">\\(\\sqrt{{d_k}}\\)</span>.</p>
{body}</main></body></html>"""
MATHJAX = '<script defer src="mathjax/tex-chtml.js"></script>'


def tiny_png() -> bytes:
    """A valid 1x1 PNG, so that the good page has a real image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\x20\x60\xc0")  # filter byte + one pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def scratch_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Pages that are fine except for one deliberate fault each."""
    folder = tmp_path_factory.mktemp("scratch_site")
    (folder / "mathjax").symlink_to(mathjax_dir(), target_is_directory=True)
    (folder / "dot.png").write_bytes(tiny_png())
    pages = {
        "good.html": PAGE.format(head=MATHJAX, body='<img src="dot.png" alt="dot">'),
        "external_img.html": PAGE.format(head=MATHJAX, body='<img src="https://example.com/x.png" alt="x">'),
        "external_script.html": PAGE.format(
            head=MATHJAX + '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>',
            body="",
        ),
        "broken_img.html": PAGE.format(head=MATHJAX, body='<img src="missing.png" alt="missing">'),
        "no_mathjax.html": PAGE.format(head="", body=""),
        "mathjax_404.html": PAGE.format(head='<script defer src="mathjax/missing.js"></script>', body=""),
        "raw_dollars.html": PAGE.format(head=MATHJAX, body="<p>Divide by $\\sqrt{d_k}$ here.</p>"),
        "js_error.html": PAGE.format(head=MATHJAX, body="<script>undefined_function();</script>"),
    }
    for name, html in pages.items():
        (folder / name).write_text(html, encoding="utf-8")
    with serve(folder) as base:
        yield base


def scratch_problems(context: Any, base: str, name: str) -> tuple[PageReport, list[str]]:
    page, report = open_page(context, base + name, mathjax_ms=3000)
    page.close()
    return report, problems(report)


def test_checks_pass_a_good_page(context, scratch_site):
    report, found = scratch_problems(context, scratch_site, "good.html")
    assert found == [], found
    assert report.mjx_containers == 1 and report.images == 1 and report.raw_tex == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("external_img.html", "requests to another host: ['https://example.com/x.png']"),
        ("external_script.html", "requests to another host: ['https://cdn.jsdelivr.net/"),
        ("broken_img.html", "broken images: ['missing.png']"),
        ("no_mathjax.html", "1 formula(s) not typeset"),
        ("mathjax_404.html", "MathJax: MathJax never started"),
        ("raw_dollars.html", "raw TeX in the visible text: ['$\\\\sqrt{d_k}$']"),
        ("js_error.html", "console errors: ['uncaught: "),
    ],
)
def test_checks_catch_a_broken_page(context, scratch_site, name, expected):
    _, found = scratch_problems(context, scratch_site, name)
    assert any(line.startswith(expected) for line in found), found


# ------------------------------------------------------------------------------ the real site


@pytest.mark.book
@pytest.mark.parametrize("name", toc_pages())
def test_page_is_clean_offline(context, site, name):
    page, report = open_page(context, f"{site}{name}.html")
    try:
        assert problems(report) == [], f"{name}: " + "; ".join(problems(report))
        assert all(u.startswith(site) or u.startswith(("data:", "blob:")) for u in report.requests)
        if report.math_elements:
            assert report.mjx_containers >= report.math_elements, name
        if name.startswith("chapters/"):
            assert report.mjx_containers > 0, f"{name} shows no typeset formula"
            SHOTS.mkdir(parents=True, exist_ok=True)
            # JPEG: a tall page encodes several times faster than PNG, and the picture is for a human
            shot = SHOTS / f"{Path(name).name}.jpg"
            page.screenshot(path=str(shot), full_page=True, type="jpeg", quality=70)
    finally:
        page.close()


@pytest.mark.book
def test_chapter_pages_are_light(built_book):
    """No chapter page, with its own images, over 2 MB (the shared theme and MathJax files are cached)."""
    chapters = sorted((built_book.html / "chapters").glob("*.html"))
    assert chapters, "no chapter pages built"
    for page in chapters:
        html = page.read_text(encoding="utf-8")
        images = set(re.findall(r'<img[^>]*\ssrc="([^"]+)"', html))
        remote = [s for s in images if s.startswith(("http:", "https:", "//"))]
        assert not remote, f"{page.name}: remote images {remote}"
        local = [(page.parent / s.split("?")[0]).resolve() for s in images if not s.startswith("data:")]
        assert all(p.is_file() for p in local), f"{page.name}: missing image file"
        weight = len(html.encode()) + sum(p.stat().st_size for p in local)
        assert weight < 2_000_000, f"{page.name} weighs {weight / 1e6:.2f} MB with its images"


def test_glossary_is_bilingual_and_complete():
    """glossary.md: at least 40 terms, each with a 中文 name; the core terms of the course are all there."""
    rows = [
        line.split("|")[1:-1]
        for line in (ROOT / "glossary.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and not line.startswith(("| English", "|---"))
    ]
    terms = {r[0].strip().lower(): r[1].strip() for r in rows}
    assert len(terms) >= 40, f"only {len(terms)} glossary terms"
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in zh) for zh in terms.values()), "a term has no 中文"
    text = " ".join(terms)
    needed_terms = (
        "attention",
        "query",
        "key",
        "value",
        "softmax",
        "temperature",
        "causal mask",
        "padding mask",
        "kv cache",
        "mqa",
        "gqa",
        "alibi",
        "rope",
        "flashattention",
        "online softmax",
    )
    for needed in needed_terms:
        assert needed in text, f"glossary lacks {needed!r}"


@pytest.mark.book
def test_bibliography_lists_every_entry(built_book):
    """bibliography.md renders every entry of references.bib, each with its first author's surname."""
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = re.findall(r"^@\w+\{([^,\s]+),(.*?)^\}", bib, flags=re.M | re.S)
    assert len(entries) >= 10, "references.bib looks truncated"
    html = (built_book.html / "bibliography.html").read_text(encoding="utf-8")
    assert html.count('role="doc-biblioentry"') == len(entries)
    for key, body in entries:
        author = re.search(r"author\s*=\s*\{(.+?)\}\s*,?\s*$", body, flags=re.M)
        first = author.group(1).split(" and ")[0].strip() if author else ""
        surname = first.split(",")[0].strip() if "," in first else first.split(" ")[-1]
        if re.fullmatch(r"[A-Za-z-]+", surname):
            assert surname in html, f"{key}: {surname} not on the bibliography page"


def check_launch_and_download_links(page: Any) -> None:
    """Colab/Binder launch links, a download of the notebook, the repository and edit-this-page links."""
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    assert any(
        h.startswith("https://colab.research.google.com/github/") and h.endswith("01_flow.ipynb")
        for h in hrefs
    ), "no Colab launch link"
    assert any(h.startswith("https://mybinder.org/v2/gh/") and "01_flow.ipynb" in h for h in hrefs), "Binder"
    assert any("/edit/main/chapters/01_flow.ipynb" in h for h in hrefs), "no edit-this-page link"
    assert any(h.rstrip("/").endswith("self-attention-executed/self-attention-executed") for h in hrefs)
    downloads = [h for h in hrefs if h.endswith("01_flow.ipynb") and not h.startswith("http")]
    assert downloads, "no download link for the notebook"
    response = page.request.get(page.url.rsplit("/", 1)[0] + "/" + downloads[0])
    assert response.ok and b'"cells"' in response.body(), "the notebook download is not the notebook"


@pytest.mark.book
def test_flow_chapter_is_interactive(context, site):
    page, report = open_page(context, f"{site}{FLOW}.html")
    try:
        assert report.images > 0, "chapter 01 shows no figure"
        check_launch_and_download_links(page)

        # English / 中文 tabs (sphinx-design): clicking 中文 shows the Chinese panel and hides the English one
        tab_set = page.locator(".sd-tab-set", has=page.locator("label", has_text="中文")).first
        assert tab_set.count() == 1, "no tab set with a 中文 tab on chapter 01"
        labels = tab_set.locator(":scope > label")
        panels = tab_set.locator(":scope > .sd-tab-content")
        zh = [i for i in range(labels.count()) if "中文" in labels.nth(i).inner_text()][0]
        en = [i for i in range(labels.count()) if "English" in labels.nth(i).inner_text()][0]
        assert panels.nth(en).is_visible() and not panels.nth(zh).is_visible()
        labels.nth(zh).click()
        assert panels.nth(zh).is_visible() and not panels.nth(en).is_visible()
        assert any("\u4e00" <= ch <= "\u9fff" for ch in panels.nth(zh).inner_text())

        # a follow-up answer in a dropdown opens
        dropdown = page.locator("details.sd-dropdown").first
        assert dropdown.count() == 1, "no dropdown on chapter 01"
        body = dropdown.locator(".sd-summary-content")
        assert not body.is_visible()
        dropdown.locator("summary").click()
        assert dropdown.evaluate("d => d.open") and body.is_visible()

        # a self-check question: a wrong answer, then the right one
        quiz = page.locator(".quiz").first
        assert quiz.count() == 1, "no self-check question on chapter 01"
        feedback = quiz.locator(".quiz-feedback")
        assert not feedback.is_visible()
        quiz.locator('.quiz-option[data-correct="false"]').first.click()
        assert feedback.is_visible() and feedback.inner_text().startswith("Not quite")
        assert "is-wrong" in quiz.locator(".quiz-option.is-chosen").get_attribute("class")
        assert quiz.locator(".quiz-explanation").evaluate("d => d.open")
        quiz.locator('.quiz-option[data-correct="true"]').click()
        assert feedback.inner_text().startswith("Correct")
        assert quiz.locator(".quiz-option.is-right").count() == 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        quiz.screenshot(path=str(SHOTS / "01_flow_quiz_answered.png"))
        assert problems(report) == [], problems(report)
    finally:
        page.close()


@pytest.mark.book
def test_search_finds_softmax(context, site):
    page = context.new_page()
    report = PageReport(f"{site}search.html?q=softmax")
    watch(page, report)
    try:
        page.goto(report.url, wait_until="load")
        hits = page.locator("#search-results ul.search li")
        hits.first.wait_for(timeout=15000)
        assert hits.count() > 0
        assert "softmax" in page.locator("#search-results").inner_text().lower()
        assert [u for u in report.requests if not u.startswith(site)] == []
        assert report.console_errors == []
    finally:
        page.close()


def test_find_chromium_honours_the_override(monkeypatch, tmp_path):
    """SELFATTENTION_CHROMIUM picks the browser; a missing one means None, so the tests skip, not fail."""
    monkeypatch.setenv("SELFATTENTION_CHROMIUM", str(tmp_path / "no-such-chromium"))
    assert find_chromium() is None
    fake = tmp_path / "chromium"
    fake.write_text("")
    monkeypatch.setenv("SELFATTENTION_CHROMIUM", str(fake))
    assert find_chromium() == str(fake)
