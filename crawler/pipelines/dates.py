"""Normalise publication dates through :mod:`crawler.parsing.dates`, in the site's timezone."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from scrapy.crawler import Crawler

from crawler.items import PostItem
from crawler.parsing.dates import parse_date
from crawler.sites import DEFAULT_TIMEZONE
from crawler.state.site_crawls import SiteRun, count

logger = logging.getLogger(__name__)


def date_fields(raw: str | None, timezone: str, now: datetime) -> dict[str, str | None]:
    """``published_at`` and ``date_precision`` for a raw date text (both None if no date)."""
    parsed = parse_date(raw, timezone, now) if raw else None
    if parsed is None:
        return {"published_at": None, "date_precision": None}
    value = parsed.value
    # Milliseconds as the page gives them (…38.334+00:00), not padded to microseconds.
    spec = "milliseconds" if value.microsecond and value.microsecond % 1000 == 0 else "auto"
    return {"published_at": value.isoformat(timespec=spec), "date_precision": parsed.precision}


class DatesPipeline:
    """Fills ``published_at``, ``date_precision``, ``updated_at`` and ``crawled_at``.

    The item keeps ``published_raw``; a text that holds no date leaves ``published_at`` null
    (never the crawl time), logged with the page and counted as ``dates/unparsed``.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DatesPipeline:
        return cls(crawler)

    def _timezone(self, site: str | None) -> str:
        runs: dict[str, SiteRun] = getattr(self.crawler.spider, "site_runs", {})
        run = runs.get(site or "")
        return run.config.timezone if run else DEFAULT_TIMEZONE

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            return item  # taken from the store: dated when it was read
        now = datetime.now(UTC).replace(microsecond=0)
        item["crawled_at"] = now.isoformat()
        raw = item.get("published_raw")
        site = item.get("site")
        timezone = self._timezone(site)
        item.update(date_fields(raw, timezone, now))
        # The post page's update time, read the same way (null when it shows none).
        updated = item.get("updated_raw")
        if updated:
            item["updated_at"] = date_fields(updated, timezone, now)["published_at"]
        if item["published_at"] is not None:
            count(self.crawler, site, "dates/parsed")
        elif raw:
            count(self.crawler, site, "dates/unparsed")
            logger.warning(
                "unparsed date %r for %s on %s", raw, item.get("url"), item.get("source_page")
            )
        else:
            count(self.crawler, site, "dates/missing")
        return item
