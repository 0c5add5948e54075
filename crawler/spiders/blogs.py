"""The blog spiders: one per layout (``scrapy crawl LAYOUT``), each able to serve many sites.

:class:`BlogSpider` holds only the crawl strategy: the start page of every site, the list
pages each layout links, the page bound and the site's scope. What a page holds is its
layout's (:mod:`crawler.layouts`); what is new since the last run is the incremental
middleware's (:mod:`crawler.incremental.middleware`). One crawler serves every site of a run, so
Scrapy's downloader slots keep the politeness limits per host across all of them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, ClassVar

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure
from w3lib.url import canonicalize_url

from crawler.arguments import validate_arguments
from crawler.items import PostItem
from crawler.layouts import get_layout, layouts, merge_post_page
from crawler.parsing.loaders import PostLoader
from crawler.sites import SiteConfig
from crawler.spiders.failures import describe_failure
from crawler.state.site_crawls import SiteRun, count, site_closed, site_lists_read

logger = logging.getLogger(__name__)


class BlogSpider(scrapy.Spider):
    """Crawls the list pages of one or many sites, each read by its own layout.

    ``scrapy crawl LAYOUT -a url=…`` (or ``-a site=NAME``) crawls one site; code (``crawlall``)
    passes ``sites=[SiteConfig, …]``, of any layouts, to crawl them all in one crawler.
    Per-site state lives in :class:`~crawler.state.site_crawls.SiteRun` objects, ``site_runs`` by name.
    """

    # The layout a `scrapy crawl NAME` spider reads; None for the registry's spider.
    layout_name: ClassVar[str | None] = None

    def __init__(
        self, *args: Any, sites: Iterable[SiteConfig] | None = None, **kwargs: Any
    ) -> None:
        arguments = {k: kwargs.pop(k) for k in list(kwargs) if not k.startswith("_")}
        super().__init__(*args, **kwargs)
        if sites is None:  # `scrapy crawl LAYOUT -a …`: the arguments name one site
            checked, site = validate_arguments(self.name, arguments)
            sites, full, content = [site], checked.full, checked.content
        else:  # from code: the sites, whether to read every list page and the post pages
            full = bool(arguments.pop("full", False))
            content = bool(arguments.pop("content", True))
        self.site_runs: dict[str, SiteRun] = {}
        for site in sites:
            layout = get_layout(site.layout)
            self.site_runs[site.name] = SiteRun(
                config=site, layout=layout, root=layout.site_root(site.url), full=full,
                content=content,
            )  # fmt: skip
        self.allowed_domains = sorted({run.config.host for run in self.site_runs.values()})
        self._read: set[tuple[str, str]] = set()  # (site, list page) asked for: none twice
        self._posts_asked: set[str] = set()  # ids of the posts whose page was asked for

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> BlogSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        loopback = {run.config.host for run in spider.site_runs.values() if run.config.is_loopback}
        if loopback and not settings.getbool("THROTTLE_LOOPBACK"):
            # Politeness delays protect other people's servers; a site on this machine
            # (tests, the bundled samples, benchmarks) is crawled at full speed.
            if len(loopback) == len(spider.allowed_domains):
                settings.set("AUTOTHROTTLE_ENABLED", False, priority="spider")
                settings.set("DOWNLOAD_DELAY", 0, priority="spider")
            else:  # beside real sites: only the loopback hosts' download slots go fast
                slots = dict(settings.getdict("DOWNLOAD_SLOTS"))
                concurrency = settings.getint("CONCURRENT_REQUESTS")
                for host in loopback:
                    slots.setdefault(host, {"delay": 0, "concurrency": concurrency})
                settings.set("DOWNLOAD_SLOTS", slots, priority="spider")
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(spider.item_done, signal=signal)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for run in self.site_runs.values():
            if self._first_time(run, run.config.url):
                yield self.list_request(run, run.config.url)

    def _first_time(self, run: SiteRun, url: str) -> bool:
        """True the first time this run meets ``url`` as a list page of ``run``'s site."""
        key = (run.name, canonicalize_url(url))  # as Scrapy's duplicate filter: no fragment
        if key in self._read:
            return False
        self._read.add(key)
        return True

    def _request(self, run: SiteRun, url: str, **kwargs: Any) -> scrapy.Request:
        """A request of ``run``'s site, counted as pending for it."""
        run.pending += 1
        # AutoThrottle must not slow down a loopback host's slot (see from_crawler).
        fast = run.config.is_loopback and not self.crawler.settings.getbool("THROTTLE_LOOPBACK")
        meta = {"site": run.name, "autothrottle_dont_adjust_delay": fast, **kwargs.pop("meta")}
        return scrapy.Request(url, dont_filter=True, meta=meta, **kwargs)

    def list_request(self, run: SiteRun, url: str) -> scrapy.Request:
        """A request for a list page of ``run``'s site (filtered per run by _first_time)."""
        run.pages_requested += 1
        run.lists_pending += 1
        return self._request(
            run, url, callback=self.parse, errback=self.request_failed, meta={"list_page": True}
        )

    def post_request(self, run: SiteRun, item: PostItem) -> scrapy.Request:
        """A request for the page of the post ``item``, which it carries until answered.

        Post pages go before further list pages: a post waits in memory only as long as its
        page takes, and a site's posts leave the crawl as its list is read."""
        self._posts_asked.add(item["id"])
        item.update(post_page_failed=False, gone=False)  # until this request fails
        return self._request(
            run, item["url"], callback=self.parse_post, errback=self.post_failed, priority=1,
            meta={"post_item": item},
        )  # fmt: skip

    def parse(self, response: Response, **kwargs: Any) -> Iterator[PostItem | scrapy.Request]:
        run = self.site_runs[response.meta["site"]]
        try:
            if response.status == 304:
                # Unchanged since the last run: the incremental middleware says which list
                # pages (if any) may still hold news behind it.
                count(self.crawler, run.name, "layout/pages_unchanged")
                yield from self.follow(run, response, response.meta.get("next_urls_unchanged", ()))
                return
            yield from self.read_list_page(run, response)
        finally:
            self.answered(run, list_page=True)

    def read_list_page(
        self, run: SiteRun, response: Response
    ) -> Iterator[PostItem | scrapy.Request]:
        """The posts of one list page, then the requests for the list pages it links."""
        layout, crawler = run.layout, self.crawler
        problem = layout.page_problem(response)
        if problem:
            run.failures.append(f"{response.url}: {problem}")
            count(crawler, run.name, "layout/wrong_pages")
            logger.error("%s: %s is %s", run.name, response.url, problem)
        try:
            items = layout.extract(response, run.config)
            next_urls = [response.urljoin(link) for link in layout.next_page_urls(response)]
        except Exception as exc:  # a page the layout cannot read: a failure of this site
            run.failures.append(f"{response.url}: cannot read it: {type(exc).__name__}: {exc}")
            count(crawler, run.name, "layout/unreadable_pages")
            logger.error("%s: cannot read %s as %s: %s", run.name, response.url, layout.name,
                         exc)  # fmt: skip
            logger.debug("the error reading %s", response.url, exc_info=True)
            return
        count(crawler, run.name, "layout/list_pages")
        count(crawler, run.name, "layout/posts_extracted", len(items))
        if not items:
            count(crawler, run.name, "layout/empty_list_pages")
            logger.warning("no posts found on %s (layout %s)", response.url, layout.name)
        run.items_pending += len(items)
        for item in items:
            yield from self._post_or_page(run, item)
        yield from self.follow(run, response, next_urls)

    def _post_or_page(
        self, run: SiteRun, item: PostItem
    ) -> Iterator[PostItem | scrapy.Request]:
        """The post itself, or the request for its page when its content is to be read
        (the incremental middleware drops the requests for pages already read)."""
        url, post = item.get("url"), item.get("id")
        if not run.content or item.get("content") is not None or not url or not post:
            yield item
        elif post in self._posts_asked:
            # Listed twice (a pinned post): its first sighting is being read; this one
            # would reach the pipelines first and be kept without content.
            count(self.crawler, run.name, "posts/listed_again")
            run.items_pending -= 1
        elif not run.on_site(url):
            count(self.crawler, run.name, "posts/offsite_pages_skipped")
            logger.debug("not reading the post page %s: outside %s", url, run.root)
            yield item
        else:
            yield self.post_request(run, item)

    def retry_post_page(self, run: SiteRun, stored: dict[str, Any]) -> scrapy.Request | None:
        """A request for the page of a stored post whose page the last run did not get and
        that no list page of this run showed (None if this run already asked for it).

        The post goes on with its stored list fields and none of its page's: if the page
        fails again, the store pipeline keeps what was read of it, as for a listed post."""
        if stored["id"] in self._posts_asked:
            return None
        run.items_pending += 1  # the post goes through the pipelines again
        count(self.crawler, run.name, "posts/pages_retried")
        item = PostItem({name: value for name, value in stored.items() if name in PostItem.fields})
        item.update(content=None, word_count=None, updated_at=None)
        return self.post_request(run, item)

    def parse_post(self, response: Response) -> Iterator[PostItem | scrapy.Request]:
        """A post's page: its body, tags, categories and update time join its list fields."""
        run = self.site_runs[response.meta["site"]]
        item: PostItem = response.meta["post_item"]
        try:
            if response.status == 304:  # as last read: the store keeps what it has
                count(self.crawler, run.name, "posts/pages_unchanged")
                yield item
                return
            try:
                page = run.layout.read_post(response)
                extra = [response.urljoin(url) for url in run.layout.post_extra_urls(response)]
            except Exception as exc:  # a page the layout cannot read: this post's failure
                self._post_not_read(run, item, response.url, f"cannot read it: {exc}")
                logger.debug("the error reading %s", response.url, exc_info=True)
                yield item
                return
            if page.method is None:
                self._post_not_read(run, item, response.url, "no post body found")
            else:
                count(self.crawler, run.name, f"posts/pages_read_by_{page.method}")
            merge_post_page(item, page.fields)
            if extra:
                yield self._request(
                    run, extra[0], callback=self.parse_post_extra,
                    errback=self.post_extra_failed, priority=2, meta={"post_item": item},
                )  # fmt: skip
                return
            yield item
        finally:
            self.answered(run)

    def parse_post_extra(self, response: Response) -> Iterator[PostItem]:
        """A further page of a post's fields (cnblogs' categories and tags)."""
        run = self.site_runs[response.meta["site"]]
        item: PostItem = response.meta["post_item"]
        try:
            loader = PostLoader(selector=response.selector, base_url=response.url)
            run.layout.populate_post_extra(loader, response)
            merge_post_page(item, loader.loaded())
        except Exception as exc:
            self._post_not_read(run, item, response.url, f"cannot read it: {exc}")
            logger.debug("the error reading %s", response.url, exc_info=True)
        finally:
            self.answered(run)
        yield item

    def post_failed(self, failure: Failure) -> Iterator[PostItem]:
        """A post page not had (after retries): the post goes on with its list fields; a
        404 or 410 marks it ``gone``."""
        request = failure.request  # type: ignore[attr-defined]
        run, item = self.site_runs[request.meta["site"]], request.meta["post_item"]
        status = getattr(getattr(failure.value, "response", None), "status", None)
        if status in (404, 410):
            item["gone"] = True
            count(self.crawler, run.name, "posts/gone")
        self._post_not_read(run, item, request.url, describe_failure(failure))
        self.answered(run)
        yield item

    def post_extra_failed(self, failure: Failure) -> Iterator[PostItem]:
        """A post's extra page not had: the post goes on with what its page gave."""
        request = failure.request  # type: ignore[attr-defined]
        run = self.site_runs[request.meta["site"]]
        self._post_not_read(run, request.meta["post_item"], request.url,
                            describe_failure(failure))  # fmt: skip
        self.answered(run)
        yield request.meta["post_item"]

    def _post_not_read(self, run: SiteRun, item: PostItem, url: str, reason: str) -> None:
        """Count and log a post page (or its extra page) not read, with its URL."""
        item["post_page_failed"] = True
        run.post_failures.append(f"{url}: {reason}")
        count(self.crawler, run.name, "posts/page_failures")
        logger.warning("%s: post page %s not read (%s); the post keeps its list fields",
                       run.name, url, reason)  # fmt: skip

    def follow(
        self, run: SiteRun, response: Response, urls: Iterable[str]
    ) -> Iterator[scrapy.Request]:
        """Requests for the next list pages: on the site only, within its ``max_pages``."""
        for url in urls:
            if not run.on_site(url):
                count(self.crawler, run.name, "layout/offsite_links_skipped")
                logger.info("not following %s from %s: outside %s", url, response.url, run.root)
                continue
            if not self._first_time(run, url):
                continue
            if run.pages_requested >= run.config.max_pages:
                run.cut_short = True
                count(self.crawler, run.name, "layout/page_limit_reached")
                logger.warning(
                    "page limit %d reached for site %s; not following %s from %s",
                    run.config.max_pages, run.name, url, response.url,
                )  # fmt: skip
                continue
            yield self.list_request(run, url)

    def request_failed(self, failure: Failure) -> None:
        """Count and log a request that failed for good (after retries), with its URL."""
        request = failure.request  # type: ignore[attr-defined]
        run = self.site_runs[request.meta["site"]]
        reason = describe_failure(failure)
        run.failures.append(f"{request.url}: {reason}")
        count(self.crawler, run.name, "layout/request_failures")
        logger.error("%s: could not fetch %s (%s)", run.name, request.url, reason)
        self.answered(run, list_page=True)

    def abandon(self, request: scrapy.Request) -> None:
        """A request made by this spider that will not be sent (a middleware dropped it on
        purpose): it no longer keeps its site open."""
        run = self.site_runs[request.meta["site"]]
        self.answered(run, list_page=bool(request.meta.get("list_page")))

    def answered(self, run: SiteRun, list_page: bool = False) -> None:
        """One request of ``run`` is done (the posts it gave are counted as pending); the
        last of its list pages sends ``site_lists_read``, whose receivers may ask for more
        of the site's pages before it can close."""
        run.pending -= 1
        if list_page:
            run.lists_pending -= 1
            if run.lists_pending == 0 and not run.lists_read:
                run.lists_read = True
                self.crawler.signals.send_catch_log(site_lists_read, site_run=run)
        self._close_if_done(run)

    def item_done(self, item: Any, **kwargs: Any) -> None:
        """A post read by this spider went through the pipelines (kept, dropped or failed)."""
        run = self.site_runs.get(item.get("site", "")) if isinstance(item, PostItem) else None
        if run is not None and not item.get("replayed"):  # replayed posts were never pending
            run.items_pending -= 1
            self._close_if_done(run)

    def _close_if_done(self, run: SiteRun) -> None:
        """A site is done when no list page is awaited and its posts have been counted."""
        if run.pending == 0 and run.items_pending == 0 and run.reason is None:
            self._close_site(run, "finished")

    def _close_site(self, run: SiteRun, reason: str) -> None:
        run.reason, run.finished = reason, time.monotonic()
        self.crawler.signals.send_catch_log(site_closed, site_run=run, reason=reason)

    def closed(self, reason: str) -> None:
        """When the crawl ends, every site still open ends with it (``reason``).

        Scrapy calls this first of the ``spider_closed`` receivers, so the sites' own
        ``site_closed`` receivers run before any extension's ``spider_closed``."""
        for run in self.site_runs.values():
            if run.reason is None:
                # All requests done yet some not accounted for (dropped by a middleware):
                # the crawl itself finished, so the site did too.
                self._close_site(run, reason)


def _layout_spider(name: str) -> type[BlogSpider]:
    """The ``scrapy crawl NAME`` spider of layout ``name``: a BlogSpider for that layout."""
    class_name = "".join(part.capitalize() for part in name.replace("-", "_").split("_"))
    return type(f"{class_name}Spider", (BlogSpider,), {
        "name": name, "layout_name": name, "__module__": __name__,
        "__doc__": f"Crawls sites of the {name} layout (``scrapy crawl {name} -a url=…``).",
    })  # fmt: skip


# One spider per layout, by the layout's name (CnblogsSpider is `scrapy crawl cnblogs`):
# Scrapy's spider loader finds them in this module.
for _name in layouts():
    _spider = _layout_spider(_name)
    globals()[_spider.__name__] = _spider
del _name, _spider
