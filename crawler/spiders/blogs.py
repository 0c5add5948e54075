"""The blog spiders: one per layout (``scrapy crawl LAYOUT``), each able to serve many sites.

:class:`BlogSpider` holds only the crawl strategy: the start page of every site, the list
pages each layout links, the page bound and the site's scope. What a page holds is its
layout's (:mod:`crawler.layouts`); what is new since the last run is the incremental
middleware's (:mod:`crawler.incremental`). One crawler serves every site of a run, so
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
from crawler.layouts import get_layout, layouts
from crawler.request_failures import describe_failure
from crawler.site_run import SiteRun, count, site_closed
from crawler.sites import SiteConfig

logger = logging.getLogger(__name__)


class BlogSpider(scrapy.Spider):
    """Crawls the list pages of one or many sites, each read by its own layout.

    ``scrapy crawl LAYOUT -a url=…`` (or ``-a site=NAME``) crawls one site; code (``crawlall``)
    passes ``sites=[SiteConfig, …]``, of any layouts, to crawl them all in one crawler.
    Per-site state lives in :class:`~crawler.site_run.SiteRun` objects, ``site_runs`` by name.
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
            sites, full = [site], checked.full
        else:  # from code: the sites, and whether to read every list page
            full = bool(arguments.pop("full", False))
        self.site_runs: dict[str, SiteRun] = {}
        for site in sites:
            layout = get_layout(site.layout)
            self.site_runs[site.name] = SiteRun(
                config=site, layout=layout, root=layout.site_root(site.url), full=full
            )
        self.allowed_domains = sorted({run.config.host for run in self.site_runs.values()})
        self._read: set[tuple[str, str]] = set()  # (site, list page) asked for: none twice

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

    def list_request(self, run: SiteRun, url: str) -> scrapy.Request:
        """A request for a list page of ``run``'s site, counted as pending for it."""
        run.pages_requested += 1
        run.pending += 1
        # AutoThrottle must not slow down a loopback host's slot (see from_crawler).
        fast = run.config.is_loopback and not self.crawler.settings.getbool("THROTTLE_LOOPBACK")
        return scrapy.Request(
            url,
            callback=self.parse,
            errback=self.request_failed,
            dont_filter=True,  # filtered per run by _first_time
            meta={"site": run.name, "list_page": True, "autothrottle_dont_adjust_delay": fast},
        )

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
            self.answered(run)

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
        yield from items
        yield from self.follow(run, response, next_urls)

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
        self.answered(run)

    def abandon(self, request: scrapy.Request) -> None:
        """A list-page request made by this spider that will not be sent (a middleware
        dropped it on purpose): it no longer keeps its site open."""
        self.answered(self.site_runs[request.meta["site"]])

    def answered(self, run: SiteRun) -> None:
        """One list-page request of ``run`` is done (its posts are counted as pending)."""
        run.pending -= 1
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
