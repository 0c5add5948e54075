"""The post item: the export schema shared by every spider, pipeline and exporter."""

from __future__ import annotations

import scrapy

# Export column order. CSV columns and the JSON Schema follow this tuple, never the first item.
POST_FIELDS: tuple[str, ...] = (
    "id",
    "url",
    "title",
    "summary",
    "author",
    "published_at",
    "date_precision",
    "published_raw",
    "category",
    "tags",
    "views",
    "comments",
    "likes",
    "site",
    "layout",
    "crawled_at",
)


class PostItem(scrapy.Item):
    """One blog post as a list page, index or feed shows it.

    ``published_at`` is ISO 8601 with the source's UTC offset, or None when the page gives no
    date; ``date_precision`` ("day", "minute", "second") tells whether the time of day was given
    or is midnight filled in for a date-only text. Counts are ints or None when not shown.
    """

    id = scrapy.Field()
    url = scrapy.Field()
    title = scrapy.Field()
    summary = scrapy.Field()
    author = scrapy.Field()
    published_at = scrapy.Field()
    date_precision = scrapy.Field()
    published_raw = scrapy.Field()
    category = scrapy.Field()
    tags = scrapy.Field()
    views = scrapy.Field()
    comments = scrapy.Field()
    likes = scrapy.Field()
    site = scrapy.Field()
    layout = scrapy.Field()
    crawled_at = scrapy.Field()
    # The list page the post was read from: for log lines and errors, never exported.
    source_page = scrapy.Field()
    # Set by the store: "new", "changed" or "unchanged" since earlier runs; in run deltas only.
    change = scrapy.Field()
    # True for a post taken from the store, not read from a page, because its list page was
    # unchanged (304) or older than the first known page: keeps `-O` files complete.
    replayed = scrapy.Field()

