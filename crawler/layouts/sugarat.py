"""Layout of VitePress blogs on @sugarat/theme (ATQQ/sugar-blog, 0.2 to 0.5; VitePress 1 and 2)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from parsel import Selector
from scrapy.http import TextResponse

from crawler.items import PostItem
from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader

# VitePress writes the site's data into every page as a JSON string literal.
_SITE_DATA = re.compile(r"window\.__VP_SITE_DATA__\s*=\s*JSON\.parse\((\"(?:[^\"\\]|\\.)*\")\)")
_PAGEFIND_DATE = re.compile(r"(?:^|,)\s*date:([^,]+)")


def site_data(response: TextResponse) -> dict[str, Any]:
    """The page's ``window.__VP_SITE_DATA__`` (empty when it has none or cannot be read)."""
    for script in response.xpath("//script[contains(., '__VP_SITE_DATA__')]/text()").getall():
        found = _SITE_DATA.search(script)
        if found is None:
            continue
        try:
            data = json.loads(json.loads(found.group(1)))
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    return {}


def _blog(data: dict[str, Any]) -> dict[str, Any]:
    """The theme's configuration (``themeConfig.blog``)."""
    blog = (data.get("themeConfig") or {}).get("blog")
    return blog if isinstance(blog, dict) else {}


def _pages(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The theme's index of the site's pages (``themeConfig.blog.pagesData``)."""
    pages = _blog(data).get("pagesData")
    return [page for page in pages or () if isinstance(page, dict) and page.get("route")]


def _is_post(meta: dict[str, Any]) -> bool:
    """A page the theme lists: not ``hidden``, not ``publish: false``."""
    return not meta.get("hidden") and meta.get("publish") is not False


def _suffix(response: TextResponse, data: dict[str, Any]) -> str:
    """``.html`` where the theme links pages with it: as the list on the page does (0.2
    links without it whatever ``cleanUrls`` says), else unless ``cleanUrls``."""
    listed = response.css("a.blog-item::attr(href)").getall()
    if listed:
        return ".html" if all(href.split("#")[0].endswith(".html") for href in listed) else ""
    return "" if data.get("cleanUrls") else ".html"


def _page_url(response: TextResponse, data: dict[str, Any], route: str, suffix: str) -> str:
    """The address of a route: under the site's ``base``, with ``suffix``."""
    base = str(data.get("base") or "/")
    suffix = "" if route.endswith("/") else suffix
    return urljoin(response.url, base.rstrip("/") + "/" + route.lstrip("/") + suffix)


def _terms(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value] if value else []
    return [str(term).strip() for term in values if str(term).strip()]


def _tags(meta: dict[str, Any]) -> list[str]:
    """The front matter's ``tags``; else the theme's ``tag``, which 0.5 fills with the
    categories and the tags together (0.2 with the front matter's ``tag``)."""
    if "tags" in meta:
        return _terms(meta["tags"])
    categories = set(_terms(meta.get("categories")))
    return [term for term in _terms(meta.get("tag")) if term not in categories]


def _add_terms(loader: PostLoader, meta: dict[str, Any]) -> None:
    loader.add_value("tags", _tags(meta))
    loader.add_value("category", _terms(meta.get("categories")))


def _own_route(response: TextResponse, data: dict[str, Any]) -> str:
    """The route of the page itself: its path under ``base``, without ``.html``."""
    path = unquote(urlsplit(response.url).path)
    base = str(data.get("base") or "/")
    path = "/" + path.removeprefix(base).lstrip("/")
    return path.removesuffix(".html")


class SugaratLayout(Layout):
    """Reads a VitePress blog built with @sugarat/theme from the index every page carries.

    The home page's list (``div.blog-list-wrapper > ul > li > a.blog-item``: ``p.title``,
    ``p.description``, ``div.badge-list > span.split`` author · date · tags as text, often
    relative, "3天前") shows ten posts and pages on in the browser only; every page embeds
    the theme's index of all of them in ``window.__VP_SITE_DATA__`` (``themeConfig.blog.
    pagesData``: ``route`` and the front matter as ``meta``: ``title``, ``date`` as
    ``2024/05/29 01:00:00`` or ``2024-03-11 15:33:45``, ``tags``/``tag``, ``categories``,
    ``description``, ``hidden``, ``publish``), which is read instead; its author is
    ``themeConfig.blog.author`` unless a post names one. A post page prints its date, tags
    and author only in the browser: its own entry of the same index gives the terms, and
    0.5's ``data-pagefind-meta="date:<ms since 1970>"`` on the body gives the publication
    instant: the index's dates are the builder's clock (utils/node/theme.ts, UTC on a CI
    runner), so where the post page is not read a date may be hours off. The body is
    ``main .vp-doc`` (heading anchors hold U+200B); the outline, the related posts
    (``.recommend`` "相关文章") and the comments are outside it. Checked against
    ATQQ/sugar-blog packages/theme/src (components/BlogList.vue, BlogItem.vue, BlogApp.vue;
    utils/node/theme.ts) at @sugarat/theme 0.2.26, 0.5.14 and 0.5.19 and the sites
    XiaomingChild/myBlog (0.5.19, VitePress 1.6.4), huangmingfu/my-blog (0.2.26,
    1.0.0-rc.45) and FlynnYoung/flynnyoung.github.io (0.5.14, VitePress 2.0.0-alpha.15).
    """

    name = "sugarat"
    signature = (
        "div.blog-list-wrapper a.blog-item",
        "//script[contains(., '__VP_SITE_DATA__')][contains(., 'pagesData')]",
    )

    @classmethod
    def extract(cls, response: TextResponse) -> list[PostItem]:
        data = site_data(response)
        author = _blog(data).get("author")
        items, suffix = [], _suffix(response, data)
        for page in _pages(data):
            meta = page.get("meta") or {}
            if not isinstance(meta, dict) or not _is_post(meta):
                continue
            loader = PostLoader(base_url=response.url)
            loader.add_value("url", _page_url(response, data, str(page["route"]), suffix))
            loader.add_value("title", meta.get("title"))
            loader.add_value("published_raw", meta.get("date"))
            loader.add_value("author", meta.get("author") or author)
            _add_terms(loader, meta)
            loader.add_value("summary", meta.get("description"))
            items.append(loader.load_item())
        return items

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return ()  # the index is read whole by extract

    post_body = "main .vp-doc"
    post_chrome = ("a.header-anchor",)

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        for pagefind in response.css("[data-pagefind-meta]::attr(data-pagefind-meta)").getall():
            found = _PAGEFIND_DATE.search(pagefind)
            if found:
                loader.add_value("published_raw", found.group(1).strip())
        data = site_data(response)
        route = _own_route(response, data)
        for page in _pages(data):
            own = page.get("meta") or {}
            if str(page["route"]).removesuffix(".html") == route and isinstance(own, dict):
                _add_terms(loader, own)
        # VitePress's "last updated" (the file's git time, in UTC; its text is written in
        # the browser).
        loader.add_css("updated_raw", "p.VPLastUpdated time::attr(datetime)")
        cls.populate_post_metadata(loader, response)
