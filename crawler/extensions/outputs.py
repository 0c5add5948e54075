"""Publish the run's outputs when a crawl ends (``scrapy crawl``)."""

from __future__ import annotations

import logging
import time

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.runs.ids import run_id
from crawler.runs.publish import publish_outputs
from crawler.store import crawler_store, store_has_failed

logger = logging.getLogger(__name__)


class OutputsExtension:
    """After a crawl, writes the dataset, the run's changes, the feeds and the report.

    Off with ``OUTPUTS_ENABLED = False`` (or with the store off); ``crawlall`` sets
    ``OUTPUTS_DEFERRED`` and publishes them once, after all its sites.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.store = crawler_store(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> OutputsExtension:
        settings = crawler.settings
        if not settings.getbool("OUTPUTS_ENABLED"):
            raise NotConfigured("OUTPUTS_ENABLED is off")
        if not settings.getbool("POST_STORE_ENABLED"):
            raise NotConfigured("the outputs are written from the store, which is off")
        if settings.getbool("OUTPUTS_DEFERRED"):
            raise NotConfigured  # the command publishes them: nothing to say
        extension = cls(crawler)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self, spider: object, reason: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        if store_has_failed(self.crawler):
            logger.error("the outputs were not written: the store is unavailable")
            stats.set_value("outputs/failed", 1)
            return
        started = time.process_time()
        result = publish_outputs(self.crawler.settings, self.store, run_id(self.crawler.settings))
        seconds = time.process_time() - started
        if result is None:  # logged; the crawl command's exit status says it failed
            stats.set_value("outputs/failed", 1)
            return
        stats.set_value("outputs/posts", result.posts)
        stats.set_value("outputs/delta", result.delta)
        stats.set_value("outputs/cpu_seconds", round(seconds, 3))
        logger.info(
            "%s %d posts in %s and %s; this run's %d new or changed posts to %s (%.2f s of CPU)",
            "exported" if result.rewritten else "nothing new: kept the",
            result.posts,
            result.posts_jsonl,
            result.posts_csv,
            result.delta,
            result.delta_jsonl.parent,
            seconds,
        )
