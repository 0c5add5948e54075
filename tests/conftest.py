"""Shared fixtures: items, settings pointing at a temporary output folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scrapy.settings import Settings
from scrapy.utils.project import get_project_settings

from crawler.items import POST_FIELDS
from crawler.processors import post_id


def make_post(n: int = 1, **fields: Any) -> dict[str, Any]:
    """A complete post with every export field."""
    url = fields.pop("url", f"https://blog.example.org/posts/{n}")
    post = dict.fromkeys(POST_FIELDS)
    post.update(
        id=post_id(url),
        url=url,
        title=f"标题 {n}",
        summary="摘要文字",
        published_at=f"2026-10-{n:02d}T08:00:00+08:00",
        date_precision="minute",
        published_raw=f"2026-10-{n:02d} 08:00",
        tags=["分布式", "训练"],
        views=10 * n,
        comments=0,
        likes=None,
        site="example",
        layout="cards",
        crawled_at="2026-11-30T02:00:00+00:00",
    )
    post.update(fields)
    return post


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Project settings writing under a temporary output folder."""
    project = get_project_settings().copy()
    project.set("OUTPUT_DIR", str(tmp_path / "output"))
    return project
