"""Atom feeds (RFC 4287) of the stored posts, for people who follow the blogs in a feed reader.

``<out>/feeds/<site>.xml`` holds a site's newest ``FEEDS_SITE_ENTRIES`` posts and
``<out>/feeds/all.xml`` the newest ``FEEDS_ALL_ENTRIES`` of every site, newest first (by the
instant of ``published_at``; undated posts last, by ``crawled_at``). Posts whose page is gone
(404/410) are left out. Each entry carries the whole post as HTML (its Markdown rendered) when
the post page was read.

A feed's ``updated`` is its newest entry's, never the time of writing, so an unchanged store
gives byte-identical files; a file is replaced (atomically: temporary file in the same folder,
fsynced, renamed) only when its bytes differ, so readers polling with ``If-Modified-Since`` and
backups see no change when there was none.

Rendering Markdown is the costly part (about 1 ms per thousand characters), so each entry
carries ``bc:markdown-digest`` (an Atom extension element: a digest of the Markdown its content
was rendered from, and of the renderer), and a feed being rewritten takes the HTML of an
unchanged post from its previous version: a run renders only new and edited posts.
"""

from __future__ import annotations

import hashlib
import heapq
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

import markdown_it
from feedgen.ext.base import BaseEntryExtension, BaseExtension
from feedgen.feed import FeedGenerator
from lxml import etree
from markdown_it import MarkdownIt
from scrapy.settings import BaseSettings

from crawler.outputs.files import read_if_present, replace_file
from crawler.parsing.dates import iso_instant
from crawler.sites import SITE_NAME_PATTERN
from crawler.store.base import PostStore

logger = logging.getLogger(__name__)

FEEDS_FOLDER = "feeds"
ALL_FEED = "all"
# Feed ids when no URL is known: tag URIs (RFC 4151), stable across runs and machines.
TAG_PREFIX = "tag:blogcrawler,2026:"
ALL_FEED_ID = f"{TAG_PREFIX}all"
ALL_FEED_TITLE = "全部博客"
GENERATOR = "blogcrawler"
ATOM_NS = "http://www.w3.org/2005/Atom"
# The namespace of this crawler's one extension element (RFC 4287 §6: readers ignore it).
EXTENSION_NS = "tag:blogcrawler,2026:atom"
DIGEST_TAG = f"{{{EXTENSION_NS}}}markdown-digest"
_ATOM_ID, _ATOM_FEED = f"{{{ATOM_NS}}}id", f"{{{ATOM_NS}}}feed"
_ATOM_ENTRY, _ATOM_CONTENT = f"{{{ATOM_NS}}}entry", f"{{{ATOM_NS}}}content"
# Our own files, read back: a long post's HTML may exceed libxml2's default text limit.
_PARSER = etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)

_SAFE_SITE = re.compile(SITE_NAME_PATTERN)
# Characters XML 1.0 cannot carry (lxml refuses them): a stray control character in a post
# must not cost the whole feed.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# Newer sorts higher: (1, published instant) for dated posts, (0, crawl instant) for undated
# ones, then the id, so the order is total and the same every run.
Rank = tuple[int, float, str]


@dataclass(frozen=True)
class FeedsResult:
    """The feed files of one call: those rewritten, those already up to date, the sites whose
    name cannot be a file name (no feed of their own), and how many bodies were rendered."""

    folder: Path
    rewritten: tuple[Path, ...] = ()
    unchanged: tuple[Path, ...] = ()
    skipped_sites: tuple[str, ...] = ()
    # Post bodies rendered from Markdown (the others were reused from the previous feeds).
    rendered: int = 0


@dataclass
class _Newest:
    """The ``size`` highest-ranked post ids seen, in a bounded min-heap (no post bodies)."""

    size: int
    heap: list[tuple[Rank, str]] = field(default_factory=list)
    # For a feed left with no entry (every post gone): its updated is the newest crawl.
    last_crawl: datetime | None = None

    def offer(self, rank: Rank, post_id: str) -> None:
        if self.size <= 0:
            return
        if len(self.heap) < self.size:
            heapq.heappush(self.heap, (rank, post_id))
        elif (rank, post_id) > self.heap[0]:
            heapq.heapreplace(self.heap, (rank, post_id))

    def ids(self) -> list[str]:
        """The kept ids, newest first."""
        return [post_id for _, post_id in sorted(self.heap, reverse=True)]


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _rank(post: Mapping[str, Any]) -> Rank:
    published = iso_instant(post.get("published_at"))
    if published is not None:
        return (1, published.timestamp(), post["id"])
    crawled = iso_instant(post.get("crawled_at")) or _EPOCH
    return (0, crawled.timestamp(), post["id"])


def _updated(post: Mapping[str, Any]) -> datetime:
    """Atom requires an update time: the post's, else its publication, else its crawl."""
    for name in ("updated_at", "published_at", "crawled_at"):
        moment = iso_instant(post.get(name))
        if moment is not None:
            return moment
    return _EPOCH


def _text(value: Any) -> str:
    return _NOT_XML.sub("", value) if isinstance(value, str) else ""


def entry_counts(settings: BaseSettings) -> tuple[int, int]:
    """``FEEDS_SITE_ENTRIES`` and ``FEEDS_ALL_ENTRIES``; ``ValueError`` naming the setting when
    one is not a count (call it before a run to refuse bad settings up front)."""
    return (
        _entries_setting(settings, "FEEDS_SITE_ENTRIES"),
        _entries_setting(settings, "FEEDS_ALL_ENTRIES"),
    )


def _entries_setting(settings: BaseSettings, name: str) -> int:
    value = settings[name]
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0:
        raise ValueError(
            f"setting {name} must be a whole number of entries (0 or more), not {value!r}"
        )
    return number


def _site_feed_name(site: str) -> str | None:
    """The file stem of a site's feed, None when the name cannot be one safely (the registry
    allows only safe names; a store filled otherwise, or a site called "all", may not)."""
    if not _SAFE_SITE.fullmatch(site) or ".." in site or site == ALL_FEED:
        return None
    return site


class _Renderer:
    """Post bodies, Markdown, to HTML; the digest says which Markdown an HTML was made of."""

    def __init__(self) -> None:
        # CommonMark plus tables: the post reader writes tables as GFM pipe tables.
        self.markdown = MarkdownIt("commonmark").enable("table")
        self.salt = f"markdown-it {markdown_it.__version__} commonmark+table\n".encode()

    def digest(self, markdown: str) -> str:
        return hashlib.blake2b(self.salt + markdown.encode(), digest_size=16).hexdigest()

    def render(self, markdown: str) -> str:
        return self.markdown.render(markdown)


class _FeedExtension(BaseExtension):
    """Declares the ``bc`` prefix of :data:`EXTENSION_NS` on the feed."""

    def extend_ns(self) -> dict[str, str]:
        return {"bc": EXTENSION_NS}


class _EntryExtension(BaseEntryExtension):
    """Writes an entry's ``bc:markdown-digest`` (when it has a content)."""

    def __init__(self) -> None:
        self.digest: str | None = None

    def extend_atom(self, entry: etree._Element) -> etree._Element:
        if self.digest:
            etree.SubElement(entry, DIGEST_TAG).text = self.digest
        return entry


@dataclass(frozen=True)
class _Previous:
    """What the version of a feed on disk gives the next: its id, its link, and the HTML of its
    entries by their Markdown digest."""

    feed_id: str | None = None
    link: str | None = None
    rendered: Mapping[str, str] = field(default_factory=dict)


def _previous(document: bytes | None) -> _Previous:
    """What an earlier version of a feed holds; nothing of a file that is not such a feed."""
    if not document:
        return _Previous()
    try:
        root = etree.fromstring(document, _PARSER)
    except etree.LxmlError:
        return _Previous()
    if root.tag != _ATOM_FEED:
        return _Previous()
    feed_id = (root.findtext(_ATOM_ID) or "").strip() or None
    found = root.xpath("a:link[not(@rel) or @rel='alternate']/@href", namespaces={"a": ATOM_NS})
    links = found if isinstance(found, list) else []
    rendered: dict[str, str] = {}
    for entry in root.iterchildren(_ATOM_ENTRY):
        digest, content = entry.findtext(DIGEST_TAG), entry.find(_ATOM_CONTENT)
        if digest and content is not None and content.get("type") == "html":
            rendered[digest] = content.text or ""
    return _Previous(feed_id, str(links[0]) if links else None, rendered)


class _FeedBuilder:
    """Turns stored posts into an Atom feed with feedgen."""

    def __init__(self, site_urls: Mapping[str, str]) -> None:
        self.site_urls = site_urls
        self.renderer = _Renderer()
        self.rendered = 0  # bodies rendered (not taken from a feed's previous version)

    def feed(
        self,
        feed_id: str,
        title: str,
        link: str | None,
        posts: Iterable[Mapping[str, Any]],
        *,
        previous: Mapping[str, str],
        empty_updated: datetime | None,
        with_source: bool,
    ) -> bytes:
        """The feed's bytes; ``previous`` is HTML already made, by Markdown digest."""
        generator = FeedGenerator()
        generator.register_extension("blogcrawler", _FeedExtension, _EntryExtension, rss=False)
        generator.id(feed_id)
        generator.title(title)
        # RFC 4287 §4.1.1: a feed needs an author unless every entry has one; an entry with
        # none is then credited to the blog (in all.xml, to the collection).
        generator.author({"name": title})
        generator.generator(GENERATOR)  # no version: an upgrade alone must not change the bytes
        if link:
            generator.link(href=link, rel="alternate")
        newest: datetime | None = None
        for post in posts:
            updated = self.entry(generator, post, previous, with_source=with_source)
            newest = updated if newest is None or updated > newest else newest
        generator.updated(newest or empty_updated or _EPOCH)
        return generator.atom_str(pretty=True, encoding="UTF-8")

    def entry(
        self,
        generator: FeedGenerator,
        post: Mapping[str, Any],
        previous: Mapping[str, str],
        *,
        with_source: bool,
    ) -> datetime:
        """Add ``post`` as the feed's last entry; return its updated time."""
        url = _text(post.get("url"))
        entry = generator.add_entry(order="append")
        entry.id(url)
        entry.title(_text(post.get("title")) or url)
        # feedgen writes this link without rel: the same, an alternate link (RFC 4287 §4.2.7.2).
        entry.link(href=url, rel="alternate")
        updated = _updated(post)
        entry.updated(updated)
        published = iso_instant(post.get("published_at"))
        if published is not None:
            entry.published(published)
        author = _text(post.get("author")).strip()
        if author:
            entry.author({"name": author})
        terms: dict[str, None] = {}  # categories then tags, each term once
        for term in [*(post.get("categories") or ()), *(post.get("tags") or ())]:
            cleaned = _text(term).strip()
            if cleaned:
                terms.setdefault(cleaned)
        for term in terms:
            entry.category(term=term)
        summary = _text(post.get("summary")).strip()
        if summary:
            entry.summary(summary)
        content = post.get("content")
        if isinstance(content, str):  # "" is an empty post; None: its page was never read
            markdown = _text(content)
            digest = self.renderer.digest(markdown)
            html = previous.get(digest)
            if html is None:
                html = self.renderer.render(markdown)
                self.rendered += 1
            entry.content(html, type="html")
            entry.blogcrawler.digest = digest
        site = post.get("site")
        site_url = self.site_urls.get(site) if isinstance(site, str) else None
        if with_source and site_url:
            # Which blog an entry of all.xml comes from (atom:source, RFC 4287 §4.2.11).
            entry.source(url=site_url, title=site)
        return updated


def feeds_written(out: Path) -> bool:
    """True once ``out/feeds/`` holds the feed of all sites (a run wrote them)."""
    return (out / FEEDS_FOLDER / f"{ALL_FEED}.xml").exists()


def write_feeds(
    settings: BaseSettings,
    store: PostStore,
    out: Path,
    site_urls: Mapping[str, str] | None = None,
) -> FeedsResult:
    """Write ``out/feeds/<site>.xml`` for every site in the store and ``out/feeds/all.xml``,
    each only when its bytes changed.

    One pass over the store, site by site, keeps the ids of each feed's newest posts
    (bounded heaps, no post bodies); each feed's posts are then read by id. ``site_urls``
    (site name → its URL) gives the site feeds their link and, for a feed written the first
    time, its id; without it the id is a tag URI of the site's name. An existing feed keeps
    its id, and its link when ``site_urls`` has none. Nothing is written for an empty store.

    Raises :class:`ExportError` (one line naming the file) when a file cannot be written, and
    ``ValueError`` for a ``FEEDS_*_ENTRIES`` setting that is not a count.
    """
    site_entries, all_entries = entry_counts(settings)
    urls = dict(site_urls or {})
    folder = out / FEEDS_FOLDER
    everything = _Newest(all_entries)
    rewritten: list[Path] = []
    unchanged: list[Path] = []
    skipped: list[str] = []
    builder = _FeedBuilder(urls)

    def write(
        path: Path, new_id: str, title: str, link: str | None, newest: _Newest, with_source: bool
    ) -> str | None:
        """Write one feed if it changed; return its link."""
        old = read_if_present(path)
        previous = _previous(old)
        # A feed's id is permanent (RFC 4287 §4.2.6): once written it stays, even if a later
        # call knows the site's URL and an earlier one did not. A link once known stays too,
        # so a call that lacks it (one site crawled alone) does not rewrite the feed.
        link = link or previous.link
        data = builder.feed(
            previous.feed_id or new_id,
            title,
            link,
            _in_order(store, newest.ids()),
            previous=previous.rendered,
            empty_updated=newest.last_crawl,
            with_source=with_source,
        )
        if data == old:
            unchanged.append(path)
        else:
            replace_file(path, data)
            rewritten.append(path)
        return link

    # The store gives the posts site by site: each site's feed is written as its posts end,
    # so only one site's newest ids are held at a time (and all.xml's).
    any_site = False
    for site, posts in groupby(store.posts(), key=itemgetter("site")):
        any_site = True
        newest = _Newest(site_entries)
        for post in posts:
            crawled = iso_instant(post.get("crawled_at"))
            if crawled is not None:
                for kept in (newest, everything):
                    if kept.last_crawl is None or crawled > kept.last_crawl:
                        kept.last_crawl = crawled
            if post.get("gone"):
                continue
            rank = _rank(post)
            newest.offer(rank, post["id"])
            everything.offer(rank, post["id"])
        name = _site_feed_name(site)
        if name is None:
            logger.warning(
                "site %r: no feed of its own (its name cannot be a feed's file"
                " name); its posts are in %s.xml",
                site,
                ALL_FEED,
            )
            skipped.append(site)
            continue
        url = urls.get(site)
        if link := write(
            folder / f"{name}.xml",
            url or f"{TAG_PREFIX}site/{site}",
            site,
            url,
            newest,
            with_source=False,
        ):
            urls[site] = link  # all.xml's entries name their blog with it
    if not any_site:
        return FeedsResult(folder=folder)
    write(
        folder / f"{ALL_FEED}.xml", ALL_FEED_ID, ALL_FEED_TITLE, None, everything, with_source=True
    )
    return FeedsResult(
        folder, tuple(rewritten), tuple(unchanged), tuple(skipped), rendered=builder.rendered
    )


def _in_order(store: PostStore, ids: list[str]) -> list[dict[str, Any]]:
    """The posts of ``ids`` in that order (a store need not keep it)."""
    found = {post["id"]: post for post in store.posts_by_id(ids)}
    return [found[post_id] for post_id in ids if post_id in found]
