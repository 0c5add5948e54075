"""The generic reader: any blog of no known layout, from its home page.

Its "list pages" are what lists a site's posts: the home page and the pages it links that
list posts (pagination, archives, tags, categories, timelines: :mod:`crawler.discovery.links`),
the feeds it announces and the site's sitemaps (robots.txt, ``/sitemap.xml``; the usual feed
paths when it announces none). Each gives the addresses of candidate posts; a candidate's own
page says whether it is a post (:func:`crawler.discovery.posts.post_evidence`) and holds every
field. Fields are read by the standards any theme may follow first (JSON-LD, Open Graph,
microdata, ``<time>``, the rel-tag microformat, links into the site's tag and category pages
inside the post), then what the page shows; the body by the usual containers of blog themes,
then trafilatura.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any, ClassVar
from urllib.parse import unquote, urljoin, urlsplit

from lxml import etree
from parsel import Selector
from scrapy.http import TextResponse

from crawler.discovery import links
from crawler.discovery.posts import Metadata, page_metadata, post_evidence
from crawler.discovery.sources import (
    USUAL_SITEMAP,
    SitemapEntry,
    announced_feeds,
    feed_candidates,
    is_sitemap,
    looks_like_feed,
    robots_sitemaps,
    sitemap_entries,
)
from crawler.items import PostItem
from crawler.layouts.base import Layout, PostPage
from crawler.layouts.feed import FeedLayout
from crawler.parsing.dates import in_local_offset, iso_instant
from crawler.parsing.loaders import PostLoader
from crawler.parsing.markdown import PostBody, body_markdown, main_text
from crawler.parsing.processors import clean_text, unique
from crawler.parsing.terms import meta_tags, path_terms, rel_terms
from crawler.parsing.xpath import node_elements, string_value

# The body containers of blog themes, most specific first (Jekyll Chirpy and
# minimal-mistakes, Hexo Keep and Redefine, Hugo Even and DoIt, VuePress hope, VitePress,
# WordPress, Typecho, Halo), then the HTML5 ones.
BODIES = (
    ".keep-markdown-body",
    ".markdown-body",
    ".page__content",
    "div.post-content",
    ".post-body",
    ".article-content",
    ".article-entry",
    ".entry-content",
    ".theme-hope-content",
    ".theme-default-content",  # VuePress 1's default theme, vuepress-theme-hope 1
    ".vp-doc",
    ".post-container",
    ".articleBody",
    "[itemprop='articleBody']",
    "article div.content",
    "article",
    "main",
)
_UTC_MIDNIGHT = re.compile(r"(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?(?:Z|\+00:00)")
# Boxes of blog themes inside or next to the body that are not the post.
CHROME = (
    ".post-copyright",
    ".copyright",
    ".license",
    ".post-license",
    ".reward",
    ".post-reward",
    ".post-aging-tips",  # Hexo Keep 4: "本文距离上次更新已过去 N 天"
    ".content-copyright",  # Typecho handsome
    ".social-share",
    ".share",
    ".post-tags",
    ".post-tail-wrapper",
    ".post-nav",
    ".post-navigation",
    ".prev-next",
    ".article-meta",
    ".pagination",
    ".related-posts",
    "#related-posts",
    ".toc",
    "#toc",
    ".post-footer",
    ".comments",
    "#comments",
    ".code-header",
    "header",
    "footer",
    "nav",
    "aside",
)
# The text of a post's meta line: elements whose class names a date, a time or the meta.
_META_TEXTS = (
    "//*[contains(@class, 'date') or contains(@class, 'time') or contains(@class, 'meta')]"
    "[not(ancestor::footer or ancestor::aside or ancestor::nav)]//text()[normalize-space()]"
)
# The meta line's update time, where a theme prints one (Keep: span.article-update-date).
_UPDATED_TEXTS = (
    "//*[contains(@class, 'update') or contains(@class, 'modified')]"
    "[not(ancestor::footer or ancestor::aside or ancestor::nav)]//text()[normalize-space()]"
)
# A printed date, with its time when there is one: 2023-01-13 19:35:44, 2023/1/13, 2023年1月13日.
# Its day in groups 1 to 3, its time of day (when printed) in ``clock``.
_PRINTED_DATE = re.compile(
    r"((?:19|20)\d{2})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?:\s*日)?"
    r"(?P<clock>[ T]+\d{1,2}:\d{2}(?::\d{2})?)?"
)
_YEAR = re.compile(r"(?:19|20)\d{2}")
# Tags and categories of themes where the standards find none: (tags, categories).
# vuepress-theme-hope 1: the page-info spans of PageInfo, clickable by script only.
THEME_TERMS: tuple[tuple[str, str | None], ...] = (
    (".page-info ul.tags-wrapper > li.tag", ".page-info .category-info > span"),
    # Halo's joe2.0: linked, but above and below the post's heading and body.
    (".joe_detail__operate-tags > a", ".joe_detail__category > a"),
    # Typecho handsome: a post's tags in the sidebar's tag widget (its category is linked).
    ("#sidebar .widget_tag_cloud .post-tags > a", None),
)
# "Title | Site" or "Title - Site" in <title>.
_SITE_SUFFIX = re.compile(r"\s+[|\-–—·]\s+[^|\-–—·]+$")


class GenericLayout(Layout):
    """Reads a blog no layout knows: its pages, feeds and sitemaps list the candidates, and
    each candidate's page says whether it is a post (see the module docstring)."""

    name = "generic"
    guessed_pages = True
    post_chrome: ClassVar[tuple[str, ...]] = CHROME

    # ---- "list pages": pages, feeds, sitemaps, robots.txt -------------------------------
    @staticmethod
    def kind(response: TextResponse) -> str:
        """What a list page is: ``robots``, ``sitemap``, ``feed`` or ``html``."""
        if urlsplit(response.url).path.endswith("/robots.txt"):
            return "robots"
        if is_sitemap(response.body):
            return "sitemap"
        if looks_like_feed(response.body):
            return "feed"
        return "html"

    @classmethod
    def extract(cls, response: TextResponse) -> list[PostItem]:
        """The candidate posts a list page gives: their addresses, and from a sitemap or a
        feed when each last changed; their own pages give everything else."""
        root = cls.site_root(response.url)
        kind = cls.kind(response)
        found: list[tuple[str, str | None]] = []
        if kind == "sitemap":
            sitemap, entries = _sitemap(response)
            if sitemap == "urlset":
                found = [(entry.loc, entry.lastmod) for entry in entries]
        elif kind == "feed":
            for node in FeedLayout.post_nodes(response):
                loader = PostLoader(selector=node, base_url=response.url)
                FeedLayout.populate(loader, node, response)
                entry = loader.loaded()
                if entry.get("url"):
                    found.append((entry["url"], entry.get("updated_raw")))
        elif kind == "html":
            found = [(url, None) for url in _page_links(response, root, links.CANDIDATE)]
        items = []
        for url, lastmod in found:
            url = links.normalise(urljoin(response.url, url))
            if links.kind_of(url, root) != links.CANDIDATE:
                continue
            loader = PostLoader(base_url=response.url)
            loader.add_value("url", url)
            item = loader.load_item()
            item.update(discovered=True, lastmod=_instant(lastmod))
            items.append(item)
        return list({item["id"]: item for item in items if item.get("id")}.values())

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        """The pages that list posts a page links, the feeds it announces, the sitemaps of a
        sitemap index or of robots.txt, a feed's next page."""
        kind = cls.kind(response)
        if kind == "robots":
            return robots_sitemaps(response.body, response.url)
        if kind == "sitemap":
            index, entries = _sitemap(response)
            return [entry.loc for entry in entries] if index == "sitemapindex" else []
        if kind == "feed":
            return FeedLayout.next_page_urls(response)
        hubs = _page_links(response, cls.site_root(response.url), links.HUB)
        return [*announced_feeds(response.selector, response.url), *hubs]

    @classmethod
    def probe_urls(cls, response: TextResponse) -> Iterable[str]:
        """From the home page: robots.txt (its sitemaps), the usual sitemap, and the usual
        feed paths when the page announces no feed."""
        if cls.kind(response) != "html":
            return []
        root = cls.site_root(response.url)
        announced = announced_feeds(response.selector, response.url)
        feeds = [] if announced else feed_candidates(root, ())
        return [urljoin(root, "robots.txt"), urljoin(root, USUAL_SITEMAP), *feeds]

    # ---- a candidate's own page ---------------------------------------------------------
    @classmethod
    def read_post(cls, response: TextResponse) -> PostPage:
        """Whether the page is a post and, if so, every field it shows."""
        page = response.selector
        root = cls.site_root(response.url)
        metadata = page_metadata(page, response.url)
        published = _published(page, metadata)
        evidence = post_evidence(page, response.url, root, metadata, published)
        if not evidence.is_post:
            return PostPage(is_post=False, evidence=evidence.reasons)
        loader = PostLoader(selector=page, base_url=response.url)
        body_node = _body_node(page)
        loader.add_value("title", _title(page, metadata, body_node))
        loader.add_value("published_raw", published)
        loader.add_value("updated_raw", _updated(page, metadata, published))
        loader.add_value("author", _author(page, metadata))
        _terms(loader, page, _post_scope(page, body_node), metadata, response.url, root)
        result = PostPage(loader.loaded(), is_post=True, evidence=evidence.reasons)
        canonical = _canonical(page, response.url, root)
        if canonical:
            result.fields["url"] = canonical
        body: PostBody | None
        if body_node is not None:
            body, result.method = body_markdown(body_node, response.url, CHROME), "selector"
        else:
            body, result.method = main_text(page, response.url, ())
        if body is not None:
            result.fields.update(content=body.markdown, word_count=body.word_count)
        return result


# A list page is asked for its posts and for its next pages: its links and its sitemap are
# read once for both (the spider asks one response after the other).
@lru_cache(maxsize=2)
def _links_by_kind(response: TextResponse, root: str) -> tuple[tuple[str, str], ...]:
    return tuple(
        (url, links.kind_of(url, root))
        for url in links.site_links(response.selector, response.url, root)
    )


def _page_links(response: TextResponse, root: str, kind: str) -> list[str]:
    """The site's links on a page of one kind (:data:`links.HUB`, :data:`links.CANDIDATE`)."""
    return [url for url, found in _links_by_kind(response, root) if found == kind]


@lru_cache(maxsize=2)
def _sitemap(response: TextResponse) -> tuple[str, list[SitemapEntry]]:
    return sitemap_entries(response.body)


def _instant(text: str | None) -> str | None:
    """A sitemap's ``lastmod`` (W3C datetime) or a feed's date (ISO or RFC 822) as an ISO
    instant, None if it is neither."""
    if not text:
        return None
    moment = iso_instant(text)
    if moment is None:
        try:
            moment = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def _first(*values: Any) -> str | None:
    """The first value that holds text (JSON-LD gives strings, lists and ``{"name": …}``)."""
    for value in values:
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, dict):
            value = value.get("name") or value.get("@value")
        text = clean_text(str(value)) if value is not None else None
        if text:
            return text
    return None


def _title(page: Selector, metadata: Metadata, body: etree._Element | None) -> str | None:
    """The structured data's headline (not the site's name), else the post's heading when
    ``<title>`` agrees, else ``<title>`` less the site's name (a heading inside the body is
    the body's own); a headline that is the heading and the site's name is the heading."""
    site_name = metadata.og("og:site_name")
    found = _first(
        *(
            value
            for value in (
                metadata.article.get("headline"),
                metadata.article.get("name"),
                metadata.og("og:title"),
            )
            if _first(value) != site_name  # a theme that gives every page the site's name
        )
    )
    inside = set(body.iter()) if body is not None else set()
    headings = [
        clean_text(string_value(heading))
        for heading in node_elements(page, "//h1")
        if heading not in inside
    ]
    if found:
        # Halo's joe2.0: og:title "Post – Site" beside <h1>Post</h1>.
        short = _SITE_SUFFIX.sub("", found)
        return short if short != found and short in headings else found
    title = clean_text(page.xpath("string(//title)").get())
    title = _SITE_SUFFIX.sub("", title) if title else None
    for heading in headings:
        if heading and (title is None or heading in title):
            return heading
    return title or next((heading for heading in headings if heading), None)


def _published(page: Selector, metadata: Metadata) -> str | None:
    """The publication time: the structured data (it carries the offset), else a
    ``<time datetime>`` in the post, else the first date printed in the post's meta line
    (a theme that says nothing machine-readable, as Hexo Keep)."""
    given = _first(
        metadata.article.get("datePublished"),
        metadata.og("article:published_time"),
        page.xpath("//*[@itemprop='datePublished']/@content").get(),
        page.xpath("//*[@itemprop='datePublished']/@datetime").get(),
    )
    if given:
        return _in_page_offset(page, given)
    for time in node_elements(page, "(//article//time | //main//time | //time)[@datetime]"):
        value = str(time.get("datetime"))
        if _YEAR.search(value):  # Halo's joe2.0 writes datetime="09/18": no date to read
            return _in_page_offset(page, value)
    for text in page.xpath(_META_TEXTS).getall():
        found = _PRINTED_DATE.search(text)
        if found:
            return found.group(0)
    return None


def _in_page_offset(page: Selector, given: str) -> str:
    """A UTC time told in the offset of the local time the page prints for the same moment
    (Butterfly, Icarus: UTC in ``datetime``, the builder's clock in its ``title``; Fluid: UTC
    in the metadata, the clock in a ``datetime``); exactly midnight UTC with no such clock,
    its day alone; else as given."""
    if not given.endswith(("Z", "+00:00")):
        return given
    # Volantis 5 writes the local time in a div's datetime attribute.
    local = f"//*[@datetime]/@datetime | //time/@title | //time//text() | {_META_TEXTS}"
    for text in page.xpath(local).getall():
        told = in_local_offset(given, text)
        if told is not None and told != given.strip():
            return told
    # A day with no time of day, as VuePress and Hugo write one: midnight UTC, the day the
    # author wrote (in the site's time zone).
    day = _UTC_MIDNIGHT.fullmatch(given.strip())
    if day:
        return day.group(1)
    return _printed_midnight(page, given) or given


def _printed_day(page: Selector) -> date | None:
    """The day the post's meta line prints alone (no time of day), as a theme writes a
    front matter's date, if any."""
    for text in page.xpath(_META_TEXTS).getall():
        found = _PRINTED_DATE.search(text)
        if found and not found["clock"]:
            try:
                return date(int(found[1]), int(found[2]), int(found[3]))
            except ValueError:
                continue
    return None


def _printed_midnight(page: Selector, given: str) -> str | None:
    """The printed day, when the UTC instant is that day's midnight at some offset: a
    front matter's date alone, built as local midnight and written in UTC (vuepress-theme-
    hope 1: ``2022-05-13T16:00:00.000Z`` beside "2022-5-14")."""
    moment, day = iso_instant(given.strip().replace("Z", "+00:00")), _printed_day(page)
    if moment is None or day is None:
        return None
    midnight = datetime.combine(day, clock_time(), UTC)
    offset = midnight - moment.astimezone(UTC)
    within = timedelta(hours=-14) <= offset <= timedelta(hours=14)
    return day.isoformat() if within and offset % timedelta(minutes=15) == timedelta(0) else None


def _updated(page: Selector, metadata: Metadata, published: str | None) -> str | None:
    """The last edit: the structured data's, else one the meta line prints; not the
    publication time again (jekyll-seo-tag writes ``dateModified`` as the post's date when
    the post names no edit)."""
    given = _first(
        metadata.article.get("dateModified"),
        metadata.og("article:modified_time"),
        metadata.og("og:updated_time"),
        page.xpath("//*[@itemprop='dateModified']/@content").get(),
        page.xpath("//*[@itemprop='dateModified']/@datetime").get(),
    )
    if given is None:
        for text in page.xpath(_UPDATED_TEXTS).getall():
            found = _PRINTED_DATE.search(text)
            if found:
                given = found.group(0)
                break
    return None if given == published else given


def _author(page: Selector, metadata: Metadata) -> str | None:
    return _first(
        metadata.article.get("author"),
        metadata.og("article:author"),
        metadata.meta.get("author"),
        page.xpath("normalize-space((//*[@rel='author'])[1])").get(),
    )


def _canonical(page: Selector, url: str, root: str) -> str | None:
    """The page's own address when it names one inside the site (``<link rel=canonical>``):
    the same post reached by two addresses is one post. One that differs from the address
    read only in letter case is not (Redefine and Volantis lowercase it; most hosts tell case
    apart), nor the home page named by every page."""
    href = page.xpath("//link[@rel='canonical']/@href").get()
    if not href:
        return None
    canonical, own = links.normalise(urljoin(url, href.strip())), links.normalise(url)
    if canonical != own and unquote(canonical).lower() == unquote(own).lower():
        return None
    if canonical == root != own:  # every page naming the home page (Halo's joe2.0)
        return None
    return canonical if canonical.startswith(root) else None


def _body_node(page: Selector) -> etree._Element | None:
    """The first of :data:`BODIES` that holds text or an image (an empty search-result box
    may share the body's class; a post may be one picture)."""
    for selector in BODIES:
        for found in page.css(selector):
            if found.xpath("normalize-space()").get() or found.xpath(".//img[@src]"):
                element = found.root
                return element if isinstance(element, etree._Element) else None
    return None


def _post_scope(page: Selector, body: etree._Element | None) -> Selector:
    """The part of the page that is the post: the smallest element holding its heading and
    its body (a theme's sidebar of tags is not the post's tags), else its ``<article>``."""
    if body is not None:
        inside = set(body.iter())
        heading = next((h for h in node_elements(page, "//h1") if h not in inside), None)
        if heading is not None:
            above = set(heading.iterancestors())
            for element in (body, *body.iterancestors()):
                if element in above and element.tag not in ("body", "html"):
                    return Selector(root=element)
        parent = body.getparent()
        if parent is not None and parent.tag not in ("body", "html"):
            return Selector(root=parent)
    found = page.xpath("//article")
    return found[0] if found else page


def _terms(
    loader: PostLoader, page: Selector, scope: Selector, metadata: Metadata, url: str, root: str
) -> None:
    """Tags and categories: the rel-tag microformat, then links into the site's tag and
    category pages in the post; else the structured data (``keywords``, ``articleSection``,
    ``article:tag``), never the page's keywords."""
    shown = rel_terms(scope)
    linked = path_terms(scope, root)
    tags = shown.tags or linked.tags
    categories = shown.categories or linked.categories
    for tag_css, category_css in THEME_TERMS:
        tags = tags or page.css(tag_css).xpath("normalize-space()").getall()
        if category_css and not categories:
            categories = page.css(category_css).xpath("normalize-space()").getall()
    if not tags:
        tags = meta_tags(page)
    if not categories:
        section = (
            metadata.article.get("articleSection")
            or metadata.og("article:section")
            or page.xpath("//meta[@property='articleSection']/@content").getall()  # RDFa
        )
        categories = [section] if isinstance(section, str) else list(section or [])
        # Hugo writes its content section (the address's first folder: "Post") there.
        folder = urlsplit(url[len(root) - 1 :]).path.strip("/").split("/")[0].lower()
        categories = [c for c in categories if str(c).strip().lower() != folder]
    loader.add_value("tags", unique(tags))
    loader.add_value("category", unique(str(c) for c in categories))
