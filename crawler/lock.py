"""One run at a time per output folder: an advisory file lock.

``fcntl.flock`` is released by the kernel when its process dies, however it dies, so a lock
left by a killed run never blocks the next one; the pid written in the file lets the next run
say that it took over from a dead run.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from types import TracebackType

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


class RunLock:
    """``with RunLock(output_dir / ".lock"):`` — raises :class:`LockBusy` if a run holds it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
