"""Summarise each site's crawl when it ends: a progress line, the summary, the exit status."""

from __future__ import annotations

import logging

from scrapy import Spider, signals
from scrapy.crawler import Crawler

from crawler.runs import acquire_store, release_store, run_dir, run_id
from crawler.summary import (
    HealthThresholds,
    SiteSummary,
    exit_status,
    format_table,
    write_summary,
)

logger = logging.getLogger(__name__)


class RunSummaryExtension:
    """Builds the :class:`~crawler.summary.SiteSummary` of a layout spider's crawl.

    Logs one line per site as it finishes (progress in long ``crawlall`` runs) and keeps the
    summary on the crawler (``crawler.site_summary``). For a single ``scrapy crawl`` it also
    prints the table and writes ``summary.json`` beside the run's exports; ``crawlall``
    (``SUMMARY_DEFERRED``) writes one for all its sites.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        settings, defaults = crawler.settings, HealthThresholds()
        self.thresholds = HealthThresholds(
            max_date_failure_ratio=settings.getfloat(
                "HEALTH_MAX_DATE_FAILURE_RATIO", defaults.max_date_failure_ratio
            ),
            min_title_coverage=settings.getfloat(
                "HEALTH_MIN_TITLE_COVERAGE", defaults.min_title_coverage
            ),
            min_date_coverage=settings.getfloat(
                "HEALTH_MIN_DATE_COVERAGE", defaults.min_date_coverage
            ),
        )
        self.stored_before = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RunSummaryExtension:
        extension = cls(crawler)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Spider) -> None:
        site = getattr(spider, "site", None)
        if site is not None and self.crawler.settings.getbool("POST_STORE_ENABLED", True):
            store = acquire_store(self.crawler.settings)
            try:
                self.stored_before = store.count(site.name)
            finally:
                release_store(self.crawler.settings)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        site = getattr(spider, "site", None)
        if site is None:
            return
        stats = self.crawler.stats.get_stats()
        summary = SiteSummary.from_stats(
            site=site.name, layout=spider.name, url=site.url, stats=stats,
            failures=getattr(spider, "failures", []), stored_before=self.stored_before,
            finish_reason=reason, thresholds=self.thresholds,
        )  # fmt: skip
        self.crawler.site_summary = summary  # type: ignore[attr-defined]
        state = "FAILED" if summary.failed else "unhealthy" if summary.problems else "ok"
        logger.info(
            "site %s done (%s): %d pages, %d unchanged, %d posts, %d new, %d changed in %.1fs",
            summary.site, state, summary.pages_fetched, summary.pages_unchanged,
            summary.posts_seen, summary.new, summary.changed, summary.duration_s,
        )  # fmt: skip
        settings = self.crawler.settings
        if not settings.getbool("SUMMARY_DEFERRED"):
            run = run_id(settings)
            status = exit_status([summary])
            write_summary(run_dir(settings, run) / "summary.json", run, [summary], status)
            logger.info("run summary:\n%s", format_table([summary]))
