"""The JSON Schema (draft 2020-12) of an exported post, shipped as package data."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator


@lru_cache(maxsize=1)
def post_validator() -> Draft202012Validator:
    """A validator for ``post.schema.json`` (checked against the meta-schema once)."""
    schema = json.loads(resources.files("crawler").joinpath("post.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate_post(post: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` if ``post`` does not follow the schema."""
    post_validator().validate(post)
