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

from scrapy.http import Response
from scrapy.responsetypes import responsetypes

from crawler.items import POST_FIELDS
from crawler.layouts import get_layout
from crawler.pipelines.dates import date_fields
from crawler.sites import SiteConfig

EXPECTED_FIELDS = tuple(name for name in POST_FIELDS if name != "crawled_at")


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
            return resources.files("crawler.samples").joinpath(layout, name).read_bytes()
        return (self.folder / self.page).read_bytes()

    def response(self) -> Response:
        headers = self.headers or {"Content-Type": _content_type(self.page)}
        body = self.body()
        cls = responsetypes.from_args(headers=headers, url=self.url, body=body)
        return cls(url=self.url, body=body, headers=headers)

    def expected(self) -> list[dict[str, Any]]:
        return json.loads((self.folder / "output.json").read_text(encoding="utf-8"))


def _content_type(page: str) -> str:
    return "application/xml" if page.endswith(".xml") else "text/html; charset=utf-8"


def load_case(folder: Path) -> Case:
    """Read ``case.json`` of a case folder."""
    spec = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    return Case(
        folder=folder,
        url=spec["url"],
        layout=spec["layout"],
        site=spec["site"],
        timezone=spec.get("timezone", "Asia/Shanghai"),
        now=datetime.fromisoformat(spec["now"]),
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
    site = SiteConfig(name=case.site, layout=case.layout, url=case.url, timezone=case.timezone)
    items = []
    for item in get_layout(case.layout).extract(case.response(), site):
        row = {name: item.get(name) for name in POST_FIELDS}
        row.update(date_fields(row["published_raw"], case.timezone, case.now))
        row["crawled_at"] = case.now.astimezone(UTC).isoformat()
        items.append(row)
    return items
