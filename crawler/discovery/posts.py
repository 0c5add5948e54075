"""Whether a page is a post, and what its metadata says of it, whatever its theme.

The metadata is read with extruct (JSON-LD, Open Graph, microdata, in one pass over the tree
the crawl already parsed). A page is a post when its address may be one (not a list, tag,
archive or about page: :mod:`crawler.discovery.links`), it says so (``og:type`` article,
JSON-LD ``BlogPosting``/``Article``, an ``article`` element, schema.org microdata) and it
gives a publication time. A theme that says nothing machine-readable (Hexo Keep) is
recognised by a dated URL and a publication time printed on the page. A page that lists
posts under headings is no post; one whose metadata claims it is an article (Chirpy's
``/archives/`` carries ``og:type`` article and a ``BlogPosting``, Hugo Stack's archives page
``og:type`` article) only when it also holds several ``article`` elements.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from parsel import Selector

from crawler.discovery.links import CANDIDATE, kind_of, normalise

logger = logging.getLogger(__name__)

ARTICLE_TYPES = {"blogposting", "article", "techarticle", "newsarticle", "posting", "report"}
# /2023/01/19/slug/, /2023/01/slug/, and a page file right under the year (/2023/44339.html:
# Hexo's :year/:abbrlink.html permalinks, VuePress reco's /blogs/<category>/2021/slug.html).
_DATED_URL = re.compile(
    r"/(?:19|20)\d{2}/(?:\d{1,2}/(?:\d{1,2}/)?[^/]+|(?!index\.html?$)[^/]+\.html?$)"
)
# Headings that link to other pages of the site (a link in a heading, or a card: a link
# around one, as Hugo Stack's archives): a list of posts shows one per post.
_LISTED = (
    "//*[self::h1 or self::h2 or self::h3]//a[@href]/@href"
    " | //a[@href][descendant::h1 or descendant::h2 or descendant::h3]/@href"
)
_LIST_SHAPE = 3  # linked headings to other candidates from which a page is a list


@dataclass
class Metadata:
    """What a page's structured data says: its article node (JSON-LD or microdata), Open
    Graph properties, and the ``<meta name>`` values, all keys lower-cased."""

    article: dict[str, Any] = field(default_factory=dict)
    opengraph: dict[str, list[str]] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)

    def og(self, name: str) -> str | None:
        values = self.opengraph.get(name)
        return values[0] if values else None


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {str(k).rsplit("/", 1)[-1].lower() for k in kinds if k}


def _article_nodes(data: Any) -> list[dict[str, Any]]:
    """The article nodes of extruct's JSON-LD or microdata items (``@graph`` included)."""
    found: list[dict[str, Any]] = []
    stack = list(data) if isinstance(data, list) else [data]
    while stack:
        node = stack.pop(0)
        if isinstance(node, list):
            stack[:0] = node
        elif isinstance(node, dict):
            if _types(node) & ARTICLE_TYPES:
                found.append(node)
            stack.extend(node.get("@graph", []) if isinstance(node.get("@graph"), list) else [])
    return found


def page_metadata(page: Selector, base_url: str) -> Metadata:
    """The structured data of a page (extruct's JSON-LD, Open Graph and microdata)."""
    from extruct.jsonld import JsonLdExtractor  # imported with the first page read so
    from extruct.opengraph import OpenGraphExtractor
    from extruct.w3cmicrodata import MicrodataExtractor

    tree = page.root
    metadata = Metadata()
    json_ld: list[Any] = []
    reader = JsonLdExtractor()
    for script in tree.xpath("//script[@type='application/ld+json']"):
        try:  # block by block: one broken block must not cost the page the others
            json_ld += reader.extract_items(script)
        except Exception as exc:
            logger.debug("broken JSON-LD on %s: %s", base_url, exc)
    try:
        microdata = MicrodataExtractor().extract_items(tree, base_url)
    except Exception as exc:
        logger.debug("broken microdata on %s: %s", base_url, exc)
        microdata = []
    articles = _article_nodes(json_ld) + [
        {"@type": item.get("type"), **item.get("properties", {})}
        for item in microdata
        if isinstance(item, dict) and _types({"@type": item.get("type")}) & ARTICLE_TYPES
    ]
    metadata.article = articles[0] if articles else {}
    try:
        for item in OpenGraphExtractor().extract_items(tree):
            for name, value in item.get("properties", []):
                metadata.opengraph.setdefault(str(name).lower(), []).append(str(value).strip())
    except Exception as exc:  # the rest of the page still counts
        logger.debug("broken Open Graph on %s: %s", base_url, exc)
    for element in page.xpath("//meta[@name][@content]"):
        name = element.attrib["name"].strip().lower()
        metadata.meta.setdefault(name, element.attrib["content"].strip())
    return metadata


@dataclass(frozen=True)
class PostEvidence:
    """Whether a page is a post, and why (for ``scrapy detect`` and the logs)."""

    is_post: bool
    reasons: tuple[str, ...]


def listed_posts(page: Selector, url: str, site_root: str) -> int:
    """How many other candidate pages of the site the page's headings link to."""
    own, found = normalise(url), set()
    for href in page.xpath(_LISTED).getall():
        href = href.strip()
        if not href or href.startswith("#"):
            continue
        try:
            target = normalise(urljoin(url, href))
        except ValueError:
            continue
        if target != own and kind_of(target, site_root) == CANDIDATE:
            found.add(target)
    return len(found)


def post_evidence(
    page: Selector, url: str, site_root: str, metadata: Metadata, published: str | None
) -> PostEvidence:
    """Whether the page at ``url`` is a post (see the module docstring); ``published``: the
    publication time the reader found on it."""
    reasons: list[str] = []
    if kind_of(normalise(url), site_root) != CANDIDATE:
        return PostEvidence(False, ("its address is a list or another page",))
    claims = bool(metadata.article) or (metadata.og("og:type") or "").lower() == "article"
    listed = listed_posts(page, url, site_root)
    # A page that claims to be an article is a list only when it also holds several
    # (Hugo Stack's archives); a post's related-post cards are few, or in an aside.
    articles = len(page.xpath("//article[not(ancestor::aside)]"))
    if listed >= _LIST_SHAPE and (not claims or articles >= _LIST_SHAPE):
        return PostEvidence(False, (f"it lists {listed} other pages under headings",))
    if metadata.article:
        reasons.append(f"JSON-LD/microdata {sorted(_types(metadata.article))[0]}")
    if (metadata.og("og:type") or "").lower() == "article":
        reasons.append("og:type article")
    if page.xpath("//article"):
        reasons.append("an <article>")
    if _DATED_URL.search(url):
        reasons.append("a dated address")
    if not published:
        return PostEvidence(False, (*reasons, "no publication time"))
    reasons.append("a publication time")
    return PostEvidence(len(reasons) >= 2, tuple(reasons))
