"""IncrementalMiddleware with its manager, driven by hand on a Hux list page (sorted newest
first) and a cards one (sorted by views): what it asks conditionally, which post pages it
drops, where it stops, what it retries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse
from support.faultserver import list_page
from support.project import make_post, project_crawler

from crawler.incremental.middleware import IncrementalMiddleware
from crawler.items import PostItem
from crawler.sites import SiteConfig
from crawler.spiders.blogs import (  # type: ignore[attr-defined]
    BlogSpider,
    CardsSpider,
    HuxSpider,
)
from crawler.state.site_crawls import SiteCrawls
from crawler.store import crawler_store
from crawler.store.base import PageState

URL = "https://blog.example.cn/"
POSTS = [("/posts/1", "第一篇"), ("/posts/2", "第二篇")]


def setup(
    tmp_path: Path, spidercls: type[BlogSpider] = HuxSpider, **arguments: Any
) -> tuple[Crawler, BlogSpider, IncrementalMiddleware]:
    crawler = project_crawler(spidercls, OUTPUT_DIR=str(tmp_path))
    spider = spidercls.from_crawler(crawler, **(arguments or {"url": URL}))
    crawler.spider = spider
    scheduled: list[Request] = []
    crawler.engine = SimpleNamespace(crawl=scheduled.append)  # type: ignore[assignment]
    return crawler, spider, IncrementalMiddleware.from_crawler(crawler)


def page(request: Request, status: int = 200, layout: str = "hux", **headers: str) -> HtmlResponse:
    html = list_page(POSTS, next_href="/page2/", layout=layout)
    body = html.encode() if status == 200 else b""
    return HtmlResponse(
        URL, status=status, body=body, headers=headers, request=request, encoding="utf-8"
    )


async def _aiter(values: Iterable[Any]) -> AsyncIterator[Any]:
    for value in values:
        yield value


def read(
    middleware: IncrementalMiddleware, spider: BlogSpider, response: HtmlResponse
) -> list[Any]:
    async def run() -> list[Any]:
        middleware.process_spider_input(response)
        output = middleware.process_spider_output(response, _aiter(spider.parse(response)))
        return [value async for value in output]

    return asyncio.run(run())


def start(middleware: IncrementalMiddleware, spider: BlogSpider) -> Request:
    async def run() -> list[Any]:
        return [value async for value in middleware.process_start(spider.start())]

    (request,) = asyncio.run(run())
    return request


def kinds(outputs: list[Any]) -> list[str]:
    return [
        "post page"
        if isinstance(o, Request) and "post_item" in o.meta
        else "list page"
        if isinstance(o, Request)
        else "post"
        for o in outputs
    ]


def test_a_first_run_asks_every_page(tmp_path: Path) -> None:
    crawler, spider, middleware = setup(tmp_path)
    request = start(middleware, spider)
    assert "If-None-Match" not in request.headers  # nothing remembered yet
    outputs = read(middleware, spider, page(request, ETag='"v1"'))
    assert kinds(outputs) == ["post page", "post page", "list page"]
    assert all(o.meta["post_item"]["stored"] is None for o in outputs[:2])  # new posts
    state = crawler_store(crawler).page_state(URL)
    assert state is not None and state.etag == '"v1"' and len(state.post_ids) == 2


def test_known_posts_whose_pages_are_read_stop_the_list(tmp_path: Path) -> None:
    crawler, spider, middleware = setup(tmp_path)
    store = crawler_store(crawler)
    for path, title in POSTS:  # read last run: their pages too, the site complete
        post = make_post(
            url=f"https://blog.example.cn{path}",
            title=title,
            summary=title,
            published_raw="July 5, 2026",
            site=spider.site_configs[0].name,
        )
        store.record(post, "run0")
    store.set_crawl_complete(spider.site_configs[0].name, True)
    store.remember_page(URL, PageState('"v1"', None, ()))
    request = start(middleware, spider)
    assert request.headers["If-None-Match"] == b'"v1"'
    outputs = read(middleware, spider, page(request))
    # The pages are not needed, the posts go on, and the older list page is not asked for.
    assert kinds(outputs) == ["post", "post"]
    assert all(o["stored"]["content"] for o in outputs)
    stats = crawler.stats
    assert stats.get_value("posts/pages_not_needed") == 2  # type: ignore[union-attr]
    assert stats.get_value("layout/stopped_at_known_page") == 1  # type: ignore[union-attr]
    site = SiteCrawls.of(crawler).get(spider.site_configs[0].name)
    assert site is not None and site.lists_pending == 0 and site.lists_read


def test_an_unchanged_page_asks_no_page_and_a_changed_entry_asks_conditionally(
    tmp_path: Path,
) -> None:
    crawler, spider, middleware = setup(tmp_path)
    store = crawler_store(crawler)
    name = spider.site_configs[0].name
    post = make_post(
        url="https://blog.example.cn/posts/1",
        title="旧标题",
        summary="旧标题",
        published_raw="July 5, 2026",
        site=name,
    )
    store.record(post, "run0")
    store.remember_page(post["url"], PageState('"p1"', None, (), (post["id"],)))
    outputs = read(middleware, spider, page(start(middleware, spider)))
    # Post 1's title changed on the list: its page again, with its validators; post 2 is new.
    assert kinds(outputs) == ["post page", "post page", "list page"]
    assert outputs[0].headers["If-None-Match"] == b'"p1"'
    assert outputs[0].meta["handle_httpstatus_list"] == [304]
    assert "If-None-Match" not in outputs[1].headers


def test_pages_awaiting_a_retry_are_asked_for_once_the_lists_are_read(tmp_path: Path) -> None:
    crawler, spider, middleware = setup(tmp_path)
    store = crawler_store(crawler)
    name = spider.site_configs[0].name
    listed = make_post(url="https://blog.example.cn/posts/1", site=name, post_page_failed=True)
    elsewhere = make_post(url="https://blog.example.cn/posts/9", site=name, post_page_failed=True)
    for post in (listed, elsewhere):
        store.record(post, "run0")
    request = start(middleware, spider)
    outputs = read(middleware, spider, page(request))
    assert kinds(outputs) == ["post page", "post page", "list page"]
    assert crawler.engine.crawl.__self__ == []  # type: ignore[union-attr]  # lists not read yet
    site = SiteCrawls.of(crawler).get(name)
    assert site is not None
    SiteCrawls.of(crawler).answered(outputs[2])  # page 2 dropped: the lists are read
    (retry,) = crawler.engine.crawl.__self__  # type: ignore[union-attr]
    # Only the post no list showed, with its stored list fields and none of its page's.
    item: PostItem = retry.meta["post_item"]
    assert retry.url == elsewhere["url"] and retry.callback == spider.parse_post
    assert item["title"] == elsewhere["title"] and item["content"] is None
    assert retry.errback == spider.post_failed and site.pending == 3


@pytest.mark.parametrize("status", [404, 500])
def test_an_error_page_is_neither_remembered_nor_decided_on(tmp_path: Path, status: int) -> None:
    crawler, spider, middleware = setup(tmp_path)
    request = start(middleware, spider)

    async def run() -> list[Any]:
        output = middleware.process_spider_output(page(request, status=status), _aiter([]))
        return [value async for value in output]

    assert asyncio.run(run()) == []
    assert crawler_store(crawler).page_state(URL) is None


def test_a_list_sorted_by_views_is_read_whole(tmp_path: Path) -> None:
    crawler, spider, middleware = setup(tmp_path, CardsSpider)
    store = crawler_store(crawler)
    name = spider.site_configs[0].name
    for path, title in POSTS:
        store.record(
            make_post(
                url=f"https://blog.example.cn{path}",
                title=title,
                summary=title,
                published_raw="2026年10月04日",
                site=name,
            ),
            "run0",
        )
    store.set_crawl_complete(name, True)
    outputs = read(middleware, spider, page(start(middleware, spider), layout="cards"))
    assert kinds(outputs) == ["post", "post", "list page"]  # every post known, read on


def test_a_site_that_closed_keeps_its_mark_whatever_is_asked_of_it_after(tmp_path: Path) -> None:
    crawler, spider, middleware = setup(tmp_path)
    store = crawler_store(crawler)
    name = spider.site_configs[0].name
    store.set_crawl_complete(name, True)
    start(middleware, spider)
    assert not store.crawl_complete(name)  # cleared while the site is read
    sites = SiteCrawls.of(crawler)
    site = sites.get(name)
    assert site is not None
    sites.close_all("finished")  # nothing in flight: the site ends complete
    assert store.crawl_complete(name)
    # The last page's output still passing after the close asks for the site's memory.
    assert not middleware.manager.memory(site).incremental
    assert store.crawl_complete(name)


def test_read_before_names_the_pages_an_earlier_run_read_unless_the_run_is_full(
    tmp_path: Path,
) -> None:
    crawler, spider, middleware = setup(tmp_path)
    sites = SiteCrawls.of(crawler)
    site = sites.get(spider.site_configs[0].name)
    assert site is not None
    store = crawler_store(crawler)
    store.remember_page("https://blog.example.cn/about/", PageState('"a"', None, ()))
    assert middleware.manager.read_before(site, "https://blog.example.cn/about/")
    assert not middleware.manager.read_before(site, "https://blog.example.cn/posts/9/")
    site.full = True  # a full run reads everything again
    assert not middleware.manager.read_before(site, "https://blog.example.cn/about/")


def test_sites_start_in_batches_and_one_never_reached_gets_its_mark_back(tmp_path: Path) -> None:
    configs = [SiteConfig(name=f"blog{n}", layout="hux", url=f"{URL}{n}/") for n in range(3)]
    crawler, spider, middleware = setup(tmp_path, sites=configs)
    store = crawler_store(crawler)
    for name, complete in (("blog0", True), ("blog1", False), ("blog2", True)):
        store.set_crawl_complete(name, complete)
    store.flush()
    sites = SiteCrawls.of(crawler)
    first, second, third = (sites.get(config.name) for config in configs)
    assert first is not None and second is not None and third is not None

    request = spider.list_request(first, first.config.url, start_page=True)
    middleware.manager.conditional(request)
    # The first site's start cleared the marks of the next ones too, in one transaction,
    # each site keeping what its mark said.
    assert not any(store.crawl_complete(config.name) for config in configs)
    memories = [middleware.manager.memory(site) for site in (first, second, third)]
    assert [memory.incremental for memory in memories] == [True, False, True]

    sites.answered(request)  # the first site is read and ends complete
    sites.close_all("shutdown")  # the run stops before the others made a request
    assert store.crawl_complete("blog0")
    assert not store.crawl_complete("blog1")  # never complete: read whole next time
    assert store.crawl_complete("blog2")  # not reached: as it was
