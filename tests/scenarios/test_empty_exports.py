"""An export without rows still has its header row: a quiet run's ``changes.csv`` loads as
zero rows with every column, not as pandas' ``EmptyDataError``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from support.project import read_jsonl, run_scrapy

from crawler.devtools.samples.server import SiteServer, sample_site
from crawler.items import POST_FIELDS
from crawler.outputs.dataset import DELTA_FIELDS
from crawler.outputs.exporters import SafeCsvItemExporter


def csv_export(fields: list[str], items: list[dict]) -> list[list[str]]:
    buffer = io.BytesIO()
    exporter = SafeCsvItemExporter(buffer, fields_to_export=fields)
    exporter.start_exporting()
    for item in items:
        exporter.export_item(item)
    exporter.finish_exporting()
    return list(csv.reader(io.StringIO(buffer.getvalue().decode())))


def test_the_header_row_is_written_once_with_or_without_items() -> None:
    assert csv_export(list(POST_FIELDS), []) == [list(POST_FIELDS)]
    items = [{"title": title, "tags": ["x", "y"]} for title in ("a", "b")]
    assert csv_export(["title", "tags"], items) == [
        ["title", "tags"],
        ["a", "x | y"],
        ["b", "x | y"],
    ]


def test_a_quiet_run_writes_a_changes_csv_with_its_header(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    server = SiteServer(sample_site("cnblogs")).start()
    try:
        args = ("crawl", "cnblogs", "-a", f"url={server.url()}", "-O")
        assert run_scrapy(*args, str(tmp_path / "first.csv"), output=tmp_path).returncode == 0
        quiet = run_scrapy(*args, str(tmp_path / "quiet.csv"), output=tmp_path)
        assert quiet.returncode == 0, quiet.stderr[-3000:]
    finally:
        server.stop()
    first_run, quiet_run = sorted((tmp_path / "runs").iterdir())
    assert read_jsonl(quiet_run / "changes.jsonl") == []  # the run changed nothing
    changes = pandas.read_csv(quiet_run / "changes.csv")
    assert changes.shape == (0, len(DELTA_FIELDS))
    assert list(changes.columns) == list(DELTA_FIELDS)
    assert len(pandas.read_csv(first_run / "changes.csv")) > 0
