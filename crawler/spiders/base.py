"""The shared base of every layout spider: arguments, site scope, paging and extraction.

Contract for a layout (a subclass):

- ``name``: the layout's name, as used in ``scrapy crawl NAME`` and in the registry.
- ``post_nodes(response)``: the selectors of the posts on a list page, in page order. A node
  may be a post's wrapper element or the first element of a run of siblings.
- ``populate(loader, node, response)``: add each field's raw value(s) to the loader; the
  shared :class:`~crawler.loaders.PostLoader` cleans them.
- ``next_page_urls(response)``: the list pages to follow from this one (may be empty).
- optionally ``site_root(url)``: the URL prefix a site's pages share (the crawl stays inside).

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
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from scrapy.crawler import Crawler
from scrapy.http import Response

from crawler.items import PostItem
from crawler.loaders import PostLoader
from crawler.sites import SiteConfig, SiteError, resolve_site

logger = logging.getLogger(__name__)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


class SpiderArguments(BaseModel):
    """The ``-a`` arguments every layout spider takes, validated before the crawl starts."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    site: str | None = None
    full: bool = False
    max_pages: int | None = None

    @field_validator("full", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
        raise ValueError(f"expected 1/0, true/false, yes/no; got {value!r}")


def validate_arguments(
    layout: str, arguments: dict[str, Any]
) -> tuple[SpiderArguments, SiteConfig]:
    """Check ``-a`` arguments and resolve the site; raise :class:`SiteError` saying what is wrong.

    Arguments whose names start with ``_`` (Scrapyd's ``_job``) are not ours and pass through.
    """
    try:
        args = SpiderArguments.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"-a {'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise SiteError(f"bad spider argument: {problems}") from exc
    site = resolve_site(layout, url=args.url, site=args.site)
    if args.max_pages is not None:
        site = site.model_copy(update={"max_pages": max(1, args.max_pages)})
    return args, site


class LayoutSpider(scrapy.Spider):
    """Base class of the layout spiders; see the module docstring for the hook contract."""

    name: ClassVar[str] = "layout"  # type: ignore[misc]

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
            loader.replace_value("site", site.name)
            loader.replace_value("layout", cls.name)
            loader.replace_value("source_page", response.url)
            items.append(loader.load_item())
        return items

    # ---- crawling ------------------------------------------------------------------------
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

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> LayoutSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.site.is_loopback and not crawler.settings.getbool("THROTTLE_LOOPBACK"):
            # Politeness delays protect other people's servers; a site on this machine
            # (tests, the bundled samples, benchmarks) is crawled at full speed.
            crawler.settings.set("AUTOTHROTTLE_ENABLED", False, priority="spider")
            crawler.settings.set("DOWNLOAD_DELAY", 0, priority="spider")
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.site.url, callback=self.parse)

    def on_site(self, url: str) -> bool:
        """True for a URL inside this site (same scheme, host and root path)."""
        return url.startswith(self.root)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[PostItem | scrapy.Request]:
        stats = self.crawler.stats
        items = self.extract(response, self.site)
        stats.inc_value("layout/list_pages")
        stats.inc_value("layout/posts_extracted", len(items))
        if not items:
            stats.inc_value("layout/empty_list_pages")
            logger.warning("no posts found on %s (layout %s)", response.url, self.name)
        yield from items
        yield from self.follow_next_pages(response)

    def follow_next_pages(self, response: Response) -> Iterator[scrapy.Request]:
        """Requests for the next list pages: on this site only, within ``max_pages``."""
        stats = self.crawler.stats
        for link in self.next_page_urls(response):
            url = response.urljoin(link)
            if not self.on_site(url):
                stats.inc_value("layout/offsite_links_skipped")
                logger.info("not following %s from %s: outside %s", url, response.url, self.root)
                continue
            if self.pages_requested >= self.site.max_pages:
                stats.inc_value("layout/page_limit_reached")
                logger.warning(
                    "page limit %d reached for site %s; not following %s from %s",
                    self.site.max_pages,
                    self.site.name,
                    url,
                    response.url,
                )
                continue
            self.pages_requested += 1
            yield response.follow(url, callback=self.parse)
