"""The run summary: per site what a run did, its health, and the exit status it gives.

Built from each crawler's stats when its spider closes; printed as a table, saved as
``output/runs/<run id>/summary.json``, and turned into the exit status of ``scrapy crawl`` and
``scrapy crawlall`` (see :data:`EXIT_CODES`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from scrapy.settings import BaseSettings

from crawler.outputs.files import AtomicFile
from crawler.store.base import STORE_UNAVAILABLE

# Exit statuses of `scrapy crawl` and `scrapy crawlall` (documented in the README).
EXIT_OK = 0
EXIT_SITE_FAILED = 1
EXIT_USAGE = 2  # Scrapy's own status for a usage error (bad argument, unknown site)
EXIT_UNHEALTHY = 3
EXIT_INTERRUPTED = 4
EXIT_STORE_FAILED = 5
EXIT_LOCKED = 75  # EX_TEMPFAIL: another run holds the lock; try again later
EXIT_CODES = {
    EXIT_OK: "every site crawled and healthy",
    EXIT_SITE_FAILED: "a site failed: its start page or every request errored, or it yielded"
    " no posts although the store has posts for it; or the dataset files could not be written",
    EXIT_USAGE: "bad command line, argument, registry or unusable output folder",
    EXIT_UNHEALTHY: "crawled, but a health check failed (date failures, field coverage)",
    EXIT_INTERRUPTED: "the run was stopped (SIGTERM, Ctrl-C) before it finished: partial",
    EXIT_STORE_FAILED: "the store became unreachable or could not be written: the run stopped;"
    " what it recorded is kept and the next run reads the rest again",
    EXIT_LOCKED: "another run is in progress (lock held); nothing was done",
}


@dataclass(frozen=True)
class HealthThresholds:
    """Limits of a healthy site crawl (settings ``HEALTH_*``)."""

    max_date_failure_ratio: float
    min_title_coverage: float
    min_date_coverage: float
    max_post_failure_ratio: float

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> HealthThresholds:
        return cls(
            max_date_failure_ratio=settings.getfloat("HEALTH_MAX_DATE_FAILURE_RATIO"),
            min_title_coverage=settings.getfloat("HEALTH_MIN_TITLE_COVERAGE"),
            min_date_coverage=settings.getfloat("HEALTH_MIN_DATE_COVERAGE"),
            max_post_failure_ratio=settings.getfloat("HEALTH_MAX_POST_FAILURE_RATIO"),
        )


@dataclass
class SiteSummary:
    """What one run did for one site."""

    site: str
    layout: str
    url: str
    pages_fetched: int = 0
    pages_unchanged: int = 0
    posts_seen: int = 0
    new: int = 0
    changed: int = 0
    dropped: int = 0
    date_failures: int = 0
    http_errors: int = 0
    post_pages: int = 0  # post pages read (their body found)
    post_failures_count: int = 0
    duration_s: float = 0.0
    finish_reason: str = ""
    stored_before: int = 0
    failures: list[str] = field(default_factory=list)
    # "URL: reason" of each post page not read (the posts keep their list fields).
    post_failures: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failed: bool = False
    # The site's own crawl stats (pages, posts, store, dates, ...), by key.
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The summary as JSON holds it (a shallow copy: the lists are not copied)."""
        return dict(vars(self))

    @classmethod
    def from_stats(
        cls,
        *,
        site: str,
        layout: str,
        url: str,
        stats: dict[str, Any],
        failures: list[str],
        stored_before: int,
        finish_reason: str,
        thresholds: HealthThresholds,
        post_failures: Sequence[str] = (),
    ) -> SiteSummary:
        """Summarise a crawler's stats and judge the site's health."""
        # Posts dropped, not missing fields: summing validate/dropped/<field> counted a post
        # without url and title twice.
        dropped = stats.get("validate/dropped", 0)
        summary = cls(
            site=site,
            layout=layout,
            url=url,
            pages_fetched=stats.get("layout/list_pages", 0),
            pages_unchanged=stats.get("layout/pages_unchanged", 0),
            posts_seen=stats.get("layout/posts_extracted", 0),
            new=stats.get("store/new", 0),
            changed=stats.get("store/changed", 0),
            dropped=dropped,
            date_failures=stats.get("dates/unparsed", 0),
            http_errors=stats.get("layout/request_failures", 0),
            post_pages=sum(v for k, v in stats.items() if k.startswith("posts/pages_read_by_")),
            post_failures_count=len(post_failures),
            duration_s=round(float(stats.get("elapsed_time_seconds", 0.0)), 2),
            finish_reason=finish_reason,
            stored_before=stored_before,
            failures=list(failures),
            post_failures=list(post_failures),
            counts={k: v for k, v in sorted(stats.items()) if isinstance(v, int)},
        )
        summary.judge(stats, thresholds)
        return summary

    def judge(self, stats: dict[str, Any], limits: HealthThresholds) -> None:
        """Set ``failed`` and ``problems`` from what the crawl saw."""
        start_failed = any(f.startswith(self.url + ":") for f in self.failures)
        if start_failed:
            self.problems.append(f"start page {self.url} failed: {self._failure(self.url)}")
        elif self.pages_fetched == 0 and self.pages_unchanged == 0:
            self.problems.append("no list page was read")
        elif self.posts_seen == 0 and self.pages_unchanged == 0:
            if self.stored_before:
                self.problems.append(
                    f"no posts found, but the store has {self.stored_before} for this site:"
                    " the layout may have changed"
                )
            else:
                self.problems.append("no posts found")
        self.failed = bool(self.problems)
        if self.finish_reason not in ("finished", ""):
            self.problems.append(f"stopped early: {self.finish_reason}")
        passed = stats.get("validate/passed", 0)
        if self.posts_seen:
            title_coverage = 1 - stats.get("validate/dropped/title", 0) / self.posts_seen
            if title_coverage < limits.min_title_coverage:
                self.problems.append(f"titles found for only {title_coverage:.0%} of posts")
        if passed:
            dated = stats.get("dates/parsed", 0)
            if self.date_failures / passed > limits.max_date_failure_ratio:
                self.problems.append(f"{self.date_failures} of {passed} dates did not parse")
            if dated / passed < limits.min_date_coverage and self.date_failures:
                self.problems.append(f"publication time found for only {dated / passed:.0%}")
        for failure in self.failures:
            if not failure.startswith(self.url + ":"):
                self.problems.append(f"page failed: {failure}")
        asked = self.post_pages + self.post_failures_count
        if asked and self.post_failures_count / asked > limits.max_post_failure_ratio:
            self.problems.append(
                f"{self.post_failures_count} of {asked} post pages not read: the post page"
                " layout may have changed"
            )

    def _failure(self, url: str) -> str:
        return next((f.split(": ", 1)[1] for f in self.failures if f.startswith(url + ":")), "")

    @property
    def healthy(self) -> bool:
        return not self.problems


def exit_status(summaries: list[SiteSummary]) -> int:
    """The exit status of a run (see :data:`EXIT_CODES`)."""
    if any(s.finish_reason == STORE_UNAVAILABLE for s in summaries):
        return EXIT_STORE_FAILED
    if any(s.finish_reason not in ("finished", "") for s in summaries):
        return EXIT_INTERRUPTED
    if any(s.failed for s in summaries):
        return EXIT_SITE_FAILED
    if any(not s.healthy for s in summaries):
        return EXIT_UNHEALTHY
    return EXIT_OK


COLUMNS = (
    ("site", "site"),
    ("pages", "pages_fetched"),
    ("304", "pages_unchanged"),
    ("posts", "posts_seen"),
    ("new", "new"),
    ("changed", "changed"),
    ("dropped", "dropped"),
    ("date fail", "date_failures"),
    ("http err", "http_errors"),
    ("post pages", "post_pages"),
    ("post fail", "post_failures_count"),
    ("secs", "duration_s"),
)
# Post pages not read are listed under the table, this many a site (all in summary.json).
LISTED_POST_FAILURES = 5


def format_table(summaries: list[SiteSummary]) -> str:
    """A plain-text table, one row per site, then each site's problems."""
    rows = [[label for label, _ in COLUMNS]]
    rows += [[str(getattr(s, attr)) for _, attr in COLUMNS] for s in summaries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for s in summaries:
        status = "FAILED" if s.failed else "unhealthy" if s.problems else ""
        lines += [f"{s.site}: {status}: {problem}" for problem in s.problems]
        listed = s.post_failures[:LISTED_POST_FAILURES]
        lines += [f"{s.site}: post page not read: {failure}" for failure in listed]
        if len(s.post_failures) > LISTED_POST_FAILURES:
            more = len(s.post_failures) - LISTED_POST_FAILURES
            lines.append(f"{s.site}: … and {more} more post pages not read (summary.json)")
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """A stat as JSON holds it (Scrapy keeps times as datetimes)."""
    return value.isoformat() if isinstance(value, datetime) else value


def write_summary(
    path: Path,
    run_id: str,
    summaries: list[SiteSummary],
    status: int,
    notes: Sequence[str] = (),
    stats: Mapping[str, Any] | None = None,
) -> None:
    """Save the run's summary as JSON (beside the run's exports); ``notes``: what the run
    has to say beyond its sites (``crawlall --scrapyd``: the nodes left out or lost);
    ``stats``: the crawl's Scrapy stats (a crawl in this process).

    Written a site at a time, a line each: a registry of thousands of sites never holds
    its whole summary as one string (and json's indenting encoder is pure Python)."""
    head = json.dumps(
        {
            "run_id": run_id,
            "exit_status": status,
            "exit_meaning": EXIT_CODES[status],
            "partial": status in (EXIT_INTERRUPTED, EXIT_STORE_FAILED),
        },
        ensure_ascii=False,
        indent=2,
    )
    tail = json.dumps(
        {
            "notes": list(notes),
            "stats": {k: _plain(v) for k, v in sorted((stats or {}).items())},
        },
        ensure_ascii=False,
        indent=2,
    )
    with AtomicFile(path) as file:
        file.write(head[: -len("\n}")].encode() + b',\n  "sites": [')
        for index, summary in enumerate(summaries):
            site = json.dumps(summary.as_dict() | {"healthy": summary.healthy}, ensure_ascii=False)
            file.write(("," if index else "").encode() + b"\n    " + site.encode())
        file.write(b"\n  ]" if summaries else b"]")
        file.write(b"," + tail[len("{") :].encode() + b"\n")
