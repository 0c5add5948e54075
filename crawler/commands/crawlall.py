"""``scrapy crawlall``: crawl every registered site in one process, then write the exports."""

from __future__ import annotations

import argparse
from contextlib import ExitStack

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.exports import write_exports
from crawler.lock import LockBusy, RunLock
from crawler.runs import acquire_store, new_run_id, output_dir, release_store, run_dir
from crawler.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.sites import SiteConfig, SiteError, registry
from crawler.summary import (
    EXIT_CODES,
    EXIT_LOCKED,
    EXIT_SITE_FAILED,
    exit_status,
    format_table,
    write_summary,
)

SAMPLE_PORT_BASE = 18401


class Command(ScrapyCommand):
    """Crawl the registry's sites concurrently (politely: per-domain limits, AutoThrottle,
    robots.txt), then rewrite ``output/posts.{jsonl,csv}`` and the run's delta once."""

    requires_project = True

    def syntax(self) -> str:
        return "[--site NAME ...] [--sample] [--full]"

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
            "--sample", action="store_true",
            help="crawl the bundled sample sites, served on 127.0.0.1 (offline demo)",
        )  # fmt: skip
        parser.add_argument(
            "--full", action="store_true", help="read every list page, not only the new ones"
        )

    def sites(self, opts: argparse.Namespace, stack: ExitStack) -> list[SiteConfig]:
        """The sites to crawl; for ``--sample``, starts their servers (stopped by ``stack``)."""
        if opts.sample:
            assert self.settings is not None
            base = self.settings.getint("SAMPLE_PORT_BASE", SAMPLE_PORT_BASE)
            sites = []
            for offset, layout in enumerate(LAYOUTS):
                try:
                    server = SiteServer(sample_site(layout), port=base + offset).start()
                except OSError as exc:
                    raise UsageError(
                        f"cannot serve the {layout} sample on 127.0.0.1:{base + offset} ({exc});"
                        " set another first port with -s SAMPLE_PORT_BASE=N"
                    ) from exc
                stack.callback(server.stop)
                sites.append(SiteConfig(name=f"sample-{layout}", layout=layout, url=server.url()))
        else:
            try:
                sites = list(registry().values())
            except SiteError as exc:
                raise UsageError(str(exc), print_help=False) from exc
        if opts.site:
            known = {site.name for site in sites}
            unknown = sorted(set(opts.site) - known)
            if unknown:
                raise UsageError(
                    f"unknown site(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                    print_help=False,
                )
            sites = [site for site in sites if site.name in opts.site]
        return sites

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        assert self.crawler_process is not None and self.settings is not None
        settings = self.settings
        try:
            with RunLock(output_dir(settings) / ".lock"), ExitStack() as stack:
                sites = self.sites(opts, stack)
                if not sites:
                    raise UsageError("no sites to crawl", print_help=False)
                run = new_run_id()
                crawlers = []
                for site in sites:
                    crawler = self.crawler_process.create_crawler(site.layout)
                    for name in ("EXPORTS_DEFERRED", "SUMMARY_DEFERRED"):
                        crawler.settings.set(name, True, priority="cmdline")
                    crawler.settings.set("RUN_ID", run, priority="cmdline")
                    crawlers.append(crawler)
                    self.crawler_process.crawl(crawler, site_config=site, full=opts.full)
                self.crawler_process.start()
                summaries = [c.site_summary for c in crawlers if hasattr(c, "site_summary")]
                # A site whose crawler never got to close (bootstrap failure) is a failure too.
                status = exit_status(summaries)
                if len(summaries) < len(sites) or self.crawler_process.bootstrap_failed:
                    status = max(status, EXIT_SITE_FAILED)
                store = acquire_store(settings)
                try:
                    result = write_exports(settings, store, run)
                finally:
                    release_store(settings)
                summary_path = run_dir(settings, run) / "summary.json"
                write_summary(summary_path, run, summaries, status)
        except LockBusy as exc:
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_LOCKED
            return
        print(format_table(summaries))
        print(f"run {run}: {len(sites)} site(s), exit status {status}: {EXIT_CODES[status]}")
        print(f"all posts ({result.posts}): {result.posts_jsonl} and {result.posts_csv}")
        print(f"new or changed in this run ({result.delta}): {result.delta_jsonl.parent}/")
        print(f"summary: {summary_path}")
        self.exitcode = status
