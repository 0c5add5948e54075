"""The default store: one SQLite file under the output folder (WAL journal, writes committed
in batches), embedded, transactional, nothing to start."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from crawler.store.base import PageState, PostStore, StoreUnavailable
from crawler.store.migrations import Step, pending_steps
from crawler.store.queries import PostQueries
from crawler.store.records import Record, StoredRow

ORDER = "ORDER BY site, published_utc IS NULL, published_utc DESC, id"

_SCHEMA_1 = """
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
    CREATE INDEX IF NOT EXISTS posts_order ON posts (site, published_utc DESC);
    CREATE TABLE IF NOT EXISTS pages (
        url TEXT PRIMARY KEY,
        etag TEXT,
        last_modified TEXT,
        next_urls TEXT NOT NULL,
        post_ids TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS sites (site TEXT PRIMARY KEY, complete INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS marks (name TEXT PRIMARY KEY, value TEXT);
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
"""


def _schema_1(db: sqlite3.Connection) -> None:
    """The tables as they were before schema versions; a store of that time is taken as it
    stands (IF NOT EXISTS), with the column that came last added where it is missing."""
    db.executescript(_SCHEMA_1)
    columns = {row[1] for row in db.execute("PRAGMA table_info(posts)")}
    if "changed_fields" not in columns:
        db.execute("ALTER TABLE posts ADD COLUMN changed_fields TEXT NOT NULL DEFAULT '[]'")


# The schema, one step per version (see crawler.store.migrations).
MIGRATIONS: tuple[Step, ...] = (
    _schema_1,
    # 2: the post_page_failed flag of data as a column, indexed for posts_to_retry (as in
    # the PostgreSQL store).
    """
    ALTER TABLE posts ADD COLUMN page_failed INTEGER NOT NULL DEFAULT 0;
    UPDATE posts SET page_failed = 1 WHERE json_extract(data, '$.post_page_failed');
    CREATE INDEX posts_retry ON posts (site) WHERE page_failed;
    """,
    # 3: the layout that read a site registered without one (SiteMarks.site_layout).
    "ALTER TABLE sites ADD COLUMN layout TEXT",
)

_CURRENT = "SELECT fingerprint, first_run, data, change, change_run, changed_fields FROM posts"


def _problem(path: Path, error: sqlite3.Error) -> StoreUnavailable:
    return StoreUnavailable(f"cannot use the store {path}: {error}")


class SQLiteStore(PostQueries, PostStore):
    """:class:`PostStore` in one SQLite file; writes are committed every ``batch_size`` posts
    (no fsync per post) and by :meth:`flush`. Raises :class:`StoreUnavailable` naming the
    file when it cannot be opened or written (disk full, not a database)."""

    MARK = "?"
    ORDER = ORDER
    POST_URL = "json_extract(p.data, '$.url')"

    def __init__(self, path: str | Path, batch_size: int = 500) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.batch_size = batch_size
        self._pending = 0
        self._closed = False
        self._exports_mark: str | None = ""  # as this process last wrote it ("": not yet)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30)
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailable(f"cannot open the store {self.path}: {exc}") from exc
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: durable at checkpoints, never corrupt; no fsync per post.
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.Error as exc:
            self.db.close()
            raise _problem(self.path, exc) from exc

    def _migrate(self) -> None:
        with self.db:
            self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            row = self.db.execute("SELECT max(version) FROM schema_version").fetchone()
            current = row[0] or 0
            for version, step in pending_steps(current, MIGRATIONS, self.where):
                if callable(step):
                    step(self.db)
                else:
                    for statement in filter(str.strip, step.split(";")):
                        self.db.execute(statement)
                self.db.execute("DELETE FROM schema_version")
                self.db.execute("INSERT INTO schema_version VALUES (?)", (version,))

    def schema_version(self) -> int:
        """The version of the store's tables (the number of steps applied)."""
        return self.db.execute("SELECT max(version) FROM schema_version").fetchone()[0]

    def _execute(self, query: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(query, params)
        except sqlite3.Error as exc:
            raise _problem(self.path, exc) from exc

    # ---- posts ---------------------------------------------------------------------------
    def _recording(self) -> AbstractContextManager[Any]:
        # Posts are committed in batches (flush), not one transaction each.
        return nullcontext()

    def _current(self, post_id: str) -> StoredRow | None:
        row = self._execute(f"{_CURRENT} WHERE id = ?", (post_id,)).fetchone()
        if row is None:
            return None
        fingerprint, first_run, data, change, change_run, fields = row
        return StoredRow(
            fingerprint=fingerprint,
            first_run=first_run,
            data=data,
            change=change,
            change_run=change_run,
            changed_fields=tuple(json.loads(fields)),
        )

    def _write(self, record: Record) -> None:
        if self._exports_mark is not None:
            # Committed with this post: an export killed later is redone by the next run.
            self.set_exports_mark(None)
        fields = json.dumps(list(record.changed_fields))
        if record.insert:
            self._execute(
                "INSERT INTO posts (id, site, published_utc, fingerprint, data, first_seen,"
                " last_seen, first_run, last_run, change, change_run, changed_fields,"
                " page_failed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.site,
                    record.published_utc,
                    record.fingerprint,
                    record.data,
                    record.seen_at,
                    record.seen_at,
                    record.run_id,
                    record.run_id,
                    record.change,
                    record.change_run,
                    fields,
                    record.page_failed,
                ),
            )
        else:
            self._execute(
                "UPDATE posts SET site = ?, published_utc = ?, fingerprint = ?, data = ?,"
                " last_seen = ?, last_run = ?, change = ?, change_run = ?, changed_fields = ?,"
                " page_failed = ? WHERE id = ?",
                (
                    record.site,
                    record.published_utc,
                    record.fingerprint,
                    record.data,
                    record.seen_at,
                    record.run_id,
                    record.change,
                    record.change_run,
                    fields,
                    record.page_failed,
                    record.id,
                ),
            )
        if record.counts is not None:
            self._execute(
                "INSERT OR REPLACE INTO metrics VALUES (?, ?, ?, ?, ?)",
                (record.id, record.seen_at, *record.counts),
            )
        self._pending += 1
        if self._pending >= self.batch_size:
            self.flush()

    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        # A cursor of its own streams the rows: memory stays flat however many posts.
        try:
            yield from self.db.execute(query, params)
        except sqlite3.Error as exc:
            raise _problem(self.path, exc) from exc

    def seen(self, post_id: str) -> bool:
        return self._execute("SELECT 1 FROM posts WHERE id = ?", (post_id,)).fetchone() is not None

    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        for post_id in ids:
            row = self._execute("SELECT data FROM posts WHERE id = ?", (post_id,)).fetchone()
            if row is not None:
                yield json.loads(row[0])

    def count(self, site: str | None = None) -> int:
        if site is None:
            return self._execute("SELECT count(*) FROM posts").fetchone()[0]
        return self._execute("SELECT count(*) FROM posts WHERE site = ?", (site,)).fetchone()[0]

    # ---- pages, sites, runs, marks: one upsert each ---------------------------------------
    def page_state(self, url: str) -> PageState | None:
        row = self._execute(
            "SELECT etag, last_modified, next_urls, post_ids FROM pages WHERE url = ?", (url,)
        ).fetchone()
        if row is None:
            return None
        return PageState(row[0], row[1], tuple(json.loads(row[2])), tuple(json.loads(row[3])))

    def remember_page(self, url: str, state: PageState) -> None:
        self._execute(
            "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?)",
            (
                url,
                state.etag,
                state.last_modified,
                json.dumps(list(state.next_urls)),
                json.dumps(list(state.post_ids)),
            ),
        )

    def crawl_complete(self, site: str) -> bool:
        row = self._execute("SELECT complete FROM sites WHERE site = ?", (site,)).fetchone()
        return bool(row and row[0])

    def set_crawl_complete(self, site: str, complete: bool) -> None:
        self._execute(
            "INSERT INTO sites (site, complete) VALUES (?, ?)"
            " ON CONFLICT (site) DO UPDATE SET complete = excluded.complete",
            (site, int(complete)),
        )

    def site_layout(self, site: str) -> str | None:
        row = self._execute("SELECT layout FROM sites WHERE site = ?", (site,)).fetchone()
        return row[0] if row else None

    def set_site_layout(self, site: str, layout: str) -> None:
        self._execute(
            "INSERT INTO sites (site, complete, layout) VALUES (?, 0, ?)"
            " ON CONFLICT (site) DO UPDATE SET layout = excluded.layout",
            (site, layout),
        )

    def record_site_run(self, run_id: str, site: str, summary: Mapping[str, Any]) -> None:
        self._execute(
            "INSERT OR REPLACE INTO site_runs VALUES (?, ?, ?)",
            (run_id, site, json.dumps(dict(summary), ensure_ascii=False)),
        )

    def site_runs(self, run_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
        query = "SELECT site, summary FROM site_runs WHERE run_id = ? ORDER BY site"
        for site, summary in self._rows(query, (run_id,)):
            yield site, json.loads(summary)

    def exports_mark(self) -> str | None:
        row = self._execute("SELECT value FROM marks WHERE name = 'exports'").fetchone()
        return row[0] if row else None

    def set_exports_mark(self, mark: str | None) -> None:
        self._execute("INSERT OR REPLACE INTO marks VALUES ('exports', ?)", (mark,))
        self._exports_mark = mark

    def exports_listing(self) -> str | None:
        row = self._execute("SELECT value FROM marks WHERE name = 'listing'").fetchone()
        return row[0] if row else None

    def set_exports_listing(self, listing: str) -> None:
        self._execute("INSERT OR REPLACE INTO marks VALUES ('listing', ?)", (listing,))

    # ---- durability ----------------------------------------------------------------------
    def size_bytes(self) -> int:
        """Bytes on disk of the database and its WAL."""
        wal = self.path.with_name(self.path.name + "-wal")
        return sum(p.stat().st_size for p in (self.path, wal) if p.exists())

    def flush(self) -> None:
        try:
            self.db.commit()
        except sqlite3.Error as exc:
            raise _problem(self.path, exc) from exc
        self._pending = 0

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.flush()
        finally:
            self.db.close()
