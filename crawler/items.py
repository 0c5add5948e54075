"""The post item: the one place the export schema is written.

Each field of an exported post is declared once in :class:`PostItem`, in export order, with
:func:`post_field`: its JSON type, whether it may be null, its meaning, its constraints (pattern,
format, bounds) and whether a change of its value makes the post "changed". Everything else
derives from these declarations:

- ``POST_FIELDS``: the export column order (CSV header, ``FEED_EXPORT_FIELDS``, the dataset);
- ``TRACKED_FIELDS``: what the store compares between runs (``crawler/store/records.py``);
- the JSON Schema: :func:`crawler.schema.post_json_schema`, checked in as
  ``crawler/post.schema.json``;
- the README's field table: :func:`crawler.schema.field_table`.

Adding a field is one change here: a ``post_field(...)`` line where its column goes. Then
regenerate the two copies meant for readers (``tests/test_schema.py`` fails until they match)::

    python -m crawler.schema > crawler/post.schema.json
    python -m crawler.schema --readme     # paste over the table under "The data" in README.md
"""

from __future__ import annotations

import itertools
from typing import Any

import scrapy

# Keys of a declared field's metadata (Scrapy's Field is a dict meant for such metadata).
JSON_SCHEMA, TRACKED, DELTA_ONLY, ORDER = "json_schema", "tracked", "delta_only", "order"

# Scrapy lists an Item's fields sorted by name; this counter keeps their declaration order.
_declaration = itertools.count()


def post_field(
    json_type: str,
    description: str,
    *,
    null: bool = False,
    tracked: bool = False,
    delta_only: bool = False,
    **constraints: Any,
) -> scrapy.Field:
    """A field of the post schema.

    ``json_type`` is the JSON Schema type of a value ("string", "integer", "array"); ``null``
    allows null as well. ``constraints`` are JSON Schema keywords (``pattern``, ``format``,
    ``minLength``, ``minimum``, ``items``, ``enum``). ``description`` is the meaning as a reader
    of the data needs it (Markdown, as the README shows it). ``tracked``: a new value makes the
    post "changed" in a run's delta. ``delta_only``: only in a run's change files, not a column
    of the dataset.
    """
    schema: dict[str, Any] = {"type": [json_type, "null"] if null else json_type, **constraints}
    if null and "enum" in schema:
        schema["enum"] = [*schema["enum"], None]
    schema["description"] = description
    return scrapy.Field(
        {JSON_SCHEMA: schema, TRACKED: tracked, DELTA_ONLY: delta_only, ORDER: next(_declaration)}
    )


_ISO_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?"
_NO_COUNT = "`1.2k`, `1,024`, `1.5万` read as numbers; null where the page shows none"


class PostItem(scrapy.Item):
    """One blog post as a list page, index or feed shows it.

    The fields declared with :func:`post_field` are the export schema, in export order; the
    plain ``scrapy.Field()`` ones are the crawl's own bookkeeping and never exported.
    """

    id = post_field(
        "string",
        "first 16 hex digits of SHA-1 of `url`: stable across runs",
        pattern="^[0-9a-f]{16}$",
    )
    url = post_field(
        "string",
        "absolute, canonical (w3lib `canonicalize_url`: sorted query, no fragment)",
        format="uri",
        pattern="^https?://",
        tracked=True,
    )
    title = post_field(
        "string",
        "exact title; a `[置顶]` pinned mark is not part of it",
        minLength=1,
        tracked=True,
    )
    summary = post_field(
        "string",
        "plain text, whitespace collapsed; platform labels (`摘要：`, `阅读全文`) removed; HTML"
        " (feeds) reduced to text; a theme's `...` truncation kept",
        null=True,
        tracked=True,
    )
    author = post_field("string", "as the list page shows it", null=True, tracked=True)
    published_at = post_field(
        "string",
        "ISO 8601 with the UTC offset, e.g. `2026-09-29T20:12:00+08:00`; null when the page"
        " gives no date (never the crawl time). Offsets differ between sites (`+08:00`,"
        " `+00:00`): pandas needs `pd.to_datetime(df.published_at, utc=True)` (without"
        " `utc=True` it refuses mixed offsets)",
        null=True,
        pattern=_ISO_TIME + r"[+-]\d{2}:\d{2}$",
        tracked=True,
    )
    date_precision = post_field(
        "string",
        "`second`, `minute`, or `day`: how much of the time the page gave; `day` is a date"
        " only, and `published_at` is then midnight in the site's timezone",
        null=True,
        enum=["day", "minute", "second"],
        tracked=True,
    )
    published_raw = post_field(
        "string",
        "the date text as the page prints it (`2026-09-29 20:12`, `July 5, 2026`)",
        null=True,
    )
    updated_at = post_field(
        "string",
        "the last update the post page shows (a visible update time, `article:modified_time`"
        " or JSON-LD `dateModified`), as `published_at`; null when it shows none",
        null=True,
        pattern=_ISO_TIME + r"[+-]\d{2}:\d{2}$",
        tracked=True,
    )
    category = post_field(
        "string",
        "the first of `categories` (kept for readers of earlier exports)",
        null=True,
        tracked=True,
    )
    categories = post_field(
        "array",
        "every category of the list and post page, nested ones flattened parent first; `[]`"
        " when none; in CSV joined with ` | `",
        items={"type": "string"},
        tracked=True,
    )
    tags = post_field(
        "array",
        "of the list and post page, in page order without repeats; `[]` when none; in CSV"
        " joined with ` | ` (an empty cell when none: give the column a type when loading)",
        items={"type": "string"},
        tracked=True,
    )
    views = post_field(
        "integer",
        f"times read (cnblogs 阅读, cards 浏览); {_NO_COUNT}",
        null=True,
        minimum=0,
        tracked=True,
    )
    comments = post_field(
        "integer",
        f"comments (cnblogs 评论, cards 评论); {_NO_COUNT}",
        null=True,
        minimum=0,
        tracked=True,
    )
    likes = post_field(
        "integer",
        f"likes (cnblogs 推荐, cards 点赞); {_NO_COUNT}",
        null=True,
        minimum=0,
        tracked=True,
    )
    content = post_field(
        "string",
        "the whole post as Markdown (headings, lists, tables, quotes, fenced code with its"
        ' language, absolute links and images), without the theme\'s chrome; `""` for an'
        " empty post; null when the post page was never read. In CSV a cell over 32,767"
        " characters (Excel's limit) is cut and ends with `[…]`: JSON Lines is always whole",
        null=True,
        tracked=True,
    )
    word_count = post_field(
        "integer",
        "CJK characters plus words of other scripts in `content`, code blocks not counted;"
        " null when `content` is",
        null=True,
        minimum=0,
    )
    gone = post_field(
        "boolean",
        "true when the post page answered 404 or 410 on the last try: the post keeps its last"
        " values, is left out of the Atom feeds and is asked for again every run; false again"
        " as soon as its page answers",
        tracked=True,
    )
    site = post_field(
        "string",
        "the site's name (registry name, or derived from the URL)",
        pattern="^[a-z0-9][a-z0-9_.-]{0,79}$",
    )
    layout = post_field("string", "the spider that read it")
    crawled_at = post_field(
        "string", "when it was read, ISO 8601 in UTC", pattern=_ISO_TIME + r"\+00:00$"
    )
    # Set by the store: "new", "changed" or "unchanged" since earlier runs; the change files
    # hold only the first two.
    change = post_field(
        "string",
        "`new` or `changed` since the earlier runs; only in a run's change files"
        " (`runs/<run id>/changes.*`)",
        enum=["new", "changed"],
        delta_only=True,
    )
    changed_fields = post_field(
        "array",
        "for a `changed` post, the fields whose value changed (`content` when the post was"
        " edited); `[]` for a new one; only in a run's change files",
        items={"type": "string"},
        delta_only=True,
    )
    # The list page the post was read from: for log lines and errors, never exported.
    source_page = scrapy.Field()
    # The site's timezone, for dates printed without an offset (DatesPipeline).
    timezone = scrapy.Field()
    # What the store held of the post when this run met it (None: a new post), read once by
    # the incremental middleware: the store pipeline keeps what a page not read this run
    # gave before.
    stored = scrapy.Field()
    # The update time as the post page prints it; DatesPipeline makes updated_at of it.
    updated_raw = scrapy.Field()
    # The publication time as the post's own page prints it when it says more than the list
    # (the time of day): DatesPipeline prefers it; published_raw stays the list's, which the
    # incremental check compares. Kept in the store with the post.
    published_page = scrapy.Field()
    # True when this run asked for the post page and did not get it: tried again next run.
    post_page_failed = scrapy.Field()
    # True for a post taken from the store, not read from a page, because its list page was
    # unchanged (304) or older than the first known page: keeps `-O` files complete.
    replayed = scrapy.Field()
    # True for a candidate the generic reader found by its address alone (a link, a sitemap
    # or feed entry): its page says whether it is a post, and gives its fields.
    discovered = scrapy.Field()
    # When a sitemap or feed says the candidate's page last changed (an ISO instant).
    lastmod = scrapy.Field()


# The bookkeeping the store keeps with a post's values (never exported).
STORED_BOOKKEEPING = ("post_page_failed", "published_page")


def _declared(item_class: type[scrapy.Item]) -> tuple[str, ...]:
    """The schema fields of ``item_class`` in declaration order."""
    fields = {name: meta for name, meta in item_class.fields.items() if JSON_SCHEMA in meta}
    return tuple(sorted(fields, key=lambda name: fields[name][ORDER]))


# Every field of the JSON Schema, in order: the dataset's columns, then delta-only ones.
SCHEMA_FIELDS: tuple[str, ...] = _declared(PostItem)

# Export column order: CSV columns and the JSON Schema follow this tuple, never the first item.
POST_FIELDS: tuple[str, ...] = tuple(
    name for name in SCHEMA_FIELDS if not PostItem.fields[name][DELTA_ONLY]
)

# Fields whose change makes a post "changed" in a run's delta (not crawled_at, not the id).
TRACKED_FIELDS: tuple[str, ...] = tuple(
    name for name in POST_FIELDS if PostItem.fields[name][TRACKED]
)
