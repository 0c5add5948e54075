"""StorePipeline: each post recorded with the list's values and what its page gave."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.project import make_post, project_crawler

from crawler.items import PostItem
from crawler.pipelines.store import StorePipeline, keep_page_fields
from crawler.store import crawler_store
from crawler.store.records import CHANGED, NEW, UNCHANGED


@pytest.fixture
def pipeline(tmp_path: Path) -> StorePipeline:
    return StorePipeline.from_crawler(project_crawler(OUTPUT_DIR=str(tmp_path)))


def listed(**fields: Any) -> PostItem:
    """A post as a list page gives it: no page fields."""
    post = make_post(1, content=None, word_count=None, updated_at=None, tags=["列表"])
    post.update(fields)
    return PostItem({k: v for k, v in post.items() if k in PostItem.fields})


def test_a_page_not_read_keeps_what_was_read_of_it_and_the_lists_values() -> None:
    stored = make_post(
        1, tags=["页面", "列表"], categories=["训练"], updated_at="2026-11-01T00:00:00+08:00"
    )
    item = listed(title="新标题", views=99, categories=[])
    keep_page_fields(item, stored)
    assert (item["title"], item["views"]) == ("新标题", 99)  # the list's values stand
    assert item["content"] == stored["content"] and item["word_count"] == stored["word_count"]
    assert item["updated_at"] == stored["updated_at"]
    assert item["tags"] == ["页面", "列表"] and item["categories"] == ["训练"]
    assert item["category"] == "训练"
    # Not asked for this run: as the last run left it.
    assert item["gone"] is False and item["post_page_failed"] is False
    gone = listed()
    keep_page_fields(gone, {**stored, "gone": True, "post_page_failed": True})
    assert gone["gone"] is True and gone["post_page_failed"] is True
    # Asked for and failed (the spider set the flags): the flags of this run.
    failed = listed(post_page_failed=True, gone=False)
    keep_page_fields(failed, {**stored, "gone": True})
    assert failed["gone"] is False and failed["post_page_failed"] is True


class CountingReads:
    """Counts the store's reads of posts by id (the middleware already read them)."""

    def __init__(self, pipeline: StorePipeline) -> None:
        self.reads = 0
        store = pipeline.store
        original = store.posts_by_id

        def posts_by_id(ids: Iterable[str]) -> Iterator[dict[str, Any]]:
            self.reads += 1
            return original(ids)

        store.posts_by_id = posts_by_id  # type: ignore[method-assign]


def test_the_stored_post_the_middleware_read_is_not_read_again(pipeline: StorePipeline) -> None:
    reads = CountingReads(pipeline)
    assert pipeline.process_item(PostItem(make_post(1)))["change"] == NEW
    stored = next(pipeline.store.posts_by_id([make_post(1)["id"]]))
    reads.reads = 0
    item = listed(stored=stored, views=5)
    assert pipeline.process_item(item)["change"] == CHANGED
    assert reads.reads == 0 and "stored" not in item  # let go once recorded
    assert item["content"] == make_post(1)["content"]
    # Without what the middleware read (no middleware), the pipeline reads it once.
    assert pipeline.process_item(listed(views=5))["change"] == UNCHANGED
    assert reads.reads == 1


def test_a_replayed_post_is_not_recorded(pipeline: StorePipeline) -> None:
    item = pipeline.process_item(PostItem(make_post(1), replayed=True))
    assert item["change"] == UNCHANGED and crawler_store(pipeline.sites.crawler).count() == 0
