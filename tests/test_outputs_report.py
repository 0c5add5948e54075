"""The report page (``OUTPUT_DIR/report.html``), opened from disk in a real headless Chromium.

The store is filled through ``record()``, the runs are written by ``write_summary``; the page
is then driven through Playwright with Debian's Chromium (``.ci/run`` installs it).
Without Chromium or Playwright the browser tests are skipped, except in CI, where they fail.
"""

from __future__ import annotations

import errno
import json
import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.project import make_post

from crawler.outputs.report import REPORT_NAME, report_data, view_gains, write_report
from crawler.runs.summary import (
    EXIT_OK,
    EXIT_SITE_FAILED,
    EXIT_UNHEALTHY,
    SiteSummary,
    write_summary,
)
from crawler.store.sqlite import SQLiteStore

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
NOW = datetime.now(UTC).replace(microsecond=0)
RUNS = ("20261101T020000Z-11", "20261108T020000Z-12", "20261115T020000Z-13")
OLD_RUN, MIDDLE_RUN, LAST_RUN = RUNS
HOSTILE_TITLE = '</script><img src=x onerror="document.title=1">危险标题'


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _summary(site: str, **fields: Any) -> SiteSummary:
    return SiteSummary(site=site, layout="cards", url=f"https://{site}.example.cn/", **fields)


def _write_runs(out: Path) -> None:
    """Three runs: beta failed in the oldest, all fine in the middle, beta unhealthy last."""
    runs = out / "runs"
    broken = _summary(
        "beta",
        failed=True,
        http_errors=1,
        problems=["start page https://beta.example.cn/ failed: HTTP 503"],
    )
    write_summary(
        runs / OLD_RUN / "summary.json",
        OLD_RUN,
        [_summary("alpha", new=3), broken],
        EXIT_SITE_FAILED,
    )
    write_summary(
        runs / MIDDLE_RUN / "summary.json",
        MIDDLE_RUN,
        [_summary("alpha", changed=1), _summary("beta")],
        EXIT_OK,
    )
    unhealthy = _summary(
        "beta",
        new=1,
        http_errors=1,
        post_failures_count=1,
        problems=["page failed: https://beta.example.cn/page/3: HTTP 404"],
        post_failures=["https://beta.example.cn/p/9: HTTP 500"],
    )
    write_summary(
        runs / LAST_RUN / "summary.json",
        LAST_RUN,
        [_summary("alpha", new=2), unhealthy],
        EXIT_UNHEALTHY,
    )


def _fill_store(store: SQLiteStore) -> dict[str, dict[str, Any]]:
    """Posts of two sites over several weeks, and a views history: alpha's post 1 grows by
    300 in the last 7 days (100 before the window), beta's post 21 by 30 (first seen in it)."""
    posts: dict[str, dict[str, Any]] = {}
    for n in range(1, 13):
        day = NOW - timedelta(days=3 * n)
        posts[f"a{n}"] = make_post(
            n,
            url=f"https://alpha.example.cn/p/{n}",
            site="alpha",
            title=f"阿尔法文章 {n}",
            summary=f"第 {n} 篇，讲分布式训练",
            published_at=_iso(day),
            views=100,
            crawled_at=_iso(NOW - timedelta(days=10)),
        )
    for n in range(21, 27):
        day = NOW - timedelta(days=5 * (n - 20))
        posts[f"b{n}"] = make_post(
            n,
            url=f"https://beta.example.cn/p/{n}",
            site="beta",
            title=f"贝塔笔记 {n}",
            summary="推理服务的延迟",
            published_at=_iso(day),
            views=50,
            crawled_at=_iso(NOW - timedelta(days=2)),
        )
    posts["hostile"] = make_post(
        99,
        url="https://beta.example.cn/p/99",
        site="beta",
        title=HOSTILE_TITLE,
        published_at=_iso(NOW - timedelta(days=4)),
        views=None,
    )
    for post in posts.values():
        store.record(post, OLD_RUN)
    for key, views, days_ago, run in (
        ("a1", 150, 3, MIDDLE_RUN),
        ("a1", 400, 1, LAST_RUN),
        ("b21", 80, 1, LAST_RUN),
    ):
        seen = _iso(NOW - timedelta(days=days_ago))
        store.record({**posts[key], "views": views, "crawled_at": seen}, run)
    store.flush()
    return posts


@pytest.fixture
def report(tmp_path: Path) -> Iterator[tuple[Path, dict[str, dict[str, Any]]]]:
    out = tmp_path / "output"
    store = SQLiteStore(out / "posts.sqlite")
    try:
        posts = _fill_store(store)
        _write_runs(out)
        path = write_report(out, store, LAST_RUN, newest=15, trending_days=7)
    finally:
        store.close()
    yield path, posts


def _embedded(path: Path) -> dict[str, Any]:
    html = path.read_text(encoding="utf-8")
    pattern = r'<script type="application/json" id="report-data">(.*?)</script>'
    match = re.search(pattern, html, re.S)
    assert match, "no embedded data"
    return json.loads(match.group(1))


def _page_script(path: Path) -> str:
    scripts = re.findall(r"<script>(.*?)</script>", path.read_text(encoding="utf-8"), re.S)
    assert len(scripts) == 1
    return scripts[0]


# -- in the browser --------------------------------------------------------------------------


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must have it (.ci/run installs it, playwright the test extra)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install playwright)")
    if not CHROMIUM.exists():
        _unavailable(f"no {CHROMIUM} (.ci/run installs Debian's chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, report: tuple[Path, dict[str, dict[str, Any]]]) -> Iterator[Any]:
    """The report opened from disk, with every console error, page error, dialog and request
    to anywhere but the file itself collected in ``page.problems``."""
    path, _ = report
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    problems: list[str] = []
    tab.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    tab.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    tab.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    tab.on(
        "request",
        lambda r: problems.append(f"request: {r.url}") if r.url != path.as_uri() else None,
    )
    tab.goto(path.as_uri())
    tab.wait_for_selector("#posts li")
    tab.problems = problems
    yield tab
    context.close()


def test_report_opens_offline_without_errors_and_shows_every_section(page: Any, report) -> None:
    _, posts = report
    assert page.problems == []
    assert page.title() == "博客抓取报告"
    runs = page.locator("#runs-table")
    for site in ("alpha", "beta"):
        assert runs.locator("tbody th", has_text=site).is_visible()
    beta = runs.locator("tr[data-site=beta]")
    assert "异常" in beta.inner_text() and "unhealthy" in beta.inner_text()
    # Problems and post pages not read, with their URLs as links.
    assert page.locator('#problems a[href="https://beta.example.cn/page/3"]').is_visible()
    page.locator("#problems details summary").click()
    assert page.locator('#problems a[href="https://beta.example.cn/p/9"]').is_visible()
    # The newest post first, its title a link to it.
    newest = page.locator("#posts li").first
    assert newest.locator("a").inner_text() == posts["a1"]["title"]
    assert newest.locator("a").get_attribute("href") == posts["a1"]["url"]
    # A title with markup in it is text, not markup (no script ran: no dialog, no error).
    assert page.get_by_text(HOSTILE_TITLE).count() == 1
    assert page.title() == "博客抓取报告"


def test_runs_strip_marks_the_site_that_broke_in_an_older_run(page: Any) -> None:
    strip = page.locator("#history-table")
    assert strip.locator("thead th").count() == 1 + len(RUNS) + 1
    beta = strip.locator("tr[data-site=beta]")
    statuses = beta.locator("span.cell").evaluate_all("s => s.map(e => e.dataset.status)")
    assert statuses == ["failed", "ok", "unhealthy"]
    assert "broke" in (beta.get_attribute("class") or "")
    assert "HTTP 503" in beta.locator("span.cell").first.get_attribute("title")
    alpha = strip.locator("tr[data-site=alpha]")
    assert alpha.locator("span.cell").evaluate_all("s => s.map(e => e.dataset.status)") == [
        "ok",
        "ok",
        "ok",
    ]
    assert "broke" not in (alpha.get_attribute("class") or "")


def test_trending_lists_the_largest_view_gains(page: Any, report) -> None:
    _, posts = report
    rows = page.locator("#trending-table tbody tr")
    assert rows.count() == 2
    assert rows.first.is_visible()
    first = rows.first.inner_text()
    assert posts["a1"]["title"] in first and "+300" in first  # 400 now, 100 before the window
    assert posts["b21"]["title"] in rows.nth(1).inner_text() and "+30" in rows.nth(1).inner_text()


def test_filter_box_hides_posts_that_do_not_match(page: Any) -> None:
    visible = page.locator("#posts li:visible")
    total = visible.count()
    assert total == 15
    page.fill("#filter", "贝塔")
    titles = visible.locator("a").all_inner_texts()
    assert titles and all("贝塔" in title for title in titles)
    assert len(titles) < total
    assert page.locator("#post-count").inner_text() == f"显示 {len(titles)} / {total} 篇"
    page.fill("#filter", "阿尔法文章 2")  # words: each must be in the title or summary
    assert visible.locator("a").all_inner_texts() == ["阿尔法文章 2"]
    page.fill("#filter", "没有这样的文章")
    assert visible.count() == 0
    page.fill("#filter", "")
    assert visible.count() == total


def test_site_select_filters_posts(page: Any) -> None:
    options = page.locator("#site-filter option").all_inner_texts()
    assert options == ["全部站点", "alpha", "beta"]
    page.select_option("#site-filter", "beta")
    shown = page.locator("#posts li:visible")
    sites = shown.evaluate_all("items => items.map(i => i.dataset.site)")
    assert sites and set(sites) == {"beta"}
    page.select_option("#site-filter", "alpha")
    assert set(shown.evaluate_all("items => items.map(i => i.dataset.site)")) == {"alpha"}
    page.fill("#filter", "贝塔")  # both filters at once: nothing is alpha and 贝塔
    assert shown.count() == 0


def test_weekly_chart_is_an_svg_with_a_bar_per_site_and_week(page: Any, report) -> None:
    path, _ = report
    weeks = _embedded(path)["weeks"]
    expected = sum(1 for row in weeks["counts"].values() for value in row if value)
    bars = page.locator("svg#week-chart rect.bar")
    assert expected > 2 and bars.count() == expected
    assert {bars.nth(i).get_attribute("data-site") for i in range(expected)} == {"alpha", "beta"}
    box = page.locator("svg#week-chart").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 50
    heights = bars.evaluate_all("bars => bars.map(b => b.getBBox().height)")
    assert all(height > 0 for height in heights)


# -- the data, without a browser -------------------------------------------------------------


def test_report_is_one_self_contained_file(report) -> None:
    path, _ = report
    html = path.read_text(encoding="utf-8")
    assert path.name == REPORT_NAME
    assert '<html lang="zh-CN">' in html and '<meta charset="utf-8">' in html
    assert "default-src 'none'" in html  # the page may load nothing from anywhere
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)
    assert HOSTILE_TITLE not in html  # embedded escaped: it cannot close the data's element
    assert not list(path.parent.glob(".report.html.*"))  # no temporary file left behind


def test_newest_posts_across_sites_newest_first(report) -> None:
    path, posts = report
    data = _embedded(path)
    assert data["post_total"] == len(posts)
    listed = data["posts"]
    assert len(listed) == 15
    dated = sorted(
        posts.values(), key=lambda p: datetime.fromisoformat(p["published_at"]), reverse=True
    )
    assert [p["url"] for p in listed] == [p["url"] for p in dated[:15]]
    assert {p["site"] for p in listed} == {"alpha", "beta"}


def test_view_gains_from_the_window_start_or_first_sighting_in_it() -> None:
    start = datetime(2026, 11, 20, tzinfo=UTC)
    rows = [
        {"id": "a", "seen_at": "2026-11-10T00:00:00+00:00", "views": 5},
        {"id": "a", "seen_at": "2026-11-19T00:00:00+00:00", "views": 10},  # at the start
        {"id": "a", "seen_at": "2026-11-25T00:00:00+00:00", "views": 30},
        {"id": "b", "seen_at": "2026-11-21T00:00:00+00:00", "views": 7},  # first in window
        {"id": "b", "seen_at": "2026-11-22T00:00:00+00:00", "views": None},  # count gone
        {"id": "b", "seen_at": "2026-11-23T00:00:00Z", "views": 9},
        {"id": "c", "seen_at": "2026-11-01T00:00:00+00:00", "views": 99},  # nothing since
        {"id": "d", "seen_at": "2026-11-20T08:00:00+08:00", "views": 3},  # = start: before
        {"id": "d", "seen_at": "2026-11-29T00:00:00+00:00", "views": 4},
    ]
    gains = {g["id"]: (g["gain"], g["from"], g["to"]) for g in view_gains(rows, start)}
    assert gains == {"a": (20, 10, 30), "b": (2, 7, 9), "d": (1, 3, 4)}


def test_last_run_from_the_store_when_its_summary_is_not_written_yet(tmp_path: Path) -> None:
    out = tmp_path / "output"
    store = SQLiteStore(out / "posts.sqlite")
    try:
        _write_runs(out)
        current = "20261122T020000Z-14"
        store.record_site_run(current, "alpha", {"site": "alpha", "new": 4, "problems": []})
        data = report_data(out, store, current, newest=10, trending_days=7, now=NOW)
    finally:
        store.close()
    assert data["run"]["sites"][0]["site"] == "alpha" and data["run"]["sites"][0]["new"] == 4
    assert data["run"]["sites"][0]["status"] == "ok" and data["run"]["exit_status"] is None
    assert [run["run_id"] for run in data["history"]] == [*RUNS, current]


def test_history_keeps_the_newest_runs_and_skips_a_broken_summary(tmp_path: Path) -> None:
    out = tmp_path / "output"
    for day in range(1, 15):
        run = f"202611{day:02d}T020000Z-1"
        write_summary(out / "runs" / run / "summary.json", run, [_summary("alpha")], EXIT_OK)
    (out / "runs" / "20261110T020000Z-1" / "summary.json").write_text("{not json")
    store = SQLiteStore(out / "posts.sqlite")
    try:
        data = report_data(out, store, "20261114T020000Z-1", newest=10, trending_days=7, now=NOW)
    finally:
        store.close()
    ids = [run["run_id"] for run in data["history"]]
    # The nine newest readable runs before the current one, in id order, then the current one.
    assert ids == [f"202611{day:02d}T020000Z-1" for day in (4, 5, 6, 7, 8, 9, 11, 12, 13, 14)]


def test_failed_write_names_the_file_and_keeps_the_old_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crawler.outputs import files
    from crawler.outputs.dataset import ExportError

    out = tmp_path / "output"
    store = SQLiteStore(out / "posts.sqlite")
    try:
        first = write_report(out, store, LAST_RUN, newest=300, trending_days=7)
        before = first.read_bytes()
        store.record(make_post(1), MIDDLE_RUN)  # the next page would differ

        def disk_full(fd: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(files.os, "fsync", disk_full)
        with pytest.raises(ExportError, match=f"cannot write {re.escape(str(first))}: no space"):
            write_report(out, store, LAST_RUN, newest=300, trending_days=7)
    finally:
        store.close()
    assert first.read_bytes() == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".report")] == []


def test_ten_thousand_posts_embed_only_what_the_page_shows(tmp_path: Path) -> None:
    out = tmp_path / "output"
    store = SQLiteStore(out / "posts.sqlite")
    sites = [f"site{i}" for i in range(8)]
    try:
        for n in range(10_000):
            published = NOW - timedelta(hours=7 * n)
            post = make_post(
                n,
                url=f"https://{sites[n % 8]}.example.cn/p/{n}",
                site=sites[n % 8],
                title=f"第 {n} 篇：分布式训练与推理的工程实践",
                summary="摘要" * 200,
                content="正文" * 2000,
                published_at=_iso(published),
                views=n,
                crawled_at=_iso(NOW - timedelta(days=9)),
            )
            store.record(post, OLD_RUN)
            if n % 10 == 0:  # a thousand posts gained views this week
                store.record({**post, "views": 2 * n + 1, "crawled_at": _iso(NOW)}, LAST_RUN)
        store.flush()
        _write_runs(out)
        started = time.perf_counter()
        path = write_report(out, store, LAST_RUN, newest=300, trending_days=7)
        seconds = time.perf_counter() - started
    finally:
        store.close()
    size = path.stat().st_size
    script = _page_script(path)
    data = _embedded(path)
    assert len(script.encode("utf-8")) < 50_000
    assert size < 2_000_000, f"{size} bytes"
    assert data["post_total"] == 10_000 and len(data["posts"]) == 300
    assert len(data["trending"]) == 20 and data["trending"][0]["gain"] == 9991  # post 9990
    assert len(data["weeks"]["starts"]) == 26 and set(data["weeks"]["counts"]) == set(sites)
    assert seconds < 30, f"{seconds:.1f} s"


def test_the_report_of_real_crawls_shows_their_trending_post(browser: Any, tmp_path: Path) -> None:
    """Two ``scrapy crawl`` runs of the cards sample, a post's views grown in between: the
    report.html they leave opens from disk with no error and lists that post as trending."""
    from dataclasses import replace

    from support.project import run_scrapy

    from crawler.devtools.samples.server import SiteServer, sample_site

    server = SiteServer(sample_site("cards")).start()
    try:
        url = f"url={server.url()}"
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        route = server.site.routes["/hot?page=3"]
        server.site.routes["/hot?page=3"] = replace(
            route, body=route.body.replace("93 浏览".encode(), "940 浏览".encode())
        )
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
    finally:
        server.stop()
    grown = next(
        p
        for p in map(json.loads, (tmp_path / "posts.jsonl").read_text("utf-8").splitlines())
        if p["views"] == 940
    )
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    try:
        tab.goto((tmp_path / "report.html").as_uri())
        tab.wait_for_selector("#posts li")
        assert errors == []
        assert tab.locator("#runs-table tbody th").first.inner_text().strip()
        assert tab.locator("#trending").get_by_text(grown["title"]).count() >= 1
        assert tab.locator("#posts").get_by_text(grown["title"]).count() == 1
        assert tab.locator("svg rect").count() > 0
    finally:
        context.close()
