"""The one item loader every layout spider fills: a spider only says where each field is."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urljoin

from itemloaders.processors import Compose, Identity, MapCompose, TakeFirst
from scrapy.loader import ItemLoader

from crawler.direct_processors import DirectProcessor, as_list, direct
from crawler.items import POST_FIELDS, PostItem
from crawler.processors import (
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


def _absolute(value: str | None, loader_context: dict[str, Any]) -> str | None:
    """Resolve a link against the page it was found on (``base_url`` in the loader context).

    None for a link that is no URL (``http://[``): one bad href must not crash the page.
    """
    value = str(value or "").strip()
    if not value:
        return None
    if PLAIN_URL.fullmatch(value):
        return value  # absolute already
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
    title_out = Compose(join_texts, clean_text, strip_pinned_mark)
    summary_in = Identity()
    summary_out = Compose(join_texts, clean_text, strip_summary_labels)
    published_raw_in = Identity()
    published_raw_out = Compose(join_texts, clean_text)
    tags_out = Compose(unique)
    views_in = comments_in = likes_in = MapCompose(parse_count)

    def add_html_summary(self, markup: str | None) -> None:
        """Set the summary from an HTML fragment (feeds): tags dropped, text kept."""
        self.add_value("summary", html_to_text(markup) or "")

    def add_counts(self, texts: Iterable[str]) -> None:
        """Add views/comments/likes read by their label from the given texts."""
        for field, count in labelled_counts(texts).items():
            self.add_value(field, count)

    # itemloaders looks each field's processor up and re-wraps it for the loader context on
    # every value; here each is turned once per class into a plain function (see
    # crawler.direct_processors). Measured on the synthetic cnblogs pages: about 70 µs less a
    # post.
    def add_value(
        self, field_name: str | None, value: Any, *processors: Callable[..., Any], **kw: Any
    ) -> PostLoader:
        if processors or kw or not field_name:
            return super().add_value(field_name, value, *processors, **kw)
        try:
            values = _direct(type(self), field_name, "in")(value, self.context)
        except Exception as error:
            raise ValueError(
                f"Error with input processor of field {field_name!r}, value={value!r}: {error}"
            ) from error
        if values:
            self._values.setdefault(field_name, []).extend(as_list(values))
        return self

    def get_output_value(self, field_name: str) -> Any:
        try:
            return _direct(type(self), field_name, "out")(
                self._values.get(field_name, []), self.context
            )
        except Exception as error:
            raise ValueError(
                f"Error with output processor of field {field_name!r}: {error}"
            ) from error

    def load_item(self) -> PostItem:
        """The item with defaults for absent fields, so every export row has every column."""
        values = dict.fromkeys(POST_FIELDS)
        values["tags"] = []
        for field_name in self._values:
            value = self.get_output_value(field_name)
            if value is not None:
                values[field_name] = value
        if values["url"]:
            values["id"] = post_id(values["url"])
        return PostItem(values)


_DIRECT: dict[tuple[type, str, str], DirectProcessor] = {}


def _direct(cls: type[ItemLoader], field_name: str, kind: str) -> DirectProcessor:
    key = (cls, field_name, kind)
    if key not in _DIRECT:
        loader = cls()
        look_up = loader.get_input_processor if kind == "in" else loader.get_output_processor
        _DIRECT[key] = direct(look_up(field_name))
    return _DIRECT[key]
