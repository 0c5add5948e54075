"""Normalise publication dates through :mod:`crawler.dates`, in the site's timezone."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from scrapy.crawler import Crawler
from scrapy.spiders import Spider

from crawler.dates import parse_date
from crawler.items import PostItem
from crawler.sites import DEFAULT_TIMEZONE

logger = logging.getLogger(__name__)


def date_fields(raw: str | None, timezone: str, now: datetime) -> dict[str, str | None]:
    """``published_at`` and ``date_precision`` for a raw date text (both None if no date)."""
    parsed = parse_date(raw, timezone, now) if raw else None
    if parsed is None:
        return {"published_at": None, "date_precision": None}
    return {"published_at": parsed.value.isoformat(), "date_precision": parsed.precision}


class DatesPipeline:
    """Fills ``published_at``, ``date_precision`` and ``crawled_at``.

    The item keeps ``published_raw``; a text that holds no date leaves ``published_at`` null
    (never the crawl time), logged with the page and counted as ``dates/unparsed``.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DatesPipeline:
        return cls(crawler)

    def _timezone(self) -> str:
        spider: Spider | None = self.crawler.spider
        site = getattr(spider, "site", None)
        return getattr(site, "timezone", DEFAULT_TIMEZONE)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            return item  # taken from the store: dated when it was read
        now = datetime.now(UTC).replace(microsecond=0)
        item["crawled_at"] = now.isoformat()
        raw = item.get("published_raw")
        item.update(date_fields(raw, self._timezone(), now))
        if item["published_at"] is not None:
            self.stats.inc_value("dates/parsed")
        elif raw:
            self.stats.inc_value("dates/unparsed")
            logger.warning(
                "unparsed date %r for %s on %s", raw, item.get("url"), item.get("source_page")
            )
        else:
            self.stats.inc_value("dates/missing")
        return item
