"""ValidatePipeline and DedupePipeline: what cannot be a post, and a post seen twice."""

from __future__ import annotations

import pytest
from scrapy.exceptions import DropItem
from support.project import project_crawler

from crawler.items import PostItem
from crawler.pipelines.dedupe import DedupePipeline
from crawler.pipelines.validate import ValidatePipeline


def test_a_post_without_url_or_title_is_dropped_naming_its_page() -> None:
    pipeline = ValidatePipeline.from_crawler(project_crawler())
    with pytest.raises(DropItem, match=r"'标题' on https://x\.cn/hot has no url"):
        pipeline.process_item(PostItem(site="x", title="标题", source_page="https://x.cn/hot"))
    with pytest.raises(DropItem, match="has no url and no title"):
        pipeline.process_item(PostItem(site="x"))
    kept = pipeline.process_item(PostItem(site="x", url="https://x.cn/p/1", title="t"))
    assert kept["title"] == "t"
    stats = pipeline.sites.crawler.stats
    assert stats.get_value("validate/dropped") == 2  # posts, not fields
    assert stats.get_value("validate/dropped/url") == 2
    assert stats.get_value("validate/dropped/title") == 1
    assert stats.get_value("validate/passed") == 1


def test_the_first_sighting_of_a_post_wins() -> None:
    pipeline = DedupePipeline.from_crawler(project_crawler())
    first = PostItem(id="a", url="https://x.cn/p/1", title="置顶")
    assert pipeline.process_item(first) is first
    with pytest.raises(DropItem, match=r"duplicate post https://x\.cn/p/1"):
        pipeline.process_item(PostItem(id="a", url="https://x.cn/p/1", source_page="p2"))
    # A post replayed from the store is never one the run gave out.
    replayed = PostItem(id="a", replayed=True)
    assert pipeline.process_item(replayed) is replayed
