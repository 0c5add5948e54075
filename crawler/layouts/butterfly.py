"""Layout of Hexo blogs on the Butterfly theme (versions 4 and 5): the home page and /page/N/."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urldefrag

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.dates import in_local_offset
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import node_texts

# Hexo's paginator; the home page's links end in "#content-inner" (pagination.pug), dropped.
_NEXT = "#pagination .pagination :is(a.next, a[rel=next])::attr(href)"


def _local_time(time: Selector) -> str | None:
    """A ``<time>`` as the site's local time: ``datetime`` is Hexo's ``date_xml`` (UTC, with
    milliseconds), ``title`` a label and ``full_date`` (local, no offset), whose clock gives
    the offset the UTC instant is told in."""
    title = time.attrib.get("title", "")
    told = in_local_offset(time.attrib.get("datetime", ""), title)
    return told or title or time.xpath("string()").get()


def _is_updated(time: Selector) -> bool:
    """The update time: its class (``date_type: both``), or the history icon before it
    (``date_type: updated``, one unclassed ``<time>``)."""
    names = time.attrib.get("class", "")
    if names:
        return "updated" in names
    return bool(time.xpath("preceding-sibling::i[1][contains(@class, 'fa-history')]"))


class ButterflyLayout(Layout):
    """Reads the index pages of the Hexo Butterfly theme (jerryc127/hexo-theme-butterfly).

    A post is a ``.recent-post-item`` in ``#recent-posts`` (5.x: ``#recent-posts.nc >
    .recent-post-items > .recent-post-item``, mixin ``indexPostUI``; 4.x: the items directly
    in ``#recent-posts``, mixin ``postUI``); ``.recent-post-item.ads-wrap`` is an ad. In it:
    ``.recent-post-info > a.article-title`` (5.x puts the sticky icon in it, 4.x a separate
    ``span.sticky`` before the date), ``.post-meta-date > time``: ``datetime`` UTC, ``title``
    the local time (see :func:`_local_time`), created and updated both with ``date_type:
    both``; ``a.article-meta__categories`` (parent first), ``a.article-meta__tags`` when
    shown, the excerpt ``div.content``. No author, counts only by JavaScript. Paging: Hexo's
    paginator in ``nav#pagination > .pagination``, ``a.extend.next[rel=next]`` to
    ``page/N/#content-inner``. A post page: ``article#article-container`` (5.x adds
    ``.container``), the 5.x outdate notice ``#post-outdate-notice`` inside it (4.x: by
    JavaScript); copyright, ``.tag_share``, reward, prev/next, related posts and comments
    follow it. Checked against layout/post.pug, includes/mixins/indexPostUI.pug (5.x) and
    post-ui.pug (4.x), includes/pagination.pug, includes/post/outdate-notice.pug, reward.pug,
    scripts/helpers/related_post.js, and sites built with Butterfly 4.5.0 and 5.4.0-b2.
    """

    name = "butterfly"
    signature = (
        "#recent-posts .recent-post-item .article-title",
        "article#article-container.post-content",
        "script#config-diff",
        "a[href*='jerryc127/hexo-theme-butterfly']",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css("#recent-posts .recent-post-item:not(.ads-wrap)")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css(".recent-post-info a.article-title")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        loader.add_html_summary("".join(node.css(".recent-post-info > .content").getall()))
        for time in node.css(".post-meta-date time"):
            field = "updated_raw" if _is_updated(time) else "published_raw"
            loader.add_value(field, _local_time(time))
        loader.add_css("category", "a.article-meta__categories::text")
        loader.add_css("tags", "a.article-meta__tags::text")

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = (urldefrag(h.strip()).url for h in response.css(_NEXT).getall())
        return unique(links)

    # The boxes after the body, listed in case a customised theme moves them in; heading
    # anchors of hexo-renderer-markdown-it ("#" links, as 5.x sites often use).
    post_body = "#article-container"
    post_chrome = (
        "#post-outdate-notice",
        ".post-copyright",
        ".tag_share",
        ".post-reward",
        ".pagination-post",
        ".relatedPosts",
        "#post-comment",
        "a.markdownIt-Anchor",
        "a.header-anchor",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        for time in response.css("#post-meta time.post-meta-date-updated")[:1]:
            loader.add_value("updated_raw", _local_time(time))
        cls.populate_post_metadata(loader, response)
        loader.add_css("category", "#post-meta a.post-meta-categories::text")
        loader.add_css("tags", ".tag_share .post-meta__tag-list a.post-meta__tags::text")
        # post-copyright.pug: page.copyright_author or the site's author.
        loader.add_css("author", ".post-copyright__author .post-copyright-info ::text")
        loader.add_css("author", "meta[name=author]::attr(content)")
