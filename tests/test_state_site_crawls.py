"""What the crawl knows of each site: requests and posts in flight, the lists-read and
site-closed signals, the counts."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request, signals
from support.project import project_crawler

from crawler.items import PostItem
from crawler.layouts import get_layout
from crawler.sites import SiteConfig
from crawler.state.site_crawls import SiteCrawl, SiteCrawls, site_closed, site_lists_read


@pytest.fixture
def sites() -> SiteCrawls:
    crawler = project_crawler()
    found = SiteCrawls.of(crawler)
    assert SiteCrawls.of(crawler) is found  # one per crawler
    for name in ("a", "b"):
        config = SiteConfig(name=name, layout="cards", url=f"https://{name}.example.cn/hot")
        found.add(SiteCrawl(config=config, layout=get_layout("cards"), root=config.url))
    return found


def heard(sites: SiteCrawls, signal: object) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []

    def receiver(**kwargs: Any) -> None:
        events.append({k: v for k, v in kwargs.items() if k in ("site", "reason")})

    sites.crawler.signals.connect(receiver, signal=signal, weak=False)
    return events


def request(site: str, **meta: Any) -> Request:
    return Request(f"https://{site}.example.cn/x", meta={"site": site, **meta})


def test_lists_read_once_when_the_last_list_page_is_answered(sites: SiteCrawls) -> None:
    lists_read, closed = heard(sites, site_lists_read), heard(sites, site_closed)
    first, second = request("a", list_page=True), request("a", list_page=True)
    post = request("a", post_item=PostItem(id="1"))
    for made in (first, second, post):
        sites.requested(made)
    site = sites.get("a")
    assert site is not None and (site.pending, site.lists_pending) == (3, 2)
    sites.answered(first)
    assert lists_read == []
    sites.answered(second)
    assert [event["site"].name for event in lists_read] == ["a"]
    assert closed == []  # its post page is still in flight
    sites.answered(post)
    assert [(event["site"].name, event["reason"]) for event in closed] == [("a", "finished")]
    assert len(lists_read) == 1


def test_a_site_waits_for_its_posts_to_leave_the_pipelines(sites: SiteCrawls) -> None:
    closed = heard(sites, site_closed)
    site = sites.get("b")
    assert site is not None
    page = sites.requested(request("b", list_page=True))
    sites.expect_items(site, 2)
    sites.answered(page)
    assert closed == []
    crawler = sites.crawler
    for outcome in (signals.item_scraped, signals.item_dropped):
        crawler.signals.send_catch_log(outcome, item=PostItem(site="b"), spider=None)
    assert [event["site"].name for event in closed] == ["b"]
    # A replayed post (from the store) was never in flight: it changes nothing.
    crawler.signals.send_catch_log(signals.item_scraped, item=PostItem(site="a", replayed=True))
    assert sites.get("a").items_pending == 0  # type: ignore[union-attr]


def test_the_crawl_ending_closes_the_sites_still_open_with_its_reason(sites: SiteCrawls) -> None:
    closed = heard(sites, site_closed)
    sites.requested(request("a", list_page=True))
    sites.close_all("shutdown")
    assert sorted((event["site"].name, event["reason"]) for event in closed) == [
        ("a", "shutdown"),
        ("b", "shutdown"),
    ]
    site = sites.get("a")
    assert site is not None and site.complete is False


def test_counts_go_to_the_stats_and_to_the_site(sites: SiteCrawls) -> None:
    sites.count("a", "layout/list_pages")
    sites.count("a", "layout/list_pages", 2)
    sites.count("nowhere", "layout/list_pages")  # a site the crawl does not know: stats only
    assert sites.crawler.stats.get_value("layout/list_pages") == 4  # type: ignore[union-attr]
    assert sites.get("a").counts["layout/list_pages"] == 3  # type: ignore[union-attr]


def test_a_request_meta_names_its_site_and_its_pace() -> None:
    config = SiteConfig(name="local", layout="cards", url="http://127.0.0.1:8000/hot")
    site = SiteCrawl(config=config, layout=get_layout("cards"), root=config.url, fast=True)
    assert site.meta(list_page=True) == {
        "site": "local",
        "autothrottle_dont_adjust_delay": True,
        "list_page": True,
    }
    assert site.on_site("http://127.0.0.1:8000/hot?page=2")
    assert not site.on_site("http://127.0.0.1:8001/hot")


def test_a_sites_duration_runs_from_its_first_request(
    sites: SiteCrawls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registry's sites are added at once and started one after another: the summary's
    seconds are each site's own, not the time since the crawl began."""
    now = [100.0]
    monkeypatch.setattr("crawler.state.site_crawls.time.monotonic", lambda: now[0])
    site = sites.get("a")
    assert site is not None and site.duration == 0.0  # not started yet
    now[0] = 160.0  # long after the site was added
    first = request("a", list_page=True)
    sites.requested(first)
    now[0] = 163.5
    sites.answered(first)  # closes it
    now[0] = 500.0
    assert site.duration == pytest.approx(3.5)
