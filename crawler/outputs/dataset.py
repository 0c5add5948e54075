"""The dataset files: consolidated ``posts.jsonl``/``posts.csv`` and each run's delta.

Written with Scrapy's item exporters, to a temporary file in the same folder that is flushed,
fsynced and renamed over the old one: a reader never sees a half-written file, and a run that
dies mid-export leaves the previous files intact. A file that cannot be written (disk full,
folder gone) is an :class:`ExportError` naming it, and the previous files stay as they were.
"""

from __future__ import annotations

import io
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Mapping
from contextlib import ExitStack, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scrapy.exporters import BaseItemExporter
from scrapy.settings import BaseSettings

from crawler.items import POST_FIELDS, SCHEMA_FIELDS
from crawler.outputs.atom import write_feeds
from crawler.outputs.exporters import DEFAULT_LIST_SEPARATOR, JsonLinesExporter, SafeCsvItemExporter
from crawler.outputs.files import ExportError, shared_mode
from crawler.outputs.report import write_report
from crawler.runs.folders import output_dir, prune_runs, run_dir
from crawler.store.sqlite import METRIC_FIELDS, PostStore

DELTA_FIELDS = SCHEMA_FIELDS

logger = logging.getLogger(__name__)


class _TargetFile(io.RawIOBase):
    """The raw temporary file behind one target's exporter: a failed write (disk full) is an
    :class:`ExportError` naming the target, not the temporary name."""

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


@dataclass(frozen=True)
class ExportResult:
    """Where the files of one export went and how many rows each holds."""

    posts_jsonl: Path
    posts_csv: Path
    posts: int
    delta_jsonl: Path
    delta_csv: Path
    delta: int
    # False when nothing changed since the last export: the dataset files were left as they are.
    rewritten: bool = True


def _exporter(
    fmt: str, file: Any, fields: tuple[str, ...], settings: BaseSettings
) -> BaseItemExporter:
    common = {"fields_to_export": list(fields), "export_empty_fields": True, "encoding": "utf-8"}
    if fmt == "jsonl":
        return JsonLinesExporter(file, **common)
    return SafeCsvItemExporter(
        file,
        bom=settings.getbool("CSV_BOM"),
        join_multivalued=settings.get("CSV_LIST_SEPARATOR", DEFAULT_LIST_SEPARATOR),
        **common,
    )


class AtomicExporters:
    """Exporters writing each path of ``targets`` in its format ("jsonl" or "csv"), each to a
    temporary file in the same folder that is flushed, fsynced and renamed over the path when
    the ``with`` block ends without an error (and deleted if it ends with one).

    An ``OSError`` while opening, writing or renaming is raised as :class:`ExportError` naming
    the target; the temporary files are removed and the paths keep their previous contents.
    """

    def __init__(
        self, targets: Mapping[Path, str], fields: tuple[str, ...], settings: BaseSettings
    ) -> None:
        self.targets, self.fields, self.settings = targets, fields, settings
        self.exporters: list[BaseItemExporter] = []
        self._files: list[tuple[Path, Path, Any]] = []
        self._cleanup = ExitStack()

    def __enter__(self) -> list[BaseItemExporter]:
        try:
            for path, fmt in self.targets.items():
                self._open(path, fmt)
            for (path, _, _), exporter in zip(self._files, self.exporters, strict=True):
                try:
                    exporter.start_exporting()
                except OSError as exc:
                    raise ExportError.of(path, exc) from exc
        except BaseException:
            self._discard()
            raise
        return self.exporters

    def _open(self, path: Path, fmt: str) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A run killed mid-export leaves its temporary file; the lock says none runs.
            for stale in path.parent.glob(f".{path.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        except OSError as exc:
            raise ExportError.of(path, exc) from exc
        self._cleanup.callback(Path(tmp).unlink, missing_ok=True)  # a no-op once renamed
        raw = _TargetFile(fd, path)
        file = self._cleanup.enter_context(io.BufferedWriter(raw))
        self._files.append((path, Path(tmp), file))
        try:
            # mkstemp makes the file private (0600); the dataset is for other tools and users.
            shared_mode(fd)
            self.exporters.append(_exporter(fmt, file, self.fields, self.settings))
        except OSError as exc:
            raise ExportError.of(path, exc) from exc

    def _discard(self) -> None:
        """Close and delete the temporary files; a second error while closing a file that
        already failed (its buffer cannot be flushed either) would only hide the first."""
        with suppress(OSError):
            self._cleanup.close()

    def __exit__(self, error_type: type[BaseException] | None, *_: object) -> None:
        try:
            if error_type is None:
                self._commit()
        finally:
            self._discard()

    def _commit(self) -> None:
        for (path, _, file), exporter in zip(self._files, self.exporters, strict=True):
            try:
                exporter.finish_exporting()
                file.flush()
                os.fsync(file.fileno())
            except OSError as exc:
                raise ExportError.of(path, exc) from exc
        for path, tmp, _ in self._files:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise ExportError.of(path, exc) from exc


def atomic_export(
    targets: Mapping[Path, str], items: Iterable[Mapping[str, Any]], fields: tuple[str, ...],
    settings: BaseSettings,
) -> int:  # fmt: skip
    """Write ``items`` to each path of ``targets`` in its format ("jsonl" or "csv"), in one
    pass over the items, each file atomically; return the number of items."""
    count = 0
    with AtomicExporters(targets, fields, settings) as exporters:
        for item in items:
            for exporter in exporters:
                exporter.export_item(item)
            count += 1
    return count


def _dataset_mark(settings: BaseSettings, out: Path) -> str:
    """What the dataset files depend on besides the store: their folder, columns and CSV
    rules. A dataset written with the same mark, and no post recorded since, is current."""
    rules = [str(out.resolve()), list(POST_FIELDS), settings.getbool("CSV_BOM"),
             settings.get("CSV_LIST_SEPARATOR", DEFAULT_LIST_SEPARATOR)]  # fmt: skip
    return json.dumps(rules, ensure_ascii=False)


def write_exports(settings: BaseSettings, store: PostStore, run: str) -> ExportResult:
    """Rewrite the consolidated dataset and write run ``run``'s delta, from the store, in one
    pass over it; then delete the run folders beyond ``RUNS_KEEP``.

    When no post was recorded since the last complete export (a run that read nothing new:
    every list page unchanged), the dataset files are left as they are and only the run's
    (empty) delta is written. The store's exports mark is cleared by every post recorded and
    set once the dataset files are in place, so an export killed midway is redone next run.

    Raises :class:`ExportError` (one line naming the file) when a file cannot be written; the
    previous dataset files are then intact.
    """
    store.flush()
    out, delta = output_dir(settings), run_dir(settings, run)
    result = ExportResult(
        posts_jsonl=out / "posts.jsonl", posts_csv=out / "posts.csv", posts=0,
        delta_jsonl=delta / "changes.jsonl", delta_csv=delta / "changes.csv", delta=0,
    )  # fmt: skip
    posts = changes = 0
    dataset_files = {result.posts_jsonl: "jsonl", result.posts_csv: "csv"}
    delta_files = {result.delta_jsonl: "jsonl", result.delta_csv: "csv"}
    metrics_files = {out / "metrics.jsonl": "jsonl", out / "metrics.csv": "csv"}
    mark = _dataset_mark(settings, out)
    current = [*dataset_files, *metrics_files]
    if store.exports_mark() == mark and all(path.exists() for path in current):
        changes = atomic_export(delta_files, store.changes(run), DELTA_FIELDS, settings)
        prune_runs(settings, run)
        return replace(result, posts=store.count(), delta=changes, rewritten=False)
    with (
        AtomicExporters(dataset_files, POST_FIELDS, settings) as dataset,
        AtomicExporters(delta_files, DELTA_FIELDS, settings) as changed,
    ):
        for post, change in store.dataset(run):
            for exporter in dataset:
                exporter.export_item(post)
            posts += 1
            if change is not None:
                row = {**post, **change}
                for exporter in changed:
                    exporter.export_item(row)
                changes += 1
    # The counts' history grows only with posts recorded: rewritten with the dataset.
    atomic_export(metrics_files, store.metrics(), METRIC_FIELDS, settings)
    store.set_exports_mark(mark)
    store.flush()
    prune_runs(settings, run)
    return replace(result, posts=posts, delta=changes)


def export_run(
    settings: BaseSettings, store: PostStore, run: str,
    site_urls: Mapping[str, str] | None = None,
) -> ExportResult | None:  # fmt: skip
    """:func:`write_exports`, then the Atom feeds (``site_urls``: each site's address, their
    ids and links) and the report page; a file that cannot be written is one ERROR line
    (the traceback at DEBUG); None then, and the caller's exit status says the run failed."""
    try:
        result = write_exports(settings, store, run)
        out = output_dir(settings)
        write_feeds(settings, store, out, site_urls)  # rewrites only the feeds that changed
        # Every run, quiet ones too: the page shows how the runs went.
        write_report(
            out, store, run,
            newest=settings.getint("REPORT_NEWEST", 300),
            trending_days=settings.getint("REPORT_TRENDING_DAYS", 7),
        )  # fmt: skip
        return result
    except ExportError as exc:
        logger.error("%s; the files that were there before are kept", exc)
        logger.debug("the export failed", exc_info=True)
        return None
