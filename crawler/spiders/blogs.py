"""The blog spiders: one per layout (``scrapy crawl LAYOUT``), each able to serve many sites.

:class:`BlogSpider` holds only the crawl strategy: the start page of every site, the list
pages each layout links, the page bound, the site's scope, and each post's own page. What a
page holds is its layout's (:mod:`crawler.layouts`); what is new since the last run is the
incremental middleware's (:mod:`crawler.incremental`); what the crawl knows of each site is
:class:`~crawler.state.site_crawls.SiteCrawls`'. One crawler serves every site of a run, so
Scrapy's downloader slots keep the politeness limits per host across all of them.

Its contract with the components that make requests for it: a post page is parsed by
``parse_post`` with ``post_failed`` as errback, its post in ``meta["post_item"]``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, ClassVar

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from twisted.python.failure import Failure

from crawler.arguments import validate_arguments
from crawler.discovery.detect import resolve_layout
from crawler.items import PostItem
from crawler.layouts import get_layout, layouts
from crawler.layouts.base import as_text, merge_post_page, merge_stored_post
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import canonical_url, post_id
from crawler.sites import SiteConfig
from crawler.spiders.failures import describe_failure
from crawler.state.site_crawls import SiteCrawl, SiteCrawls

logger = logging.getLogger(__name__)


class BlogSpider(scrapy.Spider):
    """Crawls the list pages of one or many sites, each read by its own layout, and the
    pages of their new or changed posts.

    ``scrapy crawl LAYOUT -a url=…`` (or ``-a site=NAME``) crawls one site; code (``crawlall``)
    passes ``sites=[SiteConfig, …]``, of any layouts, to crawl them all in one crawler.
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
            sites, self.full, self.content = [site], checked.full, checked.content
        else:  # from code: the sites, whether to read every list page and the post pages
            self.full = bool(arguments.pop("full", False))
            self.content = bool(arguments.pop("content", True))
        self.site_configs = list(sites)
        self.allowed_domains = sorted({site.host for site in self.site_configs})

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> BlogSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.sites = SiteCrawls.of(crawler)
        settings = crawler.settings
        throttle_loopback = settings.getbool("THROTTLE_LOOPBACK")
        for config in spider.site_configs:
            layout = get_layout(config.layout)
            spider.sites.add(
                SiteCrawl(
                    config=config,
                    layout=layout,
                    root=layout.site_root(config.url),
                    full=spider.full,
                    content=spider.content,
                    fast=config.is_loopback and not throttle_loopback,
                )
            )
        loopback = {site.config.host for site in spider.sites if site.fast}
        if loopback:
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
        return spider

    sites: SiteCrawls

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for site in self.sites:
            if self._first_time(site, site.config.url):
                yield self.list_request(site, site.config.url, start_page=True)

    @staticmethod
    def _first_time(site: SiteCrawl, url: str) -> bool:
        """True the first time this run meets ``url`` as a list page of ``site``."""
        key = canonical_url(url) or url  # as Scrapy's duplicate filter: no fragment
        if key in site.pages_seen:
            return False
        site.pages_seen.add(key)
        return True

    def list_request(self, site: SiteCrawl, url: str, **meta: bool) -> scrapy.Request:
        """A request for a list page of ``site`` (filtered per run by _first_time); ``meta``:
        ``start_page``, or ``probe`` for a page the site may not have."""
        site.pages_requested += 1
        return self.sites.requested(
            scrapy.Request(
                url,
                callback=self.parse,
                errback=self.request_failed,
                dont_filter=True,
                meta=site.meta(list_page=True, **meta),
            )
        )

    def post_request(self, site: SiteCrawl, item: PostItem) -> scrapy.Request:
        """A request for the page of the post ``item``, which it carries until answered.

        Post pages go before further list pages: a post waits in memory only as long as its
        page takes, and a site's posts leave the crawl as its list is read."""
        site.posts_asked.add(item["id"])
        item.update(post_page_failed=False, gone=False)  # until this request fails
        return self.sites.requested(
            scrapy.Request(
                item["url"],
                callback=self.parse_post,
                errback=self.post_failed,
                priority=1,
                dont_filter=True,
                meta=site.meta(post_item=item),
            )
        )

    def parse(self, response: Response, **kwargs: Any) -> Iterator[PostItem | scrapy.Request]:
        site = self.sites.of_request(response.request)  # type: ignore[arg-type]
        assert site is not None
        try:
            if response.status == 304:
                # Unchanged since the last run: the incremental middleware says which list
                # pages (if any) may still hold news behind it.
                self.sites.count(site.name, "layout/pages_unchanged")
                yield from self.follow(site, response, response.meta.get("next_urls_unchanged", ()))
                return
            yield from self.read_list_page(site, response)
        finally:
            self.sites.answered(response.request)  # type: ignore[arg-type]

    def read_list_page(
        self, site: SiteCrawl, response: Response
    ) -> Iterator[PostItem | scrapy.Request]:
        """The posts of one list page, then the requests for the list pages it links."""
        page = as_text(response)
        if response.meta.get("start_page") and site.config.layout == "auto":
            self._resolve(site, page)
        layout = site.layout
        problem = layout.page_problem(page)
        if problem:
            site.failures.append(f"{response.url}: {problem}")
            self.sites.count(site.name, "layout/wrong_pages")
            logger.error("%s: %s is %s", site.name, response.url, problem)
        try:
            items = layout.extract(page)
            next_urls = [page.urljoin(link) for link in layout.next_page_urls(page)]
        except Exception as exc:  # a page the layout cannot read: a failure of this site
            site.failures.append(f"{response.url}: cannot read it: {type(exc).__name__}: {exc}")
            self.sites.count(site.name, "layout/unreadable_pages")
            logger.error("%s: cannot read %s as %s: %s", site.name, response.url, layout.name, exc)
            logger.debug("the error reading %s", response.url, exc_info=True)
            return
        self.sites.count(site.name, "layout/list_pages")
        # A candidate of the generic reader counts as a post once its page says it is one.
        candidates = sum(1 for item in items if item.get("discovered"))
        self.sites.count(site.name, "layout/posts_extracted", len(items) - candidates)
        self.sites.count(site.name, "discovery/candidates", candidates)
        if not items:
            self.sites.count(site.name, "layout/empty_list_pages")
            # A guessed list page (a tag cloud) may well list no post itself.
            quiet = layout.guessed_pages and not response.meta.get("start_page")
            (logger.debug if quiet else logger.warning)(
                "no posts found on %s (layout %s)", response.url, layout.name
            )
        self.sites.expect_items(site, len(items))
        for item in items:
            item.update(
                site=site.name,
                layout=layout.name,
                source_page=response.url,
                timezone=site.config.timezone,
            )
            yield from self._post_or_page(site, item)
        yield from self.follow(site, response, next_urls)
        if response.meta.get("start_page"):
            probes = [page.urljoin(link) for link in layout.probe_urls(page)]
            yield from self.follow(site, response, probes, probe=True)

    def _resolve(self, site: SiteCrawl, page: TextResponse) -> None:
        """An ``auto`` site's start page says which layout reads the site."""
        layout, evidence = resolve_layout(page)
        if layout is not site.layout:
            logger.info("%s: read as %s (%s)", site.name, layout.name, "; ".join(evidence))
        site.read_by(layout)
        self.sites.count(site.name, f"layout/read_as_{layout.name}")

    def _post_or_page(self, site: SiteCrawl, item: PostItem) -> Iterator[PostItem | scrapy.Request]:
        """The post itself, or the request for its page when its content is to be read
        (the incremental middleware drops the requests for pages already read)."""
        url, post = item.get("url"), item.get("id")
        # A candidate of the generic reader is only an address: its page is always read.
        lists_only = not site.content and not item.get("discovered")
        if lists_only or item.get("content") is not None or not url or not post:
            yield item
        elif post in site.posts_asked:
            # Listed twice (a pinned post): its first sighting is being read; this one
            # would reach the pipelines first and be kept without content.
            self.sites.count(site.name, "posts/listed_again")
            self.sites.expect_items(site, -1)
        elif not site.on_site(url):
            self.sites.count(site.name, "posts/offsite_pages_skipped")
            logger.debug("not reading the post page %s: outside %s", url, site.root)
            yield item
        else:
            yield self.post_request(site, item)

    def parse_post(self, response: Response) -> Iterator[PostItem | scrapy.Request]:
        """A post's page: its body, tags, categories and update time join its list fields."""
        site = self.sites.of_request(response.request)  # type: ignore[arg-type]
        assert site is not None
        item: PostItem = response.meta["post_item"]
        try:
            if response.status == 304:  # as last read: the store keeps what it has
                self.sites.count(site.name, "posts/pages_unchanged")
                if item.get("discovered"):
                    merge_stored_post(item, item.get("stored"))
                    self.sites.count(site.name, "layout/posts_extracted")
                yield item
                return
            try:
                text = as_text(response)
                page = site.layout.read_post(text)
                extra = [text.urljoin(url) for url in site.layout.post_extra_urls(text)]
            except Exception as exc:  # a page the layout cannot read: this post's failure
                self._post_not_read(site, item, response.url, f"cannot read it: {exc}")
                logger.debug("the error reading %s", response.url, exc_info=True)
                yield item
                return
            if not page.is_post:  # a candidate whose page is no post (remembered as such)
                self.sites.count(site.name, "discovery/not_posts")
                self.sites.expect_items(site, -1)
                logger.debug("%s: %s is no post (%s)", site.name, response.url, page.evidence)
                # A section's index (VuePress, docs-like blogs) may be the only page that
                # links its posts: its links are followed as a list page's.
                yield from self.read_list_page(site, response)
                return
            if item.get("discovered"):
                self.sites.count(site.name, "layout/posts_extracted")
            if page.method is None:
                self._post_not_read(site, item, response.url, "no post body found")
            else:
                self.sites.count(site.name, f"posts/pages_read_by_{page.method}")
            merge_post_page(item, page.fields)
            if item.get("url") and item.get("discovered"):
                item["id"] = post_id(item["url"])  # its canonical address: one post, one id
            if extra:
                yield self.sites.requested(
                    scrapy.Request(
                        extra[0],
                        callback=self.parse_post_extra,
                        errback=self.post_extra_failed,
                        priority=2,
                        dont_filter=True,
                        meta=site.meta(post_item=item),
                    )
                )
                return
            yield item
        finally:
            self.sites.answered(response.request)  # type: ignore[arg-type]

    def parse_post_extra(self, response: Response) -> Iterator[PostItem]:
        """A further page of a post's fields (cnblogs' categories and tags)."""
        site = self.sites.of_request(response.request)  # type: ignore[arg-type]
        assert site is not None
        item: PostItem = response.meta["post_item"]
        try:
            text = as_text(response)
            loader = PostLoader(selector=text.selector, base_url=text.url)
            site.layout.populate_post_extra(loader, text)
            merge_post_page(item, loader.loaded())
        except Exception as exc:
            self._post_not_read(site, item, response.url, f"cannot read it: {exc}")
            logger.debug("the error reading %s", response.url, exc_info=True)
        finally:
            self.sites.answered(response.request)  # type: ignore[arg-type]
        yield item

    def post_failed(self, failure: Failure) -> Iterator[PostItem]:
        """A post page not had (after retries): the post goes on with its list fields; a
        404 or 410 marks it ``gone``."""
        request = failure.request  # type: ignore[attr-defined]
        site, item = self.sites.of_request(request), request.meta["post_item"]
        assert site is not None
        status = getattr(getattr(failure.value, "response", None), "status", None)
        if item.get("discovered") and not item.get("stored"):
            # A candidate never read: nothing says it is a post. Asked for again next run.
            self.sites.count(site.name, "discovery/candidates_not_read")
            self.sites.expect_items(site, -1)
            self.sites.answered(request)
            log = logger.debug if status in (404, 410) else logger.warning
            log("%s: candidate %s not read (%s)", site.name, request.url, describe_failure(failure))
            return
        if status in (404, 410):
            item["gone"] = True
            self.sites.count(site.name, "posts/gone")
        self._post_not_read(site, item, request.url, describe_failure(failure))
        self.sites.answered(request)
        yield item

    def post_extra_failed(self, failure: Failure) -> Iterator[PostItem]:
        """A post's extra page not had: the post goes on with what its page gave."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.sites.of_request(request)
        assert site is not None
        self._post_not_read(site, request.meta["post_item"], request.url, describe_failure(failure))
        self.sites.answered(request)
        yield request.meta["post_item"]

    def _post_not_read(self, site: SiteCrawl, item: PostItem, url: str, reason: str) -> None:
        """Count and log a post page (or its extra page) not read, with its URL."""
        item["post_page_failed"] = True
        site.post_failures.append(f"{url}: {reason}")
        self.sites.count(site.name, "posts/page_failures")
        logger.warning(
            "%s: post page %s not read (%s); the post keeps its list fields", site.name, url, reason
        )

    def follow(
        self, site: SiteCrawl, response: Response, urls: Iterable[str], probe: bool = False
    ) -> Iterator[scrapy.Request]:
        """Requests for the next list pages (``probe``: pages the site may not have): on the
        site only, within its ``max_pages``."""
        for url in urls:
            if not site.on_site(url):
                self.sites.count(site.name, "layout/offsite_links_skipped")
                logger.info("not following %s from %s: outside %s", url, response.url, site.root)
                continue
            if not self._first_time(site, url):
                continue
            if site.pages_requested >= site.config.max_pages:
                site.cut_short = True
                self.sites.count(site.name, "layout/page_limit_reached")
                logger.warning(
                    "page limit %d reached for site %s; not following %s from %s",
                    site.config.max_pages,
                    site.name,
                    url,
                    response.url,
                )
                continue
            yield self.list_request(site, url, probe=probe)

    def request_failed(self, failure: Failure) -> None:
        """Count and log a list page that failed for good (after retries), with its URL. A
        probe that missed, or a guessed list page that is not there (404, 410), is no
        failure of the site."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.sites.of_request(request)
        assert site is not None
        reason = describe_failure(failure)
        status = getattr(getattr(failure.value, "response", None), "status", None)
        guessed = site.layout.guessed_pages and not request.meta.get("start_page")
        if request.meta.get("probe") or (guessed and status in (404, 410)):
            self.sites.count(site.name, "discovery/pages_missing")
            logger.debug("%s: no list page at %s (%s)", site.name, request.url, reason)
            self.sites.answered(request)
            return
        site.failures.append(f"{request.url}: {reason}")
        self.sites.count(site.name, "layout/request_failures")
        logger.error("%s: could not fetch %s (%s)", site.name, request.url, reason)
        self.sites.answered(request)

    def closed(self, reason: str) -> None:
        """When the crawl ends, every site still open ends with it (``reason``).

        Scrapy calls this first of the ``spider_closed`` receivers, so the sites' own
        ``site_closed`` receivers run before any extension's ``spider_closed``."""
        self.sites.close_all(reason)


def _layout_spider(name: str) -> type[BlogSpider]:
    """The ``scrapy crawl NAME`` spider of layout ``name``: a BlogSpider for that layout."""
    class_name = "".join(part.capitalize() for part in name.replace("-", "_").split("_"))
    return type(
        f"{class_name}Spider",
        (BlogSpider,),
        {
            "name": name,
            "layout_name": name,
            "__module__": __name__,
            "__doc__": f"Crawls sites of the {name} layout (``scrapy crawl {name} -a url=…``).",
        },
    )


# One spider per layout, by the layout's name (CnblogsSpider is `scrapy crawl cnblogs`):
# Scrapy's spider loader finds them in this module.
for _name in layouts():
    _spider = _layout_spider(_name)
    globals()[_spider.__name__] = _spider
del _name, _spider
