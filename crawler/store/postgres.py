"""The PostgreSQL store: :class:`~crawler.store.base.PostStore` in a database that several
crawl processes (Scrapyd jobs on several machines) and their controller share.

Chosen by the ``POST_STORE_URL`` setting (``postgresql://user@host:port/db``). Many writers at
once: each :meth:`PostgresStore.record` is one short transaction that locks the post's row
(``SELECT … FOR UPDATE``) or inserts it (``INSERT … ON CONFLICT DO NOTHING``), so two writers
of one post are serialised on that row: the post is stored once and reported ``new`` by
exactly one of them. No transaction holds more than one post's row, so writers never
deadlock or wait for each other's batches. Commits are asynchronous (``synchronous_commit =
off``: no disk flush per post, what SQLite's batches save); a server crash can lose the last
fraction of a second of them, never consistency, and :meth:`flush` makes everything so far
durable.

A connection lost (the server restarted, a network blip) is made again, with waits, for up
to ``POST_STORE_RECONNECT_SECONDS``, and the call that met the loss is run again: each call
is one statement or one transaction, so running it again is safe. A store that stays away
longer is :class:`StoreUnavailable`, one line naming it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from itertools import count as counter
from typing import Any, TypeVar

import psycopg
from psycopg.conninfo import conninfo_to_dict

from crawler.store.base import PageState, PostStore, StoreUnavailable
from crawler.store.migrations import Step, pending_steps
from crawler.store.queries import PostQueries
from crawler.store.records import Record, StoredRow

logger = logging.getLogger(__name__)

T = TypeVar("T")


def describe(url: str) -> str:
    """The store's address for messages: user, host, port and database, never a password."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error:
        return "(an unreadable POST_STORE_URL)"
    user = f"{params['user']}@" if params.get("user") else ""
    host = params.get("host") or params.get("hostaddr") or "localhost"
    port = params.get("port") or "5432"
    return f"postgresql://{user}{host}:{port}/{params.get('dbname') or ''}"


def advisory_key(name: str) -> int:
    """A PostgreSQL advisory lock key (a signed 64-bit integer) derived from ``name``."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def first_line(error: BaseException) -> str:
    """The first line of an error's message (psycopg's go on with hints and context)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def connect(url: str, purpose: str, **settings: str) -> psycopg.Connection:
    """An autocommit connection to the store named ``purpose`` in ``pg_stat_activity`` (so a
    refused run can say who holds the lock), with these session ``settings``.

    Raises :class:`StoreUnavailable` with one line naming the store."""
    name = f"blogcrawler {purpose}: pid {os.getpid()} on {socket.gethostname()}"
    try:
        params = conninfo_to_dict(url)
        params.setdefault("connect_timeout", "10")
        params.update(autocommit=True, application_name=name[:63])
        connection = psycopg.connect(**params)  # type: ignore[arg-type]
    except psycopg.Error as exc:
        logger.debug("connecting to %s failed", describe(url), exc_info=True)
        raise StoreUnavailable(
            f"cannot connect to the store {describe(url)} (POST_STORE_URL): {first_line(exc)}"
        ) from exc
    # Servers that end idle sessions would end a crawl's between two sites; settings an older
    # server does not know are skipped.
    for setting, value in {"idle_session_timeout": "0", **settings}.items():
        try:
            connection.execute("SELECT set_config(%s, %s, false)", (setting, value))
        except psycopg.Error as exc:
            logger.debug("%s: cannot set %s: %s", describe(url), setting, exc)
    return connection


# The schema, one step per version (see crawler.store.migrations).
MIGRATIONS: tuple[Step, ...] = (
    # 1: the SQLite store's tables. "C" collation: ordered by bytes, as SQLite orders them;
    # page_failed: the post_page_failed flag of data, indexed for posts_to_retry.
    """
    CREATE TABLE posts (
        id TEXT COLLATE "C" PRIMARY KEY,
        site TEXT COLLATE "C" NOT NULL,
        published_utc TEXT COLLATE "C",
        fingerprint TEXT NOT NULL,
        data TEXT NOT NULL,
        page_failed BOOLEAN NOT NULL,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        first_run TEXT NOT NULL,
        last_run TEXT NOT NULL,
        change TEXT NOT NULL,
        change_run TEXT NOT NULL,
        changed_fields TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX posts_change ON posts (change_run);
    CREATE INDEX posts_order ON posts (site, published_utc DESC NULLS LAST, id);
    CREATE INDEX posts_retry ON posts (site) WHERE page_failed;
    CREATE TABLE pages (
        url TEXT PRIMARY KEY,
        etag TEXT,
        last_modified TEXT,
        next_urls TEXT NOT NULL,
        post_ids TEXT NOT NULL
    );
    CREATE TABLE sites (
        site TEXT PRIMARY KEY,
        complete BOOLEAN NOT NULL
    );
    CREATE TABLE marks (
        name TEXT PRIMARY KEY,
        value TEXT
    );
    CREATE TABLE site_runs (
        run_id TEXT NOT NULL,
        site TEXT NOT NULL,
        summary TEXT NOT NULL,
        PRIMARY KEY (run_id, site)
    );
    """,
    # 2: the history of the posts' counts (PostRecords.metrics).
    """
    CREATE TABLE metrics (
        post_id TEXT COLLATE "C" NOT NULL,
        seen_at TEXT COLLATE "C" NOT NULL,
        views BIGINT,
        comments BIGINT,
        likes BIGINT,
        PRIMARY KEY (post_id, seen_at)
    );
    """,
    # 3: the layout that read a site registered without one (SiteMarks.site_layout).
    "ALTER TABLE sites ADD COLUMN layout TEXT",
)

ORDER = "ORDER BY site, published_utc DESC NULLS LAST, id"
_CURRENT = (
    "SELECT fingerprint, first_run, data, change, change_run, changed_fields"
    " FROM posts WHERE id = %s FOR UPDATE"
)
_INSERT = (
    "INSERT INTO posts (id, site, published_utc, fingerprint, data, page_failed, first_seen,"
    " last_seen, first_run, last_run, change, change_run, changed_fields)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (id) DO NOTHING RETURNING true"
)
_UPDATE = (
    "UPDATE posts SET site = %s, published_utc = %s, fingerprint = %s, data = %s,"
    " page_failed = %s, last_seen = %s, last_run = %s, change = %s, change_run = %s,"
    " changed_fields = %s WHERE id = %s"
)
# In the post's transaction, whichever process records it: the dataset files are then out of
# date until the next complete export sets the mark again.
_RESET_MARK = "UPDATE marks SET value = NULL WHERE name = 'exports' AND value IS NOT NULL"
# Waits between attempts to connect again, in seconds; the last one repeats.
_BACKOFF = (0.2, 0.5, 1.0, 2.0)


class _InsertRaced(Exception):
    """Another writer inserted the post between our read and our insert: read it again."""


class PostgresStore(PostQueries, PostStore):
    """:class:`PostStore` in a PostgreSQL database (psycopg 3), safe for many writers."""

    MARK = "%s"
    ORDER = ORDER
    POST_URL = "p.data::json->>'url'"

    def __init__(self, url: str, reconnect_seconds: float = 30.0) -> None:
        self.url = url
        self.where = describe(url)
        self.reconnect_seconds = reconnect_seconds
        self._cursors = counter()
        self.db = self._connect()
        try:
            self._migrate()
        except BaseException:
            self.db.close()
            raise

    def _connect(self) -> psycopg.Connection:
        # Another session frozen inside a transaction would hold a post's row: the server
        # ends such a session after a minute (ours never idle inside one).
        return connect(
            self.url, "store", synchronous_commit="off", idle_in_transaction_session_timeout="60s"
        )

    # ---- calls that survive a lost connection --------------------------------------------
    def _call(self, operation: Callable[[], T]) -> T:
        """``operation()`` on the store's connection; a lost connection is made again and
        the operation run again (see the module docstring)."""
        deadline: float | None = None
        attempt = 0
        while True:
            try:
                return operation()
            except psycopg.Error as exc:
                if not (self.db.broken or self.db.closed):
                    raise StoreUnavailable(
                        f"the store {self.where} refused a request: {first_line(exc)}"
                    ) from exc
                if deadline is None:
                    deadline = time.monotonic() + self.reconnect_seconds
                    logger.warning(
                        "lost the connection to the store %s (%s); connecting again",
                        self.where,
                        first_line(exc),
                    )
                attempt = self._reconnect(deadline, attempt, exc)

    def _reconnect(self, deadline: float, attempt: int, error: BaseException) -> int:
        while True:
            wait = _BACKOFF[min(attempt, len(_BACKOFF) - 1)]
            attempt += 1
            if time.monotonic() + wait > deadline:
                raise StoreUnavailable(
                    f"lost the connection to the store {self.where} and could not connect"
                    f" again within {self.reconnect_seconds:g} s: {first_line(error)}"
                ) from error
            time.sleep(wait)
            try:
                self.db = self._connect()
            except StoreUnavailable as exc:
                error = exc
                continue
            logger.info("connected to the store %s again", self.where)
            return attempt

    def _fetchone(self, query: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        return self._call(lambda: self.db.execute(query, params).fetchone())

    def _fetchall(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._call(lambda: self.db.execute(query, params).fetchall())

    def _run(self, query: str, params: tuple[Any, ...] = ()) -> None:
        self._call(lambda: self.db.execute(query, params))

    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """Rows of ``query`` through a server-side cursor: memory stays flat however many
        posts. WITH HOLD: it outlives the autocommit statement that opens it, so other calls
        may run on the connection while it is read. A connection lost before the first row
        is made again; lost midway, the rows read cannot be taken back: StoreUnavailable."""

        def open_cursor() -> psycopg.ServerCursor:
            cursor = self.db.cursor(name=f"blogcrawler_{next(self._cursors)}", withhold=True)
            cursor.itersize = 500
            cursor.execute(query, params)
            return cursor

        cursor = self._call(open_cursor)
        try:
            yield from cursor
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"lost the store {self.where} while reading it: {first_line(exc)}"
            ) from exc
        finally:
            if not self.db.closed and not self.db.broken:
                cursor.close()

    def _migrate(self) -> None:
        """Create or upgrade the tables to the latest version, in one transaction."""
        try:
            with self.db.transaction():
                # Processes opening a new store at once: one creates it, the others wait.
                self.db.execute(
                    "SELECT pg_advisory_xact_lock(%s)", (advisory_key("blogcrawler schema"),)
                )
                self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
                row = self.db.execute("SELECT max(version) FROM schema_version").fetchone()
                current = (row[0] if row else None) or 0
                for version, step in pending_steps(current, MIGRATIONS, self.where):
                    if callable(step):
                        step(self.db)
                    else:
                        self.db.execute(step)
                    self.db.execute("DELETE FROM schema_version")
                    self.db.execute("INSERT INTO schema_version VALUES (%s)", (version,))
                    logger.info("store %s: tables at schema version %d", self.where, version)
        except psycopg.Error as exc:
            logger.debug("creating the tables of %s failed", self.where, exc_info=True)
            raise StoreUnavailable(
                f"cannot create or upgrade the tables of the store {self.where}: {first_line(exc)}"
            ) from exc

    def schema_version(self) -> int:
        """The version of the store's tables (the number of steps applied)."""
        row = self._fetchone("SELECT max(version) FROM schema_version")
        return row[0] if row else 0

    # ---- posts ---------------------------------------------------------------------------
    def record(self, item: Mapping[str, Any], run_id: str) -> str:
        def attempt() -> str:
            try:
                return super(PostgresStore, self).record(item, run_id)
            except _InsertRaced:
                # The other writer has committed (our insert waited for it): its row is
                # there to lock now.
                return super(PostgresStore, self).record(item, run_id)

        return self._call(attempt)

    def _recording(self) -> AbstractContextManager[Any]:
        return self.db.transaction()

    def _current(self, post_id: str) -> StoredRow | None:
        row = self.db.execute(_CURRENT, (post_id,)).fetchone()
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
        fields = json.dumps(list(record.changed_fields))
        if record.insert:
            inserted = self.db.execute(
                _INSERT,
                (
                    record.id,
                    record.site,
                    record.published_utc,
                    record.fingerprint,
                    record.data,
                    record.page_failed,
                    record.seen_at,
                    record.seen_at,
                    record.run_id,
                    record.run_id,
                    record.change,
                    record.change_run,
                    fields,
                ),
            ).fetchone()
            if inserted is None:
                raise _InsertRaced
        else:
            self.db.execute(
                _UPDATE,
                (
                    record.site,
                    record.published_utc,
                    record.fingerprint,
                    record.data,
                    record.page_failed,
                    record.seen_at,
                    record.run_id,
                    record.change,
                    record.change_run,
                    fields,
                    record.id,
                ),
            )
        if record.counts is not None:
            self.db.execute(
                "INSERT INTO metrics VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (record.id, record.seen_at, *record.counts),
            )
        self.db.execute(_RESET_MARK)

    def seen(self, post_id: str) -> bool:
        return self._fetchone("SELECT 1 FROM posts WHERE id = %s", (post_id,)) is not None

    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        # In the order asked, a query per thousand ids.
        batch: list[str] = []
        for post_id in ids:
            batch.append(post_id)
            if len(batch) >= 1000:
                yield from self._posts_by_id(batch)
                batch = []
        if batch:
            yield from self._posts_by_id(batch)

    def _posts_by_id(self, ids: list[str]) -> Iterator[dict[str, Any]]:
        found = dict(self._fetchall("SELECT id, data FROM posts WHERE id = ANY(%s)", (ids,)))
        for post_id in ids:
            if post_id in found:
                yield json.loads(found[post_id])

    def count(self, site: str | None = None) -> int:
        if site is None:
            row = self._fetchone("SELECT count(*) FROM posts")
        else:
            row = self._fetchone("SELECT count(*) FROM posts WHERE site = %s", (site,))
        return row[0] if row else 0

    # ---- pages, sites, runs, marks: one upsert each ---------------------------------------
    def page_state(self, url: str) -> PageState | None:
        row = self._fetchone(
            "SELECT etag, last_modified, next_urls, post_ids FROM pages WHERE url = %s", (url,)
        )
        if row is None:
            return None
        return PageState(row[0], row[1], tuple(json.loads(row[2])), tuple(json.loads(row[3])))

    def remember_page(self, url: str, state: PageState) -> None:
        self._run(
            "INSERT INTO pages VALUES (%s, %s, %s, %s, %s) ON CONFLICT (url) DO UPDATE SET"
            " etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,"
            " next_urls = EXCLUDED.next_urls, post_ids = EXCLUDED.post_ids",
            (
                url,
                state.etag,
                state.last_modified,
                json.dumps(list(state.next_urls)),
                json.dumps(list(state.post_ids)),
            ),
        )

    def crawl_complete(self, site: str) -> bool:
        row = self._fetchone("SELECT complete FROM sites WHERE site = %s", (site,))
        return bool(row and row[0])

    def set_crawl_complete(self, site: str, complete: bool) -> None:
        self._run(
            "INSERT INTO sites (site, complete) VALUES (%s, %s)"
            " ON CONFLICT (site) DO UPDATE SET complete = EXCLUDED.complete",
            (site, complete),
        )

    def site_layout(self, site: str) -> str | None:
        row = self._fetchone("SELECT layout FROM sites WHERE site = %s", (site,))
        return row[0] if row else None

    def set_site_layout(self, site: str, layout: str) -> None:
        self._run(
            "INSERT INTO sites (site, complete, layout) VALUES (%s, false, %s)"
            " ON CONFLICT (site) DO UPDATE SET layout = EXCLUDED.layout",
            (site, layout),
        )

    def record_site_run(self, run_id: str, site: str, summary: Mapping[str, Any]) -> None:
        self._run(
            "INSERT INTO site_runs VALUES (%s, %s, %s)"
            " ON CONFLICT (run_id, site) DO UPDATE SET summary = EXCLUDED.summary",
            (run_id, site, json.dumps(dict(summary), ensure_ascii=False)),
        )

    def site_runs(self, run_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
        query = "SELECT site, summary FROM site_runs WHERE run_id = %s ORDER BY site"
        for site, summary in self._rows(query, (run_id,)):
            yield site, json.loads(summary)

    def exports_mark(self) -> str | None:
        row = self._fetchone("SELECT value FROM marks WHERE name = 'exports'")
        return row[0] if row else None

    def set_exports_mark(self, mark: str | None) -> None:
        self._set_mark("exports", mark)

    def exports_listing(self) -> str | None:
        row = self._fetchone("SELECT value FROM marks WHERE name = 'listing'")
        return row[0] if row else None

    def set_exports_listing(self, listing: str) -> None:
        self._set_mark("listing", listing)

    def _set_mark(self, name: str, value: str | None) -> None:
        self._run(
            "INSERT INTO marks VALUES (%s, %s)"
            " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            (name, value),
        )

    # ---- durability ----------------------------------------------------------------------
    def flush(self) -> None:
        # A transaction that commits synchronously waits until the WAL up to its commit, and
        # so every earlier asynchronous commit, is on disk; it needs a transaction id to
        # write a commit record at all.
        def durable() -> None:
            with self.db.transaction():
                self.db.execute("SET LOCAL synchronous_commit = on")
                self.db.execute("SELECT txid_current()")

        self._call(durable)

    def close(self) -> None:
        if self.db.closed:
            return
        try:
            if not self.db.broken:
                self.flush()
        finally:
            self.db.close()
