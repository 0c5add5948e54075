"""The shared base of every layout spider: arguments, site scope, paging and extraction.

Contract for a layout (a subclass):

- ``name``: the layout's name, as used in ``scrapy crawl NAME`` and in the registry.
- ``post_nodes(response)``: the selectors of the posts on a list page, in page order. A node
  may be a post's wrapper element or the first element of a run of siblings.
- ``populate(loader, node, response)``: add each field's raw value(s) to the loader; the
  shared :class:`~crawler.loaders.PostLoader` cleans them.
- ``next_page_urls(response)``: the list pages to follow from this one (may be empty).
- optionally ``site_root(url)``: the URL prefix a site's pages share (the crawl stays inside).
- ``signature``: selectors that mark a page of this layout, for ``scrapy detect``.
- ``date_ordered``: False for lists not sorted newest first (read whole on every run).

The hooks are pure functions of a response: :meth:`LayoutSpider.extract` runs them on a saved
page in tests exactly as the crawl does. The spider itself only decides what to follow.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit

import scrapy
from parsel import Selector
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from crawler.arguments import validate_arguments
from crawler.items import PostItem
from crawler.loaders import PostLoader
from crawler.runs import acquire_store, release_store
from crawler.sites import SiteConfig
from crawler.store import PageState, PostStore

logger = logging.getLogger(__name__)

class LayoutSpider(scrapy.Spider):
    """Base class of the layout spiders; see the module docstring for the hook contract."""

    name: ClassVar[str] = "layout"  # type: ignore[misc]

    # Selectors (CSS, or XPath when starting with "/" or "(") whose matches mark a page of this
    # layout; ``scrapy detect`` reports which matched, as evidence.
    signature: ClassVar[tuple[str, ...]] = ()

    # ---- hooks a layout implements (pure functions of a response) -----------------------
    @classmethod
    def post_nodes(cls, response: Response) -> Iterable[Selector]:
        """Selectors of the posts on a list page, in page order."""
        raise NotImplementedError

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: Response) -> None:
        """Add the raw values of one post's fields to ``loader``."""
        raise NotImplementedError

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        """Links to further list pages (relative or absolute)."""
        return ()

    @classmethod
    def page_problem(cls, response: Response) -> str | None:
        """Why the page cannot be of this layout at all (e.g. HTML where a feed belongs)."""
        return None

    @classmethod
    def site_root(cls, url: str) -> str:
        """The prefix every page of the site shares; default: scheme and host."""
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}/"

    # ---- extraction: pure --------------------------------------------------------------
    @classmethod
    def extract(cls, response: Response, site: SiteConfig) -> list[PostItem]:
        """The post items on one page, without dates normalised (see ``DatesPipeline``)."""
        items = []
        for node in cls.post_nodes(response):
            loader = PostLoader(selector=node, base_url=response.url)
            cls.populate(loader, node, response)
            item = loader.load_item()
            item.update(site=site.name, layout=cls.name, source_page=response.url)
            items.append(item)
        return items

    # ---- crawling ------------------------------------------------------------------------
    # Lists newest first: once a whole page holds only known posts, older pages hold no news.
    # A list sorted otherwise (the cards "hot" list, by views) sets this False: read whole.
    date_ordered: ClassVar[bool] = True

    def __init__(self, *args: Any, site_config: SiteConfig | None = None, **kwargs: Any) -> None:
        """``site_config`` (from code, e.g. ``crawlall``) replaces ``-a url=``/``-a site=``."""
        arguments = {k: kwargs.pop(k) for k in list(kwargs) if not k.startswith("_")}
        super().__init__(*args, **kwargs)
        if site_config is not None:
            arguments.setdefault("url", site_config.url)
        self.arguments, self.site = validate_arguments(self.name, arguments)
        if site_config is not None:
            self.site = site_config
        self.allowed_domains = [self.site.host]
        self.root = self.site_root(self.site.url)
        self.pages_requested = 1
        self.failures: list[str] = []  # "URL: reason" of every request that failed
        self.store: PostStore | None = None
        self.incremental = False
        # Ids of the posts this run has given out, so that what is taken from the store for
        # unread pages never repeats (or overrides) a post read this run.
        self.given: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> LayoutSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        if spider.site.is_loopback and not settings.getbool("THROTTLE_LOOPBACK"):
            # Politeness delays protect other people's servers; a site on this machine
            # (tests, the bundled samples, benchmarks) is crawled at full speed.
            settings.set("AUTOTHROTTLE_ENABLED", False, priority="spider")
            settings.set("DOWNLOAD_DELAY", 0, priority="spider")
        if settings.getbool("POST_STORE_ENABLED", True):
            spider.store = acquire_store(settings)
            crawler.signals.connect(spider._closed, signal=signals.spider_closed)
            # Only a site whose last crawl finished can be read incrementally: after a crash,
            # pages the dead run never reached may hold posts the store does not know.
            site = spider.site.name
            spider.incremental = not spider.arguments.full and spider.store.crawl_complete(site)
            spider.store.set_crawl_complete(site, False)
            spider.store.flush()
        return spider

    def _closed(self, spider: scrapy.Spider, reason: str) -> None:
        assert self.store is not None
        # finished with no failed request: every page it meant to read was read.
        self.store.set_crawl_complete(self.site.name, reason == "finished" and not self.failures)
        self.store.flush()
        release_store(self.crawler.settings)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield self.list_request(self.site.url)

    def list_request(self, url: str) -> scrapy.Request:
        """A request for a list page; conditional when the last run saw the page."""
        headers = {}
        state = self.store.page_state(url) if self.incremental and self.store else None
        if state is not None:
            if state.etag:
                headers["If-None-Match"] = state.etag
            if state.last_modified:
                headers["If-Modified-Since"] = state.last_modified
        return scrapy.Request(
            url,
            callback=self.parse,
            errback=self.request_failed,
            headers=headers,
            meta={"handle_httpstatus_list": [304], "page_state": state},
        )

    def on_site(self, url: str) -> bool:
        """True for a URL inside this site (same scheme, host and root path)."""
        return url.startswith(self.root)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[PostItem | scrapy.Request]:
        stats = self.crawler.stats
        if response.status == 304:
            stats.inc_value("layout/pages_unchanged")
            state: PageState = response.meta["page_state"]
            # Nothing new on a date-ordered list: the whole site is as stored. A list in
            # another order may still have changed further on: its remembered next pages are
            # asked for in turn.
            if self.date_ordered:
                yield from self.from_store()
            else:
                yield from self.from_store(state.post_ids)
                yield from self.follow(response, state.next_urls)
            return
        problem = self.page_problem(response)
        if problem:
            self.failures.append(f"{response.url}: {problem}")
            stats.inc_value("layout/wrong_pages")
            logger.error("%s: %s is %s", self.site.name, response.url, problem)
        items = self.extract(response, self.site)
        stats.inc_value("layout/list_pages")
        stats.inc_value("layout/posts_extracted", len(items))
        if not items:
            stats.inc_value("layout/empty_list_pages")
            logger.warning("no posts found on %s (layout %s)", response.url, self.name)
        # Decided before the items go to the store, which then knows them.
        stop_here = (
            self.incremental
            and self.date_ordered
            and bool(items)
            and self.store is not None
            and all(self.store.seen(item["id"]) for item in items if item.get("id"))
        )
        self.given.update(item["id"] for item in items if item.get("id"))
        yield from items
        next_urls = [response.urljoin(link) for link in self.next_page_urls(response)]
        self.remember(response, next_urls, items)
        if stop_here:
            stats.inc_value("layout/stopped_at_known_page")
            logger.info("%s: every post on %s is known; not reading older pages",
                        self.site.name, response.url)  # fmt: skip
            yield from self.from_store()
            return
        yield from self.follow(response, next_urls)

    def from_store(self, ids: Iterable[str] | None = None) -> Iterator[PostItem]:
        """Posts not read this run, as last stored: those of an unchanged page (``ids``) or,
        when the crawl stops early, every other post of the site — so a ``-O`` file always
        holds the whole site, while the run's delta holds only what changed."""
        if self.store is None:
            return
        posts = self.store.site_posts(self.site.name) if ids is None else (
            self.store.posts_by_id(ids))  # fmt: skip
        for post in posts:
            if post["id"] in self.given:
                continue
            self.given.add(post["id"])
            self.crawler.stats.inc_value("layout/posts_from_store")
            yield PostItem({k: v for k, v in post.items() if k in PostItem.fields}, replayed=True)

    def remember(self, response: Response, next_urls: list[str], items: list[PostItem]) -> None:
        """Keep the page's validators, next links and posts, under the URL first asked for."""
        if self.store is None:
            return
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        url = response.meta.get("redirect_urls", [response.url])[0]
        self.store.remember_page(url, PageState(
            etag.decode("latin-1") if etag else None,
            modified.decode("latin-1") if modified else None,
            tuple(next_urls),
            tuple(item["id"] for item in items if item.get("id")),
        ))  # fmt: skip

    def follow(self, response: Response, urls: Iterable[str]) -> Iterator[scrapy.Request]:
        """Requests for the next list pages: on this site only, within ``max_pages``."""
        stats = self.crawler.stats
        for url in urls:
            if not self.on_site(url):
                stats.inc_value("layout/offsite_links_skipped")
                logger.info("not following %s from %s: outside %s", url, response.url, self.root)
                continue
            if self.pages_requested >= self.site.max_pages:
                stats.inc_value("layout/page_limit_reached")
                logger.warning(
                    "page limit %d reached for site %s; not following %s from %s",
                    self.site.max_pages, self.site.name, url, response.url,
                )  # fmt: skip
                continue
            self.pages_requested += 1
            yield self.list_request(url)

    def request_failed(self, failure: Failure) -> None:
        """Count and log a request that failed for good (after retries), with its URL."""
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(HttpError):
            reason = f"HTTP {failure.value.response.status}"
        else:
            # Some Twisted errors carry no message: name the error alone then.
            message = failure.getErrorMessage().strip()
            reason = failure.type.__name__ + (f": {message}" if message else "")
        self.failures.append(f"{request.url}: {reason}")
        self.crawler.stats.inc_value("layout/request_failures")
        logger.error("%s: could not fetch %s (%s)", self.site.name, request.url, reason)
