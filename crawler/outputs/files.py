"""Files the crawler writes for people and tools: replaced atomically, errors in one line.

Every output file (the dataset, the feeds, the report page) is written to a temporary file
in its folder, fsynced and renamed over the old one, so a reader never sees half a file and a
run killed midway leaves the previous version; a file that cannot be written is an
:class:`ExportError` whose message names it.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


class ExportError(OSError):
    """An output file could not be written; the message is one line naming it."""

    @classmethod
    def of(cls, path: Path, error: OSError) -> ExportError:
        """The error for ``path`` (``error`` itself if it already names its file)."""
        if isinstance(error, ExportError):
            return error
        reason = os.strerror(error.errno).lower() if error.errno else str(error)
        if error.errno == errno.ENOENT:
            reason = "its folder is gone"
        return cls(f"cannot write {path}: {reason}")


def umask() -> int:
    """The process's file mode creation mask (read by setting it and back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def shared_mode(fd: int) -> None:
    """Give a file mkstemp made private (0600) the mode any new file gets: outputs are for
    other tools and users."""
    os.fchmod(fd, 0o666 & ~umask())


def replace_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; :class:`ExportError` naming it on failure."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A run killed mid-write leaves its temporary file; the run lock says none is writing.
        for stale in path.parent.glob(f".{path.name}.*.tmp"):
            stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as file:
            shared_mode(file.fileno())
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise ExportError.of(path, exc) from exc
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
