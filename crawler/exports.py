"""The dataset files: consolidated ``posts.jsonl``/``posts.csv`` and each run's delta.

Written with Scrapy's item exporters, to a temporary file in the same folder that is flushed,
fsynced and renamed over the old one: a reader never sees a half-written file, and a run that
dies mid-export leaves the previous files intact.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scrapy.exporters import BaseItemExporter
from scrapy.settings import BaseSettings

from crawler.exporters import DEFAULT_LIST_SEPARATOR, JsonLinesExporter, SafeCsvItemExporter
from crawler.items import POST_FIELDS
from crawler.runs import output_dir, run_dir
from crawler.store import PostStore

DELTA_FIELDS = (*POST_FIELDS, "change")


@dataclass(frozen=True)
class ExportResult:
    """Where the files of one export went and how many rows each holds."""

    posts_jsonl: Path
    posts_csv: Path
    posts: int
    delta_jsonl: Path
    delta_csv: Path
    delta: int


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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class AtomicExporters:
    """Exporters writing each path of ``targets`` in its format ("jsonl" or "csv"), each to a
    temporary file in the same folder that is flushed, fsynced and renamed over the path when
    the ``with`` block ends without an error (and deleted if it ends with one)."""

    def __init__(
        self, targets: Mapping[Path, str], fields: tuple[str, ...], settings: BaseSettings
    ) -> None:
        self.targets, self.fields, self.settings = targets, fields, settings
        self.exporters: list[BaseItemExporter] = []
        self._files: list[tuple[Path, Path, Any]] = []
        self._cleanup = ExitStack()

    def __enter__(self) -> list[BaseItemExporter]:
        with self._cleanup as cleanup:
            for path, fmt in self.targets.items():
                path.parent.mkdir(parents=True, exist_ok=True)
                # A run killed mid-export leaves its temporary file; the lock says none runs.
                for stale in path.parent.glob(f".{path.name}.*.tmp"):
                    stale.unlink(missing_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
                # mkstemp makes the file private (0600); the dataset is for other tools and users.
                os.fchmod(fd, 0o666 & ~_umask())
                cleanup.callback(Path(tmp).unlink, missing_ok=True)  # a no-op once renamed
                file = cleanup.enter_context(os.fdopen(fd, "wb"))
                self._files.append((path, Path(tmp), file))
                self.exporters.append(_exporter(fmt, file, self.fields, self.settings))
            for exporter in self.exporters:
                exporter.start_exporting()
            self._cleanup = cleanup.pop_all()  # all opened: __exit__ closes them
        return self.exporters

    def __exit__(self, error_type: type[BaseException] | None, *_: object) -> None:
        with self._cleanup:
            if error_type is not None:
                return
            for (_, _, file), exporter in zip(self._files, self.exporters, strict=True):
                exporter.finish_exporting()
                file.flush()
                os.fsync(file.fileno())
            for path, tmp, _ in self._files:
                os.replace(tmp, path)


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


def write_exports(settings: BaseSettings, store: PostStore, run: str) -> ExportResult:
    """Rewrite the consolidated dataset and write run ``run``'s delta, from the store, in one
    pass over it."""
    store.flush()
    out, delta = output_dir(settings), run_dir(settings, run)
    result = ExportResult(
        posts_jsonl=out / "posts.jsonl", posts_csv=out / "posts.csv", posts=0,
        delta_jsonl=delta / "changes.jsonl", delta_csv=delta / "changes.csv", delta=0,
    )  # fmt: skip
    posts = changes = 0
    dataset_files = {result.posts_jsonl: "jsonl", result.posts_csv: "csv"}
    delta_files = {result.delta_jsonl: "jsonl", result.delta_csv: "csv"}
    with (
        AtomicExporters(dataset_files, POST_FIELDS, settings) as dataset,
        AtomicExporters(delta_files, DELTA_FIELDS, settings) as changed,
    ):
        for post, change in store.dataset(run):
            for exporter in dataset:
                exporter.export_item(post)
            posts += 1
            if change is not None:
                row = {**post, "change": change}
                for exporter in changed:
                    exporter.export_item(row)
                changes += 1
    return replace(result, posts=posts, delta=changes)
