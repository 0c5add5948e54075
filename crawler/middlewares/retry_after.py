"""Honour ``Retry-After`` on 429 and 503: wait as the server asks (bounded), then retry."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import get_retry_request
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.utils.defer import deferred_to_future
from twisted.internet.task import deferLater

logger = logging.getLogger(__name__)


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class RetryAfterMiddleware:
    """On a 429 or 503 with ``Retry-After``, waits that long and retries (Scrapy's retry
    budget and stats); asks beyond ``RETRY_AFTER_MAX`` seconds are not waited for: the request
    fails (reported with its URL) instead of hammering or stalling the run.

    Runs before Scrapy's RetryMiddleware, which retries at once and would ignore the header.
    """

    CODES = (429, 503)

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.max_wait = crawler.settings.getfloat("RETRY_AFTER_MAX")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RetryAfterMiddleware:
        if not crawler.settings.getbool("RETRY_ENABLED"):
            raise NotConfigured("RETRY_ENABLED is off")
        return cls(crawler)

    async def process_response(self, request: Request, response: Response) -> Request | Response:
        if response.status not in self.CODES or request.meta.get("dont_retry"):
            return response
        header = response.headers.get("Retry-After")
        delay = retry_after_seconds(header.decode("latin-1") if header else None)
        if delay is None:
            return response  # no header: Scrapy's RetryMiddleware retries as usual
        stats = self.crawler.stats
        if delay > self.max_wait:
            stats.inc_value("retry_after/too_long")
            logger.error(
                "%s asks to wait %.0fs (Retry-After), more than RETRY_AFTER_MAX=%.0fs: giving up",
                request.url,
                delay,
                self.max_wait,
            )
            request.meta["dont_retry"] = True
            return response
        assert self.crawler.spider is not None
        retry = get_retry_request(
            request, spider=self.crawler.spider, reason=f"{response.status} Retry-After"
        )
        if retry is None:
            return response  # retries used up: the failure is reported
        stats.inc_value("retry_after/waited")
        logger.info("%s: waiting %.1fs as Retry-After asks", request.url, delay)
        # Imported here: importing the reactor at module load would install the default one
        # before Scrapy installs the configured reactor.
        from twisted.internet import reactor

        await deferred_to_future(deferLater(reactor, delay, lambda: None))
        return retry
