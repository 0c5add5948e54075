"""Blog layouts: how to read one kind of list page, as pure functions of a response.

A layout is a small subclass of :class:`Layout` in a module of this package named after it
(``crawler/layouts/<name>.py``, a ``-`` in the name written ``_``). Its contract:

- ``name``: the layout's name, as used in ``scrapy crawl NAME`` and in the registry.
- ``post_nodes(response)``: the selectors of the posts on a list page, in page order. A node
  may be a post's wrapper element or the first element of a run of siblings.
- ``populate(loader, node, response)``: add each field's raw value(s) to the loader; the
  shared :class:`~crawler.loaders.PostLoader` cleans them.
- ``next_page_urls(response)``: the list pages to follow from this one (may be empty).
- optionally ``site_root(url)``: the URL prefix a site's pages share (the crawl stays inside),
  and ``page_problem(response)``: why a page cannot be of this layout at all.
- ``signature``: selectors that mark a page of this layout, for ``scrapy detect``.
- ``date_ordered``: False for lists not sorted newest first (read whole on every run).

Every hook is a pure function of the response (no requests, no clock, no store): the same
:meth:`Layout.extract` runs in the crawl, in ``scrapy detect`` and on the saved cases. Which
pages to fetch is the spider's business (:mod:`crawler.spiders.blogs`); what is new since the
last run is the incremental middleware's (:mod:`crawler.incremental`). Each layout module is
found by :func:`layouts`, and gets its ``scrapy crawl NAME`` spider without further code.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache
from typing import ClassVar
from urllib.parse import urlsplit

from parsel import Selector
from scrapy.http import Response

from crawler.items import PostItem
from crawler.loaders import PostLoader
from crawler.sites import SiteConfig


class Layout:
    """How to read the list pages of one blog platform or theme (see the module docstring)."""

    name: ClassVar[str]
    # Selectors (CSS, or XPath when starting with "/" or "(") whose matches mark a page of this
    # layout; ``scrapy detect`` reports which matched, as evidence.
    signature: ClassVar[tuple[str, ...]] = ()
    # Lists newest first: once a whole page holds only known posts, older pages hold no news.
    # A list sorted otherwise (the cards "hot" list, by views) sets this False: read whole.
    date_ordered: ClassVar[bool] = True

    @classmethod
    def post_nodes(cls, response: Response) -> Iterable[Selector]:
        """Selectors of the posts on a list page, in page order."""
        raise NotImplementedError

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: Response) -> None:
        """Add the raw values of one post's fields to ``loader``."""
        raise NotImplementedError

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        """Links to further list pages (relative or absolute)."""
        return ()

    @classmethod
    def page_problem(cls, response: Response) -> str | None:
        """Why the page cannot be of this layout at all (e.g. HTML where a feed belongs)."""
        return None

    @classmethod
    def site_root(cls, url: str) -> str:
        """The prefix every page of the site shares; default: scheme and host."""
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}/"

    @classmethod
    def extract(cls, response: Response, site: SiteConfig) -> list[PostItem]:
        """The post items on one page, without dates normalised (see ``DatesPipeline``)."""
        items = []
        for node in cls.post_nodes(response):
            loader = PostLoader(selector=node, base_url=response.url)
            cls.populate(loader, node, response)
            item = loader.load_item()
            item.update(site=site.name, layout=cls.name, source_page=response.url)
            items.append(item)
        return items


def module_name(layout: str) -> str:
    """The module a layout lives in: ``crawler.layouts.<name>``, ``-`` written ``_``."""
    return f"{__name__}.{layout.replace('-', '_')}"


@cache
def layouts() -> dict[str, type[Layout]]:
    """Every layout of this package, by name (one :class:`Layout` subclass per module)."""
    found: dict[str, type[Layout]] = {}
    for info in pkgutil.iter_modules(__path__, f"{__name__}."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type) and issubclass(value, Layout) and value is not Layout
                and value.__module__ == module.__name__ and "name" in vars(value)
            ):  # fmt: skip
                found[value.name] = value
    return dict(sorted(found.items()))


def get_layout(name: str) -> type[Layout]:
    """The layout called ``name``; ``KeyError`` naming the known ones if there is none."""
    try:
        return layouts()[name]
    except KeyError:
        raise KeyError(f"unknown layout {name!r} (known: {', '.join(layouts())})") from None
