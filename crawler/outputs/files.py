"""The one atomic file writer: every file a run leaves (dataset, changes, feeds, report, run
summary) is written to a temporary file in its folder, flushed, fsynced and renamed over the
old one, so a reader never sees half a file and a run killed midway leaves the previous
version; a file that cannot be written is an :class:`ExportError` whose message names it.
"""

from __future__ import annotations

import errno
import io
import os
import tempfile
from pathlib import Path
from types import TracebackType


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


class _Target(io.RawIOBase):
    """The raw temporary file behind an :class:`AtomicFile`: a failed write (disk full) is
    an :class:`ExportError` naming the target, not the temporary name."""

    def __init__(self, fd: int, target: Path) -> None:
        super().__init__()
        self._fd, self.target = fd, target

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            raise ExportError.of(self.target, exc) from exc

    def close(self) -> None:
        if not self.closed:
            try:
                super().close()
            finally:
                os.close(self._fd)


# The folders this process has cleared of stale temporary files (once a folder: a feeds
# folder holds a file per site).
_CLEARED: set[Path] = set()


def _remove_stale(folder: Path) -> None:
    """Delete the temporary files a run killed mid-write left in ``folder`` (the run lock
    says no other run writes there)."""
    if folder in _CLEARED:
        return
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") and entry.name.endswith(".tmp") and entry.is_file():
                Path(entry.path).unlink(missing_ok=True)
    _CLEARED.add(folder)


class AtomicFile:
    """``with AtomicFile(path) as file:`` — a buffered binary file that becomes ``path`` when
    the block ends without an error (and is deleted if it ends with one).

    The file gets the mode any new file gets (outputs are for other tools and users, not
    mkstemp's private 0600). An ``OSError`` while opening, writing, syncing or renaming is an
    :class:`ExportError` naming ``path``; ``path`` then keeps its previous contents. Several
    can be open at once and committed together (:meth:`commit`), as the dataset files are.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tmp: Path | None = None
        self.file: io.BufferedWriter | None = None

    def __enter__(self) -> io.BufferedWriter:
        return self.open()

    def open(self) -> io.BufferedWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale(self.path.parent)
            fd, tmp = tempfile.mkstemp(
                prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
            )
        except OSError as exc:
            raise ExportError.of(self.path, exc) from exc
        self._tmp = Path(tmp)
        try:
            os.fchmod(fd, 0o666 & ~umask())
        except OSError as exc:
            os.close(fd)
            self.discard()
            raise ExportError.of(self.path, exc) from exc
        self.file = io.BufferedWriter(_Target(fd, self.path))  # type: ignore[arg-type]
        return self.file

    def commit(self) -> None:
        """Flush, sync and rename the file over ``path``."""
        assert self.file is not None and self._tmp is not None
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self._tmp, self.path)
        except OSError as exc:
            raise ExportError.of(self.path, exc) from exc
        finally:
            self.discard()

    def discard(self) -> None:
        """Close and delete the temporary file (a no-op once renamed). A second error while
        closing a file that already failed (its buffer cannot be flushed) would only hide
        the first."""
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                self.file.raw.close()
            self.file = None
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()

    def __repr__(self) -> str:
        return f"AtomicFile({str(self.path)!r})"


def replace_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; :class:`ExportError` naming it on failure."""
    with AtomicFile(path) as file:
        file.write(data)


def read_if_present(path: Path) -> bytes | None:
    """The file's bytes, None if there is none yet; :class:`ExportError` if it cannot be
    read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ExportError.of(path, exc) from exc
