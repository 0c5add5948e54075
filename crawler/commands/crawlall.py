"""``scrapy crawlall``: crawl every registered site in one crawler, then write the exports."""

from __future__ import annotations

import argparse
import logging
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

from scrapy.commands import ScrapyCommand

from crawler.cluster.scrapyd import ScrapydNode, ScrapydRun
from crawler.commands import CrawlOutcome, quiet_scrapy_info, refuse
from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.outputs.dataset import DatasetResult
from crawler.outputs.files import ExportError
from crawler.runs.folders import OutputDirError, output_dir, prepare_output_dir, run_dir
from crawler.runs.ids import new_run_id
from crawler.runs.lock import LockBusy, run_lock
from crawler.runs.publish import check_output_settings, publish_outputs
from crawler.runs.summary import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_SITE_FAILED,
    EXIT_STORE_FAILED,
    EXIT_USAGE,
    SiteSummary,
    exit_status,
    format_table,
    write_summary,
)
from crawler.sites import SiteConfig, SiteError, registry
from crawler.spiders.registry import RegistrySpider
from crawler.store import check_store, open_store
from crawler.store.base import StoreUnavailable

logger = logging.getLogger(__name__)


def sample_name(layout: str) -> str:
    """The site name of a layout's bundled sample in ``crawlall --sample``."""
    return f"sample-{layout}"


class Command(ScrapyCommand):
    """Crawl the registry's sites concurrently (politely: per-domain limits, AutoThrottle,
    robots.txt), then rewrite ``output/posts.{jsonl,csv}`` and the run's delta once."""

    requires_project = True
    registry_sites: dict[str, SiteConfig]

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []  # what --scrapyd has to say of its nodes
        self.stats: dict[str, Any] = {}  # the crawl's stats, when it ran in this process

    def syntax(self) -> str:
        return "[--site NAME ...] [--sample] [--full] [--no-content] [--scrapyd URL ...]"

    def short_desc(self) -> str:
        return "Crawl every site of the registry (or the bundled samples) and write the exports"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument(
            "--site",
            action="append",
            default=[],
            metavar="NAME",
            help="only this site (repeatable)",
        )
        parser.add_argument(
            "--sample",
            action="store_true",
            help="crawl the bundled sample sites, served on 127.0.0.1 (offline demo)",
        )
        parser.add_argument(
            "--full", action="store_true", help="read every list page, not only the new ones"
        )
        parser.add_argument(
            "--no-content",
            dest="content",
            action="store_false",
            help="stay on list pages: no post page is fetched (no content, post-page tags"
            " and categories, updated_at for new posts)",
        )
        parser.add_argument(
            "--scrapyd",
            action="append",
            default=[],
            metavar="URL",
            help="crawl on these Scrapyd nodes (repeatable; the project deployed to each as"
            " blogcrawler), sharing the store of -s POST_STORE_URL=postgresql://…",
        )

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        assert self.settings is not None
        if args:
            refuse(f"unexpected arguments: {' '.join(args)}")
        if opts.sample:
            # The demo's posts are not the user's: they go to a folder of their own.
            sample = output_dir(self.settings) / "sample"
            self.settings.set("OUTPUT_DIR", str(sample), priority="cmdline")
        try:
            prepare_output_dir(self.settings)  # before the run's lock, which would create it
        except OutputDirError as exc:
            refuse(str(exc))
        if opts.sample:
            names = [sample_name(layout) for layout in LAYOUTS]
        else:
            try:
                self.registry_sites = registry(self.settings)
            except SiteError as exc:
                refuse(str(exc))
            names = list(self.registry_sites)
        unknown = sorted(set(opts.site) - set(names))
        if unknown:
            refuse(f"unknown site(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
        if not names:
            refuse("no sites to crawl: the registry is empty")
        try:
            check_output_settings(self.settings)
        except ValueError as exc:
            refuse(str(exc))
        if opts.scrapyd and not self.settings.get("POST_STORE_URL"):
            refuse("--scrapyd needs a store the nodes share: -s POST_STORE_URL=postgresql://…")
        for url in opts.scrapyd:
            if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
                refuse(f"--scrapyd {url}: not an http(s) URL of a Scrapyd node")
        try:
            check_store(self.settings)  # last: a refused command line leaves no store behind
        except StoreUnavailable as exc:
            refuse(str(exc))

    def sites(self, opts: argparse.Namespace, stack: ExitStack) -> list[SiteConfig]:
        """The sites to crawl (checked in ``process_options``); for ``--sample``, starts their
        servers (stopped by ``stack``)."""
        if opts.sample:
            assert self.settings is not None
            base = self.settings.getint("SAMPLE_PORT_BASE")
            sites = []
            for offset, layout in enumerate(LAYOUTS):
                try:
                    server = SiteServer(sample_site(layout), port=base + offset).start()
                except OSError as exc:
                    refuse(
                        f"cannot serve the {layout} sample on 127.0.0.1:{base + offset} ({exc});"
                        " set another first port with -s SAMPLE_PORT_BASE=N"
                    )
                stack.callback(server.stop)
                sites.append(SiteConfig(name=sample_name(layout), layout=layout, url=server.url()))
        else:
            sites = list(self.registry_sites.values())
        return [site for site in sites if not opts.site or site.name in opts.site]

    def crawl_here(
        self, opts: argparse.Namespace, sites: list[SiteConfig], run: str
    ) -> list[SiteSummary]:
        """Crawl ``sites`` in this process, one crawler; their summaries."""
        assert self.crawler_process is not None
        crawler = self.crawler_process.create_crawler(RegistrySpider)
        for name in ("OUTPUTS_DEFERRED", "SUMMARY_DEFERRED"):
            crawler.settings.set(name, True, priority="cmdline")
        crawler.settings.set("RUN_ID", run, priority="cmdline")
        outcome = CrawlOutcome.of(crawler)
        self.crawler_process.crawl(crawler, sites=sites, full=opts.full, content=opts.content)
        self.crawler_process.start()
        self.stats = outcome.stats
        return outcome.summaries

    def crawl_on_scrapyd(
        self, opts: argparse.Namespace, sites: list[SiteConfig], run: str
    ) -> list[SiteSummary]:
        """Crawl ``sites`` on the Scrapyd nodes (:mod:`crawler.cluster.scrapyd`); their
        summaries, as the nodes recorded them in the shared store."""
        assert self.settings is not None
        store = open_store(self.settings)
        try:
            controller = ScrapydRun(
                nodes=[ScrapydNode(url) for url in opts.scrapyd],
                store=store,
                run_id=run,
                settings={
                    "POST_STORE_URL": self.settings["POST_STORE_URL"],
                    "RUN_ID": run,
                    "OUTPUTS_DEFERRED": "1",
                    "SUMMARY_DEFERRED": "1",
                },
                arguments={"full": str(int(opts.full)), "content": str(int(opts.content))},
            )
            outcomes = controller.crawl(sites)
        finally:
            store.close()
        self.notes = controller.notes
        return [SiteSummary(**outcomes[site.name]) for site in sites if site.name in outcomes]

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.crawler_process is not None and self.settings is not None
        settings = self.settings
        quiet_scrapy_info(settings)
        run = new_run_id()
        try:
            with run_lock(settings), ExitStack() as stack:
                self._run(opts, run, stack)
        except LockBusy as exc:
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_LOCKED
        except OutputDirError as exc:  # the lock cannot be written (a full disk)
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_USAGE

    def _run(self, opts: argparse.Namespace, run: str, stack: ExitStack) -> None:
        """The run, under its lock: crawl, publish the outputs, write the summary."""
        assert self.crawler_process is not None and self.settings is not None
        settings = self.settings
        summaries: list[SiteSummary] = []
        sites: list[SiteConfig] = []
        interrupted = store_lost = False
        try:
            sites = self.sites(opts, stack)
            if opts.scrapyd:
                summaries = self.crawl_on_scrapyd(opts, sites, run)
            else:
                summaries = self.crawl_here(opts, sites, run)
        except KeyboardInterrupt:
            interrupted = True  # Ctrl-C before the crawl's own handlers were in place
        except StoreUnavailable as exc:  # the controller lost the nodes' shared store
            print(f"scrapyd: {exc}")
            store_lost = True
        # A signal during the crawl: its sites' finish reason gives EXIT_INTERRUPTED.
        status = exit_status(summaries)
        if interrupted or (
            not summaries
            and not self.crawler_process.bootstrap_failed
            and not opts.scrapyd
            and status != EXIT_STORE_FAILED
        ):
            # Stopped before (or while) the sites were crawled: partial, whatever it had
            # done; a crawl that never started is also a stopped run.
            status = EXIT_INTERRUPTED
        elif store_lost:
            status = EXIT_STORE_FAILED
        elif len(summaries) < len(sites) or self.crawler_process.bootstrap_failed:
            status = max(status, EXIT_SITE_FAILED)
        result = self.publish(run, sites)
        if result is None and status not in (EXIT_INTERRUPTED, EXIT_STORE_FAILED):
            status = EXIT_SITE_FAILED  # the dataset files could not be written (logged)
        print(format_table(summaries))
        for note in self.notes:
            print(f"scrapyd: {note}")
        print(
            f"run {run}: {len(summaries)} of {len(sites)} site(s) crawled,"
            f" exit status {status}: {EXIT_CODES[status]}"
        )
        if result is None:
            print("the dataset files were not written (see the error above); the old ones stay")
        else:
            kept = "" if result.rewritten else ", unchanged since the last run"
            print(f"all posts ({result.posts}{kept}): {result.posts_jsonl} and {result.posts_csv}")
            print(f"new or changed in this run ({result.delta}): {result.delta_jsonl.parent}/")
            out = output_dir(settings)
            print(f"feeds: {out / 'feeds'}/; report: {out / 'report.html'}")
        summary_path = run_dir(settings, run) / "summary.json"
        try:
            write_summary(summary_path, run, summaries, status, self.notes, self.stats)
            print(f"summary: {summary_path}")
        except ExportError as exc:
            print(f"{exc}; the run summary is the table above")
            status = max(status, EXIT_SITE_FAILED)
        self.exitcode = status

    def publish(self, run: str, sites: list[SiteConfig]) -> DatasetResult | None:
        """The run's outputs from the store (None: not written, said in one line)."""
        assert self.settings is not None
        try:
            store = open_store(self.settings)
        except StoreUnavailable as exc:
            logger.error("%s; the outputs were not written", exc)
            return None
        try:
            return publish_outputs(self.settings, store, run, {s.name: s.url for s in sites})
        finally:
            try:
                store.close()
            except StoreUnavailable as exc:
                logger.debug("closing the store: %s", exc)
