"""The dataset files: ``posts.jsonl``/``posts.csv`` (every post, latest values), the counts'
history ``metrics.jsonl``/``metrics.csv``, and a run's changes (``changes.jsonl``/``.csv``).

Written with the project's item exporters through :class:`~crawler.outputs.files.AtomicFile`:
a reader never sees a half-written file, and a run that dies mid-export leaves the previous
files intact. A file that cannot be written (disk full, folder gone) is an
:class:`~crawler.outputs.files.ExportError` naming it, and the previous files stay as they were.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from scrapy.exporters import BaseItemExporter
from scrapy.settings import BaseSettings

from crawler.items import POST_FIELDS, SCHEMA_FIELDS, STORED_BOOKKEEPING
from crawler.outputs.exporters import JsonLinesExporter, SafeCsvItemExporter
from crawler.outputs.files import AtomicFile, ExportError
from crawler.outputs.report import PostListing
from crawler.store.base import PostStore
from crawler.store.records import METRIC_FIELDS

# A run's changes: every column of the dataset, then change and changed_fields.
DELTA_FIELDS = SCHEMA_FIELDS


@dataclass(frozen=True)
class DatasetResult:
    """Where the files of one export went and how many rows each holds."""

    posts_jsonl: Path
    posts_csv: Path
    posts: int
    delta_jsonl: Path
    delta_csv: Path
    delta: int
    # False when nothing changed since the last export: the dataset files were left as they are.
    rewritten: bool = True
    # What the report shows of the posts (report.PostListing), as gathered by this export or
    # kept from the last one; None if the store has none kept.
    listing: dict[str, Any] | None = None


def exporter(
    fmt: str, file: IO[bytes], fields: tuple[str, ...], settings: BaseSettings
) -> BaseItemExporter:
    """The exporter of ``fmt`` ("jsonl" or "csv") writing ``fields`` to ``file``, by the
    project's CSV settings."""
    common: dict[str, Any] = {
        "fields_to_export": list(fields),
        "export_empty_fields": True,
        "encoding": "utf-8",
    }
    if fmt == "jsonl":
        return JsonLinesExporter(file, **common)
    return SafeCsvItemExporter(
        file,
        bom=settings.getbool("CSV_BOM"),
        join_multivalued=settings["CSV_LIST_SEPARATOR"],
        **common,
    )


@contextmanager
def atomic_exporters(
    targets: Mapping[Path, str], fields: tuple[str, ...], settings: BaseSettings
) -> Iterator[list[BaseItemExporter]]:
    """Exporters writing each path of ``targets`` in its format, each to an
    :class:`AtomicFile`; all the paths are replaced when the block ends without an error,
    none when it ends with one."""
    files = [AtomicFile(path) for path in targets]
    try:
        exporters = []
        for atomic, fmt in zip(files, targets.values(), strict=True):
            exporters.append(exporter(fmt, atomic.open(), fields, settings))
        for atomic, each in zip(files, exporters, strict=True):
            _io(atomic.path, each.start_exporting)
        yield exporters
        for atomic, each in zip(files, exporters, strict=True):
            _io(atomic.path, each.finish_exporting)
        for atomic in files:
            atomic.commit()
    finally:
        for atomic in files:
            atomic.discard()


def _io(path: Path, step: Any) -> None:
    try:
        step()
    except OSError as exc:
        raise ExportError.of(path, exc) from exc


def export_rows(
    targets: Mapping[Path, str],
    rows: Iterable[Mapping[str, Any]],
    fields: tuple[str, ...],
    settings: BaseSettings,
) -> int:
    """Write ``rows`` to each path of ``targets`` in one pass, each file atomically; return
    the number of rows."""
    count = 0
    with atomic_exporters(targets, fields, settings) as exporters:
        for row in rows:
            for each in exporters:
                each.export_item(row)
            count += 1
    return count


def dataset_mark(settings: BaseSettings, out: Path) -> str:
    """What the dataset files (and the feeds and the report's listing written with them)
    depend on besides the store: their folder, columns, CSV rules, feed and listing sizes. A
    dataset written with the same mark, and no post recorded since, is current."""
    rules = [
        str(out.resolve()),
        list(POST_FIELDS),
        settings.getbool("CSV_BOM"),
        settings["CSV_LIST_SEPARATOR"],
        settings["FEEDS_SITE_ENTRIES"],
        settings["FEEDS_ALL_ENTRIES"],
        settings["REPORT_NEWEST"],
    ]
    return json.dumps(rules, ensure_ascii=False)


def write_dataset(
    settings: BaseSettings, store: PostStore, out: Path, run: str, delta_folder: Path
) -> DatasetResult:
    """Rewrite the dataset in ``out`` and write run ``run``'s changes in ``delta_folder``,
    from the store, in one pass over it.

    When no post was recorded since the last complete export (a run that read nothing new),
    the dataset files are left as they are and only the run's (empty) changes are written.
    The store's exports mark is cleared by every post recorded and set once the dataset files
    are in place, so an export killed midway is redone next run. Raises
    :class:`ExportError` (one line naming the file) when a file cannot be written.
    """
    result = DatasetResult(
        posts_jsonl=out / "posts.jsonl",
        posts_csv=out / "posts.csv",
        posts=0,
        delta_jsonl=delta_folder / "changes.jsonl",
        delta_csv=delta_folder / "changes.csv",
        delta=0,
    )
    dataset_files = {result.posts_jsonl: "jsonl", result.posts_csv: "csv"}
    delta_files = {result.delta_jsonl: "jsonl", result.delta_csv: "csv"}
    metrics_files = {out / "metrics.jsonl": "jsonl", out / "metrics.csv": "csv"}
    mark = dataset_mark(settings, out)
    current = [*dataset_files, *metrics_files]
    if store.exports_mark() == mark and all(path.exists() for path in current):
        changes = export_rows(delta_files, store.changes(run), DELTA_FIELDS, settings)
        kept = store.exports_listing()
        listing = json.loads(kept) if kept else None
        return replace(result, posts=store.count(), delta=changes, rewritten=False, listing=listing)
    posts = changes = 0
    gathered = PostListing(settings.getint("REPORT_NEWEST"))
    with (
        atomic_exporters(dataset_files, POST_FIELDS, settings) as dataset,
        atomic_exporters(delta_files, DELTA_FIELDS, settings) as changed,
    ):
        for post, change in store.dataset(run):
            # The store's bookkeeping out: a row of exactly the columns, in their order, is
            # written as it is (PostRowsExporter.is_row).
            for name in STORED_BOOKKEEPING:
                post.pop(name, None)
            for each in dataset:
                each.export_item(post)
            gathered.add(post)
            posts += 1
            if change is not None:
                row = {**post, **change}
                for each in changed:
                    each.export_item(row)
                changes += 1
    # The counts' history grows only with posts recorded: rewritten with the dataset.
    export_rows(metrics_files, store.metrics(), METRIC_FIELDS, settings)
    listing = gathered.result(datetime.now(UTC))
    store.set_exports_listing(json.dumps(listing, ensure_ascii=False))
    store.set_exports_mark(mark)
    return replace(result, posts=posts, delta=changes, listing=listing)
