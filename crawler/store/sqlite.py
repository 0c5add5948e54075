"""The cross-run post store: every post ever seen, once, with its latest values.

:class:`PostStore` is the interface the pipelines and exports use; :class:`SQLiteStore` is the
default backend (one file under ``output/``, embedded, transactional, nothing to start). Another
backend (a server database shared by several Scrapyd nodes) implements the same methods and is
named in the ``POST_STORE_CLASS`` setting.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

# Fields whose change makes a post "changed" in a run's delta, as the item declares them.
from crawler.items import TRACKED_FIELDS

NEW, CHANGED, UNCHANGED = "new", "changed", "unchanged"


@dataclass(frozen=True, slots=True)
class PageState:
    """What the last run saw of a list page: its validators and the list pages it linked."""

    etag: str | None
    last_modified: str | None
    next_urls: tuple[str, ...]
    post_ids: tuple[str, ...] = ()


class PostStore(ABC):
    """Remembers each post across runs: first and last time seen, and its latest values."""

    @abstractmethod
    def record(self, item: Mapping[str, Any], run_id: str) -> str:
        """Store a post's latest values; return ``"new"``, ``"changed"`` or ``"unchanged"``."""

    @abstractmethod
    def seen(self, post_id: str) -> bool:
        """True if the post is in the store."""

    @abstractmethod
    def posts(self) -> Iterator[dict[str, Any]]:
        """Every stored post's latest values, by site, newest first, then by URL."""

    @abstractmethod
    def changes(self, run_id: str) -> Iterator[dict[str, Any]]:
        """Posts new or changed in a run, with ``change`` set to ``"new"`` or ``"changed"``
        and ``changed_fields`` to the tracked fields whose value changed (``[]`` if new)."""

    def dataset(self, run_id: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
        """Every post as :meth:`posts` orders them, each with its change in run ``run_id``
        (``{"change": …, "changed_fields": […]}``, None if it did not change): the exports
        in one pass."""
        changes = {
            post["id"]: {"change": post["change"], "changed_fields": post["changed_fields"]}
            for post in self.changes(run_id)
        }
        for post in self.posts():
            yield post, changes.get(post["id"])

    @abstractmethod
    def site_posts(self, site: str) -> Iterator[dict[str, Any]]:
        """Every stored post of one site, newest first."""

    @abstractmethod
    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        """The stored posts with these ids (unknown ids are skipped)."""

    @abstractmethod
    def posts_to_retry(self, site: str) -> Iterator[dict[str, Any]]:
        """The posts of a site whose page the last run asked for and did not get."""

    @abstractmethod
    def count(self, site: str | None = None) -> int:
        """Number of stored posts (of one site, if given)."""

    @abstractmethod
    def page_state(self, url: str) -> PageState | None:
        """What the last run saw of a list page, for a conditional request."""

    @abstractmethod
    def remember_page(self, url: str, state: PageState) -> None:
        """Keep a list page's validators and next links for the next run."""

    @abstractmethod
    def crawl_complete(self, site: str) -> bool:
        """True if the site's last crawl read every page it meant to (not cut short)."""

    @abstractmethod
    def set_crawl_complete(self, site: str, complete: bool) -> None:
        """Record whether this run's crawl of a site finished."""

    @abstractmethod
    def metrics(self, since: str | None = None) -> Iterator[dict[str, Any]]:
        """The history of the posts' counts: a row ``{id, url, site, seen_at, views, comments,
        likes}`` for each time a post was recorded with counts other than its last ones (its
        first sighting with any count included); ``since`` (ISO time): rows seen from then.
        Ordered by post id, then time."""

    @abstractmethod
    def record_site_run(self, run_id: str, site: str, summary: Mapping[str, Any]) -> None:
        """Keep what run ``run_id`` did for ``site`` (its summary, JSON-serialisable): how a
        controller learns the outcome of sites crawled by other processes or machines."""

    @abstractmethod
    def site_runs(self, run_id: str) -> dict[str, dict[str, Any]]:
        """The summaries recorded for run ``run_id``, by site."""

    @abstractmethod
    def exports_mark(self) -> str | None:
        """What the last complete export of the consolidated dataset was written with, or
        None when a post was recorded since (the dataset files are then out of date)."""

    @abstractmethod
    def set_exports_mark(self, mark: str | None) -> None:
        """Record that the dataset files hold what the store holds (``mark``), or not (None)."""

    @abstractmethod
    def flush(self) -> None:
        """Make the writes so far durable."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the store."""


def post_fingerprint(item: Mapping[str, Any]) -> str:
    """A digest of the tracked fields: a third of the store's size if kept as JSON."""
    values = json.dumps([item.get(name) for name in TRACKED_FIELDS], ensure_ascii=False)
    return hashlib.blake2b(values.encode("utf-8"), digest_size=16).hexdigest()


# The counts a post's page shows: their history is kept (PostStore.metrics).
COUNTS = ("views", "comments", "likes")
METRIC_FIELDS = ("id", "url", "site", "seen_at", *COUNTS)


def post_counts(item: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(item.get(name) for name in COUNTS)


def post_counts_changed(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """A new row of the metrics history: the counts differ from the last ones (a post seen
    for the first time: it shows any count)."""
    if old is None:
        return any(value is not None for value in post_counts(new))
    return post_counts(old) != post_counts(new)


def post_changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The tracked fields whose value differs between two versions of a post."""
    return [name for name in TRACKED_FIELDS if old.get(name) != new.get(name)]


def post_sort_instant(published_at: str | None) -> str | None:
    """UTC instant of an ISO timestamp, so posts from sites in different offsets sort right."""
    if not published_at:
        return None
    try:
        return datetime.fromisoformat(published_at).astimezone(UTC).isoformat()
    except ValueError:
        return None


class SQLiteStore(PostStore):
    """:class:`PostStore` in one SQLite file (WAL journal, writes committed in batches)."""

    SCHEMA = """
        CREATE TABLE IF NOT EXISTS posts (
            id TEXT PRIMARY KEY,
            site TEXT NOT NULL,
            published_utc TEXT,
            fingerprint TEXT NOT NULL,
            data TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            first_run TEXT NOT NULL,
            last_run TEXT NOT NULL,
            change TEXT NOT NULL,
            change_run TEXT NOT NULL,
            changed_fields TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX IF NOT EXISTS posts_change ON posts (change_run);
        CREATE TABLE IF NOT EXISTS pages (
            url TEXT PRIMARY KEY,
            etag TEXT,
            last_modified TEXT,
            next_urls TEXT NOT NULL,
            post_ids TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS sites (
            site TEXT PRIMARY KEY,
            complete INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS marks (
            name TEXT PRIMARY KEY,
            value TEXT
        );
        CREATE TABLE IF NOT EXISTS metrics (
            post_id TEXT NOT NULL,
            seen_at TEXT NOT NULL,
            views INTEGER,
            comments INTEGER,
            likes INTEGER,
            PRIMARY KEY (post_id, seen_at)
        );
        CREATE TABLE IF NOT EXISTS site_runs (
            run_id TEXT NOT NULL,
            site TEXT NOT NULL,
            summary TEXT NOT NULL,
            PRIMARY KEY (run_id, site)
        );
        CREATE INDEX IF NOT EXISTS posts_order ON posts (site, published_utc DESC);
    """

    def __init__(self, path: str | Path, batch_size: int = 500) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.batch_size = batch_size
        self._pending = 0
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: durable at checkpoints, never corrupt; no fsync per post.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(self.SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(posts)")}
        if "changed_fields" not in columns:  # a store made before changed_fields existed
            self.db.execute(
                "ALTER TABLE posts ADD COLUMN changed_fields TEXT NOT NULL DEFAULT '[]'"
            )
        self._exports_mark: str | None = ""  # as this process last wrote it ("": not yet)

    def record(self, item: Mapping[str, Any], run_id: str) -> str:
        if self._exports_mark is not None:
            # Committed with this post: an export killed later is redone by the next run.
            self.set_exports_mark(None)
        post_id = item["id"]
        now = item.get("crawled_at") or datetime.now(UTC).isoformat()
        fingerprint = post_fingerprint(item)
        data = json.dumps(dict(item), ensure_ascii=False)
        row = self.db.execute(
            "SELECT fingerprint, first_run, data, changed_fields FROM posts WHERE id = ?",
            (post_id,),
        ).fetchone()
        old: dict[str, Any] | None = None
        if row is None:
            status = NEW
            self.db.execute(
                "INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]')",
                (post_id, item["site"], post_sort_instant(item.get("published_at")), fingerprint,
                 data, now, now, run_id, run_id, NEW, run_id),
            )  # fmt: skip
        else:
            status = UNCHANGED if row[0] == fingerprint else CHANGED
            # A post first seen in this very run stays "new" in this run's delta.
            change = NEW if row[1] == run_id else CHANGED
            changed_fields = row[3]
            if status == CHANGED:  # the counts are tracked: unchanged, they are the same
                old = json.loads(row[2])
                if change == CHANGED:
                    changed_fields = json.dumps(post_changed_fields(old, item))
            self.db.execute(
                "UPDATE posts SET site = ?, published_utc = ?, fingerprint = ?, data = ?,"
                " last_seen = ?, last_run = ?,"
                " change = CASE WHEN ? THEN ? ELSE change END,"
                " change_run = CASE WHEN ? THEN ? ELSE change_run END,"
                " changed_fields = ? WHERE id = ?",
                (item["site"], post_sort_instant(item.get("published_at")), fingerprint, data, now,
                 run_id, status == CHANGED, change, status == CHANGED, run_id, changed_fields,
                 post_id),
            )  # fmt: skip
        if status != UNCHANGED and post_counts_changed(old, item):
            self.db.execute(
                "INSERT OR REPLACE INTO metrics VALUES (?, ?, ?, ?, ?)",
                (post_id, now, *post_counts(item)),
            )
        self._pending += 1
        if self._pending >= self.batch_size:
            self.flush()
        return status

    def seen(self, post_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM posts WHERE id = ?", (post_id,)).fetchone()
        return row is not None

    def posts(self) -> Iterator[dict[str, Any]]:
        # A separate cursor streams rows: memory stays flat however many posts there are.
        cursor = self.db.execute(
            "SELECT data FROM posts ORDER BY site, published_utc IS NULL, published_utc DESC, id"
        )
        for (data,) in cursor:
            yield json.loads(data)

    def changes(self, run_id: str) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT data, change, changed_fields FROM posts WHERE change_run = ?"
            " ORDER BY site, published_utc IS NULL, published_utc DESC, id",
            (run_id,),
        )
        for data, change, fields in cursor:
            yield {**json.loads(data), "change": change, "changed_fields": json.loads(fields)}

    def dataset(self, run_id: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
        cursor = self.db.execute(
            "SELECT data, CASE WHEN change_run = ? THEN change END, changed_fields FROM posts"
            " ORDER BY site, published_utc IS NULL, published_utc DESC, id",
            (run_id,),
        )
        for data, change, fields in cursor:
            delta = {"change": change, "changed_fields": json.loads(fields)} if change else None
            yield json.loads(data), delta

    def site_posts(self, site: str) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT data FROM posts WHERE site = ? ORDER BY published_utc IS NULL,"
            " published_utc DESC, id",
            (site,),
        )
        for (data,) in cursor:
            yield json.loads(data)

    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        for post_id in ids:
            row = self.db.execute("SELECT data FROM posts WHERE id = ?", (post_id,)).fetchone()
            if row is not None:
                yield json.loads(row[0])

    def posts_to_retry(self, site: str) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT data FROM posts WHERE site = ? AND json_extract(data, '$.post_page_failed')",
            (site,),
        )
        for (data,) in cursor:
            yield json.loads(data)

    def count(self, site: str | None = None) -> int:
        if site is None:
            return self.db.execute("SELECT COUNT(*) FROM posts").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM posts WHERE site = ?", (site,)).fetchone()[0]

    def page_state(self, url: str) -> PageState | None:
        row = self.db.execute(
            "SELECT etag, last_modified, next_urls, post_ids FROM pages WHERE url = ?", (url,)
        ).fetchone()
        if row is None:
            return None
        return PageState(row[0], row[1], tuple(json.loads(row[2])), tuple(json.loads(row[3])))

    def remember_page(self, url: str, state: PageState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?)",
            (url, state.etag, state.last_modified, json.dumps(list(state.next_urls)),
             json.dumps(list(state.post_ids))),
        )  # fmt: skip

    def crawl_complete(self, site: str) -> bool:
        row = self.db.execute("SELECT complete FROM sites WHERE site = ?", (site,)).fetchone()
        return bool(row and row[0])

    def set_crawl_complete(self, site: str, complete: bool) -> None:
        self.db.execute("INSERT OR REPLACE INTO sites VALUES (?, ?)", (site, int(complete)))

    def metrics(self, since: str | None = None) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT m.post_id, json_extract(p.data, '$.url'), p.site, m.seen_at, m.views,"
            " m.comments, m.likes FROM metrics m JOIN posts p ON p.id = m.post_id"
            " WHERE m.seen_at >= ? ORDER BY m.post_id, m.seen_at",
            (since or "",),
        )
        for row in cursor:
            yield dict(zip(METRIC_FIELDS, row, strict=True))

    def record_site_run(self, run_id: str, site: str, summary: Mapping[str, Any]) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO site_runs VALUES (?, ?, ?)",
            (run_id, site, json.dumps(dict(summary), ensure_ascii=False)),
        )

    def site_runs(self, run_id: str) -> dict[str, dict[str, Any]]:
        cursor = self.db.execute("SELECT site, summary FROM site_runs WHERE run_id = ?", (run_id,))
        return {site: json.loads(summary) for site, summary in cursor}

    def exports_mark(self) -> str | None:
        row = self.db.execute("SELECT value FROM marks WHERE name = 'exports'").fetchone()
        return row[0] if row else None

    def set_exports_mark(self, mark: str | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO marks VALUES ('exports', ?)", (mark,))
        self._exports_mark = mark

    def size_bytes(self) -> int:
        """Bytes on disk of the database and its WAL."""
        wal = self.path.with_name(self.path.name + "-wal")
        return sum(p.stat().st_size for p in (self.path, wal) if p.exists())

    def flush(self) -> None:
        self.db.commit()
        self._pending = 0

    def close(self) -> None:
        self.flush()
        self.db.close()


class StoreRegistry:
    """One store per path per process, shared by every crawler of a ``crawlall`` run.

    Several SQLite connections writing from the one reactor thread would wait on each other's
    open transactions; sharing one connection avoids that. Reference-counted: the last
    :meth:`release` closes it.
    """

    _stores: ClassVar[dict[str, tuple[PostStore, int]]] = {}

    @classmethod
    def acquire(cls, store_class: type[PostStore], path: str) -> PostStore:
        store, users = cls._stores.get(path, (None, 0))
        if store is None:
            store = store_class(path)  # type: ignore[call-arg]
        cls._stores[path] = (store, users + 1)
        return store

    @classmethod
    def release(cls, path: str) -> None:
        store, users = cls._stores[path]
        if users <= 1:
            del cls._stores[path]
            store.close()
        else:
            cls._stores[path] = (store, users - 1)
