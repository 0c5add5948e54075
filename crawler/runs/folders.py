"""Where a run's files go, all under the output folder, and how long run folders are kept."""

from __future__ import annotations

import errno
import logging
import os
import shutil
from pathlib import Path

from scrapy.settings import BaseSettings

from crawler.runs.ids import RUN_ID_PATTERN

logger = logging.getLogger(__name__)


class OutputDirError(ValueError):
    """The output folder (or the store's folder) cannot be created or written; the message is
    the one line to show."""


def output_dir(settings: BaseSettings) -> Path:
    """The folder every export and state file lives in (``OUTPUT_DIR``)."""
    return Path(settings["OUTPUT_DIR"])


def run_dir(settings: BaseSettings, run: str) -> Path:
    """``output/runs/<run id>/``: the run's delta and summary. The id never leaves output/."""
    if not run or "/" in run or "\\" in run or run.startswith("."):
        raise ValueError(f"unsafe run id {run!r}")
    return output_dir(settings) / "runs" / run


def os_reason(folder: Path, error: OSError) -> str:
    """Why ``folder`` is unusable, in words: which regular file is in the way, or the error."""
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        for path in (folder, *folder.parents):
            if path.exists() and not path.is_dir():
                return "it is a file" if path == folder else f"it is under a regular file {path}"
    if error.errno == errno.EROFS:
        return "not writable (read-only file system)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "not writable (permission denied)"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "not writable (no space left on device)"
    return f"not usable ({error.strerror or error})"


def _check_folder(folder: Path, what: str) -> None:
    """Create ``folder`` and prove it writable: a probe file written, synced and deleted (an
    empty file can be made on a full disk; a byte cannot be written there)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"probe\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            probe.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputDirError(f"cannot use {what} {folder}: {os_reason(folder, exc)}") from exc


def prepare_output_dir(settings: BaseSettings) -> Path:
    """Create ``OUTPUT_DIR`` (and the folder of ``POST_STORE_PATH``) and check each is a
    writable folder with room; return the output folder.

    Run before a crawl takes the lock, so that an unusable folder is one line and exit status 2
    instead of tracebacks from every component that opens a file in it. Raises
    :class:`OutputDirError`.
    """
    out = output_dir(settings)
    _check_folder(out, "output folder")
    custom_store = settings["POST_STORE_PATH"]
    # SQLite names such as ":memory:" are not files.
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
    keep = settings.getint("RUNS_KEEP")
    runs = output_dir(settings) / "runs"
    if keep <= 0 or not runs.is_dir():
        return []
    ids = sorted(
        entry.name
        for entry in runs.iterdir()
        if entry.is_dir() and not entry.is_symlink() and RUN_ID_PATTERN.fullmatch(entry.name)
    )
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
