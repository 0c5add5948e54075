"""``scrapy crawl`` with the spider's arguments validated before the crawl starts.

A bad ``-a url=`` or an unknown ``-a site=`` is reported as one line and exit status 2
(Scrapy's usage error), instead of a traceback from inside the crawl.
"""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

from crawler.sites import SiteError
from crawler.spiders.base import LayoutSpider, validate_arguments


class Command(ScrapyCrawlCommand):
    """Scrapy's crawl command, checking a layout spider's ``-a`` arguments first."""

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) == 1 and self.crawler_process is not None:
            try:
                spidercls = self.crawler_process.spider_loader.load(args[0])
            except KeyError as exc:
                raise UsageError(f"unknown spider {args[0]!r}: {exc}", print_help=False) from exc
            if issubclass(spidercls, LayoutSpider):
                try:
                    validate_arguments(spidercls.name, dict(opts.spargs))
                except SiteError as exc:
                    raise UsageError(str(exc), print_help=False) from exc
        super().run(args, opts)
