"""Exports: CSV equals JSON Lines, formulas neutralised, atomic rewrite, schema-valid rows."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from scrapy.settings import Settings
from support.project import export_dataset, make_post

from crawler.items import POST_FIELDS
from crawler.outputs.dataset import export_rows
from crawler.outputs.exporters import SafeCsvItemExporter, neutralise_formula
from crawler.schema import validate_post
from crawler.store import open_store

HOSTILE_TITLES = ['=HYPERLINK("http://x")', "+1+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "普通"]


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def as_csv_cell(value: object, separator: str = " | ") -> str:
    """What a JSON value looks like in our CSV (before formula neutralisation)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return separator.join(value)
    return str(value)


@pytest.fixture
def exported(settings: Settings) -> tuple[Path, Settings]:
    store = open_store(settings)
    for n, title in enumerate(HOSTILE_TITLES, start=1):
        store.record(make_post(n, title=title, summary='多行\n摘要, "引号"'), "run1")
    export_dataset(settings, store, "run1")
    store.close()
    return Path(settings["OUTPUT_DIR"]), settings


def test_csv_reads_back_as_the_json_lines(exported: tuple[Path, Settings]) -> None:
    out, _ = exported
    posts = [json.loads(line) for line in (out / "posts.jsonl").read_text("utf-8").splitlines()]
    rows = csv_rows(out / "posts.csv")
    assert len(rows) == len(posts) == len(HOSTILE_TITLES)
    for post, row in zip(posts, rows, strict=True):
        assert list(row) == list(POST_FIELDS)  # fixed column order from the schema
        for field in POST_FIELDS:
            assert row[field] == neutralise_formula(as_csv_cell(post[field])), field


def test_formulas_are_neutral_in_csv_and_verbatim_in_json(exported: tuple[Path, Settings]) -> None:
    out, _ = exported
    titles = {json.loads(line)["title"] for line in (out / "posts.jsonl").open(encoding="utf-8")}
    assert titles == set(HOSTILE_TITLES)
    for row in csv_rows(out / "posts.csv"):
        assert not row["title"].startswith(("=", "+", "-", "@", "\t", "\r"))
        assert row["views"].isdigit()  # numbers are never prefixed


def test_every_exported_post_is_schema_valid(exported: tuple[Path, Settings]) -> None:
    out, _ = exported
    for line in (out / "posts.jsonl").open(encoding="utf-8"):
        validate_post(json.loads(line))
    for line in (out / "runs" / "run1" / "changes.jsonl").open(encoding="utf-8"):
        assert json.loads(line)["change"] == "new"
        validate_post(json.loads(line))


def test_bom_setting(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    exporter = SafeCsvItemExporter(buffer, bom=True, fields_to_export=["title"])
    exporter.start_exporting()
    exporter.export_item({"title": "中文"})
    exporter.finish_exporting()
    assert buffer.getvalue().startswith("\ufeff".encode()) and "中文".encode() in buffer.getvalue()


def test_exports_are_readable_like_any_new_file(settings: Settings, tmp_path: Path) -> None:
    import os

    target = tmp_path / "posts.jsonl"
    export_rows({target: "jsonl"}, [make_post(1)], POST_FIELDS, settings)
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_interrupted_export_leaves_the_old_file(settings: Settings, tmp_path: Path) -> None:
    target = tmp_path / "posts.jsonl"
    export_rows({target: "jsonl"}, [make_post(1)], POST_FIELDS, settings)
    before = target.read_bytes()

    def dying_items():
        yield make_post(2)
        raise KeyboardInterrupt  # the run is killed mid-export

    with pytest.raises(KeyboardInterrupt):
        export_rows({target: "jsonl"}, dying_items(), POST_FIELDS, settings)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["posts.jsonl"]  # no temp file left


def test_pandas_and_duckdb_load_the_same_rows(exported: tuple[Path, Settings]) -> None:
    pandas = pytest.importorskip("pandas")
    duckdb = pytest.importorskip("duckdb")
    out, _ = exported
    frame_csv = pandas.read_csv(out / "posts.csv", keep_default_na=False)
    frame_json = pandas.read_json(out / "posts.jsonl", lines=True)
    assert len(frame_csv) == len(frame_json) == len(HOSTILE_TITLES)
    assert str(frame_csv["views"].dtype).startswith("int")
    con = duckdb.connect()
    n_csv = con.execute(f"SELECT count(*) FROM read_csv_auto('{out / 'posts.csv'}')").fetchone()
    n_json = con.execute(f"SELECT count(*) FROM read_json_auto('{out / 'posts.jsonl'}')").fetchone()
    assert n_csv[0] == n_json[0] == len(HOSTILE_TITLES)
    views_type = con.execute(
        f"SELECT typeof(views) FROM read_csv_auto('{out / 'posts.csv'}') LIMIT 1"
    ).fetchone()[0]
    assert views_type in {"BIGINT", "INTEGER"}


@pytest.mark.parametrize("empty", [True, False])
@pytest.mark.parametrize("kind", ["item", "dict"])
def test_fast_field_serialisation_matches_scrapys(kind: str, empty: bool) -> None:
    from scrapy.exporters import JsonLinesItemExporter

    from crawler.items import PostItem
    from crawler.outputs.exporters import JsonLinesExporter

    post = make_post(3)
    del post["author"]  # a missing field: exported as null only when empty fields are
    item = PostItem(post) if kind == "item" else post
    files = io.BytesIO(), io.BytesIO()
    options = {
        "fields_to_export": list(POST_FIELDS),
        "export_empty_fields": empty,
        "encoding": "utf-8",
    }
    for exporter_class, file in zip((JsonLinesExporter, JsonLinesItemExporter), files, strict=True):
        exporter = exporter_class(file, **options)
        exporter.start_exporting()
        exporter.export_item(item)
        exporter.finish_exporting()
    assert files[0].getvalue() == files[1].getvalue()
    assert ('"author": null' in files[0].getvalue().decode()) is empty
