"""What one run knows of one site: its scope, page bound, counts, failures and progress.

One crawler serves every site of a run, so what a run knows of a site is kept here, keyed by
the site's name, not in the spider. The spider owns the
:class:`SiteRun` objects (``spider.site_runs``); pipelines and extensions count into them
with :func:`count`, and hear that a site is done through the :data:`site_closed` signal.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy.crawler import Crawler

from crawler.sites import SiteConfig

if TYPE_CHECKING:
    from crawler.layouts import Layout

# Sent once per site when its last list page is done (or the crawl ends first), with
# ``site_run`` (a SiteRun) and ``reason`` ("finished", or the spider's close reason).
site_closed = object()
# Sent once per site when every list page it asked for is answered (or dropped), with
# ``site_run``: what the lists showed is known, and the posts they did not show may follow.
site_lists_read = object()


@dataclass(eq=False)
class SiteRun:
    """One site's state in the running crawl."""

    config: SiteConfig
    layout: type[Layout]
    root: str
    full: bool = False  # -a full / --full: read every list page
    content: bool = True  # follow post pages (-a content=0 / --no-content: list pages only)
    pages_requested: int = 0
    # A next page not followed because of max_pages: the list was not read to its end.
    cut_short: bool = False
    failures: list[str] = field(default_factory=list)  # "URL: reason" of each failed request
    # "URL: reason" of each post page not read: the posts keep their list fields, and the
    # pages are asked for again next run; the list itself was read (so still complete).
    post_failures: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    pending: int = 0  # list-page and post-page requests made and not yet answered
    lists_pending: int = 0  # of those, the list pages
    lists_read: bool = False  # every list page answered: site_lists_read was sent
    # Posts read from its pages and not yet through the pipelines (which count into the
    # summary): the site is done only when both are 0.
    items_pending: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def duration(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    @property
    def complete(self) -> bool:
        """Every list page it meant to read was read: finished, nothing failed or cut short."""
        return self.reason == "finished" and not self.failures and not self.cut_short

    def on_site(self, url: str) -> bool:
        """True for a URL inside this site (same scheme, host and root path)."""
        return url.startswith(self.root)


def count(crawler: Crawler, site: str | None, key: str, value: int = 1) -> None:
    """Add ``value`` to the crawl stat ``key`` and to the same count of ``site``'s run."""
    crawler.stats.inc_value(key, value)
    runs: dict[str, SiteRun] | None = getattr(crawler.spider, "site_runs", None)
    if runs is not None and site in runs:
        runs[site].counts[key] += value

