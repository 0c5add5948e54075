"""Layout of Hugo blogs on FixIt and its ancestor LoveIt (and the DoIt fork): home, /page/N/."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts

# FixIt links each category as a.post-category; LoveIt puts plain links in span.post-category.
_CATEGORIES = ".post-meta a.post-category, .post-meta span.post-category a"
_TAGS = ".post-footer .post-tags a"
# The page after the active one: the paginator prints numbers only (no rel=next, no "next").
_NEXT = f"//ul[{has_class('pagination')}]/li[{has_class('active')}]/following-sibling::li[1]"


def _texts(node: Selector | SelectorList, css: str) -> list[str]:
    """The text of each element ``css`` selects, spaces normalised (icons carry none)."""
    return node_texts(node.css(css), "normalize-space()")


class FixitLayout(Layout):
    """Reads the home page and its /page/N/ pages of the Hugo themes FixIt and LoveIt.

    A post is ``article.single.summary`` (``layouts/_default/summary.html``, the same in
    both): an optional ``div.featured-image-preview``, the title link in
    ``.single-title`` (``h2`` in FixIt 0.3, ``h1`` in LoveIt 0.2; FixIt's ``capitalizeTitles``
    title-cases it), then ``div.post-meta``: the author ``.post-author .author`` (a link, or
    a span without one), the date ``span.post-publish`` and categories, the excerpt in
    ``div.content`` and the tags in ``div.post-footer .post-tags`` (FixIt ``a.post-tag``,
    LoveIt plain links joined by commas). Dates: LoveIt prints the day only
    (``<time datetime="2006-01-02">``); FixIt adds the local time in the span's ``title``
    (``"2006-01-02 15:04:05"``, no offset), read unless it is 00:00:00, which is what Hugo
    prints for a front matter date without a time; the post page's ``article:published_time``
    gives LoveIt's time of day (``published_page``). Categories: FixIt ``a.post-category``
    in ``span.post-included-in`` (``a.post-collection`` beside them are collections, not
    taken), LoveIt ``span.post-category a``. Paging (``partials/paginator.html``): numbered
    ``ul.pagination li.page-item`` links only; the next page is the item after
    ``li.active``. Checked against hugo-fixit/FixIt (layouts/_default/summary.html,
    layouts/posts/single.html, partials/single/post-author.html, post-included-in.html,
    expiration-reminder.html), dillonzq/LoveIt (layouts/_default/summary.html,
    partials/paginator.html, posts/single.html) and two sites: GoranTan/blog (FixIt 0.3.13,
    Hugo 0.135) and Lairdkin/blog (LoveIt 0.2.10, Hugo 0.83, which hard-codes a notice
    admonition at the top of every post in its copy of posts/single.html).
    """

    name = "fixit"
    signature = (
        "meta[name=theme][content^=FixIt]",
        "a[href^='https://github.com/hugo-fixit/FixIt']",
        "a[href^='https://github.com/dillonzq/LoveIt']",
        "a[href^='https://github.com/HEIGE-PCloud/DoIt']",
        "article.single.summary .single-title",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css("article.single.summary")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css(".single-title a")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        loader.add_html_summary(node.css("div.content").get())
        publish = node.css(".post-meta .post-publish")[:1]
        local = publish.attrib.get("title", "")
        day = publish.css("time::attr(datetime)").get()
        loader.add_value("published_raw", local if local[-8:] not in ("", "00:00:00") else day)
        loader.add_value("author", _texts(node, ".post-author .author")[:1])
        loader.add_value("category", _texts(node, _CATEGORIES))
        loader.add_value("tags", _texts(node, _TAGS))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        pages = response.xpath(_NEXT).css("a::attr(href)").getall()
        return unique(h.strip() for h in pages)

    # A post page (layouts/posts/single.html): the body is div#content; the TOC, featured
    # image, related posts, reward, post footer (update time, license, share, tags, prev/
    # next) and comments lie outside it. Inside it: FixIt's heading anchors a.heading-mark
    # and, first, the expiration reminder (partials/single/expiration-reminder.html, a
    # div.details.admonition) where a site enables it; a site that hard-codes a notice there
    # (Lairdkin/blog) puts the same markup in the same place. An admonition the post itself
    # opens with is lost with it: the markup is the same. Chroma's line-number gutters
    # (table.lntable) are dropped by the shared Markdown reader, as for every Hugo theme.
    post_body = "div.content#content"
    post_chrome = (
        ".heading-mark",
        "#content > div.details.admonition:first-child",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        # The footer always shows 更新于 (.Lastmod, the date itself without a lastmod) as a day:
        # article:modified_time / dateModified carry it with its time and offset.
        cls.populate_post_metadata(loader, response)
        # LoveIt's list prints the day only; Hugo's metadata the time too (midnight when the
        # front matter gave a day only: then it says no more than the list).
        published = response.xpath("//meta[@property='article:published_time']/@content").get()
        if published and "T00:00:00" not in published:
            loader.add_value("published_page", published)
        article = response.css("article.page.single")[:1]
        loader.add_value("category", _texts(article, _CATEGORIES))
        loader.add_value("tags", _texts(article, _TAGS))
