"""One run at a time: per output folder an advisory file lock, per PostgreSQL store
(``POST_STORE_URL``) an advisory lock of the database server; :func:`run_lock` picks it.

``fcntl.flock`` is released by the kernel when its process dies, however it dies, so a lock
left by a killed run never blocks the next one; the pid written in the file lets the next run
say that it took over from a dead run. The server's lock belongs to a database session, which
ends when its process dies: the server releases it as the connection closes (for a machine
that vanishes, when TCP keepalives give up, about a minute).
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from scrapy.settings import BaseSettings

from crawler.runs.folders import OutputDirError, os_reason, output_dir

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)


class LockBusy(RuntimeError):
    """Another live process holds the lock."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Lock:
    """A lock held for a ``with`` block: ``acquire`` on entry, ``release`` on exit."""

    def acquire(self) -> None:
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class RunLock(_Lock):
    """``with RunLock(output_dir / ".lock"):`` — raises :class:`LockBusy` if a run holds it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            self._acquire()
        except OSError as exc:
            raise OutputDirError(
                f"cannot take the run lock {self.path}: {os_reason(self.path.parent, exc)}"
            ) from exc

    def _acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise LockBusy(
                f"another run (pid {holder}) is using {self.path.parent}; try again later"
            ) from None
        previous = os.pread(fd, 64, 0).decode(errors="replace").strip()
        if previous.isdigit() and int(previous) != os.getpid() and not _alive(int(previous)):
            logger.warning(
                "taking over the lock %s left by pid %s, which is gone", self.path, previous
            )
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


class StoreRunLock(_Lock):
    """``with StoreRunLock(url):`` — one run at a time per PostgreSQL store, whichever machine
    runs it: a session advisory lock (``pg_try_advisory_lock``) held for the run on a
    connection of its own. Raises :class:`LockBusy` if another session holds it."""

    NAME = "blogcrawler run"  # the lock key is derived from it: the same in every version

    def __init__(self, url: str) -> None:
        self.url = url
        self._connection: psycopg.Connection | None = None

    def acquire(self) -> None:
        # Imported here: a run without POST_STORE_URL never loads psycopg.
        from crawler.store.postgres import advisory_key, connect, describe

        # Keepalives set for this session: the server notices a holder whose machine vanished
        # within about a minute, not the system's default two hours.
        connection = connect(
            self.url,
            "run",
            tcp_keepalives_idle="30",
            tcp_keepalives_interval="10",
            tcp_keepalives_count="3",
        )
        key = advisory_key(self.NAME)
        try:
            row = connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if not (row and row[0]):
                holder = self._holder(connection, key)
                raise LockBusy(
                    f"another run ({holder}) is using the store {describe(self.url)};"
                    " try again later"
                )
        except BaseException:
            connection.close()
            raise
        self._connection = connection

    @staticmethod
    def _holder(connection: psycopg.Connection, key: int) -> str:
        """Who holds the lock, as its session named itself (see ``connect``)."""
        row = connection.execute(
            "SELECT a.application_name, a.pid FROM pg_locks l JOIN pg_stat_activity a"
            " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted"
            " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND l.classid::bigint = %s AND l.objid::bigint = %s AND l.objsubid = 1",
            ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF),
        ).fetchone()
        if row is None:
            return "unknown"
        name, pid = row
        if name and name.startswith("blogcrawler run: "):
            return name.removeprefix("blogcrawler run: ")
        return f"database session {pid}"

    def release(self) -> None:
        if self._connection is not None:
            # Closing the session releases the lock; the explicit unlock only says so sooner.
            try:
                from crawler.store.postgres import advisory_key

                self._connection.execute(
                    "SELECT pg_advisory_unlock(%s)", (advisory_key(self.NAME),)
                )
            except Exception as exc:
                logger.debug("unlocking the store failed (closing releases it): %s", exc)
            self._connection.close()
            self._connection = None


def run_lock(settings: BaseSettings) -> RunLock | StoreRunLock:
    """The lock of one run: the store's (``POST_STORE_URL``: a PostgreSQL advisory lock, so
    two controllers on two machines cannot overlap), else the output folder's file lock."""
    url = settings.get("POST_STORE_URL")
    if url:
        return StoreRunLock(url)
    return RunLock(output_dir(settings) / ".lock")
