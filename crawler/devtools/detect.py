"""Which known layout reads a page: the pure function behind ``scrapy detect``.

Every layout of :mod:`crawler.layouts` is tried, so a new layout is detected as soon as its
module exists. A layout matches a page when

- its extraction (the same :meth:`Layout.extract` the crawl runs) yields at least one
  post with a url and a title, and
- at least one of its ``signature`` selectors matches the page.

Matches are ranked by evidence: the number of signature selectors that match, then the number
of posts read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from parsel import Selector
from scrapy.http import Response, TextResponse, XmlResponse

from crawler.layouts import layouts
from crawler.layouts.base import Layout, as_text
from crawler.layouts.feed import feed_document


@dataclass(frozen=True)
class Match:
    """What one layout makes of a page: the evidence, and whether it counts as a match."""

    layout: str
    signature: dict[str, int]  # every signature selector -> how many elements it matched
    posts: int  # extracted items with both a url and a title
    items: int  # extracted items in all
    first_title: str | None = None
    first_url: str | None = None
    next_pages: list[str] = field(default_factory=list)
    error: str | None = None  # the extraction raised: the layout cannot read this page

    @property
    def matched_selectors(self) -> list[str]:
        return [selector for selector, count in self.signature.items() if count]

    @property
    def matched(self) -> bool:
        return self.posts >= 1 and bool(self.matched_selectors)

    @property
    def score(self) -> tuple[int, int]:
        """Higher is stronger evidence: selectors matched, then posts read."""
        return (len(self.matched_selectors), self.posts)


def layout_classes() -> list[type[Layout]]:
    """Every layout, by name."""
    return list(layouts().values())


# A feed's root element, after an optional XML declaration, comments or processing instructions.
_FEED_START = re.compile(rb"\s*(?:<\?[^>]*>\s*|<!--.*?-->\s*)*<(?:rss|feed|rdf:RDF)\b", re.S)


def _document(response: Response) -> Selector:
    """The page as a fresh selector with namespaces removed (so ``/feed/entry`` matches Atom).

    Parsed as XML, as the feed layout parses it, when served as XML or when it starts like a
    feed (feeds are often served as ``text/html`` or ``application/octet-stream``), else as
    HTML.
    """
    if not isinstance(response, TextResponse):
        response = TextResponse(url=response.url, body=response.body, headers=response.headers)
    if isinstance(response, XmlResponse) or bool(_FEED_START.match(response.body[:4096])):
        return feed_document(response)
    document = Selector(text=response.text, type="html")
    document.remove_namespaces()
    return document


def count_matches(document: Selector, selector: str) -> int:
    """How many elements a signature selector matches: XPath when it starts with / or (."""
    found = document.xpath(selector) if selector.startswith(("/", "(")) else document.css(selector)
    return len(found)


def examine(response: Response, layout: type[Layout]) -> Match:
    """The evidence one layout finds on a page (a :class:`Match`, matched or not)."""
    document = _document(response)
    signature = {selector: count_matches(document, selector) for selector in layout.signature}
    page = as_text(response)
    try:
        items = layout.extract(page)
        next_pages = [page.urljoin(url) for url in layout.next_page_urls(page)]
    except Exception as exc:  # a layout meeting a page it cannot read is evidence, not a bug
        return Match(layout.name, signature, 0, 0, error=f"{type(exc).__name__}: {exc}")
    posts = [item for item in items if item.get("url") and item.get("title")]
    first = posts[0] if posts else {}
    return Match(
        layout=layout.name,
        signature=signature,
        posts=len(posts),
        items=len(items),
        first_title=first.get("title"),
        first_url=first.get("url"),
        next_pages=next_pages,
    )


def examine_all(response: Response, layouts: Iterable[type[Layout]] | None = None) -> list[Match]:
    """The evidence of every layout, strongest first (matches before the rest)."""
    layouts = layout_classes() if layouts is None else layouts
    found = [examine(response, layout) for layout in layouts]
    return sorted(found, key=lambda m: (m.matched, m.score), reverse=True)


def detect(response: Response, layouts: Iterable[type[Layout]] | None = None) -> list[Match]:
    """The layouts that read this page, best evidence first; ``[]`` when none does."""
    return [match for match in examine_all(response, layouts) if match.matched]
