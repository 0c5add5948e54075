"""The links of a blog's pages, by what they lead to: pages that list posts (hubs), pages that
may be posts (candidates), and pages that are neither (skipped).

Blog generators give these pages fixed paths (Hexo, Hugo, Jekyll, VuePress themes alike):
pagination ``/page/N/`` or ``?page=N``, ``/archives/`` (and its dates and pages: Typecho's
``/archives/123/`` and Halo's ``/archives/slug`` are posts), date archives ``/2024/`` and
``/2024/05/``, ``/tags/…``, ``/categories/…``, ``/author/…``, ``/timeline/``; WordPress's
plain permalinks ``/?p=123`` are posts. Candidates are confirmed on
their own page (:mod:`crawler.discovery.posts`): a URL alone never makes a post.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit, urlunsplit

from parsel import Selector

HUB, CANDIDATE, SKIP = "hub", "candidate", "skip"

# The first path segment of pages that list posts: taxonomies and archives.
_LIST_ROOTS = frozenset(
    ["tags", "tag", "categories", "category", "timeline", "series", "author", "authors"]
)
# Archives list posts, but Typecho (/archives/123/) and Halo (/archives/slug) keep posts
# there too: under them, only a date, a pager or nothing more is a list.
_ARCHIVES = frozenset(["archives", "archive"])
# A section's own list (``/posts/``), when it is the whole path.
_SECTIONS = frozenset(["posts", "post", "blog", "blogs", "articles", "article", "notes"])
# The first path segment of pages that are neither posts nor lists of them (Halo 1 serves
# its custom pages, about and links, under /s/).
_OTHER_WORDS = """
    about about-me aboutme links link friends friend search 404 404.html feed rss atom sitemap
    comments
    comment login admin wp-admin wp-login.php wp-json xmlrpc.php cdn-cgi assets static css js
    img images fonts lib libs vendor uploads wp-content wp-includes message guestbook donate
    resume cv
    s
"""
_OTHER_ROOTS = frozenset(_OTHER_WORDS.split())
_ASSET = re.compile(
    r"\.(?:css|js|mjs|map|png|jpe?g|gif|svg|webp|avif|ico|bmp|pdf|zip|gz|tar|7z|rar|xml|json|"
    r"txt|woff2?|ttf|otf|eot|mp[34]|webm|mov|avi|apk|exe|dmg|ipynb|md)$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^\d+$")
_PAGE_FILE = re.compile(r"\.html?$")
_JEKYLL_PAGE = re.compile(r"^page\d+$")  # jekyll-paginate: /page2/
_YEAR, _MONTH = re.compile(r"^\d{4}$"), re.compile(r"^\d{1,2}$")
_PAGINATED = re.compile(r"(?:^|&)(?:page|paged)=\d+(?:&|$)")
_PLAIN_PERMALINK = re.compile(r"(?:^|&)(?:p|page_id)=\d+(?:&|$)")
_INDEX_FILES = ("index.html", "index.htm", "index.php")


def normalise(url: str) -> str:
    """A page's URL as links to it differ only in noise: no fragment, and ``…/index.html``
    the same as ``…/``."""
    parts = urlsplit(url)
    path = parts.path
    for name in _INDEX_FILES:
        if path.endswith("/" + name):
            path = path[: -len(name)]
    return urlunsplit((parts.scheme, parts.netloc, path or "/", parts.query, ""))


def kind_of(url: str, site_root: str) -> str:
    """What a link of the site leads to: :data:`HUB`, :data:`CANDIDATE` or :data:`SKIP`."""
    if not url.startswith(site_root):
        return SKIP
    parts = urlsplit(url)
    path = parts.path[len(urlsplit(site_root).path) :]
    if _ASSET.search(path):
        return SKIP
    segments = [segment.lower() for segment in path.split("/") if segment]
    if _PAGINATED.search(parts.query):
        return HUB  # a page of a pagination
    if not segments:
        # The home page; WordPress's plain permalinks (?p=123, ?page_id=…) are its pages.
        return CANDIDATE if _PLAIN_PERMALINK.search(parts.query) else HUB
    first = segments[0]
    # A site saved or served with its pages as files says the same (/archives.html, /about.html).
    word = _PAGE_FILE.sub("", first)
    if word in _LIST_ROOTS or _JEKYLL_PAGE.match(first):
        return HUB
    if word in _ARCHIVES:
        rest = segments[1:]
        dated = bool(rest) and len(rest[0]) == 4 and all(_NUMBER.match(s) for s in rest)
        return HUB if not rest or dated or rest[0] == "page" else CANDIDATE
    if "page" in segments[:-1] and _NUMBER.match(segments[segments.index("page") + 1]):
        return HUB  # /page/2/, /posts/page/2/, /tags/x/page/2/
    if _YEAR.match(first) and all(_MONTH.match(s) for s in segments[1:2]) and len(segments) <= 2:
        return HUB  # /2024/, /2024/05/: date archives
    if len(segments) == 1 and word in _SECTIONS:
        return HUB
    if word in _OTHER_ROOTS:
        return SKIP
    return CANDIDATE


def site_links(page: Selector, base_url: str, site_root: str) -> list[str]:
    """Every link of a page into the site, absolute and normalised, in page order."""
    found = []
    for href in page.xpath("//a/@href").getall():
        href = href.strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:", "data:")):
            continue
        try:
            url = normalise(urljoin(base_url, href))
        except ValueError:
            continue  # a link that is no URL: one bad href must not cost the page
        if url.startswith(site_root):
            found.append(url)
    return list(dict.fromkeys(found))
