"""``scrapy detect URL``: which known layout reads a page, with the evidence; or "generic"
when none does (the generic reader reads such a site, ``auto`` sites pick it), with what the
page says of its making (generator, theme marks, feeds, sitemaps).

Exit status: 0 when a layout matched, 1 when none did (the generic reader's), 2 for a usage
error or a page that could not be fetched (one line on stderr either way). The page is
fetched through Scrapy with the project's settings (User-Agent, robots.txt, timeouts), by
:func:`fetch`, which ``savecase`` shares: once, without retries, so an unreachable page is
said at once.
"""

from __future__ import annotations

import argparse
import sys

from scrapy.commands import ScrapyCommand

from crawler.commands import FetchError, fetch, quiet, refuse
from crawler.discovery.detect import Match, examine_all, page_evidence
from crawler.sites import check_http_url


def describe(match: Match) -> list[str]:
    """The evidence of one layout as printed lines."""
    verdict = "MATCH" if match.matched else "no match"
    lines = [f"{match.layout}: {verdict}, {match.posts} post(s) with url and title"]
    if match.first_title:
        lines.append(f"  first post: {match.first_title!r} <{match.first_url}>")
    found = [f"{sel} ({n})" for sel, n in match.signature.items() if n]
    missing = [sel for sel, n in match.signature.items() if not n]
    lines.append(f"  signature found: {', '.join(found) or 'none'}")
    if missing:
        lines.append(f"  signature not found: {', '.join(missing)}")
    if match.next_pages:
        lines.append(f"  next pages: {' '.join(match.next_pages)}")
    if match.error:
        lines.append(f"  extraction failed: {match.error}")
    return lines


class Command(ScrapyCommand):
    """Fetch a page and say which known layout(s) read it."""

    requires_project = True

    def syntax(self) -> str:
        return "[--all] <url>"

    def short_desc(self) -> str:
        return "Fetch a page and print which known layout reads it, with the evidence"

    def long_desc(self) -> str:
        return (
            "Fetch a page and print which known layout reads it: the signature selectors "
            "that matched, how many posts the layout extracted and the first title; "
            "'generic' with the page's generator, theme marks and feeds when none does. "
            "Exit status 0 when a layout matched, 1 for generic, 2 when the page cannot be "
            "fetched."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument(
            "--all", action="store_true", help="also print the evidence of layouts not matching"
        )

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        quiet(self.settings)
        super().process_options(args, opts)
        # Checked before the crawler process starts: one line, no usage block.
        if len(args) != 1:
            refuse("give one URL")
        try:
            check_http_url(args[0])
        except ValueError as exc:
            refuse(str(exc))

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        url = check_http_url(args[0])  # checked in process_options
        assert self.crawler_process is not None
        try:
            response = fetch(self.crawler_process, url)
        except FetchError as exc:
            print(exc, file=sys.stderr)
            self.exitcode = 2
            return
        evidence = examine_all(response)
        matches = [m for m in evidence if m.matched]
        shown = evidence if opts.all else matches
        if response.url != url:
            print(f"(redirected to {response.url})")
        for match in shown:
            print("\n".join(describe(match)))
        if not matches:
            tried = ", ".join(sorted(m.layout for m in evidence))
            print(f"generic: no known layout reads {response.url} (tried {tried})")
            print(f"  the generic reader does: {'; '.join(page_evidence(response)) or 'no marks'}")
            self.exitcode = 1
