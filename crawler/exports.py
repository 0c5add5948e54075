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
from dataclasses import dataclass
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


def atomic_export(
    targets: Mapping[Path, str], items: Iterable[Mapping[str, Any]], fields: tuple[str, ...],
    settings: BaseSettings,
) -> int:  # fmt: skip
    """Write ``items`` to each path of ``targets`` in its format ("jsonl" or "csv"), in one
    pass over the items, each file atomically; return the number of items."""
    with ExitStack() as cleanup:
        files = []
        for path, fmt in targets.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            # A run killed mid-export leaves its temporary file; the lock says no export runs.
            for stale in path.parent.glob(f".{path.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            # mkstemp makes the file private (0600); the dataset is for other tools and users.
            os.fchmod(fd, 0o666 & ~_umask())
            cleanup.callback(Path(tmp).unlink, missing_ok=True)  # a no-op once renamed
            file = cleanup.enter_context(os.fdopen(fd, "wb"))
            files.append((path, Path(tmp), file, _exporter(fmt, file, fields, settings)))
        for *_, exporter in files:
            exporter.start_exporting()
        count = 0
        for item in items:
            for *_, exporter in files:
                exporter.export_item(item)
            count += 1
        for _, _, file, exporter in files:
            exporter.finish_exporting()
            file.flush()
            os.fsync(file.fileno())
        for path, tmp, _, _ in files:
            os.replace(tmp, path)
    return count


def write_exports(settings: BaseSettings, store: PostStore, run: str) -> ExportResult:
    """Rewrite the consolidated dataset and write run ``run``'s delta, from the store."""
    store.flush()
    out = output_dir(settings)
    delta = run_dir(settings, run)
    posts = atomic_export(
        {out / "posts.jsonl": "jsonl", out / "posts.csv": "csv"}, store.posts(), POST_FIELDS,
        settings,
    )  # fmt: skip
    changes = atomic_export(
        {delta / "changes.jsonl": "jsonl", delta / "changes.csv": "csv"}, store.changes(run),
        DELTA_FIELDS, settings,
    )  # fmt: skip
    return ExportResult(
        posts_jsonl=out / "posts.jsonl",
        posts_csv=out / "posts.csv",
        posts=posts,
        delta_jsonl=delta / "changes.jsonl",
        delta_csv=delta / "changes.csv",
        delta=changes,
    )
