"""Drop items that cannot be a post (no URL or no title), saying which page and field."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem

from crawler.items import PostItem
from crawler.state.site_crawls import SiteCrawls

REQUIRED_FIELDS = ("url", "title")


class ValidatePipeline:
    """Drops an item missing a required field, naming the page and the field.

    Counts ``validate/dropped`` (items) and ``validate/dropped/<field>`` (each missing field);
    an item with a date that does not parse is kept (that is the dates pipeline's count).
    """

    def __init__(self, crawler: Crawler) -> None:
        self.sites = SiteCrawls.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ValidatePipeline:
        return cls(crawler)

    def process_item(self, item: PostItem) -> PostItem:
        if item.get("replayed"):
            return item  # taken from the store: checked when it was read
        site = item.get("site")
        missing = [name for name in REQUIRED_FIELDS if not item.get(name)]
        if missing:
            # Once per item: a card without its title link lacks url and title, one post.
            self.sites.count(site, "validate/dropped")
            for name in missing:
                self.sites.count(site, f"validate/dropped/{name}")
            page = item.get("source_page") or "unknown page"
            title = item.get("title") or item.get("url") or "untitled"
            raise DropItem(f"post {title!r} on {page} has no {' and no '.join(missing)}")
        self.sites.count(site, "validate/passed")
        return item
