"""The incremental manager: what the store says about the pages and posts of a crawl.

It owns the store lookups of incremental crawling and applies the rules of
:mod:`crawler.incremental.rules`; the middleware only hands it what passes by. Only a site
whose last crawl was complete is read incrementally (after a crash, a failure or a page
bound, pages the last run never reached may hold posts the store does not know): the mark is
cleared when the site starts and set again when it ends complete.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.request import request_from_dict

from crawler.incremental import rules
from crawler.items import PostItem
from crawler.layouts import get_layout, layouts
from crawler.state.site_crawls import SiteCrawl, SiteCrawls
from crawler.store import crawler_store, store_failed
from crawler.store.base import PageState, StoreUnavailable

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def _or_else(default: Callable[..., Any]) -> Callable[[F], F]:
    """A store lookup that, when the store fails for good, stops the crawl once
    (:func:`~crawler.store.store_failed`) and answers ``default(*args)`` meanwhile: the
    crawl is ending, and what it gives then is not recorded."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def call(self: IncrementalManager, *args: Any) -> Any:
            try:
                return method(self, *args)
            except StoreUnavailable as exc:
                store_failed(self.crawler, exc)
                return default(*args)

        return cast(F, call)

    return wrap


# Sites whose marks are cleared in one transaction, in the registry's order: a commit per
# site would cost a long registry's unchanged run more than its conditional requests.
START_BATCH = 100


@dataclass
class _SiteMemory:
    """What the manager keeps of one site while it is crawled."""

    incremental: bool
    # Its mark before this run cleared it: put back if the site ends without a request
    # (cleared with a batch, never reached).
    was_complete: bool = False
    # Ids of the posts this run has given out, so that what is replayed or retried never
    # repeats them.
    given: set[str] = field(default_factory=set)


class IncrementalManager:
    """Store lookups and decisions for the incremental middleware, per site."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.sites = SiteCrawls.of(crawler)
        self.store = crawler_store(crawler)
        # A feed export of the crawl (-O/-o/FEEDS) must hold every post of the site.
        self.replay = bool(crawler.settings.getdict("FEEDS"))
        self._memory: dict[str, _SiteMemory] = {}
        self._unstarted: Iterator[SiteCrawl] | None = None

    def memory(self, site: SiteCrawl) -> _SiteMemory:
        found = self._memory.get(site.name)
        if found is None:
            if site.reason is not None:  # closed, its mark written: never started again
                return _SiteMemory(incremental=False)
            self._start([site, *self._next_unstarted(site, START_BATCH - 1)])
            found = self._memory.setdefault(site.name, _SiteMemory(incremental=False))
        return found

    def _next_unstarted(self, site: SiteCrawl, number: int) -> list[SiteCrawl]:
        """Up to ``number`` sites after ``site`` in the registry's order not started yet."""
        if self._unstarted is None:  # the sites as the spider made them, once
            self._unstarted = iter(list(self.sites))
        found: list[SiteCrawl] = []
        while len(found) < number:
            other = next(self._unstarted, None)
            if other is None:
                break
            if other is not site and other.name not in self._memory and other.reason is None:
                found.append(other)
        return found

    @_or_else(lambda sites: None)
    def _start(self, sites: list[SiteCrawl]) -> None:
        """Whether each site is read incrementally (its memory); their marks cleared until
        each ends complete. An ``auto`` site is read by the layout the store says read it
        last (its start page may answer 304, which says nothing), until its start page
        says otherwise."""
        for site in sites:
            if not site.resolved:
                found = self.store.site_layout(site.name)
                if found in layouts():
                    site.read_by(get_layout(found))
            was_complete = self.store.crawl_complete(site.name)
            self.store.set_crawl_complete(site.name, False)
            self._memory[site.name] = _SiteMemory(not site.full and was_complete, was_complete)
        # Durable before any page of these sites is read: a run killed midway leaves them
        # to be read whole next time, whatever it recorded.
        self.store.flush()

    def given(self, site: SiteCrawl, post_id: str) -> None:
        self.memory(site).given.add(post_id)

    # ---- requests ------------------------------------------------------------------------
    @_or_else(lambda request: request)
    def conditional(self, request: Request) -> Request:
        """The request with the validators of the page's last answer, where the rules allow
        (the stored state goes along in ``page_state``)."""
        site = self.sites.of_request(request)
        if site is None:
            return request
        item = request.meta.get("post_item")
        allowed = rules.ask_conditionally(
            list_page=bool(request.meta.get("list_page")),
            # An auto site of no known layout yet needs its start page whole.
            incremental=self.memory(site).incremental and site.resolved,
            stored=item.get("stored") if item is not None else None,
        )
        state = self.store.page_state(request.url) if allowed else None
        headers = rules.validator_headers(state)
        if headers:
            request.headers.update(headers)
            request.meta["page_state"] = state
            request.meta["handle_httpstatus_list"] = [304]
        return request

    @_or_else(lambda post_id: None)
    def stored(self, post_id: str) -> dict[str, Any] | None:
        """The stored values of a post (None: new), the one time they are read in a run:
        the post carries them on to the store pipeline."""
        return next(self.store.posts_by_id([post_id]), None)

    @_or_else(lambda post_id: False)
    def known(self, post_id: str) -> bool:
        return self.store.seen(post_id)

    @_or_else(lambda site, url: False)
    def read_before(self, site: SiteCrawl, url: str) -> bool:
        """True if an earlier run read the page at ``url`` (a candidate of the generic
        reader that is no stored post was then no post); never in a full run."""
        return not site.full and self.store.page_state(url) is not None

    @_or_else(lambda *args: None)
    def remember(self, response: Response, next_urls: list[str], post_ids: list[str]) -> None:
        """Keep a page's validators, next links and posts, under the URL first asked for."""
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        url = response.meta.get("redirect_urls", [response.url])[0]
        state = PageState(
            etag.decode("latin-1") if etag else None,
            modified.decode("latin-1") if modified else None,
            tuple(next_urls),
            tuple(post_ids),
        )
        self.store.remember_page(url, state)

    # ---- posts not read from a page this run ---------------------------------------------
    def replayed(self, site: SiteCrawl, ids: Iterable[str] | None) -> Iterator[PostItem]:
        """Posts not read this run, as last stored: those of an unchanged page (``ids``) or
        every other post of the site; only when a feed export needs the whole site."""
        if not self.replay:
            return
        memory = self.memory(site)
        try:
            posts = list(
                self.store.site_posts(site.name) if ids is None else self.store.posts_by_id(ids)
            )
        except StoreUnavailable as exc:
            store_failed(self.crawler, exc)
            return
        for post in posts:
            if not rules.replayable(post, memory.given, content=site.content):
                continue
            memory.given.add(post["id"])
            self.sites.count(site.name, "layout/posts_from_store")
            yield PostItem({k: v for k, v in post.items() if k in PostItem.fields}, replayed=True)

    @_or_else(lambda site: [])
    def retry_requests(self, site: SiteCrawl) -> list[Request]:
        """Requests for the pages of the site's posts that the last run did not get and no
        list page showed this run. Each post goes on with its stored list fields and none of
        its page's: if the page fails again, the store pipeline keeps what was read of it.
        The requests are the spider's post-page requests (its ``parse_post``)."""
        memory = self.memory(site)
        spider = self.crawler.spider
        requests = []
        awaiting = list(self.store.posts_to_retry(site.name))
        for stored in rules.posts_to_retry(awaiting, memory.given):
            memory.given.add(stored["id"])
            site.posts_asked.add(stored["id"])
            item = PostItem({k: v for k, v in stored.items() if k in PostItem.fields})
            item.update(
                content=None,
                word_count=None,
                updated_at=None,
                stored=stored,
                post_page_failed=False,
                gone=False,
                timezone=site.config.timezone,
            )
            request = request_from_dict(
                {
                    "url": stored["url"],
                    "callback": "parse_post",
                    "errback": "post_failed",
                    "priority": 1,
                    "dont_filter": True,
                    "meta": site.meta(post_item=item),
                },
                spider=spider,
            )
            self.sites.expect_items(site, 1)
            self.sites.count(site.name, "posts/pages_retried")
            requests.append(self.conditional(self.sites.requested(request)))
        return requests

    def site_closed(self, site: SiteCrawl) -> None:
        # Kept for a feed export: what is replayed after the site closed must not repeat
        # what it gave (a long registry without -O keeps nothing of a closed site).
        memory = self._memory.get(site.name) if self.replay else self._memory.pop(site.name, None)
        if memory is not None:
            self._mark(site, memory)

    @_or_else(lambda site, memory: None)
    def _mark(self, site: SiteCrawl, memory: _SiteMemory) -> None:
        # Committed with the next batch or at the end: a mark lost with a crash only makes
        # the next run read the site whole.
        reached = site.started is not None
        self.store.set_crawl_complete(site.name, site.complete if reached else memory.was_complete)
        if site.config.layout == "auto" and site.resolved:
            self.store.set_site_layout(site.name, site.layout.name)

    @_or_else(lambda: None)
    def close(self) -> None:
        self.store.flush()
