"""The project's commands (``crawl``, ``crawlall``, ``detect``, ``savecase``) and what they
share: one-line refusals, and fetching one page with the project's settings."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn

import scrapy
from scrapy.crawler import Crawler, CrawlerProcessBase
from scrapy.http import Response
from scrapy.settings import BaseSettings
from twisted.python.failure import Failure

from crawler.extensions.summary import summaries_ready
from crawler.runs.summary import EXIT_USAGE, SiteSummary
from crawler.spiders.failures import describe_failure


@dataclass
class CrawlOutcome:
    """What a crawler did, once its crawl has ended: every site's summary, the stats."""

    summaries: list[SiteSummary] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, crawler: Crawler) -> CrawlOutcome:
        """An outcome filled when ``crawler``'s crawl ends."""
        outcome = cls()

        def keep(summaries: list[SiteSummary], stats: dict[str, Any]) -> None:
            outcome.summaries.extend(summaries)
            outcome.stats.update(stats)

        crawler.signals.connect(keep, signal=summaries_ready, weak=False)
        return outcome


# Scrapy's own INFO lines: its versions, the add-ons and components it enabled, the settings
# overridden, the spider opened and closed, pages a minute, the stats dump.
SCRAPY_INFO_LOGGERS = (
    "scrapy.utils.log",
    "scrapy.addons",
    "scrapy.middleware",
    "scrapy.crawler",
    "scrapy.core.engine",
    "scrapy.extensions.logstats",
    "scrapy.extensions.telnet",
    "scrapy.statscollectors",
)


def quiet_scrapy_info(settings: BaseSettings) -> None:
    """At ``LOG_LEVEL`` INFO, a run's log is its own lines (a line per site, the summary):
    Scrapy's own INFO lines are kept back, unless ``LOG_SCRAPY_INFO`` or DEBUG; its
    warnings and errors stay. Called once Scrapy has configured logging (its configuration
    resets the levels of the loggers below ``scrapy``), before the crawl."""
    if settings.getbool("LOG_SCRAPY_INFO") or settings["LOG_LEVEL"] == "DEBUG":
        return
    for name in SCRAPY_INFO_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def refuse(message: str) -> NoReturn:
    """Refuse the command line: one line on stderr (as argparse words its errors), exit 2."""
    print(f"scrapy: error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


class FetchError(Exception):
    """The page could not be fetched; the message says why (HTTP status, robots.txt, ...)."""


@dataclass
class _Fetched:
    response: Response | None = None
    error: str | None = None


class _FetchSpider(scrapy.Spider):
    """Requests one URL (redirects followed) and keeps the response."""

    name = "fetch-page"
    # One page, no items: no pipelines, store or exports. No retries: a person is waiting for
    # the answer, and a page that fails once is reported (they can run it again). (Spider
    # priority: above the project's settings, below the command line's -s.)
    # Scrapy declares it an attribute of the spider, not a ClassVar.
    custom_settings = {  # noqa: RUF012
        "ITEM_PIPELINES": {},
        "EXTENSIONS": {"crawler.extensions.outputs.OutputsExtension": None},
        "POST_STORE_ENABLED": False,
        "RETRY_ENABLED": False,
    }
    # A robots.txt that cannot be fetched is said at INFO only (crawler.middlewares.robots):
    # the page itself then fails the same way, and that is the one line printed.
    robotstxt_failure_level = logging.INFO
    # The project's components that need what this fetch turns off: removed here, rather than
    # each saying "Disabled ...: RETRY_ENABLED is off" where the answer is to be one line.
    unused_components: ClassVar[dict[str, tuple[str, ...]]] = {
        "DOWNLOADER_MIDDLEWARES": ("crawler.middlewares.retry_after.RetryAfterMiddleware",),
        "SPIDER_MIDDLEWARES": ("crawler.incremental.middleware.IncrementalMiddleware",),
    }

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        for name, paths in cls.unused_components.items():
            components = settings.getdict(name)
            components.update(dict.fromkeys(paths))
            settings.set(name, components, priority=settings.getpriority(name) or "project")

    def __init__(self, url: str, result: _Fetched, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url, self.result = url, result

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.url, callback=self.keep, errback=self.failed, dont_filter=True)

    def keep(self, response: Response) -> None:
        self.result.response = response

    def failed(self, failure: Failure) -> None:
        self.result.error = describe_failure(failure)


def fetch(process: CrawlerProcessBase, url: str) -> Response:
    """Fetch ``url`` with the project's settings; raise :class:`FetchError` if it fails."""
    result = _Fetched()
    process.crawl(_FetchSpider, url=url, result=result)
    process.start()
    if result.response is None:
        raise FetchError(f"could not fetch {url}: {result.error or 'no response'}")
    return result.response


def quiet(settings: BaseSettings) -> None:
    """Warnings only on stderr (the output is the report), unless ``-L``/``-s`` say otherwise."""
    settings.set("LOG_LEVEL", "WARNING", priority="spider")
