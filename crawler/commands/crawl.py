"""``scrapy crawl`` with checked arguments, one run at a time, and an honest exit status.

A layout spider's ``-a`` arguments, its site (``-a site=NAME`` or ``-a url=URL``, matched in
the registry that ``SITE_REGISTRY`` names) and ``-s RUN_ID`` are checked in
``process_options``, before the crawler process logs its banner: a bad one is one line on
stderr and exit status 2, without Scrapy's usage block or a traceback from inside the crawl.
The spider gets the site as resolved here, so it never reads the registry itself. The run
holds the output folder's lock, and its exit status says whether the site failed (see
``crawler.runs.summary.EXIT_CODES``): Scrapy's own ``crawl`` exits 0 whatever happened.
"""

from __future__ import annotations

import argparse
import re
import textwrap

from scrapy.commands import ScrapyHelpFormatter
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.spiderloader import get_spider_loader

from crawler.arguments import SpiderArguments, arguments_help, validate_arguments
from crawler.commands import CrawlOutcome, quiet_scrapy_info, refuse
from crawler.outputs.files import ExportError
from crawler.runs.folders import OutputDirError, prepare_output_dir, run_dir
from crawler.runs.ids import run_id
from crawler.runs.lock import LockBusy, run_lock
from crawler.runs.summary import (
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_SITE_FAILED,
    EXIT_STORE_FAILED,
    EXIT_USAGE,
    exit_status,
    write_summary,
)
from crawler.sites import SiteConfig, SiteError, registry
from crawler.spiders.blogs import BlogSpider
from crawler.store import check_store
from crawler.store.base import StoreUnavailable


class LinesHelpFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout, keeping the lines of a text; a ``  name  meaning`` line wraps
    under its meaning."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            row = re.match(r"\s+\S+\s+", line)
            hanging = " " * len(row.group(0)) if row else ""
            lines.append(
                textwrap.fill(
                    line,
                    width,
                    initial_indent=indent,
                    subsequent_indent=indent + hanging,
                    break_on_hyphens=False,
                )
            )
        return "\n".join(lines)


def spider_arguments_text() -> str:
    """The spider arguments as ``scrapy crawl -h`` shows them (from ``SpiderArguments``)."""
    rows = arguments_help()
    width = max(len(name) for name, _ in rows) + 2
    lines = ["A layout spider takes these as -a NAME=VALUE (checked before the crawl):"]
    lines += [f"  {name:<{width}}{meaning.replace('`', '')}" for name, meaning in rows]
    return "\n".join(lines)


class Command(ScrapyCrawlCommand):
    """Scrapy's crawl command, checking a layout spider's ``-a`` arguments first."""

    def __init__(self) -> None:
        super().__init__()
        self.spidercls: type[BlogSpider] | None = None
        self.site: SiteConfig | None = None
        self.arguments: SpiderArguments | None = None

    def long_desc(self) -> str:
        return (
            "Run a spider of the current project, by name. A layout spider's arguments are "
            "checked before the crawl starts: a bad one is one line and exit status 2."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        parser.formatter_class = LinesHelpFormatter
        # Before Scrapy's "Global Options" group, right after -a.
        parser.add_argument_group("Spider Arguments", spider_arguments_text())
        super().add_options(parser)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        assert self.settings is not None
        if len(args) != 1:
            return  # Scrapy's own usage error, in run()
        loader = get_spider_loader(self.settings)
        try:
            spidercls = loader.load(args[0])
        except KeyError:
            refuse(f"unknown spider {args[0]!r} (known: {', '.join(sorted(loader.list()))})")
        if not issubclass(spidercls, BlogSpider) or spidercls.layout_name is None:
            return  # not a layout spider (crawlall's, as a Scrapyd job runs it): Scrapy's way
        try:
            arguments, site = validate_arguments(
                spidercls.name, dict(opts.spargs), sites=registry(self.settings)
            )
            run_dir(self.settings, run_id(self.settings))  # a -s RUN_ID must stay in output/
            prepare_output_dir(self.settings)  # OutputDirError: unusable; the lock would create it
            check_store(self.settings)
        except (SiteError, ValueError, StoreUnavailable) as exc:
            refuse(str(exc))
        self.spidercls, self.site, self.arguments = spidercls, site, arguments

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if self.spidercls is None or self.site is None or self.arguments is None:
            super().run(args, opts)
            return
        assert self.crawler_process is not None and self.settings is not None
        quiet_scrapy_info(self.settings)
        # Not ours (Scrapyd's _job): passed on as Scrapy passes spider arguments.
        private = {k: v for k, v in opts.spargs.items() if k.startswith("_")}
        crawler = self.crawler_process.create_crawler(self.spidercls)
        outcome = CrawlOutcome.of(crawler)
        try:
            with run_lock(self.settings):
                self.crawler_process.crawl(
                    crawler,
                    sites=[self.site],
                    full=self.arguments.full,
                    content=self.arguments.content,
                    **private,
                )
                self.crawler_process.start()
        except LockBusy as exc:
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_LOCKED
            return
        except (StoreUnavailable, OutputDirError) as exc:  # lost since the check; a full disk
            print(f"not crawling: {exc}")
            self.exitcode = EXIT_USAGE
            return
        except KeyboardInterrupt:
            pass  # Ctrl-C before the crawl's own handlers were in place: a stopped run
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
        elif outcome.summaries:
            self.exitcode = exit_status(outcome.summaries)
        else:  # stopped before the site was crawled at all
            run = run_id(self.settings)
            print(f"run {run}: stopped before the crawl started; nothing was crawled")
            self.exitcode = EXIT_INTERRUPTED
            try:
                write_summary(
                    run_dir(self.settings, run) / "summary.json", run, [], EXIT_INTERRUPTED
                )
            except ExportError as exc:
                print(exc)
            return
        assert crawler.stats is not None
        failed = crawler.stats.get_value("outputs/failed")
        if failed and self.exitcode not in (EXIT_INTERRUPTED, EXIT_STORE_FAILED):
            self.exitcode = EXIT_SITE_FAILED  # an output file could not be written (logged)
