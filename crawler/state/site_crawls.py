"""What the running crawl knows of each site: its scope, counts, failures and progress.

One crawler serves every site of a run, so what a run knows of a site lives here, keyed by
the site's name, in one component per crawler (:meth:`SiteCrawls.of`) that the spider, the
incremental middleware, the pipelines and the run summary all talk to. It counts what each
site has in flight (requests made and not answered, posts not yet through the pipelines)
and says by signal when a site's lists are read (:data:`site_lists_read`) and when it is
done (:data:`site_closed`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.crawler import Crawler

from crawler.items import PostItem
from crawler.sites import SiteConfig

if TYPE_CHECKING:
    from crawler.layouts.base import Layout

# Sent once per site when every list page it asked for is answered (or dropped), with
# ``site`` (a SiteCrawl): what the lists show is known; pages of posts they did not show
# may be asked for now.
site_lists_read = object()
# Sent once per site when nothing of it is in flight any more (or the crawl ends first),
# with ``site`` and ``reason`` ("finished", or the crawl's close reason).
site_closed = object()


@dataclass(eq=False)
class SiteCrawl:
    """One site in the running crawl."""

    config: SiteConfig
    layout: type[Layout]
    root: str  # the prefix of every page of the site: the crawl stays inside
    full: bool = False  # read every list page (-a full / --full)
    content: bool = True  # read post pages (-a content=0 / --no-content: lists only)
    # On this machine and not THROTTLE_LOOPBACK: AutoThrottle must not slow its slot down.
    fast: bool = False
    pages_requested: int = 0  # list pages asked for, against config.max_pages
    # A next page not followed because of max_pages: the list was not read to its end.
    cut_short: bool = False
    failures: list[str] = field(default_factory=list)  # "URL: reason" of each failed request
    # "URL: reason" of each post page not read: the posts keep their list fields, and the
    # pages are asked for again next run; the list itself was read (so still complete).
    post_failures: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    pages_seen: set[str] = field(default_factory=set)  # list pages met (canonical URLs)
    posts_asked: set[str] = field(default_factory=set)  # ids whose page was asked for
    pending: int = 0  # requests made and not yet answered (list pages among them)
    lists_pending: int = 0
    lists_read: bool = False
    items_pending: int = 0  # posts read from its pages and not yet through the pipelines
    # When its first request was made (a long registry's sites start one after another).
    started: float | None = None
    finished: float | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def duration(self) -> float:
        end = self.finished or time.monotonic()
        return end - (self.started or end)

    @property
    def complete(self) -> bool:
        """Every list page it meant to read was read: finished, nothing failed or cut short."""
        return self.reason == "finished" and not self.failures and not self.cut_short

    def read_by(self, layout: type[Layout]) -> None:
        """The layout that reads the site from now on (an ``auto`` site's, once its start
        page or the store said which), and the scope that comes with it."""
        self.layout, self.root = layout, layout.site_root(self.config.url)

    @property
    def resolved(self) -> bool:
        """False while an ``auto`` site's layout is not known yet."""
        return self.layout.name != "auto"

    def on_site(self, url: str) -> bool:
        """True for a URL inside this site (same scheme, host and root path)."""
        return url.startswith(self.root)

    def meta(self, **extra: Any) -> dict[str, Any]:
        """The ``meta`` of a request for one of the site's pages."""
        return {"site": self.name, "autothrottle_dont_adjust_delay": self.fast, **extra}


class SiteCrawls:
    """The sites of one crawler's run, by name: one per crawler (:meth:`of`)."""

    _of: ClassVar[WeakKeyDictionary[Crawler, SiteCrawls]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.sites: dict[str, SiteCrawl] = {}
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self.item_done, signal=signal)

    @classmethod
    def of(cls, crawler: Crawler) -> SiteCrawls:
        """The crawler's sites (made on the first call)."""
        found = cls._of.get(crawler)
        if found is None:
            found = cls._of[crawler] = cls(crawler)
        return found

    def add(self, site: SiteCrawl) -> SiteCrawl:
        self.sites[site.name] = site
        return site

    def get(self, name: str | None) -> SiteCrawl | None:
        return self.sites.get(name or "")

    def __iter__(self) -> Iterator[SiteCrawl]:
        return iter(self.sites.values())

    def __len__(self) -> int:
        return len(self.sites)

    def of_request(self, request: Request) -> SiteCrawl | None:
        """The site a request was made for (its ``site`` meta)."""
        return self.sites.get(request.meta.get("site", ""))

    def count(self, site: str | None, key: str, value: int = 1) -> None:
        """Add ``value`` to the crawl stat ``key`` and to the same count of the site."""
        stats = self.crawler.stats  # set once the crawl starts, after this component is made
        assert stats is not None
        stats.inc_value(key, value)
        found = self.sites.get(site or "")
        if found is not None:
            found.counts[key] += value

    # ---- what is in flight ---------------------------------------------------------------
    def requested(self, request: Request) -> Request:
        """A request of a site is made: it keeps the site open until answered or dropped."""
        site = self.of_request(request)
        if site is not None:
            if site.started is None:
                site.started = time.monotonic()
            site.pending += 1
            if request.meta.get("list_page"):
                site.lists_pending += 1
        return request

    def answered(self, request: Request) -> None:
        """A request of a site is done (answered, failed, or dropped on purpose); the last of
        its list pages sends :data:`site_lists_read`, whose receivers may ask for more of the
        site's pages before it can close."""
        site = self.of_request(request)
        if site is None:
            return
        site.pending -= 1
        if request.meta.get("list_page"):
            site.lists_pending -= 1
            if site.lists_pending == 0 and not site.lists_read:
                site.lists_read = True
                self.crawler.signals.send_catch_log(site_lists_read, site=site)
        self._close_if_done(site)

    def expect_items(self, site: SiteCrawl, number: int) -> None:
        """``number`` posts of the site are on their way to the pipelines (or to a page)."""
        site.items_pending += number

    def item_done(self, item: Any, **kwargs: Any) -> None:
        """A post went through the pipelines (kept, dropped or failed)."""
        if not isinstance(item, PostItem) or item.get("replayed"):
            return  # replayed posts were never pending
        site = self.sites.get(item.get("site", ""))
        if site is not None:
            site.items_pending -= 1
            self._close_if_done(site)

    def _close_if_done(self, site: SiteCrawl) -> None:
        if site.pending == 0 and site.items_pending == 0 and site.reason is None:
            self._close(site, "finished")

    def _close(self, site: SiteCrawl, reason: str) -> None:
        site.reason, site.finished = reason, time.monotonic()
        self.crawler.signals.send_catch_log(site_closed, site=site, reason=reason)
        # What only the running site needed (a long registry's sites close one by one).
        site.pages_seen.clear()
        site.posts_asked.clear()

    def close_all(self, reason: str) -> None:
        """The crawl ends: every site still open ends with it (``reason``)."""
        for site in self.sites.values():
            if site.reason is None:
                # All requests done yet some not accounted for: the crawl itself finished,
                # so the site did too.
                self._close(site, reason)
