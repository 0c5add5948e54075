"""Summarise each site's crawl when it ends: a progress line, the summary, the exit status."""

from __future__ import annotations

import logging
from dataclasses import asdict

from scrapy import Spider, signals
from scrapy.crawler import Crawler

from crawler.runs.folders import acquire_store, release_store, run_dir, run_id
from crawler.runs.summary import (
    HealthThresholds,
    SiteSummary,
    exit_status,
    format_table,
    write_summary,
)
from crawler.state.site_crawls import SiteRun, site_closed

logger = logging.getLogger(__name__)


class RunSummaryExtension:
    """Builds the :class:`~crawler.runs.summary.SiteSummary` of each site of a crawl.

    Logs one line per site as it finishes (progress in long ``crawlall`` runs) and keeps the
    summaries on the crawler (``crawler.site_summaries``, in the spider's site order). For a
    single ``scrapy crawl`` it also prints the table and writes ``summary.json`` beside the
    run's exports; ``crawlall`` (``SUMMARY_DEFERRED``) writes one for all its sites.
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
            max_post_failure_ratio=settings.getfloat(
                "HEALTH_MAX_POST_FAILURE_RATIO", defaults.max_post_failure_ratio
            ),
        )
        self.stored_before: dict[str, int] = {}
        self.summaries: dict[str, SiteSummary] = {}
        crawler.site_summaries = []  # type: ignore[attr-defined]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RunSummaryExtension:
        extension = cls(crawler)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.site_closed, signal=site_closed)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Spider) -> None:
        runs: dict[str, SiteRun] = getattr(spider, "site_runs", {})
        if runs and self.crawler.settings.getbool("POST_STORE_ENABLED", True):
            store = acquire_store(self.crawler.settings)
            try:
                self.stored_before = {name: store.count(name) for name in runs}
            finally:
                release_store(self.crawler.settings)

    def site_closed(self, site_run: SiteRun, reason: str) -> None:
        summary = SiteSummary.from_stats(
            site=site_run.name, layout=site_run.layout.name, url=site_run.config.url,
            stats={**site_run.counts, "elapsed_time_seconds": site_run.duration},
            failures=site_run.failures, post_failures=site_run.post_failures,
            stored_before=self.stored_before.get(site_run.name, 0),
            finish_reason=reason, thresholds=self.thresholds,
        )  # fmt: skip
        self.summaries[site_run.name] = summary
        if self.crawler.settings.getbool("POST_STORE_ENABLED", True):
            # In the store, for a controller whose sites other processes crawl (Scrapyd).
            store = acquire_store(self.crawler.settings)
            try:
                store.record_site_run(run_id(self.crawler.settings), summary.site, asdict(summary))
                store.flush()
            finally:
                release_store(self.crawler.settings)
        state = "FAILED" if summary.failed else "unhealthy" if summary.problems else "ok"
        logger.info(
            "site %s done (%s): %d pages, %d unchanged, %d posts, %d new, %d changed in %.1fs",
            summary.site, state, summary.pages_fetched, summary.pages_unchanged,
            summary.posts_seen, summary.new, summary.changed, summary.duration_s,
        )  # fmt: skip

    def spider_closed(self, spider: Spider, reason: str) -> None:
        runs: dict[str, SiteRun] = getattr(spider, "site_runs", {})
        summaries = [self.summaries[name] for name in runs if name in self.summaries]
        self.crawler.site_summaries = summaries  # type: ignore[attr-defined]
        settings = self.crawler.settings
        if summaries and not settings.getbool("SUMMARY_DEFERRED"):
            run = run_id(settings)
            status = exit_status(summaries)
            write_summary(run_dir(settings, run) / "summary.json", run, summaries, status)
            logger.info("run summary:\n%s", format_table(summaries))
