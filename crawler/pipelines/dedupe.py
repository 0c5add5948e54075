"""Drop a post already exported in this run (pinned posts, home page and archive)."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem

from crawler.items import PostItem


class DedupePipeline:
    """Keys posts by ``id`` (from the canonical URL); the first sighting in a run wins."""

    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats
        self.seen: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupePipeline:
        return cls(crawler)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            return item  # the incremental middleware never replays a post given out
        key = item["id"]
        if key in self.seen:
            self.stats.inc_value("dedupe/duplicates_in_run")
            # Expected (pinned posts, archives): not worth a warning.
            raise DropItem(
                f"duplicate post {item['url']} (again on {item.get('source_page')})",
                log_level="DEBUG",
            )
        self.seen.add(key)
        self.stats.inc_value("dedupe/unique")
        return item
