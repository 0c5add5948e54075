"""Incremental crawling: read only what changed since the last run, in one place.

:class:`IncrementalMiddleware` is a spider middleware between the blog spider and the engine:

- **conditional requests**: a list page the last run saw is asked for with its
  ``If-None-Match`` / ``If-Modified-Since``; a ``304`` means the page is as stored;
- **stop at a known page**: on a list sorted newest first, once a whole page holds only
  posts the store knows, older pages hold no news: the requests for them are dropped;
- **post pages only for news**: a post's page is asked for when the post is new, its list
  entry changed (title, summary, date), its page was not read last time (failed, gone, or
  a run with ``-a content=0``); otherwise the request is dropped and the post goes on (the
  store keeps its content). A page read before is asked for with its validators;
- **what to replay**: when the crawl has a feed export (``-O``, ``FEEDS``) that must hold the
  whole site, the posts of pages not read again come from the store, marked ``replayed``
  (the pipelines pass them through untouched); without a feed export nothing is replayed.

Only a site whose last crawl was complete is read incrementally (after a crash, a failure or
a page bound, pages the last run never reached may hold posts the store does not know); the
mark is cleared when a site starts and set again when it ends complete.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from crawler.items import PostItem
from crawler.runs.folders import acquire_store, release_store
from crawler.state.site_crawls import SiteRun, count, site_closed, site_lists_read
from crawler.store.sqlite import PageState

logger = logging.getLogger(__name__)


@dataclass
class _SiteMemory:
    """The middleware's view of one site in this run."""

    incremental: bool
    # Ids of the posts this run has given out, so what is replayed never repeats them.
    given: set[str] = field(default_factory=set)


# A change of these makes a post's page worth reading again (not its counts).
LIST_ENTRY_FIELDS = ("title", "summary", "published_raw")


def _page_read(item: PostItem, stored: dict[str, Any] | None) -> bool:
    """True if the store holds what the post's page says as its list entry stands now."""
    return (
        stored is not None
        and stored.get("content") is not None
        and not stored.get("gone")
        and not stored.get("post_page_failed")
        and all(stored.get(name) == item.get(name) for name in LIST_ENTRY_FIELDS)
    )


class IncrementalMiddleware:
    """Conditional list requests, stop at the first known page, replay for feed exports.

    Off when the store is off (``POST_STORE_ENABLED = False``): every page is then read.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.store = acquire_store(crawler.settings)
        # A feed export of the crawl (-O/-o/FEEDS) must hold every post of the site.
        self.replay = bool(crawler.settings.getdict("FEEDS"))
        self.sites: dict[str, _SiteMemory] = {}
        crawler.signals.connect(self.site_closed, signal=site_closed)
        crawler.signals.connect(self.site_lists_read, signal=site_lists_read)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> IncrementalMiddleware:
        if not crawler.settings.getbool("POST_STORE_ENABLED", True):
            raise NotConfigured("POST_STORE_ENABLED is off")
        return cls(crawler)

    def _runs(self) -> dict[str, SiteRun]:
        return getattr(self.crawler.spider, "site_runs", {})

    def _memory(self, run: SiteRun) -> _SiteMemory:
        memory = self.sites.get(run.name)
        if memory is None:
            incremental = not run.full and self.store.crawl_complete(run.name)
            self.store.set_crawl_complete(run.name, False)  # until this run ends complete
            self.store.flush()
            memory = self.sites[run.name] = _SiteMemory(incremental)
        return memory

    # ---- requests ------------------------------------------------------------------------
    def _conditional(self, request: Request, stored: dict[str, Any] | None = None) -> Request:
        """Add the validators the last run saw to a list-page request, or to the request of
        a post page whose content the store holds (``stored``)."""
        run = self._runs().get(request.meta.get("site", ""))
        if run is None:
            return request
        if "post_item" in request.meta:
            asked = stored is not None and stored.get("content") is not None
        else:
            asked = bool(request.meta.get("list_page")) and self._memory(run).incremental
        state = self.store.page_state(request.url) if asked else None
        if state is not None and (state.etag or state.last_modified):
            if state.etag:
                request.headers["If-None-Match"] = state.etag
            if state.last_modified:
                request.headers["If-Modified-Since"] = state.last_modified
            request.meta["page_state"] = state
            request.meta["handle_httpstatus_list"] = [304]
        return request

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for request in start:
            yield self._conditional(request) if isinstance(request, Request) else request

    def site_lists_read(self, site_run: SiteRun) -> None:
        """Every list page of the site is answered: the pages of its posts not had last run
        that no list page showed this run (unchanged, or past the first known page) are
        asked for now. A post a list showed went on with the list's values, its page asked
        for if need be: asked for again here, its stored values would stand in for them."""
        if site_run.content and site_run.name in self.sites:
            for request in self._retries(site_run):
                self.crawler.engine.crawl(request)  # type: ignore[union-attr]

    def _retries(self, run: SiteRun) -> Iterator[Request]:
        spider = self.crawler.spider
        memory = self._memory(run)
        for stored in list(self.store.posts_to_retry(run.name)):
            if stored["id"] in memory.given:
                continue
            request = spider.retry_post_page(run, stored)  # type: ignore[union-attr]
            if request is not None:
                memory.given.add(stored["id"])
                yield self._conditional(request, stored)

    # ---- responses -----------------------------------------------------------------------
    def process_spider_input(self, response: Response) -> None:
        state: PageState | None = response.meta.get("page_state")
        run = self._runs().get(response.meta.get("site", ""))
        # A list in another order than by date may still have changed further on: its
        # remembered next pages are asked for in turn.
        if (
            response.status == 304 and state and run and response.meta.get("list_page")
            and not run.layout.date_ordered
        ):  # fmt: skip
            response.meta["next_urls_unchanged"] = state.next_urls

    async def process_spider_output(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        run = self._runs().get(response.meta.get("site", ""))
        post: PostItem | None = response.meta.get("post_item")
        if post is not None and response.status == 200 and run is not None:
            self._remember(response, [], [post["id"]])  # a post page: its validators
        # Not a list page read (an error page's errback output passes here too): nothing to
        # remember or decide.
        if run is None or not response.meta.get("list_page") or response.status >= 400:
            async for output in result:
                yield output
            return
        memory = self._memory(run)
        if response.status == 304:
            async for output in result:
                yield self._conditional(output) if isinstance(output, Request) else output
            state: PageState = response.meta["page_state"]
            ids = None if run.layout.date_ordered else state.post_ids
            for post in self._replayed(run, memory, ids):
                yield post
            return
        # Whether every post is known is decided item by item before each goes on to the
        # pipelines, which then record it.
        every_known = memory.incremental and run.layout.date_ordered
        post_ids: list[str] = []
        requests: list[Request] = []
        spider = self.crawler.spider
        async for output in result:
            if isinstance(output, Request) and "post_item" in output.meta:
                item = output.meta["post_item"]
                post_ids.append(item["id"])
                memory.given.add(item["id"])
                stored = next(self.store.posts_by_id([item["id"]]), None)
                if _page_read(item, stored):
                    spider.abandon(output)  # type: ignore[union-attr]
                    count(self.crawler, run.name, "posts/pages_not_needed")
                    yield item
                else:
                    every_known = False  # news here: older pages may hold more
                    yield self._conditional(output, stored)
                continue
            if isinstance(output, Request):
                requests.append(output)
                continue
            post = output.get("id") if isinstance(output, PostItem) else None
            if post:
                every_known = every_known and self.store.seen(post)
                post_ids.append(post)
                memory.given.add(post)
            yield output
        self._remember(response, [r.url for r in requests], post_ids)
        if every_known and post_ids:
            count(self.crawler, run.name, "layout/stopped_at_known_page")
            logger.info("%s: every post on %s is known; not reading older pages",
                        run.name, response.url)  # fmt: skip
            for request in requests:
                spider.abandon(request)  # type: ignore[union-attr]
            for post in self._replayed(run, memory, None):
                yield post
            return
        for request in requests:
            yield self._conditional(request)

    def _remember(self, response: Response, next_urls: list[str], post_ids: list[str]) -> None:
        """Keep the page's validators, next links and posts, under the URL first asked for."""
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        url = response.meta.get("redirect_urls", [response.url])[0]
        self.store.remember_page(url, PageState(
            etag.decode("latin-1") if etag else None,
            modified.decode("latin-1") if modified else None,
            tuple(next_urls),
            tuple(post_ids),
        ))  # fmt: skip

    def _replayed(
        self, run: SiteRun, memory: _SiteMemory, ids: Iterable[str] | None
    ) -> Iterator[PostItem]:
        """Posts not read this run, as last stored: those of an unchanged page (``ids``) or
        every other post of the site; only when a feed export needs the whole site."""
        if not self.replay:
            return
        posts = self.store.site_posts(run.name) if ids is None else self.store.posts_by_id(ids)
        for post in posts:
            # A post whose page failed last run is asked for again once the lists are read.
            if post["id"] in memory.given or (run.content and post.get("post_page_failed")):
                continue
            memory.given.add(post["id"])
            count(self.crawler, run.name, "layout/posts_from_store")
            yield PostItem({k: v for k, v in post.items() if k in PostItem.fields}, replayed=True)

    # ---- signals -------------------------------------------------------------------------
    def site_closed(self, site_run: SiteRun, reason: str) -> None:
        if site_run.name in self.sites:
            self.store.set_crawl_complete(site_run.name, site_run.complete)
            self.store.flush()

    def spider_closed(self, spider: object, reason: str) -> None:
        self.store.flush()
        release_store(self.crawler.settings)
