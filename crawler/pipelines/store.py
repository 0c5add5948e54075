"""Record every post in the cross-run store and mark it new, changed or unchanged."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.items import POST_FIELDS, PostItem
from crawler.runs import acquire_store, release_store, run_id
from crawler.site_run import count
from crawler.store import UNCHANGED


class StorePipeline:
    """Writes each post's latest values to the store (see :mod:`crawler.store`).

    Sets the item's ``change`` ("new", "changed", "unchanged") and counts ``store/<change>``.
    Disabled with ``POST_STORE_ENABLED = False``.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.settings = crawler.settings
        self.crawler = crawler
        self.run_id = run_id(crawler.settings)
        self.store = acquire_store(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StorePipeline:
        if not crawler.settings.getbool("POST_STORE_ENABLED", True):
            raise NotConfigured("POST_STORE_ENABLED is off")
        return cls(crawler)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            item["change"] = UNCHANGED  # from the store itself: nothing to record
            return item
        item["change"] = self.store.record(
            {name: item.get(name) for name in POST_FIELDS}, self.run_id
        )
        count(self.crawler, item.get("site"), f"store/{item['change']}")
        return item

    def close_spider(self) -> None:
        self.store.flush()
        release_store(self.settings)
