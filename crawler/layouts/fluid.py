"""Layout of Hexo blogs on the Fluid theme (1.8 and 1.9): the home page and /page/N/."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.dates import in_local_offset
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts


def _meta_links(icon: str) -> str:
    # A .post-meta box is told by its icon, on the home cards and in the post footer alike.
    return f".//*[{has_class('post-meta')}][i[{has_class(icon)}]]//a/text()"


_CATEGORIES = _meta_links("icon-category")
_TAGS = _meta_links("icon-tags")
_POST_METAS = f"//article[{has_class('post-content')}]//*[{has_class('post-metas')}]"
_NEXT = "#pagination a.next::attr(href), .pagination a[rel=next]::attr(href)"


def _tags(node: Selector) -> list[str]:
    # 1.9 writes a tag as "#name", 1.8 as "name".
    return [tag.strip().removeprefix("#") for tag in node_texts(node, _TAGS)]


def _local_time(response: TextResponse, which: str) -> str | None:
    """``article:<which>_time`` (UTC) in the offset of the page's local times: the banner's
    ``time[datetime]`` is ``article:published_time`` as wall time, to the minute."""
    meta = "//meta[@property='article:{}_time']/@content"
    banner = response.css("#banner time::attr(datetime)").get("").strip()
    published = in_local_offset(response.xpath(meta.format("published")).get(""), banner)
    try:
        wanted = datetime.fromisoformat(response.xpath(meta.format(which)).get(""))
        offset = datetime.fromisoformat(published or "").utcoffset()
    except ValueError:
        return None
    if not banner or offset is None or wanted.tzinfo is None:
        return None
    return wanted.astimezone(timezone(offset)).isoformat()


class FluidLayout(Layout):
    """Reads the index pages and posts of the Hexo Fluid theme, 1.8.x and 1.9.x.

    A post is ``div.index-card > article.index-info`` (an optional ``div.index-img`` before
    it): title link ``.index-header a`` (``h1`` up to 1.9.4, ``h2`` from 1.9.5; a pinned post
    has ``i.index-pin`` beside the link and is listed first); excerpt ``.index-excerpt``
    (1.8: ``p.index-excerpt > a``, 1.9: ``a.index-excerpt > div``); date
    ``.post-meta time[datetime]``, local ``YYYY-MM-DD HH:mm`` without offset; categories and
    tags in ``.index-btm .post-meta`` boxes told by their icon (``i.icon-category``: 1.8
    plain links, 1.9 ``span.category-chains`` of ``a.category-chain-item``, parent first, one
    chain on the home page; ``i.icon-tags``: 1.8 ``name``, 1.9 ``#name``). No author or counts
    (busuanzi/LeanCloud fill those in by script). Paging: ``#pagination a.extend.next``,
    ``/page/N/`` (``#board`` appended in 1.9, at run time by a script in 1.8; dropped here).
    A post page: the body is ``div.markdown-body`` in ``article.post-content``; the hidden SEO
    ``h1``, the "本文最后更新于" note (relative, baked at build), ``div.post-metas``
    (categories and tags, same boxes), the license (1.8 ``p.note.note-warning``, 1.9
    ``div.license-box``) and ``div.post-prevnext`` sit outside it; code blocks come in
    Fluid's ``div.hljs.code-wrapper`` (unwrapped first). The update time is
    ``article:modified_time`` (UTC; none in 1.8 builds without ``open_graph``), given in the
    offset of the banner's local ``time[datetime]``; ``article:published_time``, given the
    same way, is the publication time to the second (the lists print it to the minute).
    Checked against fluid-dev/hexo-theme-fluid (layout/_partials/category-chains.ejs,
    paginator.ejs, post/meta-top.ejs, post/meta-footer.ejs, post/meta-bottom.ejs,
    post/copyright.ejs, header/banner.ejs; layout/_partial/post-meta.ejs of 1.8; index.ejs of
    1.9.9 as forked in quiddite/hexo-theme-fluid) and sites built with Fluid 1.8.7
    (Cenergy/blog, under /blog/), a 1.9.0 pre-release (Chris-z-su) and 1.9.3 (812377140/hcxx).
    """

    name = "fluid"
    signature = (
        "script#fluid-configs",
        ".index-card > .index-info",
        "a[href*='fluid-dev/hexo-theme-fluid']",
        "meta[name=generator][content^=Hexo]",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css(".index-card > .index-info")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css(".index-header a[href]")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        loader.add_value("summary", node_texts(node.css(".index-excerpt")[:1]))
        loader.add_css("published_raw", ".post-meta time::attr(datetime)")
        loader.add_value("category", node_texts(node, _CATEGORIES))
        loader.add_value("tags", _tags(node))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = (h.partition("#")[0].strip() for h in response.css(_NEXT).getall())
        return unique(links)

    post_body = ".markdown-body"
    # Outside the body in the stock templates; listed for templates customised to move them in.
    post_chrome = (".post-metas", ".license-box", ".post-prevnext")

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        metas = response.xpath(_POST_METAS)
        loader.add_value("category", node_texts(metas, _CATEGORIES))
        loader.add_value("tags", [tag for meta in metas for tag in _tags(meta)])
        loader.add_value("updated_raw", _local_time(response, "modified"))
        # The list and the banner print the time to the minute; the metadata has its seconds
        # (and milliseconds): the same instant, said more exactly.
        loader.add_value("published_page", _local_time(response, "published"))
        cls.populate_post_metadata(loader, response)
