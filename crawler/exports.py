"""The dataset files: consolidated ``posts.jsonl``/``posts.csv`` and each run's delta.

Written with Scrapy's item exporters, to a temporary file in the same folder that is flushed,
fsynced and renamed over the old one: a reader never sees a half-written file, and a run that
dies mid-export leaves the previous files intact.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy.exporters import BaseItemExporter, JsonLinesItemExporter
from scrapy.settings import BaseSettings

from crawler.exporters import DEFAULT_LIST_SEPARATOR, SafeCsvItemExporter
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
        return JsonLinesItemExporter(file, **common)
    return SafeCsvItemExporter(
        file,
        bom=settings.getbool("CSV_BOM"),
        join_multivalued=settings.get("CSV_LIST_SEPARATOR", DEFAULT_LIST_SEPARATOR),
        **common,
    )


def atomic_export(
    path: Path, fmt: str, items: Iterable[Mapping[str, Any]], fields: tuple[str, ...],
    settings: BaseSettings,
) -> int:  # fmt: skip
    """Write ``items`` to ``path`` in ``fmt`` ("jsonl" or "csv") atomically; return the count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A run killed mid-export leaves its temporary file; the lock says no export runs now.
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    count = 0
    try:
        with os.fdopen(fd, "wb") as file:
            exporter = _exporter(fmt, file, fields, settings)
            exporter.start_exporting()
            for item in items:
                exporter.export_item(dict(item))
                count += 1
            exporter.finish_exporting()
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return count


def write_exports(settings: BaseSettings, store: PostStore, run: str) -> ExportResult:
    """Rewrite the consolidated dataset and write run ``run``'s delta, from the store."""
    store.flush()
    out = output_dir(settings)
    delta = run_dir(settings, run)
    counts = {}
    for fmt in ("jsonl", "csv"):
        counts[fmt] = atomic_export(out / f"posts.{fmt}", fmt, store.posts(), POST_FIELDS, settings)
        counts[f"delta-{fmt}"] = atomic_export(
            delta / f"changes.{fmt}", fmt, store.changes(run), DELTA_FIELDS, settings
        )
    return ExportResult(
        posts_jsonl=out / "posts.jsonl",
        posts_csv=out / "posts.csv",
        posts=counts["jsonl"],
        delta_jsonl=delta / "changes.jsonl",
        delta_csv=delta / "changes.csv",
        delta=counts["delta-jsonl"],
    )
