"""``scrapy crawl`` with checked arguments, one run at a time, and an honest exit status.

A bad ``-a url=`` or an unknown ``-a site=`` is one line and exit status 2 (Scrapy's usage
error) instead of a traceback from inside the crawl. The run holds the output folder's lock,
and its exit status says whether the site failed (see ``crawler.summary.EXIT_CODES``): Scrapy's
own ``crawl`` exits 0 whatever happened.
"""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

from crawler.arguments import validate_arguments
from crawler.lock import LockBusy, RunLock
from crawler.runs import output_dir, run_dir, run_id
from crawler.sites import SiteError
from crawler.spiders.base import LayoutSpider
from crawler.summary import EXIT_LOCKED, exit_status


class Command(ScrapyCrawlCommand):
    """Scrapy's crawl command, checking a layout spider's ``-a`` arguments first."""

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1 or self.crawler_process is None or self.settings is None:
            super().run(args, opts)
            return
        try:
            spidercls = self.crawler_process.spider_loader.load(args[0])
        except KeyError as exc:
            raise UsageError(f"unknown spider {args[0]!r}", print_help=False) from exc
        if not issubclass(spidercls, LayoutSpider):
            super().run(args, opts)
            return
        try:
            validate_arguments(spidercls.name, dict(opts.spargs))
            run_dir(self.settings, run_id(self.settings))  # a -s RUN_ID must stay in output/
        except (SiteError, ValueError) as exc:
            raise UsageError(str(exc), print_help=False) from exc
        try:
            with RunLock(output_dir(self.settings) / ".lock"):
                crawler = self.crawler_process.create_crawler(spidercls)
                self.crawler_process.crawl(crawler, **opts.spargs)
                self.crawler_process.start()
        except LockBusy as exc:
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_LOCKED
            return
        summary = getattr(crawler, "site_summary", None)
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
        elif summary is not None:
            self.exitcode = exit_status([summary])
