"""``scrapy crawlall``: crawl every registered site in one process, then write the exports."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.exports import write_exports
from crawler.runs import acquire_store, new_run_id, release_store
from crawler.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.sites import SiteConfig, SiteError, registry

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
        with ExitStack() as stack:
            sites = self.sites(opts, stack)
            if not sites:
                raise UsageError("no sites to crawl", print_help=False)
            run = new_run_id()
            crawlers = []
            for site in sites:
                crawler = self.crawler_process.create_crawler(site.layout)
                crawler.settings.set("RUN_ID", run, priority="cmdline")
                crawler.settings.set("EXPORTS_DEFERRED", True, priority="cmdline")
                crawlers.append((site, crawler))
                self.crawler_process.crawl(crawler, site_config=site, full=opts.full)
            self.crawler_process.start()
        store = acquire_store(self.settings)
        try:
            result = write_exports(self.settings, store, run)
        finally:
            release_store(self.settings)
        print(f"run {run}: {len(sites)} site(s)", file=sys.stderr)
        print(f"all posts ({result.posts}): {result.posts_jsonl} and {result.posts_csv}")
        print(f"new or changed in this run ({result.delta}): {result.delta_jsonl.parent}/")
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
