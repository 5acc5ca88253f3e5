"""The built site in a real browser (headless Chromium via Playwright), served on 127.0.0.1 only.

For every page in the table of contents, on a phone (390 px, touch) and a desktop (1366 px):
- no console errors, no request to another host, images load; every formula is MathML written at build time
  (no math script, no raw TeX, no conversion error), and card-derived text shows no plain-text formula
  (``W_Q``, ``sqrt(d_k)``);
- the ☰ button opens the navigation (phone: the sidebar dialog shows its links; desktop: the sidebar is
  visible and the button collapses and restores it);
- nothing is wider than the screen (document.scrollWidth <= viewport width; else the innermost elements
  past the edge are named with their widths), no formula is clipped (in the short-answer box or anywhere),
  tables scroll inside their own box and no cell is squeezed to one character per line;
- every figure has a numbered caption ("Figure N") and alt text that is not a file path;
- at desktop width, a code block whose lines fit 88 columns does not scroll;
- no formula is a keyboard tab stop;
- a chapter page with everything it loads weighs at most 1.5 MB (files as served, uncompressed).
Each failure names the page, the width, the element and how wide it is. Screenshots: the first screen of
every page at both widths (PNG) in test-output/screenshots/{390,1366}/; the full page (JPEG) only of a page
that fails. test-output/site_report.json: per page and width, the bytes it loaded, where "How to say it"
starts (% of the page height) and the words of the English short answer.
One browser, one phone and one desktop context for the module (the HTTP cache is shared across pages).
On chapter 01: tabs, dropdowns, the quiz (mouse and arrow keys; feedback contrast >= 4.5:1 in light and dark
mode, computed from the rendered colours), launch/download/edit links. Search finds English and Chinese terms.

The first tests prove the checks can fail: each runs them on a deliberately broken page.
"""

from __future__ import annotations

import json
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
    DESKTOP,
    PHONE,
    PageReport,
    block_other_hosts,
    colours,
    contrast,
    find_chromium,
    inspect_page,
    layout,
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
def phone(browser: Any) -> Iterator[Any]:
    """A phone: 390 px wide, touch, mobile viewport (a page wider than 390 px really scrolls sideways)."""
    ctx = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2, service_workers="block"
    )
    block_other_hosts(ctx)
    ctx.set_default_timeout(10_000)  # a missing element fails in 10 s instead of hanging the suite
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def desktop(browser: Any) -> Iterator[Any]:
    """A desktop, 1366 px; the pages share its HTTP cache (theme CSS and scripts are fetched once)."""
    ctx = browser.new_context(viewport=DESKTOP, service_workers="block")
    block_other_hosts(ctx)
    ctx.set_default_timeout(10_000)  # a missing element fails in 10 s instead of hanging the suite
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def site(built_book: Any) -> Iterator[str]:
    with serve(built_book.html) as base:
        yield base


def open_page(context: Any, url: str, scheme: str | None = None) -> tuple[Any, PageReport]:
    page = context.new_page()
    if scheme:
        page.emulate_media(color_scheme=scheme)
    report = PageReport(url)
    watch(page, report)
    inspect_page(page, url, report)
    return page, report


# ------------------------------------------------------------- the checks fail on broken pages


PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>t</title>{head}</head>
<body><main><p>A formula: <span class="math notranslate nohighlight">{formula}</span>.</p>
{body}</main></body></html>"""
# sqrt(d_k) in MathML, written by hand (independent of the site's converter)
SQRT_DK = "<math><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>"


def scratch(head: str = "", body: str = "", formula: str = SQRT_DK) -> str:
    return PAGE.format(head=head, body=body, formula=formula)


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
    (folder / "dot.png").write_bytes(tiny_png())
    (folder / "mathjax").mkdir()
    (folder / "mathjax" / "tex-chtml.js").write_text("window.MathJax = {};", encoding="utf-8")
    pages = {
        "good.html": scratch(body='<img src="dot.png" alt="dot">'),
        "external_img.html": scratch(body='<img src="https://example.com/x.png" alt="x">'),
        "external_script.html": scratch(
            head='<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>'
        ),
        "broken_img.html": scratch(body='<img src="missing.png" alt="missing">'),
        "untypeset.html": scratch(formula="\\(\\sqrt{d_k}\\)"),
        "math_error.html": scratch(formula="<math><merror><mtext>unknown \\foo</mtext></merror></math>"),
        "math_script.html": scratch(head='<script defer src="mathjax/tex-chtml.js"></script>'),
        "raw_dollars.html": scratch(body="<p>Divide by $\\sqrt{d_k}$ here.</p>"),
        "plain_card_math.html": scratch(body='<div class="sa-card"><p>Divide W_Q W_K^T by sqrt(d_k).</p></div>'),
        "js_error.html": scratch(body="<script>undefined_function();</script>"),
    }
    for name, html in pages.items():
        (folder / name).write_text(html, encoding="utf-8")
    with serve(folder) as base:
        yield base


def scratch_problems(context: Any, base: str, name: str) -> tuple[PageReport, list[str]]:
    page, report = open_page(context, base + name)
    page.close()
    return report, problems(report)


def test_checks_pass_a_good_page(desktop, scratch_site):
    report, found = scratch_problems(desktop, scratch_site, "good.html")
    assert found == [], found
    assert report.typeset == 1 and report.images == 1 and report.raw_tex == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("external_img.html", "requests to another host: ['https://example.com/x.png']"),
        ("external_script.html", "requests to another host: ['https://cdn.jsdelivr.net/"),
        ("broken_img.html", "broken images: ['missing.png']"),
        ("untypeset.html", "1 formula(s) not typeset"),
        ("math_error.html", "1 formula(s) with a conversion error"),
        ("math_script.html", "a math script is loaded"),
        ("raw_dollars.html", "raw TeX in the visible text: ['$\\\\sqrt{d_k}$']"),
        ("plain_card_math.html", "plain-text formula in card text: ['W_K^T', 'W_Q', 'd_k', 'sqrt(']"),
        ("js_error.html", "console errors: ['uncaught: "),
    ],
)
def test_checks_catch_a_broken_page(desktop, scratch_site, name, expected):
    _, found = scratch_problems(desktop, scratch_site, name)
    assert any(line.startswith(expected) for line in found), found


# ------------------------------------------------------------------------------ the real site


# ------------------------------------------------- the reading checks fail on broken pages (390 px)

LAYOUT_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>t</title>
<style>body {{ margin: 0; font: 16px sans-serif; }} main {{ padding: 0 16px; }}
.admonition {{ overflow: hidden; border: 1px solid #888; }} pre {{ overflow-x: auto; }}</style></head>
<body><main><p>Fine text.</p>{body}</main></body></html>"""
# a formula far wider than a phone's column (MathML by hand: Attention(Q,K,V) = softmax(QK^T/sqrt(d_k) + M + B)V)
FORMULA = (
    '<span class="math"><math><mi>Attention</mi><mo>(</mo><mi>Q</mi><mo>,</mo><mi>K</mi><mo>,</mo><mi>V</mi>'
    "<mo>)</mo><mo>=</mo><mi>softmax</mi><mrow><mo>(</mo><mfrac><mrow><mi>Q</mi><msup><mi>K</mi><mo>⊤</mo>"
    "</msup></mrow><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></mfrac><mo>+</mo><msub><mi>M</mi>"
    "<mtext>causal</mtext></msub><mo>+</mo><msub><mi>B</mi><mtext>ALiBi</mtext></msub><mo>+</mo><msub><mi>B</mi>"
    "<mtext>another long bias term</mtext></msub><mo>)</mo></mrow><mi>V</mi></math></span>"
)
GOOD_FIGURE = (
    '<figure><img src="dot.png" alt="A dot on a white square" width="100">'
    "<figcaption><p>Figure 1: a dot.</p></figcaption></figure>"
)
LAYOUT_CASES = {
    "layout_good.html": (
        GOOD_FIGURE
        + '<div class="admonition tip"><p>Short: ok.</p></div>'
        + '<div class="pst-scrollable-table-container" style="overflow-x:auto"><table><tr>'
        + "".join(f"<td style='min-width:8em'>column {i}</td>" for i in range(8))
        + "</tr></table></div><div class='highlight'><pre>x = 1</pre></div>",
        None,
    ),
    "layout_wide.html": (
        '<div style="width:431px;background:#eee">a 431 px box</div>',
        'page is 448 px wide (viewport 390); widest: div "a 431 px box" (431 px',
    ),
    "layout_clipped.html": (
        f'<div class="admonition tip"><p>{FORMULA}</p></div>',
        "formula clipped in the short-answer box",
    ),
    "layout_math_start.html": (  # the theme's flex row-reverse: a wide formula's start is out of reach
        '<div class="math" style="display:flex;flex-direction:row-reverse;overflow-x:auto">'
        '<math display="block" style="flex:none;width:700px"><mi>x</mi><mo>=</mo><mn>1</mn></math></div>',
        "in its own scroll box, start out of reach",
    ),
    "layout_table.html": (
        "<table><tr>"
        + "".join(f"<td style='min-width:8em'>column {i}</td>" for i in range(8))
        + "</tr></table>",
        "table wider than the screen",
    ),
    "layout_squeezed.html": (
        '<div style="overflow-x:auto"><table style="width:100%"><tr>'
        + "<td style='width:99%'>"
        + "long " * 60
        + "</td><td>注意力机制</td></tr></table></div>",
        "table cell squeezed to one character per line",
    ),
    "layout_alt.html": (
        '<figure><img src="dot.png" alt="../_images/abc123.png"><figcaption><p>Figure 2: x</p></figcaption></figure>',
        "figure dot.png: alt text is a path",
    ),
    "layout_caption.html": ('<img src="dot.png" alt="A dot">', "figure dot.png: no caption"),
    "layout_code.html": (
        '<div class="highlight" style="width:200px"><pre>' + "y" * 60 + "</pre></div>",
        "a 60-column code block scrolls",
    ),
}


@pytest.fixture(scope="module")
def layout_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("layout_site")
    (folder / "dot.png").write_bytes(tiny_png())
    for name, (body, _) in LAYOUT_CASES.items():
        (folder / name).write_text(LAYOUT_PAGE.format(body=body), encoding="utf-8")
    with serve(folder) as base:
        yield base


@pytest.mark.parametrize("name", list(LAYOUT_CASES))
def test_layout_checks_catch_a_broken_page(phone, layout_site, name):
    page, report = open_page(phone, layout_site + name)
    try:
        width = DESKTOP["width"] if name == "layout_code.html" else PHONE["width"]  # a desktop-only check
        found = layout(page, name, width).problems()
    finally:
        page.close()
    expected = LAYOUT_CASES[name][1]
    assert problems(report) == [], problems(report)
    if expected is None:
        assert found == [], found
    else:
        assert any(expected in line for line in found), found


def test_contrast_is_the_wcag_ratio():
    """Known WCAG values: black on white 21:1, #767676 on white just passes 4.5:1, #777 just fails."""
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)
    assert contrast((119, 119, 119), (255, 255, 255)) < 4.5
    assert contrast((255, 255, 255), (118, 118, 118)) == contrast((118, 118, 118), (255, 255, 255))


# ------------------------------------------------------------------------------ the real site

# bytes: a chapter page with everything it loads (uncompressed, as served): issue 12's target. Formulas are
# MathML (no MathJax), the theme CSS is purged, the icon fonts cut, the figures palette-encoded (_ext/).
CHAPTER_BUDGET = 1_500_000
REPORT = ROOT / "test-output" / "site_report.json"

_RESOURCES = "() => [location.href, ...performance.getEntriesByType('resource').map(e => e.name)]"

_TAB_STOPS = """() => Array.from(document.querySelectorAll('.math, .math *'))
  .filter(e => e.tabIndex >= 0 && e.hasAttribute('tabindex')).length"""


def page_weight(page: Any, html_dir: Path, site: str) -> tuple[int, list[tuple[str, int]]]:
    """Bytes of the page and every file it loaded (resource timing entries), sized on disk."""
    from urllib.parse import unquote, urlparse

    sizes: dict[str, int] = {}
    for url in page.evaluate(_RESOURCES):
        path = html_dir / unquote(urlparse(url).path).lstrip("/")
        if url.startswith(site) and path.is_file():
            sizes[path.relative_to(html_dir).as_posix()] = path.stat().st_size
    return sum(sizes.values()), sorted(sizes.items(), key=lambda kv: -kv[1])


def open_navigation(page: Any, width: int) -> list[str]:
    """Use the ☰ button as a reader would; return what went wrong (empty: the navigation works)."""
    toggle = page.locator(".bd-header-article .primary-toggle")
    if toggle.count() != 1 or not toggle.is_visible():
        return [f"@ {width}px: no visible ☰ (primary sidebar toggle) in the article header"]
    if width < 992:
        toggle.tap()
        dialog = page.locator("#pst-primary-sidebar-modal")
        try:
            page.wait_for_function(
                "() => document.querySelector('#pst-primary-sidebar-modal')?.open", timeout=3000
            )
        except Exception:
            return [f"@ {width}px: tapping ☰ did not open the navigation"]
        links = dialog.locator("nav a.reference")
        shown = [i for i in range(links.count()) if links.nth(i).is_visible()]
        box = dialog.bounding_box()
        page.keyboard.press("Escape")
        if len(shown) < 5:
            return [f"@ {width}px: the navigation opened but shows {len(shown)} links"]
        if box is None or box["x"] < -1 or box["x"] + box["width"] > width + 1:
            return [f"@ {width}px: the navigation dialog is off-screen ({box})"]
        return []
    sidebar = page.locator("#pst-primary-sidebar")
    if not sidebar.is_visible():
        return [f"@ {width}px: the primary sidebar is not visible at desktop width"]
    def settled(state: str) -> bool:  # the theme animates the sidebar: wait for it, up to 3 s
        try:
            sidebar.wait_for(state=state, timeout=3000)
            return True
        except Exception:
            return state == "hidden" and "pst-sidebar-hidden" in (sidebar.get_attribute("class") or "")

    toggle.click()
    hidden = settled("hidden")
    toggle.click()
    if not hidden:
        return [f"@ {width}px: clicking ☰ did not collapse the sidebar"]
    if not settled("visible"):
        return [f"@ {width}px: clicking ☰ twice did not bring the sidebar back"]
    return []


def shoot(page: Any, name: str, width: int, full: bool = False) -> Path:
    """The first screen (what a reader sees first) as PNG; with `full`, the whole page as JPEG."""
    folder = SHOTS / str(width)
    folder.mkdir(parents=True, exist_ok=True)
    stem = name.replace("/", "_")
    if full:  # JPEG: a tall page encodes several times faster than PNG, and the picture is for a human
        path = folder / f"{stem}_full.jpg"
        page.screenshot(path=str(path), full_page=True, type="jpeg", quality=60, timeout=60_000)
    else:
        path = folder / f"{stem}.png"
        page.screenshot(path=str(path), timeout=60_000)
    return path


# Where "How to say it in the interview" starts (% of the page height) and the words of the English short
# answer (the first tip box: its paragraphs without 中文; a formula counts as one word).
_READER_FACTS = """() => {
  const height = document.documentElement.scrollHeight;
  const h = Array.from(document.querySelectorAll("main h2")).find(e => /^How to say it/.test(e.textContent.trim()));
  const box = document.querySelector("main .admonition.tip");
  let words = null;
  if (box) {
    const paras = Array.from(box.querySelectorAll("p:not(.admonition-title)"))
      .filter(p => !/[\u4e00-\u9fff]/.test(p.textContent));
    words = paras.map(p => { const c = p.cloneNode(true); c.querySelectorAll("math").forEach(m => m.replaceWith(" F "));
      return c.textContent.split(/\\s+/).filter(w => /[A-Za-z0-9]/.test(w)).length; }).reduce((a, b) => a + b, 0);
  }
  return {how_to_say_it_pct: h ? Math.round(1000 * (h.getBoundingClientRect().top + window.scrollY) / height) / 10 : null,
          short_answer_words: words, page_height: height};
}"""


@pytest.fixture(scope="module")
def site_report() -> Iterator[dict[str, Any]]:
    """Per page and width: bytes loaded, "How to say it" position, short-answer words; written at the end."""
    facts: dict[str, Any] = {}
    yield facts
    if facts:
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        ordered = {name: facts[name] for name in sorted(facts)}
        REPORT.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.book
@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]], ids=["phone390", "desktop1366"])
@pytest.mark.parametrize("name", toc_pages())
def test_page_reads_well(phone, desktop, site, built_book, site_report, name, width):
    context = phone if width == PHONE["width"] else desktop
    page, report = open_page(context, f"{site}{name}.html")
    try:
        found = [f"{name} {line}" for line in problems(report)]
        if name.startswith("chapters/") and report.typeset == 0:
            found.append(f"{name} shows no typeset formula")
        page.evaluate("() => document.fonts.ready.then(() => null)")  # widths settle once the fonts are in
        found += layout(page, name, width).problems()
        stops = page.evaluate(_TAB_STOPS)
        if stops:
            found.append(f"{name} @ {width}px: {stops} formula element(s) are keyboard tab stops")
        weight, files = page_weight(page, built_book.html, site)
        facts = site_report.setdefault(name, {})
        facts[str(width)] = {"bytes": weight, **page.evaluate(_READER_FACTS)}
        if width == DESKTOP["width"] and name.startswith("chapters/") and weight > CHAPTER_BUDGET:
            top = ", ".join(f"{f} {b // 1000} KB" for f, b in files[:4])
            found.append(
                f"{name}: {weight / 1e6:.2f} MB with everything it loads "
                f"(budget {CHAPTER_BUDGET / 1e6:.1f} MB): {top}"
            )
        page.evaluate("window.scrollTo(0, 0)")
        shoot(page, name, width)
        found += [f"{name} {line}" for line in open_navigation(page, width)]
        if found:
            shoot(page, name, width, full=True)
        assert not found, f"{len(found)} problem(s):\n" + "\n".join(found)
    finally:
        page.close()


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


def repository_url() -> str:
    """The one repository setting (_config.yml repository.url)."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"].rstrip("/")


def check_launch_and_download_links(page: Any) -> None:
    """Colab/Binder launch links built from _config.yml's repository, a download of the notebook, the
    repository link and "Suggest edit", which opens the notebook in github.dev (a notebook editor), not JSON."""
    import yaml

    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    repo, branch = repository_url(), config.get("branch", "main")
    slug = repo.removeprefix("https://github.com/")
    assert slug != repo and slug.count("/") == 1, f"repository url {repo} is not a GitHub repository"
    notebook = "chapters/01_flow.ipynb"
    colab = f"https://colab.research.google.com/github/{slug}/blob/{branch}/{notebook}"
    assert colab in hrefs, f"no Colab link {colab} (found {[h for h in hrefs if 'colab' in h]})"
    binder = f"https://mybinder.org/v2/gh/{slug}/{branch}?"
    assert any(h.startswith(binder) and h.endswith(notebook) for h in hrefs), f"no Binder link {binder}..."
    assert not any("/edit/" in h and h.endswith(".ipynb") for h in hrefs), "edit link to raw notebook JSON"
    edit = f"https://github.dev/{slug}/blob/{branch}/{notebook}"
    assert edit in hrefs, f"no 'Suggest edit' link to {edit}"
    assert any(h.rstrip("/") == repo for h in hrefs), f"no link to the repository {repo}"
    downloads = [h for h in hrefs if h.endswith("01_flow.ipynb") and not h.startswith("http")]
    assert downloads, "no download link for the notebook"
    response = page.request.get(page.url.rsplit("/", 1)[0] + "/" + downloads[0])
    assert response.ok and b'"cells"' in response.body(), "the notebook download is not the notebook"


@pytest.mark.book
def test_flow_chapter_is_interactive(desktop, site):
    page, report = open_page(desktop, f"{site}{FLOW}.html")
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


def accessible_name(locator: Any) -> str:
    """The text a screen reader announces for an element: its text minus aria-hidden parts."""
    return locator.evaluate(
        """e => { const c = e.cloneNode(true); c.querySelectorAll('[aria-hidden="true"]').forEach(x => x.remove());
                  return c.textContent.replace(/\\s+/g, ' ').trim(); }"""
    )


@pytest.mark.book
def test_quiz_works_from_the_keyboard(desktop, site):
    """Tab reaches the first option early (formulas are no tab stops); arrow keys move between options and
    answer; the option's letter is announced, so "you chose B" can be followed."""
    page, report = open_page(desktop, f"{site}{FLOW}.html")
    try:
        quiz = page.locator(".quiz").first
        radios = quiz.locator("input[type=radio]")
        assert radios.count() >= 3, "quiz options are not native radio buttons"
        first = radios.first
        stops_before = page.evaluate(
            """(target) => { const all = Array.from(document.querySelectorAll(
                 'a[href], button, input, select, textarea, summary, [tabindex]'))
                 .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility());
               return all.indexOf(target); }""",
            first.element_handle(),
        )
        assert 0 <= stops_before < 200, f"the first quiz option is tab stop {stops_before}"
        first.focus()
        page.keyboard.press("ArrowDown")
        chosen = quiz.locator(".quiz-option.is-chosen")
        assert chosen.count() == 1, "ArrowDown did not move to (and choose) the next option"
        letter = chosen.get_attribute("data-letter")
        assert letter == "B", letter
        assert accessible_name(chosen).startswith("B"), "the option letter is hidden from screen readers"
        text = quiz.locator(".quiz-feedback").inner_text()
        assert "B" in text, text
        page.keyboard.press("ArrowUp")
        assert quiz.locator(".quiz-option.is-chosen").get_attribute("data-letter") == "A"
        assert problems(report) == [], problems(report)
    finally:
        page.close()


@pytest.mark.book
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_quiz_feedback_contrast(desktop, site, scheme):
    """Feedback text ("Correct", "Not quite") and option text: WCAG contrast >= 4.5:1 from the computed
    colours, in the light and the dark theme (the theme follows the system's colour scheme, emulated)."""
    page, report = open_page(desktop, f"{site}{FLOW}.html", scheme=scheme)
    try:
        assert page.evaluate("document.documentElement.dataset.theme") == scheme
        quiz = page.locator(".quiz").first
        measured = {}
        for which in ("false", "true"):
            quiz.locator(f'.quiz-option[data-correct="{which}"]').first.click()
            fg, bg = colours(quiz.locator(".quiz-feedback"))
            measured[f"feedback after a {'right' if which == 'true' else 'wrong'} answer"] = contrast(fg, bg)
            fg, bg = colours(quiz.locator(".quiz-option.is-chosen .quiz-text"))
            measured[f"chosen option text ({which})"] = contrast(fg, bg)
        quiz.screenshot(path=str(SHOTS / f"01_flow_quiz_{scheme}.png"))
        low = {k: round(v, 2) for k, v in measured.items() if v < 4.5}
        assert not low, f"{scheme} mode: contrast below 4.5:1: {low}"
    finally:
        page.close()


# Terms a reader looks up, in both languages. A page "has" a term when its visible article text contains it
# (computed here from the built HTML, independently of the search index).
SEARCH_TERMS = ["温度", "掩码", "缩放", "softmax", "KV cache", "ALiBi"]


def pages_with(built_book: Any, term: str) -> set[str]:
    from html import unescape

    found = set()
    for name in toc_pages():
        raw = (built_book.html / f"{name}.html").read_text(encoding="utf-8")
        body = raw.split('<main id="main-content"', 1)[-1]
        body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
        text = unescape(re.sub(r"<[^>]+>", " ", body))
        if term.lower() in " ".join(text.split()).lower():
            found.add(name)
    return found


_SEARCH_DONE = """() => {
  const summary = document.querySelector('#search-results p.search-summary');
  if (!summary || !/found|did not match/i.test(summary.textContent)) return false;
  const items = document.querySelectorAll('#search-results ul.search li');
  // every result's snippet is fetched from its page; wait until each item has one (or 5 s pass)
  return Array.from(items).every(li => li.querySelector('p.context'));
}"""
_SEARCHES: dict[str, tuple[set[str], list[str], PageReport]] = {}


def _search(context, site, term):
    """Run the site's search for `term` once: (pages found, result snippets, the page's report)."""
    if term in _SEARCHES:
        return _SEARCHES[term]
    page = context.new_page()
    report = PageReport(f"{site}search.html?q={term}")
    watch(page, report)
    try:
        page.goto(report.url, wait_until="load")
        page.wait_for_function(
            "() => /found|did not match/i.test(document.querySelector('#search-results p.search-summary')"
            "?.textContent || '')",
            timeout=20000,
        )
        try:
            page.wait_for_function(_SEARCH_DONE, timeout=5000)
        except Exception:
            pass  # a page without a snippet: the snippets that came are still checked
        links = page.eval_on_selector_all(
            "#search-results ul.search li > a", "els => els.map(e => e.getAttribute('href'))"
        )
        found = {re.sub(r"\.html.*$", "", h).lstrip("./") for h in links}
        snippets = page.locator("#search-results p.context").all_inner_texts()
    finally:
        page.close()
    _SEARCHES[term] = (found, snippets, report)
    return _SEARCHES[term]


@pytest.mark.book
@pytest.mark.parametrize("term", SEARCH_TERMS)
def test_search_finds_every_page_with_the_term(desktop, site, built_book, term):
    expected = pages_with(built_book, term)
    assert expected, f"no page contains {term!r}: the test has nothing to check"
    found, _, report = _search(desktop, site, term)
    missing = sorted(expected - found)
    assert not missing, f"search for {term!r} misses {missing} (found {sorted(found)})"
    assert [u for u in report.requests if not u.startswith(site)] == []
    assert report.console_errors == []


SNIPPET_TEX = re.compile(r"\\[A-Za-z]{2,}|\\\(|\$[^$\s]")


@pytest.mark.book
@pytest.mark.parametrize("term", ["温度", "softmax", "缩放"])
def test_search_snippets_show_no_raw_tex(desktop, site, built_book, term):
    """Formulas are MathML in the pages, so the snippets Sphinx cuts from them carry no TeX source."""
    _, snippets, _ = _search(desktop, site, term)
    assert snippets, f"the search for {term!r} shows no snippets: nothing to check"
    raw = [t[:80] for t in snippets if SNIPPET_TEX.search(t)]
    assert not raw, f"search snippets show raw TeX: {raw[:3]}"


def test_find_chromium_honours_the_override(monkeypatch, tmp_path):
    """SELFATTENTION_CHROMIUM picks the browser; a missing one means None, so the tests skip, not fail."""
    monkeypatch.setenv("SELFATTENTION_CHROMIUM", str(tmp_path / "no-such-chromium"))
    assert find_chromium() is None
    fake = tmp_path / "chromium"
    fake.write_text("")
    monkeypatch.setenv("SELFATTENTION_CHROMIUM", str(fake))
    assert find_chromium() == str(fake)


# --- the build-time pieces the light pages rest on (no browser needed) ------------------------------------


def _ext_module(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "_ext"))
    import importlib

    return importlib.import_module(name)


def test_tex_becomes_mathml_and_a_leftover_command_is_an_error():
    mathml = _ext_module("mathml")
    out = mathml.tex_to_mathml(r"\operatorname{softmax}(QK^\top/\sqrt{d_k})")
    assert out.startswith('<math display="inline">') and "xmlns" not in out
    assert "<mi>softmax</mi>" in out and "<msqrt>" in out and "⊤" in out  # entities written as characters
    assert mathml.tex_to_mathml("x", display=True).startswith('<math display="block">')
    with pytest.raises(mathml.MathMLError, match="left TeX"):
        mathml.tex_to_mathml(r"\notacommand{x}")
    with pytest.raises(mathml.MathMLError):
        mathml.tex_to_mathml("  ")


def test_css_purge_keeps_what_can_match_and_drops_the_rest():
    lighten = _ext_module("lighten")
    known = {"bd-sidebar", "show", "admonition", "tip"}
    css = (
        ".bd-sidebar{color:red}.unused-x{color:blue}.admonition.tip,.ghost{margin:0}"
        "a:not(.ghost){x:1}@media (max-width:9px){.unused-y{a:b}.show{a:c}}"
        ".bs-tooltip-auto{z:1}:root{--v:1}@font-face{font-family:F;src:url(f.woff)}"
        "@keyframes k{from{a:0}to{a:1}}"
    )
    out = lighten.purge_css(css, known)
    assert ".bd-sidebar{" in out and ".admonition.tip{" in out and ".ghost" not in out.replace(":not(.ghost)", "")
    assert "unused" not in out and "@media (max-width:9px){.show{" in out
    assert "a:not(.ghost)" in out and ".bs-tooltip-auto" in out and ":root{--v:1}" in out
    assert "@font-face" in out and "@keyframes k" in out


def test_palette_encoding_keeps_a_figure_only_when_no_pixel_changes_visibly(tmp_path):
    from PIL import Image

    lighten = _ext_module("lighten")
    import random

    rng = random.Random(0)
    colours = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(200)]
    few = Image.new("RGB", (128, 128))
    few.putdata([colours[rng.randrange(200)] for _ in range(128 * 128)])  # 200 colours: a palette is exact
    few.putpixel((5, 32), (31, 119, 180))
    few.save(tmp_path / "lines.png")
    before, after = lighten.quantize_png(tmp_path / "lines.png")
    assert after < before and Image.open(tmp_path / "lines.png").mode == "P"
    assert Image.open(tmp_path / "lines.png").convert("RGB").getpixel((5, 32)) == (31, 119, 180)
    # ~65000 colours (a palette would be smaller, but it moves pixels visibly) -> left alone
    many = Image.new("RGB", (256, 256))
    many.putdata([(x, y, (x * y) % 256) for y in range(256) for x in range(256)])
    many.save(tmp_path / "gradient.png")
    size = (tmp_path / "gradient.png").stat().st_size
    assert lighten.quantize_png(tmp_path / "gradient.png") == (size, size)
    assert Image.open(tmp_path / "gradient.png").mode == "RGB"
