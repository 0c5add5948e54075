"""The one item loader every layout fills: a layout only says where each field is.

:class:`PostLoader` keeps the interface of an itemloaders ``ItemLoader`` that the layouts use
(``add_value``, ``add_css``, ``add_xpath``, ``load_item``) but is a small class of its own: it
collects each field's raw values and cleans them once, in :meth:`PostLoader.load_item`, with
one plain function per field. ``ItemLoader`` looks each processor up and wraps it for the
loader context on every value it processes, a large share of the cost of a post; the cleaning
here gives exactly what an ``ItemLoader`` declaring the same processors gives
(``tests/test_parsing_fast_paths.py`` compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any
from urllib.parse import urljoin

from parsel import Selector

from crawler.items import POST_FIELDS, PostItem
from crawler.parsing.processors import (
    PLAIN_URL,
    canonical_url,
    clean_text,
    html_to_text,
    join_texts,
    labelled_counts,
    parse_count,
    post_id,
    strip_pinned_mark,
    strip_summary_labels,
    unique,
)

# A field's cleaning: its raw values, in the order they were added, and the page's URL.
Cleaning = Callable[[list[Any], str | None], Any]


def _absolute(value: Any, base_url: str | None) -> str | None:
    """Resolve a link against the page it was found on.

    None for a link that is no URL (``http://[``): one bad href must not crash the page.
    """
    value = str(value or "").strip()
    if not value:
        return None
    if PLAIN_URL.fullmatch(value):
        return value  # absolute already
    try:
        return urljoin(base_url, value) if base_url else value
    except ValueError:
        return None


# Each cleaning returns None when no value survives; the field then keeps its default. The
# single-valued fields keep the first value that survives cleaning (itemloaders' TakeFirst).


def _first_text(values: list[Any], base_url: str | None) -> str | None:
    """Every field not listed in ``_CLEANINGS``: the first value with text once cleaned."""
    for value in values:
        text = clean_text(value)
        if text:
            return text
    return None


def _first_url(values: list[Any], base_url: str | None) -> str | None:
    """``url``: the first link that makes an absolute, canonical URL."""
    for value in values:
        url = canonical_url(_absolute(value, base_url))
        if url:
            return url
    return None


def _first_count(values: list[Any], base_url: str | None) -> int | None:
    """``views``, ``comments``, ``likes``: the first value holding a number (0 counts)."""
    for value in values:
        count = parse_count(value)
        if count is not None:
            return count
    return None


# A title, summary or date may arrive as several text nodes: they are joined, then cleaned.


def _title(values: list[Any], base_url: str | None) -> str | None:
    return strip_pinned_mark(clean_text(join_texts(values)))


def _summary(values: list[Any], base_url: str | None) -> str | None:
    return strip_summary_labels(clean_text(join_texts(values)))


def _published_raw(values: list[Any], base_url: str | None) -> str | None:
    return clean_text(join_texts(values))


def _tags(values: list[Any], base_url: str | None) -> list[str]:
    """``tags``: every value cleaned, in first-seen order, without repeats or empties."""
    return unique(clean_text(value) for value in values)


def _first_value(values: list[Any], base_url: str | None) -> Any:
    """``content`` (Markdown, whitespace meaningful) and ``word_count``: the first value."""
    return values[0] if values else None


_CLEANINGS: dict[str, Cleaning] = {
    "content": _first_value,
    "word_count": _first_value,
    "url": _first_url,
    "categories": _tags,
    "title": _title,
    "summary": _summary,
    "published_raw": _published_raw,
    "tags": _tags,
    "views": _first_count,
    "comments": _first_count,
    "likes": _first_count,
}


def _as_values(value: Any) -> Iterable[Any]:
    """The values ``value`` holds, by itemloaders' rule: a list, tuple, set or iterator holds
    several, None none, anything else (a string, a number) is one value."""
    if type(value) is list:
        return value
    if value is None:
        return ()
    if isinstance(value, list | tuple | Iterator | AbstractSet):
        return value
    return (value,)


class PostLoader:
    """Collects the raw values of one post's fields and cleans them into a :class:`PostItem`.

    Use ``PostLoader(selector=node, base_url=response.url)``; a layout adds each field's raw
    text(s) and :meth:`load_item` cleans them: whitespace, entities, the ``摘要：`` label and
    ``阅读全文`` link, the ``[置顶]`` mark, counts, absolute and canonical URLs, the post id.
    """

    __slots__ = ("base_url", "raw_values", "selector")

    def __init__(self, selector: Selector | None = None, base_url: str | None = None) -> None:
        # The node add_css/add_xpath query, and the page links are resolved against.
        self.selector = selector
        self.base_url = base_url
        # Each field's values as added, uncleaned.
        self.raw_values: dict[str, list[Any]] = {}

    def add_value(self, field_name: str, value: Any) -> PostLoader:
        """Add a raw value, or a list of them (None adds nothing), to a field of the post."""
        if field_name not in PostItem.fields:
            raise ValueError(f"a post has no field {field_name!r}")
        values = _as_values(value)
        if values:
            self.raw_values.setdefault(field_name, []).extend(values)
        return self

    def add_css(self, field_name: str, query: str) -> PostLoader:
        """Add the strings a CSS query (parsel's ``::text``, ``::attr()``) selects in the node."""
        return self.add_value(field_name, self._node().css(query).getall())

    def add_xpath(self, field_name: str, query: str) -> PostLoader:
        """Add the strings an XPath query selects in the node."""
        return self.add_value(field_name, self._node().xpath(query).getall())

    def add_html_summary(self, markup: str | None) -> None:
        """Set the summary from an HTML fragment (feeds): tags dropped, text kept."""
        self.add_value("summary", html_to_text(markup) or "")

    def add_counts(self, texts: Iterable[str]) -> None:
        """Add views/comments/likes read by their label from the given texts."""
        for field, count in labelled_counts(texts).items():
            self.add_value(field, count)

    def load_item(self) -> PostItem:
        """The cleaned item, with defaults for absent fields so every export row has every
        column: None, ``[]`` for tags and categories, False for ``gone``."""
        values: dict[str, Any] = dict.fromkeys(POST_FIELDS)
        values.update(tags=[], categories=[], gone=False)
        values.update(self.loaded())
        if values["url"]:
            values["id"] = post_id(values["url"])
        return PostItem(values)

    def loaded(self) -> dict[str, Any]:
        """The cleaned values of the fields added so far, and only those.

        ``category`` values are the post's categories: ``categories`` holds them all, in
        order, and ``category`` the first."""
        raw_values = dict(self.raw_values)
        if "category" in raw_values:
            raw_values["categories"] = raw_values.get("categories", []) + raw_values["category"]
        values: dict[str, Any] = {}
        for field_name, raw in raw_values.items():
            value = _CLEANINGS.get(field_name, _first_text)(raw, self.base_url)
            if value is not None:
                values[field_name] = value
        if values.get("categories"):
            values["category"] = values["categories"][0]
        return values

    def _node(self) -> Selector:
        if self.selector is None:
            raise RuntimeError("PostLoader needs a selector for add_css/add_xpath")
        return self.selector
