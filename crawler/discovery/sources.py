"""Where a blog lists its posts besides its pages: the feeds a page announces (and the usual
feed paths), the sitemaps of robots.txt (and the usual sitemap path), and a sitemap's entries.

Sitemaps are read with Scrapy's own parser (:class:`scrapy.utils.sitemap.Sitemap`,
:func:`scrapy.utils.sitemap.sitemap_urls_from_robots`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin

from parsel import Selector
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

# Feed autodiscovery (RSS Board, RFC 4287's HTML link): these types on <link rel=alternate>.
FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/feed+json")
# Where blog generators put the feed when no page announces one: Hexo (hexo-generator-feed),
# Jekyll (jekyll-feed), Hugo, and the RSS path of many themes.
USUAL_FEEDS = ("atom.xml", "feed.xml", "index.xml", "rss.xml")
USUAL_SITEMAP = "sitemap.xml"
# A feed's root element, after an optional XML declaration, comments or processing instructions.
_FEED_START = re.compile(
    rb"(?:\xef\xbb\xbf)?\s*(?:<\?[^>]*>\s*|<!--.*?-->\s*)*<(?:rss|feed|rdf:RDF)\b", re.S
)


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One ``<url>`` of a urlset (or ``<sitemap>`` of an index): its address and lastmod."""

    loc: str
    lastmod: str | None


def announced_feeds(page: Selector, base_url: str) -> list[str]:
    """The feeds a page announces with ``<link rel="alternate">`` (RSS, Atom, JSON Feed),
    absolute, in page order, without repeats."""
    found = []
    for link in page.xpath("//link[@href][@type]"):
        rel = (link.attrib.get("rel") or "").lower().split()
        kind = link.attrib.get("type", "").strip().lower()
        if "alternate" in rel and kind in FEED_TYPES:
            found.append(urljoin(base_url, link.attrib["href"].strip()))
    return list(dict.fromkeys(found))


def robots_sitemaps(robots_txt: bytes | str, base_url: str) -> list[str]:
    """The ``Sitemap:`` lines of a robots.txt, absolute (a byte-order mark before the first
    line does not hide it: Scrapy's reader compares each line's first bytes)."""
    if isinstance(robots_txt, str):
        robots_txt = robots_txt.encode("utf-8")
    robots_txt = robots_txt.removeprefix(b"\xef\xbb\xbf")
    return list(dict.fromkeys(sitemap_urls_from_robots(robots_txt, base_url=base_url)))


def looks_like_feed(body: bytes) -> bool:
    """True for a body that starts as an RSS, RDF or Atom document (feeds are often served
    as ``text/html`` or ``application/octet-stream``)."""
    return bool(_FEED_START.match(body[:4096]))


def is_sitemap(body: bytes) -> bool:
    """True for a sitemap (urlset) or a sitemap index."""
    head = body[:2048].lower()
    return b"<urlset" in head or b"<sitemapindex" in head


def sitemap_entries(body: bytes) -> tuple[str, list[SitemapEntry]]:
    """A sitemap's kind (``urlset`` or ``sitemapindex``) and its entries; ``("", [])`` for
    a body that is no sitemap."""
    try:
        sitemap = Sitemap(body)
    except Exception:  # not XML at all: lxml's own errors, whatever they are
        return "", []
    if sitemap.type not in ("urlset", "sitemapindex"):
        return "", []
    entries = [
        SitemapEntry(str(entry["loc"]).strip(), _text(entry.get("lastmod")))
        for entry in sitemap
        if entry.get("loc")
    ]
    return sitemap.type, entries


def feed_candidates(site_root: str, announced: Iterable[str]) -> list[str]:
    """The feeds to read: those a page announces, else the usual paths of the site."""
    given = list(announced)
    return given or [urljoin(site_root, path) for path in USUAL_FEEDS]


def _text(value: object) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None
