"""Rewrite the consolidated exports when a crawl ends (``scrapy crawl``)."""

from __future__ import annotations

import logging
import time

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.outputs.dataset import export_run
from crawler.runs.folders import acquire_store, release_store, run_id

logger = logging.getLogger(__name__)


class ExportsExtension:
    """After each crawl, writes ``output/posts.{jsonl,csv}`` and the run's delta.

    Off with ``EXPORTS_ENABLED = False`` (or with the store off); ``crawlall`` sets
    ``EXPORTS_DEFERRED`` and writes them once, after all its sites.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.store = acquire_store(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExportsExtension:
        settings = crawler.settings
        if not settings.getbool("EXPORTS_ENABLED", True):
            raise NotConfigured("EXPORTS_ENABLED is off")
        if not settings.getbool("POST_STORE_ENABLED", True):
            raise NotConfigured("exports are written from the store, which is off")
        extension = cls(crawler)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self, spider: object, reason: str) -> None:
        settings = self.crawler.settings
        try:
            if not settings.getbool("EXPORTS_DEFERRED"):
                started = time.process_time()
                result = export_run(settings, self.store, run_id(settings))
                seconds = time.process_time() - started
                stats = self.crawler.stats
                if result is None:  # logged; the crawl command's exit status says it failed
                    stats.set_value("exports/failed", 1)
                    return
                stats.set_value("exports/posts", result.posts)
                stats.set_value("exports/delta", result.delta)
                stats.set_value("exports/cpu_seconds", round(seconds, 3))
                logger.info(
                    "%s %d posts in %s and %s; this run's %d new or changed posts to %s"
                    " (%.2f s of CPU)",
                    "exported" if result.rewritten else "nothing new: kept the", result.posts,
                    result.posts_jsonl, result.posts_csv, result.delta, result.delta_jsonl.parent,
                    seconds,
                )  # fmt: skip
        finally:
            release_store(settings)
