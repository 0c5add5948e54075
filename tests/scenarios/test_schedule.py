"""Scheduled runs: incremental crawls, 304s, exit statuses, summaries, one run at a time."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from support.project import project_settings, read_jsonl, run_scrapy

from crawler.devtools.samples.server import Route, SiteServer, sample_site
from crawler.runs.lock import LockBusy, RunLock
from crawler.runs.summary import (
    EXIT_LOCKED,
    EXIT_OK,
    EXIT_SITE_FAILED,
    EXIT_UNHEALTHY,
    HealthThresholds,
    SiteSummary,
    exit_status,
)

NEW_POST_ID = "19700001"


def with_new_cnblogs_post(server: SiteServer) -> None:
    """Publish one more post at the top of the sample cnblogs home page (a new day block)."""
    route = server.site.routes["/RobinDevNotes/"]
    html = route.body.decode("utf-8")
    days = [m.start() for m in re.finditer(r'<div class="day"', html)]
    block = html[days[1] : days[2]]  # the newest regular post (page 1 starts with a pinned one)
    old_id = re.search(r"/p/(\d+)", block).group(1)
    new = block.replace(old_id, NEW_POST_ID).replace("2026-09-29 20:12", "2026-10-01 08:00")
    new = re.sub(r"JAX 分布式训练，和 PyTorch 有什么不一样", "新文章：增量抓取只导出这一篇", new)
    server.site.routes["/RobinDevNotes/"] = replace(
        route, body=(html[: days[1]] + new + html[days[1] :]).encode("utf-8")
    )


def summary_of(out: Path) -> dict:
    (run,) = sorted((out / "runs").iterdir())[-1:]
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


def latest_changes(out: Path) -> list[dict]:
    return read_jsonl(sorted((out / "runs").iterdir())[-1] / "changes.jsonl")


@pytest.mark.parametrize("layout", ["cnblogs", "hux", "feed", "cards"])
def test_second_run_reads_at_most_the_first_page(layout: str, tmp_path: Path) -> None:
    server = SiteServer(sample_site(layout)).start()
    try:
        feeds = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
        args = ("crawl", layout, "-a", f"url={server.url()}", "-O")
        assert run_scrapy(*args, str(feeds[0]), output=tmp_path).returncode == 0
        server.hits.clear()
        result = run_scrapy(*args, str(feeds[1]), output=tmp_path)
        assert result.returncode == EXIT_OK, result.stderr[-2000:]
        pages = [hit for hit in server.hits if hit != "/robots.txt"]
        if layout == "cards":  # sorted by views: every page asked for again, each a 304
            assert sorted(server.not_modified) == sorted(pages) and len(pages) == 3
        else:
            assert pages == [server.site.start]
            assert server.not_modified == [server.site.start]  # 304: nothing downloaded
        assert latest_changes(tmp_path) == []
        assert summary_of(tmp_path)["sites"][0]["pages_unchanged"] == len(pages)
        # The -O file still holds every post of the site, as last read.
        first, second = read_jsonl(feeds[0]), read_jsonl(feeds[1])
        assert sorted(p["id"] for p in second) == sorted(p["id"] for p in first)
        assert {p["id"]: p for p in second} == {p["id"]: p for p in first}
    finally:
        server.stop()


def test_one_new_post_is_exactly_what_the_next_run_exports(tmp_path: Path) -> None:
    server = SiteServer(sample_site("cnblogs")).start()
    try:
        url = f"url={server.url()}"
        assert run_scrapy("crawl", "cnblogs", "-a", url, output=tmp_path).returncode == 0
        before = read_jsonl(tmp_path / "posts.jsonl")
        with_new_cnblogs_post(server)
        server.hits.clear()
        result = run_scrapy("crawl", "cnblogs", "-a", url, output=tmp_path)
        assert result.returncode == EXIT_OK, result.stderr[-2000:]
        changes = latest_changes(tmp_path)
        assert [(c["change"], c["title"]) for c in changes] == [
            ("new", "新文章：增量抓取只导出这一篇")
        ]
        assert changes[0]["published_at"] == "2026-10-01T08:00:00+08:00"
        # Page 1 had a new post, so page 2 was read; it held only known posts: the crawl stopped.
        lists = [h for h in server.hits if "/p/" not in h and "ajax" not in h and "robots" not in h]
        assert lists == ["/RobinDevNotes/", "/RobinDevNotes/default.html?page=2"]
        # Only the new post's page (and the category/tag endpoint it calls) was read.
        endpoint, page = sorted(h for h in server.hits if "/p/" in h or "ajax" in h)
        assert page == f"/RobinDevNotes/p/{NEW_POST_ID}"
        assert endpoint.startswith("/RobinDevNotes/ajax/CategoriesTags.aspx?blogId=")
        assert len(read_jsonl(tmp_path / "posts.jsonl")) == len(before) + 1
        # full=1 reads every page again, and finds nothing else new.
        server.hits.clear()
        assert (
            run_scrapy("crawl", "cnblogs", "-a", url, "-a", "full=1", output=tmp_path).returncode
            == 0
        )
        assert "/RobinDevNotes/default.html?page=3" in server.hits
        assert latest_changes(tmp_path) == []
    finally:
        server.stop()


def test_cards_list_is_read_whole_and_exports_only_changes(tmp_path: Path) -> None:
    server = SiteServer(sample_site("cards")).start()
    try:
        url = f"url={server.url()}"
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        route = server.site.routes["/hot?page=3"]
        server.site.routes["/hot?page=3"] = replace(
            route,
            body=route.body.replace(
                b"93 \xe6\xb5\x8f\xe8\xa7\x88", b"940 \xe6\xb5\x8f\xe8\xa7\x88"
            ),
        )  # "93 浏览" -> "940 浏览" on the last page
        server.hits.clear()
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        assert server.not_modified == ["/hot", "/hot?page=2"]  # unchanged pages: 304
        assert "/hot?page=3" in server.hits  # followed through the remembered links
        changes = latest_changes(tmp_path)
        assert [(c["change"], c["views"]) for c in changes] == [("changed", 940)]
    finally:
        server.stop()


def test_broken_site_fails_loudly(tmp_path: Path) -> None:
    server = SiteServer(sample_site("cards")).start()
    try:
        ok = run_scrapy(
            "crawl", "cards", "-a", f"url={server.url()}", "-a", "full=1", output=tmp_path
        )
        assert ok.returncode == EXIT_OK
        # The site breaks: its list page is gone.
        server.site.routes.pop("/hot")
        result = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", output=tmp_path)
        assert result.returncode == EXIT_SITE_FAILED
        site = summary_of(tmp_path)["sites"][0]
        assert site["failed"] and site["http_errors"] == 1
        assert any(server.url() in problem and "404" in problem for problem in site["problems"])
        # The markup changes: pages load but no post is found although the store has 10.
        server.site.routes["/hot"] = Route(body=b"<html><body><p>maintenance</p></body></html>")
        result = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", output=tmp_path)
        assert result.returncode == EXIT_SITE_FAILED
        problems = summary_of(tmp_path)["sites"][0]["problems"]
        assert any("store has 10" in problem for problem in problems)
    finally:
        server.stop()


def test_exit_statuses_and_health_checks() -> None:
    limits = HealthThresholds.from_settings(project_settings())
    base = dict(
        site="s",
        layout="cards",
        url="https://x.org/",
        failures=[],
        stored_before=0,
        finish_reason="finished",
        thresholds=limits,
    )
    good = {
        "layout/list_pages": 2,
        "layout/posts_extracted": 20,
        "validate/passed": 20,
        "dates/parsed": 20,
    }
    assert exit_status([SiteSummary.from_stats(stats=good, **base)]) == EXIT_OK
    bad_dates = {**good, "dates/parsed": 10, "dates/unparsed": 10}
    summary = SiteSummary.from_stats(stats=bad_dates, **base)
    assert not summary.failed and exit_status([summary]) == EXIT_UNHEALTHY
    assert any("10 of 20 dates" in p for p in summary.problems)
    no_titles = {**good, "validate/dropped/title": 5, "validate/passed": 15, "dates/parsed": 15}
    assert any("titles" in p for p in SiteSummary.from_stats(stats=no_titles, **base).problems)
    errored = SiteSummary.from_stats(stats={}, **{**base, "failures": ["https://x.org/: HTTP 503"]})
    assert errored.failed and exit_status([errored]) == EXIT_SITE_FAILED


def test_lock_refuses_a_second_run_and_takes_over_a_stale_one(tmp_path: Path) -> None:
    out = tmp_path / "output"
    # The demo's folder (output/sample/) is an output folder like any other.
    with RunLock(out / "sample" / ".lock"):
        with pytest.raises(LockBusy), RunLock(out / "sample" / ".lock"):
            pass
        result = run_scrapy("crawlall", "--sample", output=out)
        assert result.returncode == EXIT_LOCKED
        assert f"pid {os.getpid()}" in result.stdout
        assert not (out / "sample" / "posts.jsonl").exists()
    # A lock file left by a run that was killed: its pid is gone, the lock is free.
    (out / ".lock").write_text("999999999")
    with RunLock(out / ".lock"):
        assert (out / ".lock").read_text() == str(os.getpid())
