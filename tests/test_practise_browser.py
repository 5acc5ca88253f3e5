"""The practise page in a real browser (headless Chromium via Playwright), served on 127.0.0.1 only.

At 390 px (phone, touch) and 1366 px: rate three cards, reload: the queue and every rating button's due date
are what py-fsrs makes of the stored log; 中文; a chapter filter; export -> `attention-rehearse import` ->
the terminal holds the page's due dates; `export-log` -> the page imports it; storage unavailable -> the
message, and the page still works; no console error, no request off 127.0.0.1, no horizontal scroll,
buttons at least 44 px, contrast >= 4.5:1 in both themes. The clock is pinned (Playwright's fixed time) so
the schedule is reproducible. Screenshots: test-output/screenshots/practise/.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import (  # noqa: E402
    DESKTOP,
    PHONE,
    PageReport,
    block_other_hosts,
    colours,
    contrast,
    layout,
    problems,
    serve,
    watch,
)

from selfattention.interview import weblog  # noqa: E402
from selfattention.interview.bank import load_cards  # noqa: E402
from selfattention.interview.cli import main  # noqa: E402
from selfattention.interview.store import Store  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-output" / "screenshots" / "practise"
NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
PAGE_BUDGET = 1_500_000

pytestmark = [pytest.mark.browser, pytest.mark.book]




@pytest.fixture(scope="module")
def site(built_book: Any) -> Iterator[str]:
    with serve(built_book.html) as base:
        yield base


def context(browser: Any, width: int, scheme: str = "light", no_storage: bool = False) -> Any:
    phone = width == PHONE["width"]
    ctx = browser.new_context(
        viewport=PHONE if phone else DESKTOP, is_mobile=phone, has_touch=phone, color_scheme=scheme,
        service_workers="block", accept_downloads=True,
    )
    block_other_hosts(ctx)
    ctx.set_default_timeout(10_000)
    if no_storage:  # what private modes and blocked storage do: any use of localStorage throws
        ctx.add_init_script(
            "Object.defineProperty(window, 'localStorage', {get() {"
            " throw new DOMException('The operation is insecure.', 'SecurityError'); }});"
        )
    return ctx


def open_practise(ctx: Any, url: str, when: datetime | None = NOW, on_error: Any = None
                  ) -> tuple[Any, PageReport]:
    page = ctx.new_page()
    if on_error is not None:
        page.on("pageerror", on_error)
    if when is not None:  # (a fixed clock also stops the resource timing entries the weight is read from)
        page.clock.set_fixed_time(when)
    report = PageReport(url)
    watch(page, report)
    page.goto(url, wait_until="load")
    page.wait_for_selector("#sa-practise[data-ready=true]")
    return page, report


def stored_log(page: Any) -> list[dict[str, Any]]:
    return page.evaluate("() => window.saPractise.state().reviews")


def expected(reviews: list[dict[str, Any]], now: datetime, chapter: str = "", new_per_day: int = 10,
             ) -> tuple[list[str], dict[str, Any]]:
    """The queue py-fsrs gives (due cards by due date, then unseen cards in bank order up to the day's new
    limit), and the states."""
    cards = load_cards()
    states = weblog.replay([(r["card"], r["rating"], weblog.parse_iso(r["at"])) for r in reviews])
    sel = [c for c in cards if not chapter or c.chapter == chapter]
    order = {c.id: i for i, c in enumerate(cards)}
    due = sorted((c.id for c in sel if c.id in states and states[c.id].card.due <= now),
                 key=lambda cid: (states[cid].card.due, order[cid]))
    local = now.astimezone()
    start = local.replace(hour=4, minute=0, second=0, microsecond=0)
    if local < start:
        start -= timedelta(days=1)
    firsts: dict[str, datetime] = {}
    for r in sorted(reviews, key=lambda r: r["at"]):
        firsts.setdefault(r["card"], weblog.parse_iso(r["at"]))
    new_today = sum(start <= d < start + timedelta(days=1) for d in firsts.values())
    unseen = [c.id for c in sel if c.id not in states][: max(0, new_per_day - new_today)]
    return due + unseen, states


def buttons_due(page: Any) -> dict[int, datetime]:
    return {r: weblog.parse_iso(page.get_attribute(f'.sa-pr-rate-btn[data-rating="{r}"]', "data-due"))
            for r in (1, 2, 3, 4)}


def scheduler_due(states: dict[str, Any], card_id: str, now: datetime) -> dict[int, datetime]:
    import fsrs

    from selfattention.interview.store import fsrs_card_id

    sched = weblog.scheduler()
    card = states[card_id].card if card_id in states else fsrs.Card(card_id=fsrs_card_id(card_id), due=now)
    return {r: sched.review_card(card, fsrs.Rating(r), review_datetime=now)[0].due for r in (1, 2, 3, 4)}


def same_minute(page_due: dict[int, datetime], py_due: dict[int, datetime]) -> bool:
    """Due dates agree to the minute (ts-fsrs schedules whole minutes: py-fsrs's 5.5 min 'hard' step is 6)."""
    return page_due.keys() == py_due.keys() and all(
        abs((page_due[r] - py_due[r]).total_seconds()) < 60 for r in page_due)


def same_dues(a: dict[str, str], b: dict[str, str]) -> bool:
    return a.keys() == b.keys() and all(
        abs((weblog.parse_iso(a[k]) - weblog.parse_iso(b[k])).total_seconds()) < 60 for k in a)


def check_clean(page: Any, report: PageReport, width: int) -> list[str]:
    found = problems(report)
    found += layout(page, "practise", width).problems()
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll('#sa-practise button, #sa-practise select,'
             + ' #sa-practise input[type=number], #sa-practise .sa-pr-file'))
             .filter(e => e.checkVisibility()).map(e => [e.id || e.className, e.getBoundingClientRect()])
             .filter(([n, r]) => r.height < 43.5 || r.width < 43.5)
             .map(([n, r]) => `${n} ${r.width}x${r.height}`)"""
    )
    found += [f"control smaller than 44 px: {s}" for s in small]
    return found


@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]], ids=["phone390", "desktop1366"])
def test_rate_three_cards_reload_and_the_schedule_holds(browser, site, built_book, width, tmp_path):
    ctx = context(browser, width)
    try:
        page, report = open_practise(ctx, f"{site}practise.html")
        queue, states = expected([], NOW)
        assert page.get_attribute("#sa-practise", "data-queue").split() == queue
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"question_{width}.png"))
        first = page.get_attribute("#sa-practise", "data-card")
        assert same_minute(buttons_due(page), scheduler_due(states, first, NOW))
        # reveal with the keyboard (Space, then →) on the desktop, with taps on the phone
        if width == PHONE["width"]:
            page.tap("#sa-pr-show")
            page.tap("#sa-pr-show")
        else:
            page.keyboard.press("Space")
            page.keyboard.press("ArrowRight")
        assert page.locator(".sa-pr-block-spoken").is_visible()
        page.screenshot(path=str(SHOTS / f"reveal_{width}.png"), full_page=True)
        for rating in (3, 1, 4):  # Good, Again, Easy on three cards
            if page.locator(".sa-pr-block-short").count() == 0:
                page.click("#sa-pr-show")
            if width == PHONE["width"]:
                page.tap(f'.sa-pr-rate-btn[data-rating="{rating}"]')
            else:
                page.keyboard.press(str(rating))
        reviews = stored_log(page)
        assert [r["rating"] for r in reviews] == [3, 1, 4] and len({r["card"] for r in reviews}) == 3
        assert "reviews 3" in page.inner_text("#sa-pr-summary")
        # the page sets the live region 30 ms after clearing it (so a screen reader re-announces): wait for it
        page.wait_for_function(
            "document.getElementById('sa-pr-live').textContent.startsWith('Rated Easy')", timeout=5000
        )
        live = page.inner_text("#sa-pr-live")
        assert live.startswith("Rated Easy"), live
        # reload a day later: the rated cards come back as the scheduler says, buttons show its intervals
        later = NOW + timedelta(days=1, hours=1)
        page.close()
        page, report2 = open_practise(ctx, f"{site}practise.html", later)
        assert stored_log(page) == reviews, "the reviews did not survive the reload"
        queue, states = expected(reviews, later)
        assert page.get_attribute("#sa-practise", "data-queue").split() == queue
        current = page.get_attribute("#sa-practise", "data-card")
        assert current == queue[0] and current in {r["card"] for r in reviews}
        page.click("#sa-pr-show")
        assert same_minute(buttons_due(page), scheduler_due(states, current, later))
        page.screenshot(path=str(SHOTS / f"rating_{width}.png"), full_page=True)
        # 中文, then a chapter filter
        page.click('.sa-pr-lang[data-lang="zh"]')
        assert "良好" in page.inner_text("#sa-pr-rates") and "今日到期" in page.inner_text("#sa-pr-summary")
        assert any("\u4e00" <= ch <= "\u9fff" for ch in page.inner_text(".sa-pr-block-q"))
        page.select_option("#sa-pr-chapter", "03_scaling")
        queue, _ = expected(reviews, later, chapter="03_scaling")
        assert page.get_attribute("#sa-practise", "data-queue").split() == queue
        assert page.get_attribute("#sa-practise", "data-card") in queue
        page.screenshot(path=str(SHOTS / f"zh_chapter_{width}.png"))
        found = check_clean(page, report, width) + problems(report2)
        assert not found, "\n".join(found)
    finally:
        ctx.close()


def test_export_import_terminal_and_back(browser, site, built_book, tmp_path, monkeypatch):
    ctx = context(browser, DESKTOP["width"])
    try:
        page, report = open_practise(ctx, f"{site}practise.html?chapter=02_qkv")
        assert page.input_value("#sa-pr-chapter") == "02_qkv"  # the chapter pages link here preselected
        for rating in (3, 2):
            page.keyboard.press("Space")
            page.keyboard.press(str(rating))
        with page.expect_download() as info:
            page.click("#sa-pr-export")
        log_path = tmp_path / "from-page.json"
        info.value.save_as(log_path)
        log = weblog.read_log(log_path)
        assert len(log["reviews"]) == 2 and log["source"] == "site"
        db = tmp_path / "progress.sqlite3"
        assert main(["import", str(log_path), "--db", str(db)]) == 0
        with Store(db, write=False) as store:
            terminal = {cid: weblog.iso(s[0].due) for cid, s in store.states().items()}
        assert same_dues(terminal, log["due"]), (terminal, log["due"])
        # the terminal answers once more, then exports; the page imports and shows the same due dates
        with Store(db) as store:
            sched = weblog.scheduler()
            cid = sorted(terminal)[0]
            import fsrs

            at = NOW + timedelta(days=2)
            card, _ = sched.review_card(store.fsrs_card(cid, at), fsrs.Rating.Good, review_datetime=at)
            store.record(cid, "02_qkv", card, 3, at, 12.0, "study", "en")
        out = tmp_path / "from-terminal.json"
        assert main(["export-log", str(out), "--db", str(db)]) == 0
        page.set_input_files("#sa-pr-import", str(out))
        page.wait_for_function("() => window.saPractise.state().reviews.length === 3")
        assert "Imported 1 new review" in page.inner_text("#sa-pr-note")
        page_due = page.evaluate(
            "() => Object.fromEntries(Object.entries(window.saPractise.schedule().states)"
            ".map(([k, v]) => [k, v.card.due.toISOString()]))"
        )
        assert same_dues(page_due, weblog.read_log(out)["due"]), page_due
        assert problems(report) == [], problems(report)
    finally:
        ctx.close()


def test_without_storage_the_page_says_so_and_still_works(browser, site, built_book):
    ctx = context(browser, PHONE["width"], no_storage=True)
    try:
        errors: list[str] = []
        page, report = open_practise(ctx, f"{site}practise.html",
                                     on_error=lambda exc: errors.append(f"{exc.message} {exc.stack}"))
        message = page.locator("#sa-pr-storage")
        assert message.is_visible() and "only until you close this tab" in message.inner_text()
        first = page.get_attribute("#sa-practise", "data-card")
        page.tap("#sa-pr-show")
        page.tap('.sa-pr-rate-btn[data-rating="3"]')
        assert page.get_attribute("#sa-practise", "data-card") != first
        assert "reviews 1" in page.inner_text("#sa-pr-summary")
        page.screenshot(path=str(SHOTS / "no_storage_390.png"))
        # the theme's own scripts (light/dark mode) throw when storage is blocked; this page's code must not
        ours = [e for e in errors if "/_static/practise/" in e]
        assert ours == [], ours
        assert [u for u in report.requests if not u.startswith(site)] == []
    finally:
        ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_contrast_and_weight(browser, site, built_book, scheme):
    """Text of the controls, rating buttons (enabled), summary and card: >= 4.5:1; the page <= 1.5 MB."""
    from urllib.parse import unquote, urlparse

    ctx = context(browser, PHONE["width"], scheme=scheme)
    try:
        page, report = open_practise(ctx, f"{site}practise.html", when=None)
        assert page.evaluate("document.documentElement.dataset.theme") == scheme
        page.tap("#sa-pr-show")
        low = {}
        for sel in (".sa-pr-block-q", ".sa-pr-block-short", "#sa-pr-summary", "#sa-pr-timer", "#sa-pr-where",
                    ".sa-pr-hint", '.sa-pr-lang[aria-pressed="true"]', '.sa-pr-lang[aria-pressed="false"]',
                    "#sa-pr-back", "#sa-pr-export", ".sa-pr-field span", *(
                        f'.sa-pr-rate-btn[data-rating="{r}"] .sa-pr-ivl' for r in (1, 2, 3, 4))):
            fg, bg = colours(page.locator(sel).first)
            if contrast(fg, bg) < 4.5:
                low[sel] = round(contrast(fg, bg), 2)
        page.screenshot(path=str(SHOTS / f"rating_{scheme}_390.png"), full_page=True)
        assert not low, f"{scheme}: contrast below 4.5:1: {low}"
        urls = page.evaluate(
            "() => [location.href, ...performance.getEntriesByType('resource').map(e => e.name)]")
        sizes = {}
        for url in urls:
            path = built_book.html / unquote(urlparse(url).path).lstrip("/")
            if url.startswith(site) and path.is_file():
                sizes[path.name] = path.stat().st_size
        total = sum(sizes.values())
        top = sorted(sizes.items(), key=lambda kv: -kv[1])[:4]
        assert total <= PAGE_BUDGET, f"{total / 1e6:.2f} MB: {top}"
        (SHOTS / "weight.json").write_text(json.dumps({"bytes": total, "files": sizes}, indent=1))
        assert problems(report) == [], problems(report)
    finally:
        ctx.close()


def test_every_chapter_links_to_the_practise_page_preselected(built_book):
    """Each chapter's "Practise" section links to practise.html?chapter=<its slug>."""
    from book_support import toc_pages

    missing = []
    for name in toc_pages():
        if name.startswith("chapters/"):
            slug = name.removeprefix("chapters/")
            html = (built_book.html / f"{name}.html").read_text(encoding="utf-8")
            if f'href="../practise.html?chapter={slug}"' not in html:
                missing.append(slug)
    assert not missing, f"no link to the practise page with the chapter preselected: {missing}"
