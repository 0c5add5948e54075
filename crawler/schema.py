"""The JSON Schema (draft 2020-12) of an exported post, generated from ``crawler/items.py``.

The fields' types, constraints and meanings are declared once, on :class:`~crawler.items.
PostItem`; :func:`post_json_schema` builds the schema from them and :func:`field_table` the
README's field table. The schema is also checked in, and shipped as package data, as
``crawler/post.schema.json`` for tools outside Python; after changing a field, regenerate it and
the README table (``tests/test_schema.py`` fails until both match)::

    python -m crawler.schema > crawler/post.schema.json
    python -m crawler.schema --readme
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from crawler.items import JSON_SCHEMA, POST_FIELDS, SCHEMA_FIELDS, PostItem

SCHEMA_ID = "https://github.com/blogcrawler/blogcrawler/crawler/post.schema.json"


def post_json_schema() -> dict[str, Any]:
    """The JSON Schema of one exported post: every dataset column required, nothing else but
    the delta files' ``change`` allowed."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Blog post",
        "description": "One exported post (a line of posts.jsonl, a row of posts.csv)."
        " Runs' change files add the field `change`.",
        "type": "object",
        "additionalProperties": False,
        "required": list(POST_FIELDS),
        "properties": {name: dict(PostItem.fields[name][JSON_SCHEMA]) for name in SCHEMA_FIELDS},
    }


def schema_text() -> str:
    """The schema as ``crawler/post.schema.json`` holds it (UTF-8, Chinese kept readable)."""
    return json.dumps(post_json_schema(), ensure_ascii=False, indent=2) + "\n"


def type_label(schema: dict[str, Any]) -> str:
    """A property's type as the README says it: ``string/null``, ``list of strings``."""
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    words = {"array": f"list of {schema.get('items', {}).get('type', 'value')}s"}
    return "/".join(words.get(name) or name for name in types)


def field_table() -> str:
    """The README's table of the dataset's fields (Markdown), in column order."""
    lines = ["| field | type | meaning |", "|---|---|---|"]
    for name in POST_FIELDS:
        schema = PostItem.fields[name][JSON_SCHEMA]
        meaning = schema["description"].replace("|", "\\|")  # a bare | would end the cell
        lines.append(f"| `{name}` | {type_label(schema)} | {meaning} |")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def post_validator() -> Draft202012Validator:
    """A validator for ``post.schema.json`` (checked against the meta-schema once)."""
    schema = json.loads(resources.files("crawler").joinpath("post.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate_post(post: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` if ``post`` does not follow the schema."""
    post_validator().validate(post)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the JSON Schema (or, with ``--readme``, the README's field table) to stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m crawler.schema", description="Print the post schema derived from items.py."
    )
    parser.add_argument("--readme", action="store_true", help="the README's field table instead")
    args = parser.parse_args(argv)
    text = field_table() if args.readme else schema_text()
    # Bytes, not text: the file is UTF-8 whatever the terminal's locale.
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
