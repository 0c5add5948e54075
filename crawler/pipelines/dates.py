"""Normalise a post's times through :mod:`crawler.parsing.dates`, in its site's timezone."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from scrapy.crawler import Crawler

from crawler.items import PostItem
from crawler.parsing.dates import post_dates
from crawler.sites import DEFAULT_TIMEZONE
from crawler.state.site_crawls import SiteCrawls

logger = logging.getLogger(__name__)


class DatesPipeline:
    """Fills ``published_at``, ``date_precision``, ``updated_at`` and ``crawled_at``.

    Times printed without an offset are read in the post's ``timezone`` (its site's, carried
    by the item). The item keeps ``published_raw``; a text that holds no date leaves
    ``published_at`` null (never the crawl time), logged with the page and counted as
    ``dates/unparsed``. ``updated_at`` is set only from an update time a page of this run
    printed (else it keeps what the store holds).
    """

    def __init__(self, crawler: Crawler) -> None:
        self.sites = SiteCrawls.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DatesPipeline:
        return cls(crawler)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            return item  # taken from the store: dated when it was read
        now = datetime.now(UTC).replace(microsecond=0)
        item["crawled_at"] = now.isoformat()
        # The post page's own publication time where it gave one (the time of day).
        raw = item.get("published_page") or item.get("published_raw")
        updated = item.get("updated_raw")
        dates = post_dates(raw, updated, item.get("timezone") or DEFAULT_TIMEZONE, now)
        item["published_at"], item["date_precision"] = (
            dates["published_at"],
            dates["date_precision"],
        )
        if updated:
            item["updated_at"] = dates["updated_at"]
        site = item.get("site")
        if item["published_at"] is not None:
            self.sites.count(site, "dates/parsed")
        elif raw:
            self.sites.count(site, "dates/unparsed")
            logger.warning(
                "unparsed date %r for %s on %s", raw, item.get("url"), item.get("source_page")
            )
        else:
            self.sites.count(site, "dates/missing")
        return item
