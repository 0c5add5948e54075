"""What the cross-run store keeps, split by concern, and the one way a post is recorded.

A backend implements the five interfaces below with SQL only: :class:`PostStore` records a
post through :func:`crawler.store.records.decide` between two hooks of the backend (read the
current row, write the outcome), so the rules of new, changed and the counts' history are the
same everywhere. Callers ask for the narrowest interface they use.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from crawler.store.records import Record, StoredRow, decide

# The finish reason of a crawl stopped because its store failed for good.
STORE_UNAVAILABLE = "store_unavailable"


class StoreUnavailable(RuntimeError):
    """The store cannot be reached, read or written; the message is the one line to show
    (it names the store, never a password)."""


@dataclass(frozen=True, slots=True)
class PageState:
    """What the last run saw of a list (or post) page: its validators, the list pages it
    linked and the posts it listed."""

    etag: str | None
    last_modified: str | None
    next_urls: tuple[str, ...]
    post_ids: tuple[str, ...] = ()


class PostRecords(ABC):
    """Every post ever seen, once, with its latest values, its change in each run and the
    history of its counts."""

    def record(self, item: Mapping[str, Any], run_id: str) -> str:
        """Store a post's latest values; return ``"new"``, ``"changed"`` or ``"unchanged"``."""
        seen_at = item.get("crawled_at") or datetime.now(UTC).isoformat()
        with self._recording():
            record = decide(self._current(item["id"]), item, run_id, seen_at)
            self._write(record)
        return record.status

    @abstractmethod
    def _recording(self) -> AbstractContextManager[Any]:
        """The transaction one post is recorded in."""

    @abstractmethod
    def _current(self, post_id: str) -> StoredRow | None:
        """The post's row, locked for this transaction where the database can."""

    @abstractmethod
    def _write(self, record: Record) -> None:
        """Insert or update the post's row (``record.insert``), and add the counts' row."""

    @abstractmethod
    def seen(self, post_id: str) -> bool:
        """True if the post is in the store."""

    @abstractmethod
    def posts(self) -> Iterator[dict[str, Any]]:
        """Every stored post's latest values, by site, newest first, then by id."""

    @abstractmethod
    def changes(self, run_id: str) -> Iterator[dict[str, Any]]:
        """Posts new or changed in a run, in :meth:`posts` order, with ``change`` (``"new"``
        or ``"changed"``) and ``changed_fields`` (the tracked fields that changed; ``[]`` if
        new)."""

    @abstractmethod
    def dataset(self, run_id: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
        """Every post as :meth:`posts` orders them, each with its change in run ``run_id``
        (``{"change": …, "changed_fields": […]}``, None if it did not change): the
        exports in one pass."""

    @abstractmethod
    def site_posts(self, site: str) -> Iterator[dict[str, Any]]:
        """Every stored post of one site, newest first."""

    @abstractmethod
    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        """The stored posts with these ids, in the order asked (unknown ids skipped)."""

    @abstractmethod
    def posts_to_retry(self, site: str) -> Iterator[dict[str, Any]]:
        """The posts of a site whose page the last run asked for and did not get, newest
        first."""

    @abstractmethod
    def count(self, site: str | None = None) -> int:
        """Number of stored posts (of one site, if given)."""

    @abstractmethod
    def metrics(
        self, since: str | None = None, changed_after: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """The history of the posts' counts: a row ``{id, url, site, seen_at, views,
        comments, likes}`` for each time a post was recorded with counts other than its last
        ones (its first sighting with any count included); ``since`` (ISO time): rows seen
        from then; ``changed_after`` (ISO time): only the posts with a row seen after then
        and an earlier one. By post id, then time."""


class PageValidators(ABC):
    """The validators (ETag, Last-Modified) and links of the pages the last run read."""

    @abstractmethod
    def page_state(self, url: str) -> PageState | None:
        """What the last run saw of a page, for a conditional request."""

    @abstractmethod
    def remember_page(self, url: str, state: PageState) -> None:
        """Keep a page's validators and links for the next run."""


class SiteMarks(ABC):
    """Whether each site's last crawl read every page it meant to, and which layout read a
    site registered without one."""

    @abstractmethod
    def crawl_complete(self, site: str) -> bool:
        """True if the site's last crawl read every page it meant to (not cut short)."""

    @abstractmethod
    def set_crawl_complete(self, site: str, complete: bool) -> None:
        """Record whether this run's crawl of a site finished complete."""

    @abstractmethod
    def site_layout(self, site: str) -> str | None:
        """The layout that read the site last (one registered as ``auto``), or None."""

    @abstractmethod
    def set_site_layout(self, site: str, layout: str) -> None:
        """Record the layout that read a site registered as ``auto``."""


class RunRecords(ABC):
    """What each run did for each site: how a controller learns the outcome of sites that
    other processes or machines crawled."""

    @abstractmethod
    def record_site_run(self, run_id: str, site: str, summary: Mapping[str, Any]) -> None:
        """Keep what run ``run_id`` did for ``site`` (its summary, JSON-serialisable)."""

    @abstractmethod
    def site_runs(self, run_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """The summaries recorded for run ``run_id``: ``(site, summary)`` by site name, one
        at a time (a registry of thousands of sites)."""


class ExportsMark(ABC):
    """Whether the dataset files hold what the store holds."""

    @abstractmethod
    def exports_mark(self) -> str | None:
        """What the last complete export of the dataset was written with, or None when a
        post was recorded since (the dataset files are then out of date)."""

    @abstractmethod
    def set_exports_mark(self, mark: str | None) -> None:
        """Record that the dataset files hold what the store holds (``mark``), or not."""

    @abstractmethod
    def exports_listing(self) -> str | None:
        """What the report shows of the posts, as the last export of the dataset gathered
        it (JSON; valid while :meth:`exports_mark` is), or None."""

    @abstractmethod
    def set_exports_listing(self, listing: str) -> None:
        """Keep what an export of the dataset gathered for the report (JSON)."""


class PostStore(PostRecords, PageValidators, SiteMarks, RunRecords, ExportsMark):
    """The whole store: every concern above in one database."""

    # Where the store is, for messages (a file, or a database URL without its password).
    where: str

    @abstractmethod
    def flush(self) -> None:
        """Make the writes so far durable."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the store."""
