"""Summarise each site's crawl when it ends: a progress line, the summary, the exit status."""

from __future__ import annotations

import logging
import pprint

from scrapy import signals
from scrapy.crawler import Crawler

from crawler.outputs.files import ExportError
from crawler.runs.folders import run_dir
from crawler.runs.ids import run_id
from crawler.runs.summary import (
    HealthThresholds,
    SiteSummary,
    exit_status,
    format_table,
    write_summary,
)
from crawler.state.site_crawls import SiteCrawl, SiteCrawls, site_closed
from crawler.store import crawler_store, store_failed, store_has_failed
from crawler.store.base import StoreUnavailable

logger = logging.getLogger(__name__)

# Sent when the crawl ends, with ``summaries`` (every site's SiteSummary, in the sites'
# order) and ``stats`` (the crawl's): how a command learns what its crawler did.
summaries_ready = object()


class RunSummaryExtension:
    """Builds the :class:`~crawler.runs.summary.SiteSummary` of each site of a crawl.

    Logs one line per site as it finishes (progress in long ``crawlall`` runs), records it in
    the store (for a controller whose sites other processes crawl) and keeps the summaries
    on the extension (:attr:`summaries`, in the sites' order). For a single ``scrapy crawl``
    it also prints the table and writes ``summary.json`` beside the run's exports;
    ``crawlall`` (``SUMMARY_DEFERRED``) writes one for all its sites.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.sites = SiteCrawls.of(crawler)
        self.thresholds = HealthThresholds.from_settings(crawler.settings)
        enabled = crawler.settings.getbool("POST_STORE_ENABLED")
        self.store = crawler_store(crawler) if enabled else None
        self.summaries: dict[str, SiteSummary] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RunSummaryExtension:
        extension = cls(crawler)
        crawler.signals.connect(extension.site_closed, signal=site_closed)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def ordered(self) -> list[SiteSummary]:
        return [self.summaries[site.name] for site in self.sites if site.name in self.summaries]

    def site_closed(self, site: SiteCrawl, reason: str) -> None:
        stored = self._stored(site.name)
        summary = SiteSummary.from_stats(
            site=site.name,
            layout=site.layout.name,
            url=site.config.url,
            stats={**site.counts, "elapsed_time_seconds": site.duration},
            failures=site.failures,
            post_failures=site.post_failures,
            stored_before=max(stored - site.counts["store/new"], 0),
            finish_reason=reason,
            thresholds=self.thresholds,
        )
        self.summaries[site.name] = summary
        if self.store is not None and not store_has_failed(self.crawler):
            try:
                # Flushed when the crawl closes the store, before a controller reads it.
                self.store.record_site_run(
                    run_id(self.crawler.settings), summary.site, summary.as_dict()
                )
            except StoreUnavailable as exc:
                store_failed(self.crawler, exc)
        state = "FAILED" if summary.failed else "unhealthy" if summary.problems else "ok"
        logger.info(
            "site %s done (%s): %d pages, %d unchanged, %d posts, %d new, %d changed in %.1fs",
            summary.site,
            state,
            summary.pages_fetched,
            summary.pages_unchanged,
            summary.posts_seen,
            summary.new,
            summary.changed,
            summary.duration_s,
        )

    def _stored(self, site: str) -> int:
        """Posts the store holds for a site (0 when it cannot say)."""
        if self.store is None or store_has_failed(self.crawler):
            return 0
        try:
            return self.store.count(site)
        except StoreUnavailable as exc:
            store_failed(self.crawler, exc)
            return 0

    def spider_closed(self, spider: object, reason: str) -> None:
        summaries = self.ordered()
        stats = self.crawler.stats
        assert stats is not None
        crawl_stats = stats.get_stats()
        self.crawler.signals.send_catch_log(summaries_ready, summaries=summaries, stats=crawl_stats)
        settings = self.crawler.settings
        if not settings.getbool("STATS_DUMP"):  # off for a short log; in summary.json
            logger.debug("Scrapy stats:\n%s", pprint.pformat(crawl_stats))
        if summaries and not settings.getbool("SUMMARY_DEFERRED"):
            run = run_id(settings)
            status = exit_status(summaries)
            logger.info("run summary:\n%s", format_table(summaries))
            try:
                write_summary(
                    run_dir(settings, run) / "summary.json",
                    run,
                    summaries,
                    status,
                    stats=crawl_stats,
                )
            except ExportError as exc:
                logger.error("%s; the run summary is the table above", exc)
                stats = self.crawler.stats
                assert stats is not None
                stats.set_value("outputs/failed", 1)
