"""Saved real post pages (and feeds carrying whole posts): every post-page field as expected.

Each case in tests/post_cases/ is a page rendered by a real site, saved byte-exact from a
public repository (``source`` in its case.json), with what it must give read off the page:
the start and end of the post as Markdown, snippets that must be in it (code fences with their
language, links and images made absolute, tables, quotes, lists) and the theme's chrome that
must not, tags, categories and the update time.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.fences import fenced_languages
from support.project import POST_CASES

from crawler.devtools.cases import Case, find_cases, run_post_case
from crawler.layouts import layouts

CASES = find_cases(POST_CASES)


def _expected(case: Case) -> list[dict[str, Any]]:
    return json.loads((case.folder / "expected.json").read_text(encoding="utf-8"))["posts"]


def _squash(text: str) -> str:
    """Runs of whitespace as one space: line breaks of the Markdown need not be exact."""
    return re.sub(r"\s+", " ", text).strip()


EXPECTATIONS = [
    pytest.param(case, expected, id=f"{case.name}:{i}")
    for case in CASES
    for i, expected in enumerate(_expected(case))
]


def test_post_cases_exist_for_every_layout_with_post_pages() -> None:
    covered = {case.layout for case in CASES}
    assert {"cnblogs", "hux", "hexo", "wordpress", "feed"} <= covered
    # The cards markup is the project's own; auto stands for the layout a start page names.
    assert set(layouts()) - covered <= {"cards", "auto"}


@pytest.mark.parametrize(("case", "expected"), EXPECTATIONS)
def test_post_fields(case: Case, expected: dict[str, Any]) -> None:
    posts = {post["url"]: post for post in run_post_case(case)}
    post = posts[expected["url"]]
    if "content" in expected and expected["content"] is None:
        assert post.get("content") is None  # a feed's summary is not the post
    elif expected.get("content") == "":
        assert post.get("content") == "" and post.get("word_count") == 0  # an empty post
    else:
        content = post.get("content")
        assert content, f"no content read from {case.name}"
        squashed = _squash(content)
        assert squashed.startswith(_squash(expected["content_start"])), content[:300]
        assert squashed.endswith(_squash(expected["content_end"])), content[-300:]
        for snippet in expected.get("content_contains", []):
            assert _squash(snippet) in squashed, snippet
        for chrome in expected.get("content_excludes", []):
            assert _squash(chrome) not in squashed, chrome
        if "code_languages" in expected:
            marked = [language for language in fenced_languages(content) if language]
            assert marked == expected["code_languages"]
        assert isinstance(post.get("word_count"), int) and post["word_count"] > 0
    assert post.get("tags", []) == expected["tags"]
    assert post.get("categories", []) == expected["categories"]
    assert post.get("updated_at") == expected["updated_at"]
    for count in ("views", "likes", "comments"):  # where the case names what the page shows
        if count in expected:
            assert post.get(count) == expected[count], count
