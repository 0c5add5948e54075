"""One schema source: items.py's declarations make the JSON Schema, columns, tracking, README."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError
from scrapy.settings import Settings
from scrapy.utils.project import get_project_settings
from support.project import ROOT, export_dataset, make_post

from crawler.items import JSON_SCHEMA, POST_FIELDS, SCHEMA_FIELDS, TRACKED_FIELDS, PostItem
from crawler.outputs.dataset import DELTA_FIELDS
from crawler.schema import field_table, post_json_schema, schema_text, type_label, validate_post
from crawler.store import open_store
from crawler.store import records as store_module
from crawler.store.records import CHANGED, NEW, UNCHANGED
from crawler.store.sqlite import SQLiteStore

CHECKED_IN = ROOT / "crawler" / "post.schema.json"
REGENERATE = "regenerate it: python -m crawler.schema > crawler/post.schema.json"


def test_checked_in_schema_is_the_generated_one() -> None:
    text = CHECKED_IN.read_text("utf-8")
    assert json.loads(text) == post_json_schema(), REGENERATE
    assert text == schema_text(), REGENERATE  # byte for byte: never edited by hand


def test_python_m_crawler_schema_prints_the_schema_and_the_readme_table() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "crawler.schema", *args]
        return subprocess.run(command, cwd=ROOT, capture_output=True, timeout=60, check=False)

    schema, table, wrong = run(), run("--readme"), run("--yaml")
    assert schema.returncode == 0 and schema.stdout == CHECKED_IN.read_bytes()
    assert table.returncode == 0 and table.stdout.decode("utf-8") == field_table()
    assert wrong.returncode == 2 and b"--yaml" in wrong.stderr and b"Traceback" not in wrong.stderr


def test_every_field_declared_once_with_a_type_and_a_meaning() -> None:
    properties = post_json_schema()["properties"]
    assert list(properties) == list(SCHEMA_FIELDS)
    for name, schema in properties.items():
        assert schema["type"] and schema["description"].strip(), name
    # The crawl's own bookkeeping stays on the item but outside the schema.
    assert set(PostItem.fields) == {
        *SCHEMA_FIELDS,
        "source_page",
        "replayed",
        "updated_raw",
        "post_page_failed",
        "timezone",
        "stored",
        "discovered",
        "lastmod",
        "published_page",
    }


# A valid post, then one wrong value per line: the schema rejects each.
INVALID: list[dict[str, Any]] = [
    {"id": "ABC"},
    {"url": "ftp://example.org/a"},
    {"title": ""},
    {"title": None},
    {"summary": 3},
    {"published_at": "2026-10-01 08:00"},
    {"published_at": "2026-10-01T08:00:00"},
    {"date_precision": "hour"},
    {"tags": None},
    {"tags": [1]},
    {"views": -1},
    {"views": "12"},
    {"likes": 1.5},
    {"site": "Example"},
    {"layout": None},
    {"crawled_at": "2026-11-30T10:00:00+08:00"},
    {"change": "unchanged"},
    {"extra": "x"},
]


@pytest.mark.parametrize("wrong", INVALID, ids=lambda wrong: next(iter(wrong)))
def test_generated_schema_rejects_what_the_data_never_holds(wrong: dict[str, Any]) -> None:
    validator = Draft202012Validator(post_json_schema())
    validator.validate(make_post(1))
    validator.validate(make_post(1, change="changed", likes=0, date_precision=None))
    with pytest.raises(ValidationError):
        validator.validate(make_post(1) | wrong)
    with pytest.raises(ValidationError):
        validate_post(make_post(1) | wrong)  # the packaged file says the same


@pytest.mark.parametrize("name", POST_FIELDS)
def test_every_column_is_required(name: str) -> None:
    post = make_post(1)
    del post[name]
    with pytest.raises(ValidationError, match=name):
        Draft202012Validator(post_json_schema()).validate(post)


@pytest.fixture
def exported(settings: Settings) -> Path:
    store = open_store(settings)
    store.record(make_post(1), "run1")
    export_dataset(settings, store, "run1")
    store.close()
    return Path(settings["OUTPUT_DIR"])


def csv_header(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as file:
        return next(csv.reader(file))


def test_one_column_order_everywhere(exported: Path) -> None:
    schema = post_json_schema()
    assert POST_FIELDS == (
        "id",
        "url",
        "title",
        "summary",
        "author",
        "published_at",
        "date_precision",
        "published_raw",
        "updated_at",
        "category",
        "categories",
        "tags",
        "views",
        "comments",
        "likes",
        "content",
        "word_count",
        "gone",
        "site",
        "layout",
        "crawled_at",
    )
    assert schema["required"] == list(POST_FIELDS)
    assert list(schema["properties"]) == list(DELTA_FIELDS)
    assert list(DELTA_FIELDS) == [*POST_FIELDS, "change", "changed_fields"]
    assert get_project_settings().getlist("FEED_EXPORT_FIELDS") == list(POST_FIELDS)
    assert csv_header(exported / "posts.csv") == list(POST_FIELDS)
    assert csv_header(exported / "runs" / "run1" / "changes.csv") == list(DELTA_FIELDS)
    line = (exported / "posts.jsonl").read_text("utf-8").splitlines()[0]
    assert list(json.loads(line)) == list(POST_FIELDS)


def readme_field_rows() -> list[tuple[list[str], str, str]]:
    """The README's field table under "The data": (field names, type, meaning) per row."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n## The data\n", 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert lines[:2] == ["| field | type | meaning |", "|---|---|---|"]
    rows = []
    for line in lines[2:]:
        names, kind, meaning = (cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1])
        rows.append((re.findall(r"`([^`]+)`", names), kind, meaning.replace("\\|", "|")))
    return rows


def test_readme_field_table_is_the_schema() -> None:
    rows = readme_field_rows()
    assert [name for names, _, _ in rows for name in names] == list(POST_FIELDS)
    for names, kind, meaning in rows:
        for name in names:
            schema = PostItem.fields[name][JSON_SCHEMA]
            assert (kind, meaning) == (type_label(schema), schema["description"]), name
    readme = (ROOT / "README.md").read_text("utf-8")
    assert field_table() in readme, "paste `python -m crawler.schema --readme` into README.md"


def changed_value(name: str, value: Any) -> Any:
    """Another value of the field's type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, list):
        return [*value, "新"]
    if isinstance(value, int):
        return value + 1
    if value is None:
        return 7 if "integer" in PostItem.fields[name][JSON_SCHEMA]["type"] else "新"
    return value + "x"


def test_tracked_fields_decide_what_a_changed_post_is(tmp_path: Path) -> None:
    assert store_module.TRACKED_FIELDS is TRACKED_FIELDS
    assert TRACKED_FIELDS == (
        "url",
        "title",
        "summary",
        "author",
        "published_at",
        "date_precision",
        "updated_at",
        "category",
        "categories",
        "tags",
        "views",
        "comments",
        "likes",
        "content",
        "gone",
    )
    store = SQLiteStore(tmp_path / "s.sqlite")
    for n, name in enumerate(POST_FIELDS, start=1):
        if name == "id":
            continue  # another id is another post
        post = make_post(n)
        assert store.record(post, "run1") == NEW
        expected = CHANGED if name in TRACKED_FIELDS else UNCHANGED
        assert store.record(post | {name: changed_value(name, post[name])}, "run2") == expected
    store.close()


def test_type_labels() -> None:
    assert type_label({"type": ["string", "null"]}) == "string/null"
    assert type_label({"type": "array", "items": {"type": "string"}}) == "list of strings"
    assert type_label({"type": ["integer", "null"]}) == "integer/null"
