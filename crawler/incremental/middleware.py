"""Incremental crawling: read only what changed since the last run.

:class:`IncrementalMiddleware` sits between the blog spider and the engine and hands what
passes by to the manager (:mod:`crawler.incremental.manager`), which looks the store up and
decides by the rules of :mod:`crawler.incremental.rules`:

- **conditional requests**: a list page the last run saw is asked for with its
  ``If-None-Match`` / ``If-Modified-Since``; a ``304`` means the page is as stored;
- **stop at a known page**: on a list sorted newest first, once a whole page holds only
  posts the store knows, older pages hold no news: the requests for them are dropped;
- **post pages only for news**: a post's page is asked for when the post is new, its list
  entry changed (title, summary, date) or its page was not read last time; otherwise the
  request is dropped and the post goes on (the store keeps its content). A page read before
  is asked for with its validators. A candidate of the generic reader (an address) is asked
  for when it is new or a sitemap or feed says it changed since; one read before that was no
  post is not asked for again;
- **retries**: once a site's lists are read, the pages of its posts that the last run did
  not get, and that no list showed this run, are asked for again;
- **what to replay**: when the crawl has a feed export (``-O``, ``FEEDS``) that must hold the
  whole site, the posts of pages not read again come from the store, marked ``replayed``
  (the pipelines pass them through untouched).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from crawler.incremental import rules
from crawler.incremental.manager import IncrementalManager
from crawler.items import PostItem
from crawler.layouts.base import merge_stored_post
from crawler.state.site_crawls import SiteCrawl, SiteCrawls, site_closed, site_lists_read

logger = logging.getLogger(__name__)


class IncrementalMiddleware:
    """Conditional requests, the stop at the first known page, post pages for news only,
    retries and replays (see the module docstring). Off with ``POST_STORE_ENABLED = False``:
    every page is then read."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.sites = SiteCrawls.of(crawler)
        self.manager = IncrementalManager(crawler)
        crawler.signals.connect(self.lists_read, signal=site_lists_read)
        crawler.signals.connect(self.site_closed, signal=site_closed)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> IncrementalMiddleware:
        if not crawler.settings.getbool("POST_STORE_ENABLED"):
            raise NotConfigured("POST_STORE_ENABLED is off")
        return cls(crawler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for output in start:
            yield self.manager.conditional(output) if isinstance(output, Request) else output

    def process_spider_input(self, response: Response) -> None:
        # A list in another order than by date may still have changed further on: its
        # remembered next pages are asked for in turn.
        site = self.sites.of_request(response.request)  # type: ignore[arg-type]
        state = response.meta.get("page_state")
        if (
            response.status == 304
            and state is not None
            and site is not None
            and response.meta.get("list_page")
            and not site.layout.date_ordered
        ):
            response.meta["next_urls_unchanged"] = state.next_urls

    async def process_spider_output(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        site = self.sites.of_request(response.request)  # type: ignore[arg-type]
        post: PostItem | None = response.meta.get("post_item")
        if post is not None and response.status == 200 and site is not None:
            self.manager.remember(response, [], [post["id"]])  # a post page: its validators
        # Not a list page read (an error page's errback output passes here too): nothing to
        # remember or decide.
        if site is None or not response.meta.get("list_page") or response.status >= 400:
            async for output in result:
                yield output
            return
        if response.status == 304:
            async for output in result:
                yield self.manager.conditional(output) if isinstance(output, Request) else output
            state = response.meta["page_state"]
            ids = None if site.layout.date_ordered else state.post_ids
            for replayed in self.manager.replayed(site, ids):
                yield replayed
            return
        async for output in self._list_page(site, response, result):
            yield output

    async def _list_page(
        self, site: SiteCrawl, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        """A list page read: its posts (and the requests for their pages, when needed) go
        on as they come; the requests for further list pages wait until the page is read,
        in case it is the boundary of the news."""
        post_ids: list[str] = []
        known: list[bool] = []
        next_pages: list[Request] = []
        # Taken now: the site may close while its last page's output passes (nothing left in
        # flight once it is read), and what the manager keeps of it goes with it.
        memory = self.manager.memory(site)
        async for output in result:
            if isinstance(output, Request) and "post_item" in output.meta:
                item = output.meta["post_item"]
                item["stored"] = stored = self.manager.stored(item["id"])
                discovered = bool(item.get("discovered"))
                if discovered and stored is None and self.manager.read_before(site, output.url):
                    self.sites.answered(output)  # dropped: read before, and no post
                    self.sites.expect_items(site, -1)
                    self.sites.count(site.name, "discovery/known_not_posts")
                    known.append(True)
                    continue
                post_ids.append(item["id"])
                self.manager.given(site, item["id"])
                if rules.page_is_current(item, stored):
                    self.sites.answered(output)  # dropped: the store has the page
                    self.sites.count(site.name, "posts/pages_not_needed")
                    known.append(True)
                    if discovered:
                        merge_stored_post(item, stored)
                        self.sites.count(site.name, "layout/posts_extracted")
                    yield item
                else:
                    known.append(False)  # news here: older pages may hold more
                    yield self.manager.conditional(output)
            elif isinstance(output, Request):
                next_pages.append(output)
            else:
                if isinstance(output, PostItem) and output.get("id"):
                    if output.get("content") is None:  # the pipeline keeps the stored page
                        output["stored"] = self.manager.stored(output["id"])
                        known.append(output["stored"] is not None)
                    else:
                        known.append(self.manager.known(output["id"]))
                    post_ids.append(output["id"])
                    self.manager.given(site, output["id"])
                yield output
        self.manager.remember(response, [request.url for request in next_pages], post_ids)
        if rules.stop_at_page(
            incremental=memory.incremental,
            date_ordered=site.layout.date_ordered,
            posts_known=known,
        ):
            self.sites.count(site.name, "layout/stopped_at_known_page")
            logger.info(
                "%s: every post on %s is known; not reading older pages", site.name, response.url
            )
            for request in next_pages:
                self.sites.answered(request)  # dropped
            for replayed in self.manager.replayed(site, None):
                yield replayed
            return
        for request in next_pages:
            yield self.manager.conditional(request)

    # ---- signals -------------------------------------------------------------------------
    def lists_read(self, site: SiteCrawl) -> None:
        if site.content and self.crawler.engine is not None:
            for request in self.manager.retry_requests(site):
                self.crawler.engine.crawl(request)

    def site_closed(self, site: SiteCrawl, reason: str) -> None:
        self.manager.site_closed(site)

    def spider_closed(self, spider: object, reason: str) -> None:
        self.manager.close()
