"""A post page's tags and categories by the standards any theme may follow.

- The rel-tag microformat, as WordPress writes it: ``rel="tag"`` links are tags,
  ``rel="category tag"`` (or ``rel="category"``, without pretty permalinks) links are
  categories; custom themes keep it too.
- Links into the site's ``/tag(s)/`` and ``/categor(y|ies)/`` paths, where a theme marks no
  ``rel``.
- ``article:tag`` metadata only where the page shows no tag markup at all, and never when it
  repeats the page's ``meta[name=keywords]`` or the site's keywords: Hexo's ``open_graph``
  helper writes the site's keywords as ``article:tag`` on every page of a post without tags.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from lxml import etree
from parsel import Selector

from crawler.parsing.processors import clean_text, unique
from crawler.parsing.xpath import node_elements

_RELATED = "//a[@rel][@href]"
_META_TAGS = "//meta[@property='article:tag']/@content"
_KEYWORDS = "//meta[@name='keywords']/@content"
_TAG_PATH = re.compile(r"/tags?/[^/?#]+")
_CATEGORY_PATH = re.compile(r"/categor(?:y|ies)/[^?#]+")
_TAG_ROOT, _CATEGORY_ROOT = re.compile(r"/tags?/"), re.compile(r"/categor(?:y|ies)/")


@dataclass(frozen=True)
class PageTerms:
    """The tags and categories a page shows, in page order."""

    tags: list[str]
    categories: list[str]


def rel_terms(scope: Selector) -> PageTerms:
    """The terms of the rel-tag microformat under ``scope`` (the post's article, or the
    page): ``rel`` ``tag`` alone is a tag, with ``category`` a category; a ``rel="tag"``
    link into the site's category pages is a category (Jekyll minimal-mistakes marks both
    kinds ``rel="tag"``)."""
    tags: list[str | None] = []
    categories: list[str | None] = []
    for link in node_elements(scope, _RELATED):
        rel = str(link.get("rel", "")).lower().split()
        text = _text(link)
        href = str(link.get("href", ""))
        if "category" in rel or ("tag" in rel and _is_category_path(href)):
            categories.append(text)
        elif "tag" in rel:
            tags.append(text)
    return PageTerms(unique(tags), unique(categories))


def _is_category_path(href: str) -> bool:
    """True for a link into the site's category pages (``/categories/#x`` included)."""
    path = urlsplit(href).path
    return bool(_CATEGORY_ROOT.search(path)) and not _TAG_ROOT.search(path)


def path_terms(scope: Selector, site_root: str) -> PageTerms:
    """The terms of links under ``scope`` into the site's tag and category pages."""
    tags: list[str | None] = []
    categories: list[str | None] = []
    for link in node_elements(scope, ".//a[@href]"):
        href = str(link.get("href", ""))
        path = href[len(site_root) - 1 :] if href.startswith(site_root) else href
        if path.startswith(("http:", "https:", "//")):
            continue  # another site's
        if _TAG_PATH.search(path):
            tags.append(_text(link))
        elif _CATEGORY_PATH.search(path):
            categories.append(_text(link))
    return PageTerms(unique(tags), unique(categories))


def meta_tags(page: Selector, site_keywords: Collection[str] = ()) -> list[str]:
    """``article:tag`` values that are the post's: none of them when they repeat the page's
    keywords or the site's (``site_keywords``: the ``article:tag`` values of the site's
    pages that are no posts)."""
    found = unique(clean_text(value) for value in page.xpath(_META_TAGS).getall())
    keywords = {clean_text(value) for value in page.xpath(_KEYWORDS).getall()}
    repeated = set(site_keywords) | keywords
    if not found or set(found) <= repeated or " ".join(found) in repeated:
        return []
    return found


def _text(link: etree._Element) -> str | None:
    text = clean_text("".join(str(part) for part in link.itertext()))
    return text.lstrip("#").strip() or None if text else None
