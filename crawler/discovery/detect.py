"""Which layout reads a page: the pure function behind ``scrapy detect`` and ``auto`` sites.

Every layout of :mod:`crawler.layouts` that reads a known platform is tried (not ``auto``
itself, nor the generic reader), so a new layout is detected as soon as its module exists. A
layout matches a page when

- its extraction (the same :meth:`Layout.extract` the crawl runs) yields at least one
  post with a url and a title, and
- at least one of its ``signature`` selectors matches the page.

Matches are ranked by evidence: the number of signature selectors that match, then the number
of posts read. A page no layout matches is read by the generic reader
(:mod:`crawler.layouts.generic`); what the page says of its making (the generator, a theme's
mark, its feeds) is evidence either way (:func:`page_evidence`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from parsel import Selector
from scrapy.http import Response, TextResponse, XmlResponse

from crawler.discovery.sources import announced_feeds, looks_like_feed
from crawler.layouts import get_layout, layouts
from crawler.layouts.base import Layout, as_text
from crawler.layouts.feed import feed_document

# Layouts that read no platform of their own: never a detection's answer.
READERS_OF_ANY = ("auto", "generic")


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
    """Every layout of a known platform, by name."""
    return [layout for name, layout in layouts().items() if name not in READERS_OF_ANY]


def _document(response: Response) -> Selector:
    """The page as a fresh selector with namespaces removed (so ``/feed/entry`` matches Atom).

    Parsed as XML, as the feed layout parses it, when served as XML or when it starts like a
    feed (feeds are often served as ``text/html`` or ``application/octet-stream``), else as
    HTML.
    """
    if not isinstance(response, TextResponse):
        response = TextResponse(url=response.url, body=response.body, headers=response.headers)
    if isinstance(response, XmlResponse) or looks_like_feed(response.body):
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


# What a page may say of its making besides a layout's signature: the generator, and the
# marks themes print in every page (a footer credit, a version meta, a comment).
_GENERATOR = "//meta[@name='generator']/@content"
_THEME_MARKS = (
    "//meta[@name='theme']/@content",
    "//a[contains(@class, 'theme-version')]//text()",
    "//footer//a[contains(@href, 'github.com') and contains(@href, 'theme')]/@href",
    "//comment()[contains(., 'Theme')]",
)


def page_evidence(response: Response) -> list[str]:
    """What a page says of its making: its generator, a theme's mark, the feeds and sitemaps
    it announces (``scrapy detect`` prints them; a generic site is logged with them)."""
    page = as_text(response)
    if looks_like_feed(page.body):
        return ["a feed"]
    document = page.selector
    found = [f"generator {value.strip()}" for value in document.xpath(_GENERATOR).getall()]
    for query in _THEME_MARKS:
        for value in document.xpath(query).getall()[:1]:
            text = " ".join(value.replace("<!--", "").replace("-->", "").split())[:80]
            if text:
                found.append(f"theme mark {text}")
    found += [f"feed {url}" for url in announced_feeds(document, page.url)]
    sitemaps = document.xpath("//link[@rel='sitemap']/@href").getall()
    found += [f"sitemap {page.urljoin(href.strip())}" for href in sitemaps]
    return found


def resolve_layout(response: Response) -> tuple[type[Layout], list[str]]:
    """The layout that reads a site from this page (its start page), and why: the best
    matching layout, else the generic reader."""
    matches = detect(response)
    if matches:
        best = matches[0]
        return get_layout(best.layout), [
            f"signature {', '.join(best.matched_selectors)}",
            f"{best.posts} post(s) on the page",
        ]
    return get_layout("generic"), ["no layout matched", *page_evidence(response)]
