"""What identifies a run and where its files go, all under the output folder."""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from crawler.store.sqlite import PostStore, StoreRegistry

logger = logging.getLogger(__name__)

# What new_run_id makes; only folders named like this are ever pruned from output/runs/.
RUN_ID_PATTERN = re.compile(r"\d{8}T\d{6}Z-\d+")


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, file-name-safe run id: UTC time and pid, e.g. ``20261130T101500Z-4242``."""
    now = now or datetime.now(UTC)
    return f"{now.astimezone(UTC):%Y%m%dT%H%M%SZ}-{os.getpid()}"


def run_id(settings: BaseSettings) -> str:
    """The run id shared by every crawler of this process (set once, in the settings)."""
    return settings.get("RUN_ID") or _process_run_id()


@lru_cache(maxsize=1)
def _process_run_id() -> str:
    return new_run_id()


def output_dir(settings: BaseSettings) -> Path:
    """The folder every export and state file lives in (``OUTPUT_DIR``, default ``output``)."""
    return Path(settings.get("OUTPUT_DIR") or "output")


def run_dir(settings: BaseSettings, run: str) -> Path:
    """``output/runs/<run id>/``: the run's delta and summary. The id never leaves output/."""
    if not run or "/" in run or "\\" in run or run.startswith("."):
        raise ValueError(f"unsafe run id {run!r}")
    return output_dir(settings) / "runs" / run


def store_path(settings: BaseSettings) -> str:
    """Where the store lives: ``POST_STORE_URL`` (a PostgreSQL database) if set, else
    ``POST_STORE_PATH``, default ``<OUTPUT_DIR>/posts.sqlite``. Also the key under which
    :func:`acquire_store` shares it within the process."""
    return (
        settings.get("POST_STORE_URL")
        or settings.get("POST_STORE_PATH")
        or str(output_dir(settings) / "posts.sqlite")
    )


def acquire_store(settings: BaseSettings) -> PostStore:
    """The process's shared store: ``POST_STORE_CLASS`` at ``POST_STORE_PATH`` (default: SQLite
    under ``OUTPUT_DIR``), or with ``POST_STORE_URL`` set the PostgreSQL store there (or a
    ``POST_STORE_CLASS`` of one's own, given the URL)."""
    sqlite = "crawler.store.sqlite.SQLiteStore"
    name = settings.get("POST_STORE_CLASS") or sqlite
    if settings.get("POST_STORE_URL") and name == sqlite:
        name = "crawler.store.postgres.PostgresStore"
    return StoreRegistry.acquire(load_object(name), store_path(settings))


def check_store(settings: BaseSettings) -> None:
    """Open and release the configured store once, before a run: a PostgreSQL store that
    cannot be reached raises ``StoreUnavailable`` (one line) here, not in the crawl."""
    acquire_store(settings)
    release_store(settings)


def release_store(settings: BaseSettings) -> None:
    """Give back the store taken with :func:`acquire_store`."""
    StoreRegistry.release(store_path(settings))


class OutputDirError(ValueError):
    """The output folder (or the store's folder) cannot be created or written; the message is
    the one line to show."""


def _reason(folder: Path, error: OSError) -> str:
    """Why ``folder`` is unusable, in words: which regular file is in the way, or the error."""
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        for path in (folder, *folder.parents):
            if path.exists() and not path.is_dir():
                return "it is a file" if path == folder else f"it is under a regular file {path}"
    if error.errno == errno.EROFS:
        return "not writable (read-only file system)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "not writable (permission denied)"
    if error.errno == errno.ENOSPC:
        return "not writable (no space left on device)"
    return f"not usable ({error.strerror or error})"


def _check_folder(folder: Path, what: str) -> None:
    """Create ``folder`` and prove it writable by creating and deleting a probe file."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputDirError(f"cannot use {what} {folder}: {_reason(folder, exc)}") from exc


def prepare_output_dir(settings: BaseSettings) -> Path:
    """Create ``OUTPUT_DIR`` (and the folder of ``POST_STORE_PATH``) and check each is a
    writable folder; return the output folder.

    Run before a crawl takes the lock, so that an unusable folder is one line and exit status 2
    instead of tracebacks from every component that opens a file in it. Raises
    :class:`OutputDirError`.
    """
    out = output_dir(settings)
    _check_folder(out, "output folder")
    custom_store = settings.get("POST_STORE_PATH")
    # SQLite names such as ":memory:" are not files; other store classes may not use a path.
    if custom_store and not str(custom_store).startswith(":"):
        folder = Path(custom_store).parent
        if folder.resolve() != out.resolve():
            _check_folder(folder, "store folder (POST_STORE_PATH)")
    return out


def prune_runs(settings: BaseSettings, current: str) -> list[Path]:
    """Delete the oldest run folders under ``output/runs/`` beyond the newest ``RUNS_KEEP``
    (0: keep all); return the folders deleted.

    Run ids sort by time, so name order is age order. The current run and folders not named
    like a run id (``-s RUN_ID=...``, anything a user put there) are never deleted.
    """
    keep = settings.getint("RUNS_KEEP", 30)
    runs = output_dir(settings) / "runs"
    if keep <= 0 or not runs.is_dir():
        return []
    ids = sorted(
        entry.name for entry in runs.iterdir()
        if entry.is_dir() and not entry.is_symlink() and RUN_ID_PATTERN.fullmatch(entry.name)
    )  # fmt: skip
    removed = []
    for old in ids[: max(len(ids) - keep, 0)]:
        if old == current:
            continue
        try:
            shutil.rmtree(runs / old)
        except OSError as exc:
            logger.warning("could not remove the old run folder %s: %s", runs / old, exc)
            continue
        removed.append(runs / old)
    if removed:
        logger.info("removed %d old run folder(s) from %s (RUNS_KEEP=%d)", len(removed), runs, keep)
    return removed
