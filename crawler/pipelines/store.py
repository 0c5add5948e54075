"""Record every post in the cross-run store and mark it new, changed or unchanged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured

from crawler.items import POST_FIELDS, PostItem
from crawler.parsing.processors import merge_terms
from crawler.runs.ids import run_id
from crawler.state.site_crawls import SiteCrawls
from crawler.store import crawler_store, store_failed
from crawler.store.base import StoreUnavailable
from crawler.store.records import UNCHANGED

# What only a post page gives: kept from the store while the page is not read again.
PAGE_FIELDS = ("content", "word_count", "updated_at")


def keep_page_fields(item: PostItem, stored: Mapping[str, Any]) -> None:
    """Fill a post whose page was not read this run (not needed, 304, failed, or a run with
    ``-a content=0``) with what the store holds of its page, so nothing read is lost: the
    list's fields stay the list's."""
    for name in PAGE_FIELDS:
        item[name] = stored.get(name)
    # The page's more exact publication time stands while the list shows the same date.
    if stored.get("published_page") and stored.get("published_raw") == item.get("published_raw"):
        item["published_page"] = stored["published_page"]
        item["published_at"] = stored.get("published_at")
        item["date_precision"] = stored.get("date_precision")
    for name in ("tags", "categories"):
        item[name] = merge_terms(stored.get(name), item.get(name))
    item["category"] = item["categories"][0] if item["categories"] else None
    asked = item.get("post_page_failed")  # None: no request for the page this run
    if asked is None:  # not asked: as the last run left it
        item["gone"] = bool(item.get("gone") or stored.get("gone"))
        item["post_page_failed"] = bool(stored.get("post_page_failed"))
    else:  # asked: answered 304 (as stored), or failed (the flags set by the spider)
        item["gone"] = bool(item.get("gone"))
        item["post_page_failed"] = bool(asked)


class StorePipeline:
    """Writes each post's latest values to the store (see :mod:`crawler.store`).

    Sets the item's ``change`` ("new", "changed", "unchanged") and counts ``store/<change>``.
    Off with ``POST_STORE_ENABLED = False``.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.sites = SiteCrawls.of(crawler)
        self.run_id = run_id(crawler.settings)
        self.store = crawler_store(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StorePipeline:
        if not crawler.settings.getbool("POST_STORE_ENABLED"):
            raise NotConfigured("POST_STORE_ENABLED is off")
        return cls(crawler)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            item["change"] = UNCHANGED  # from the store itself: nothing to record
            return item
        try:
            return self._record(item)
        except StoreUnavailable as exc:
            store_failed(self.sites.crawler, exc)
            raise DropItem(
                f"{item.get('url')}: not recorded (the store is unavailable)", log_level="DEBUG"
            ) from exc

    def _record(self, item: PostItem) -> PostItem:
        if item.get("content") is None:  # its page not read this run: keep what was read
            # The incremental middleware read the stored post when it met the post.
            stored = item["stored"] if "stored" in item else self._stored(item["id"])
            if stored is not None:
                keep_page_fields(item, stored)
        record = {name: item.get(name) for name in POST_FIELDS}
        record["post_page_failed"] = bool(item.get("post_page_failed"))
        if item.get("published_page"):
            record["published_page"] = item["published_page"]
        item["change"] = self.store.record(record, self.run_id)
        self.sites.count(item.get("site"), f"store/{item['change']}")
        item.pop("stored", None)  # the stored post's content need not stay in memory
        return item

    def _stored(self, post_id: str) -> dict[str, Any] | None:
        return next(self.store.posts_by_id([post_id]), None)

    def close_spider(self) -> None:
        try:
            self.store.flush()
        except StoreUnavailable as exc:
            store_failed(self.sites.crawler, exc)
