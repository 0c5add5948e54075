"""Layout of Hexo blogs on the NexT theme (versions 5 to 8): the home page and /page/N/."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import node_texts

# The excerpt's blocks without the theme's "阅读全文 »" (.post-button; NexT 5 .post-more-link).
_CATEGORIES = ".//*[@itemprop='about']//*[@itemprop='name']/text()"
_EXCERPT = "(text() | *)[not(contains(@class, 'post-button') or contains(@class, 'more-link'))]"


class HexoLayout(Layout):
    """Reads the index pages of the Hexo NexT theme.

    A post is ``div.post-block > article.post-content`` (NexT 8.0.1 and later: the div also
    holds the gallery), ``article.post-block`` (later NexT 7, as 7.7, and 8.0.0) or
    ``article.post`` (NexT 5 and early 7, as 7.1; from 5.1.2 it wraps a ``div.post-block``);
    only the article is taken, so each post is read once, in page order. In it: title link
    ``a.post-title-link``; ``time[datetime]`` (``moment().format()``: ISO 8601 with offset, so
    second precision) of ``itemprop=dateCreated`` in ``.post-meta``; categories as
    ``[itemprop=about] [itemprop=name]``; the excerpt in ``div.post-body``; the author in the
    hidden schema.org ``[itemprop=author] meta[itemprop=name]``. The index shows no tags; view
    and comment counts are filled in by JavaScript (LeanCloud, Valine, busuanzi).
    A sticky post carries ``span.post-sticky-flag`` (an icon) and is listed once, first.
    Paging: Hexo's paginator ``nav.pagination a.extend.next[rel=next]`` to ``/page/N/``.
    Checked against next-theme/hexo-theme-next (layout/_macro/post.njk, layout/index.njk,
    layout/_partials/post/post-meta.njk, layout/_partials/pagination.njk,
    scripts/helpers/next-paginator.js; post.njk at v8.0.0, v8.0.1, v8.18.0 and v8.29.0),
    hexojs/hexo (lib/plugins/helper/paginator.ts), iissnan/hexo-theme-next
    (layout/_macro/post.swig) and sites generated with NexT 5.1.2, 7.1, 7.7, 7.8, 8.3 and 8.18.
    """

    name = "hexo"
    signature = (
        "a.post-title-link",
        ".post-block",
        "div.headband",
        "meta[name=generator][content^=Hexo]",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        # One union query: document order, and a node matched by two parts is returned once.
        return response.css("article.post-block, article.post, .post-block > article.post-content")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css("a.post-title-link")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        # As HTML: a heading and the paragraph after it are often not separated by whitespace.
        loader.add_html_summary("".join(node.css(".post-body")[:1].xpath(_EXCERPT).getall()))
        created = node.css(".post-meta time[itemprop~=dateCreated], .post-meta time")[:1]
        date = created.attrib.get("datetime") or created.xpath("string()").get()
        loader.add_value("published_raw", date)
        loader.add_css("category", ".post-meta [itemprop=about] [itemprop=name]::text")
        loader.add_css("author", "[itemprop=author] meta[itemprop=name]::attr(content)")

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = response.css(".pagination a.next::attr(href), .pagination a[rel=next]::attr(href)")
        return unique(h.strip() for h in links.getall())

    # A post page: the same article with the whole body; tags in the footer's .post-tags,
    # the update time as time[itemprop=dateModified]. Inside the body NexT may put the
    # reward box, the copyright box and the "read more" anchor, none of them the post.
    post_body = ".post-body"
    post_chrome = (
        ".reward-container",
        "#reward-container",
        ".post-reward",
        "#donate",
        ".reward",
        ".post-copyright",
        ".post-widgets",
        ".post-nav",
        ".post-footer",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        cls.populate_post_metadata(loader, response)
        post = SelectorList(list(cls.post_nodes(response))[:1])
        loader.add_value("category", node_texts(post, _CATEGORIES))
        # NexT 8 writes a tag as "# name"; 5 and 7 put an icon before it.
        tags = (a.xpath("normalize-space()").get("") for a in post.css(".post-tags a"))
        loader.add_value("tags", [tag.removeprefix("#") for tag in tags])
