"""Saved-page cases: a page, its URL, a frozen "now" and the items expected from it.

A case is a folder ``tests/cases/<layout>/<case>/`` holding::

    case.json    {"url": ..., "layout": ..., "site": ..., "timezone": ..., "now": ...,
                  "page": "page.html" | "sample:<layout>/<file>", "headers": {...},
                  "next_pages": [absolute URLs the layout follows from this page]}
    page.html    the saved page (or page.xml), unless "page" names a bundled sample page
    output.json  the expected items, every field but ``crawled_at``, in page order

:func:`run_case` extracts the items exactly as a crawl does (the layout's pure extraction,
then the dates pipeline's function with the frozen clock), so a test compares field by field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from scrapy.http import TextResponse
from scrapy.responsetypes import responsetypes

from crawler.items import POST_FIELDS
from crawler.layouts import get_layout
from crawler.layouts.base import as_text, merge_post_page
from crawler.parsing.dates import post_dates
from crawler.parsing.loaders import PostLoader

# What a list case expects: every field but the crawl time and the post body (a post page's,
# checked by the post-page cases in tests/post_cases/; a feed carrying whole posts is too).
EXPECTED_FIELDS = tuple(
    name for name in POST_FIELDS if name not in ("crawled_at", "content", "word_count")
)


@dataclass
class Case:
    """One saved page with its expected items."""

    folder: Path
    url: str
    layout: str
    site: str
    timezone: str
    now: datetime
    page: str
    headers: dict[str, str] = field(default_factory=dict)
    next_pages: list[str] | None = None

    @property
    def name(self) -> str:
        return f"{self.layout}/{self.folder.name}"

    def body(self) -> bytes:
        if self.page.startswith("sample:"):
            layout, _, name = self.page.removeprefix("sample:").partition("/")
            return resources.files("crawler.devtools.samples").joinpath(layout, name).read_bytes()
        return (self.folder / self.page).read_bytes()

    def response(self) -> TextResponse:
        headers = self.headers or {"Content-Type": _content_type(self.page)}
        body = self.body()
        cls = responsetypes.from_args(headers=_bytes(headers), url=self.url, body=body)
        return as_text(cls(url=self.url, body=body, headers=headers))

    def expected(self) -> list[dict[str, Any]]:
        return json.loads((self.folder / "output.json").read_text(encoding="utf-8"))


def _bytes(headers: dict[str, str]) -> dict[bytes, bytes]:
    return {name.encode(): value.encode() for name, value in headers.items()}


def _content_type(page: str) -> str:
    return "application/xml" if page.endswith(".xml") else "text/html; charset=utf-8"


def load_case(folder: Path) -> Case:
    """Read ``case.json`` of a case folder."""
    spec = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    return Case(
        folder=folder,
        url=spec["url"],
        layout=spec["layout"],
        site=spec.get("site", "case"),
        timezone=spec.get("timezone", "Asia/Shanghai"),
        now=datetime.fromisoformat(spec.get("now", "2026-11-30T00:00:00+08:00")),
        page=spec["page"],
        headers=spec.get("headers", {}),
        next_pages=spec.get("next_pages"),
    )


def find_cases(root: Path) -> list[Case]:
    """Every case under ``root`` (folders holding a ``case.json``), sorted by name."""
    return [load_case(p.parent) for p in sorted(root.glob("*/*/case.json"))]


def next_pages(case: Case) -> list[str]:
    """The absolute URLs of the list pages the layout would follow from the saved page."""
    response = case.response()
    return [response.urljoin(url) for url in get_layout(case.layout).next_page_urls(response)]


def run_case(case: Case) -> list[dict[str, Any]]:
    """The items the layout extracts from the saved page, dates normalised at ``case.now``."""
    items = []
    for item in get_layout(case.layout).extract(case.response()):
        row = {name: item.get(name) for name in POST_FIELDS}
        row.update(site=case.site, layout=case.layout)
        row.update(
            post_dates(row["published_raw"], item.get("updated_raw"), case.timezone, case.now)
        )
        row["crawled_at"] = case.now.astimezone(UTC).isoformat()
        items.append(row)
    return items


# ---- post-page cases ------------------------------------------------------------------------
# The same Case class (its ``now`` is optional here), read by run_post_case. A post-page case
# is a folder ``tests/post_cases/<layout>/<case>/`` holding::
#
#     case.json      {"url": ..., "layout": ..., "page": "page.html" | "page.xml",
#                     "source": "owner/repo@commit path", "timezone": ...,
#                     "extra_pages": {absolute URL: file}}   (pages the layout asks for)
#     expected.json  {"posts": [{"url", "content_start", "content_end", "content_contains",
#                     "content_excludes", "code_languages", "tags", "categories",
#                     "updated_at", "content" (null: must stay null)}]}
#
# A post page gives one post; a feed case gives its entries (whole posts when it has them).


def _extra_pages(case: Case) -> dict[str, TextResponse]:
    spec = json.loads((case.folder / "case.json").read_text(encoding="utf-8"))
    pages = {}
    for url, name in spec.get("extra_pages", {}).items():
        body = (case.folder / name).read_bytes()
        headers = {"Content-Type": _content_type(name)}
        cls = responsetypes.from_args(headers=_bytes(headers), url=url, body=body)
        pages[url] = as_text(cls(url=url, body=body, headers=headers))
    return pages


def run_post_case(case: Case) -> list[dict[str, Any]]:
    """The posts a case's page gives as a crawl reads them: a post page through its layout's
    ``read_post`` (and the extra pages it asks for), a feed through ``extract``; the post
    page fields and ``updated_at`` normalised in the case's timezone."""
    layout = get_layout(case.layout)
    response = case.response()
    if case.page.endswith(".xml"):
        posts = [dict(item) for item in layout.extract(response)]
    else:
        post: dict[str, Any] = {"url": case.url, "tags": [], "categories": []}
        merge_post_page(post, layout.read_post(response).fields)  # type: ignore[arg-type]
        extra = _extra_pages(case)
        for url in layout.post_extra_urls(response):
            answer = extra[response.urljoin(url)]  # KeyError: the case lacks a page asked for
            loader = PostLoader(selector=answer.selector, base_url=answer.url)
            layout.populate_post_extra(loader, answer)
            merge_post_page(post, loader.loaded())  # type: ignore[arg-type]
        posts = [post]
    for post in posts:
        post["updated_at"] = post_dates(None, post.get("updated_raw"), case.timezone, case.now)[
            "updated_at"
        ]
    return posts
