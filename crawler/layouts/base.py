"""The layout contract: how to read one kind of blog, as pure functions of a response.

A layout is a small subclass of :class:`Layout` in a module of this package named after it
(``crawler/layouts/<name>.py``, a ``-`` in the name written ``_``). Its contract:

- ``name``: the layout's name, as used in ``scrapy crawl NAME`` and in the registry.
- ``post_nodes(response)``: the selectors of the posts on a list page, in page order. A node
  may be a post's wrapper element or the first element of a run of siblings.
- ``populate(loader, node, response)``: add each field's raw value(s) to the loader; the
  shared :class:`~crawler.parsing.loaders.PostLoader` cleans them.
- ``next_page_urls(response)``: the list pages to follow from this one (may be empty).
- optionally ``site_root(url)``: the URL prefix a site's pages share (the crawl stays inside),
  ``page_problem(response)``: why a page cannot be of this layout at all, and
  ``probe_urls(response)``: list pages worth trying from the start page that it does not link
  (a missing one is no failure).
- ``signature``: selectors that mark a page of this layout, for ``scrapy detect``.
- ``date_ordered``: False for lists not sorted newest first (read whole on every run).

A post's own page (followed unless ``-a content=0``) is read by :meth:`Layout.read_post`:

- ``post_body``: CSS of the post body on a post page; ``post_chrome``: CSS of the theme's
  boxes inside it that are not the post (reward, copyright, share, pager); optionally
  ``post_page``: CSS of the layout's own post page, where a missing body means an empty
  post. The body becomes ``content`` (Markdown, :mod:`crawler.parsing.markdown`). A page
  where ``post_body`` matches nothing (or a layout without one, as feeds) is read by the
  fallback: every layout's ``post_body``, then trafilatura.
- ``populate_post(loader, response)``: add what the post page shows beyond the list: tags,
  categories (``category``, all of them in order), ``updated_raw``; the default reads the
  page's metadata (``article:modified_time``, JSON-LD ``dateModified``, ``article:tag``).
- optionally ``post_extra_urls(response)`` and ``populate_post_extra(loader, response)``: a
  further page the post's fields need (cnblogs fills categories and tags from an endpoint).

Every hook is a pure function of the response (no requests, no clock, no store): the same
:meth:`Layout.extract` runs in the crawl, in ``scrapy detect`` and on the saved cases. Which
pages to fetch is the spider's business (:mod:`crawler.spiders.blogs`); what is new since the
last run is the incremental middleware's (:mod:`crawler.incremental`). Each layout module is
found by :func:`crawler.layouts.layouts`, and gets its ``scrapy crawl NAME`` spider without
further code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

from parsel import Selector
from scrapy.http import Response, TextResponse

from crawler.items import POST_FIELDS, PostItem
from crawler.parsing.loaders import PostLoader
from crawler.parsing.markdown import PostBody, body_markdown, main_text
from crawler.parsing.processors import merge_terms
from crawler.parsing.terms import meta_tags, rel_terms
from crawler.parsing.xpath import node_elements

# Every layout by name, as its class is defined (Layout.__init_subclass__).
_DEFINED: dict[str, type[Layout]] = {}

# Update times in a page's metadata, whatever its theme (Open Graph, schema.org), found in
# one walk of the page.
_METADATA = (
    "//meta[@property='article:modified_time' or @property='og:updated_time'"
    " or @itemprop='dateModified']"
    " | //time[@itemprop='dateModified'] | //script[@type='application/ld+json']"
)


@dataclass
class PostPage:
    """What a post's own page adds to its list entry.

    ``fields``: cleaned values (``content``, ``word_count``, ``tags``, ``categories``,
    ``category``, ``updated_raw``) of what the page shows; ``method``: how the body was
    found: ``"layout"`` (the layout's ``post_body``), ``"selector"`` (another layout's),
    ``"trafilatura"``, or None when no body was found (``content`` is then absent).
    A reader of pages that may not be posts also fills the list's fields (``title``,
    ``published_raw`` …) and says whether the page is a post at all.
    """

    fields: dict[str, Any] = field(default_factory=dict)
    method: str | None = None
    # False for a page that is no post (a reader of candidates, GenericLayout, says so; a
    # layout's own post links lead to posts), and why: the page's evidence.
    is_post: bool = True
    evidence: tuple[str, ...] = ()


def _json_ld_modified(text: str) -> str | None:
    """``dateModified`` of a JSON-LD script (an object, a list, or an ``@graph``)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    nodes = data if isinstance(data, list) else [data, *data.get("@graph", [])]
    for node in nodes:
        if isinstance(node, dict) and isinstance(node.get("dateModified"), str):
            return node["dateModified"]
    return None


class Layout:
    """How to read the list pages of one blog platform or theme (see the module docstring)."""

    name: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A layout of this package with a name of its own (not a base for others).
        if "name" in vars(cls) and cls.__module__.startswith(__package__ + "."):
            _DEFINED[cls.name] = cls

    # Selectors (CSS, or XPath when starting with "/" or "(") whose matches mark a page of this
    # layout; ``scrapy detect`` reports which matched, as evidence.
    signature: ClassVar[tuple[str, ...]] = ()
    # Lists newest first: once a whole page holds only known posts, older pages hold no news.
    # A list sorted otherwise (the cards "hot" list, by views) sets this False: read whole.
    date_ordered: ClassVar[bool] = True
    # Its list pages past the start page are guessed from the site's links (the generic
    # reader): one that is missing (404, 410) is a broken link, not a failure of the site.
    guessed_pages: ClassVar[bool] = False

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        """Selectors of the posts on a list page, in page order."""
        raise NotImplementedError

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        """Add the raw values of one post's fields to ``loader``."""
        raise NotImplementedError

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        """Links to further list pages (relative or absolute)."""
        return ()

    @classmethod
    def page_problem(cls, response: TextResponse) -> str | None:
        """Why the page cannot be of this layout at all (e.g. HTML where a feed belongs)."""
        return None

    @classmethod
    def probe_urls(cls, response: TextResponse) -> Iterable[str]:
        """From the start page: further list pages a site may have without linking them (a
        sitemap, a feed); one that is missing is no failure of the site."""
        return ()

    @classmethod
    def site_root(cls, url: str) -> str:
        """The prefix every page of the site shares; default: scheme and host."""
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}/"

    # ---- post pages ---------------------------------------------------------------------
    # CSS of the post body on a post page ("": read by the fallback).
    post_body: ClassVar[str] = ""
    # CSS of the theme's boxes inside the body that are not the post.
    post_chrome: ClassVar[tuple[str, ...]] = ()
    # CSS that marks the layout's own post page: where it matches and post_body does not,
    # the post has no body (content ""), rather than the fallback reading the page's chrome.
    post_page: ClassVar[str] = ""

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        """Add the tags, categories and ``updated_raw`` a post page shows. The default, for
        a layout that knows no tag markup of its own: the update time of the metadata, and
        the terms by the standards (:mod:`crawler.parsing.terms`)."""
        cls.populate_post_metadata(loader, response)
        cls.populate_standard_terms(loader, response)

    @staticmethod
    def populate_post_metadata(loader: PostLoader, response: TextResponse) -> None:
        """Add the update time of the page's metadata (Open Graph, JSON-LD).

        The visible update time first (in the site's own offset; the metadata is often in
        UTC), then ``article:modified_time``/``dateModified``, ``og:updated_time``, JSON-LD."""
        visible: list[str | None] = []
        modified: list[str | None] = []
        og: list[str | None] = []
        json_ld: list[str | None] = []
        for element in node_elements(response.selector, _METADATA):
            if element.tag == "time":
                visible.append(element.get("datetime"))
            elif element.tag == "script":
                json_ld.append(_json_ld_modified(element.text or ""))
            else:
                (og if element.get("property") == "og:updated_time" else modified).append(
                    element.get("content")
                )
        loader.add_value("updated_raw", [*visible, *modified, *og, *json_ld])

    @staticmethod
    def populate_standard_terms(loader: PostLoader, response: TextResponse) -> None:
        """Add the tags and categories of the rel-tag microformat on the page, and
        ``article:tag`` only when the page shows no tag at all (and it is not the page's
        keywords): a theme that shows a post's tags shows none for a post without them."""
        terms = rel_terms(response.selector)
        loader.add_value("tags", terms.tags or meta_tags(response.selector))
        loader.add_value("category", terms.categories)

    @classmethod
    def post_extra_urls(cls, response: TextResponse) -> Iterable[str]:
        """Further pages the post's fields need (read by :meth:`populate_post_extra`)."""
        return ()

    @classmethod
    def populate_post_extra(cls, loader: PostLoader, response: TextResponse) -> None:
        """Add the fields a page of :meth:`post_extra_urls` holds."""

    @classmethod
    def read_post(cls, response: TextResponse) -> PostPage:
        """What a post page adds to the post: its body as Markdown, tags, categories and
        update time (see the module docstring)."""
        loader = PostLoader(selector=response.selector, base_url=response.url)
        cls.populate_post(loader, response)
        page = PostPage(loader.loaded())
        body: PostBody | None = None
        found = response.css(cls.post_body)[:1] if cls.post_body else []
        if found:
            body, page.method = body_markdown(found[0], response.url, cls.post_chrome), "layout"
        elif cls.post_page and response.css(cls.post_page):
            body, page.method = PostBody("", 0), "layout"  # a post without a body
        else:
            body, page.method = main_text(response.selector, response.url, body_selectors())
        if body is not None:
            page.fields.update(content=body.markdown, word_count=body.word_count)
        return page

    @classmethod
    def extract(cls, response: TextResponse) -> list[PostItem]:
        """The post items on one page, without dates normalised (see ``DatesPipeline``) and
        without the site's fields (the spider adds them)."""
        items = []
        for node in cls.post_nodes(response):
            loader = PostLoader(selector=node, base_url=response.url)
            cls.populate(loader, node, response)
            items.append(loader.load_item())
        return items


def as_text(response: Response) -> TextResponse:
    """The response as text for a layout: as it is when it is text, else decoded from its
    body (a feed served as ``application/octet-stream``)."""
    if isinstance(response, TextResponse):
        return response
    return TextResponse(
        url=response.url, body=response.body, headers=response.headers, request=response.request
    )


def defined_layouts() -> dict[str, type[Layout]]:
    """The layouts whose class is defined so far, by name (:func:`crawler.layouts.layouts`
    imports every layout module first)."""
    return dict(_DEFINED)


def body_selectors() -> tuple[str, ...]:
    """Every layout's ``post_body``: what the fallback tries on a page of unknown layout."""
    found = (layout.post_body for layout in _DEFINED.values() if layout.post_body)
    return tuple(dict.fromkeys(found))


def merge_stored_post(item: PostItem, stored: Mapping[str, Any] | None) -> None:
    """A candidate of the generic reader whose page was not read this run (unchanged, or a
    304) takes what the store holds of it: its page gave every field."""
    if not stored:
        return
    for name in POST_FIELDS:
        if item.get(name) in (None, []) and stored.get(name) not in (None, []):
            item[name] = stored[name]


def merge_post_page(item: PostItem, fields: dict[str, Any]) -> None:
    """Add what a post page shows (:attr:`PostPage.fields`) to the post's list fields: the
    page's values win; tags and categories of both, the page's first, without repeats. A
    term the list gave as a category that the page shows as a tag is a tag (an RSS
    ``<category>`` holds both)."""
    page_tags = set(fields.get("tags") or ())
    for name, value in fields.items():
        if name == "tags":
            item[name] = merge_terms(value, item.get(name))
        elif name == "categories":
            listed = [term for term in item.get(name) or () if term not in page_tags]
            item[name] = merge_terms(value, listed)
        elif name != "category":
            item[name] = value
    if page_tags and "categories" not in fields and item.get("categories"):
        item["categories"] = [term for term in item["categories"] if term not in page_tags]
    if item.get("categories"):
        item["category"] = item["categories"][0]
