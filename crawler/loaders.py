"""The one item loader every layout spider fills: a spider only says where each field is."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin

from itemloaders.processors import Compose, Identity, MapCompose, TakeFirst
from parsel import Selector
from scrapy.loader import ItemLoader

from crawler.items import POST_FIELDS, PostItem
from crawler.processors import (
    canonical_url,
    clean_text,
    html_to_text,
    labelled_counts,
    parse_count,
    post_id,
    strip_pinned_mark,
    strip_summary_labels,
    unique,
)


def _absolute(value: str, loader_context: dict[str, Any]) -> str | None:
    """Resolve a link against the page it was found on (``base_url`` in the loader context).

    None for a link that is no URL (``http://[``): one bad href must not crash the page.
    """
    value = value.strip()
    if not value:
        return None
    base = loader_context.get("base_url")
    try:
        return urljoin(base, value) if base else value
    except ValueError:
        return None


class PostLoader(ItemLoader):
    """Loader for :class:`PostItem` with the cleaning rules every layout shares.

    Use ``PostLoader(selector=node, base_url=response.url)``; for fields that need it the
    spider adds raw texts and the processors here clean them: whitespace, entities,
    the ``摘要：`` label and ``阅读全文`` link, the ``[置顶]`` mark, counts, absolute URLs.
    """

    default_item_class = PostItem
    default_input_processor = MapCompose(clean_text)
    default_output_processor = TakeFirst()

    url_in = MapCompose(_absolute, canonical_url)
    # A title or summary may arrive as several text nodes: join them, then clean.
    title_in = Identity()
    title_out = Compose("".join, clean_text, strip_pinned_mark)
    summary_in = Identity()
    summary_out = Compose("".join, clean_text, strip_summary_labels)
    published_raw_in = Identity()
    published_raw_out = Compose("".join, clean_text)
    tags_out = Compose(unique)
    views_in = comments_in = likes_in = MapCompose(parse_count)

    def add_html_summary(self, markup: str | None) -> None:
        """Set the summary from an HTML fragment (feeds): tags dropped, text kept."""
        self.add_value("summary", html_to_text(markup) or "")

    def add_counts(self, texts: Iterable[str]) -> None:
        """Add views/comments/likes read by their label from the given texts."""
        for field, count in labelled_counts(texts).items():
            self.add_value(field, count)

    def load_item(self) -> PostItem:
        """The item with defaults for absent fields, so every export row has every column."""
        item = super().load_item()
        item.setdefault("tags", [])
        for field in POST_FIELDS:
            item.setdefault(field, None)
        if item["url"]:
            item["id"] = post_id(item["url"])
        return item


def node_texts(node: Selector, query: str = ".//text()") -> list[str]:
    """All text nodes under a selector, for fields built from several nodes."""
    return node.xpath(query).getall()
