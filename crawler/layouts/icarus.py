"""Layout of Hexo blogs on the Icarus theme (versions 4 to 6): the home page and /page/N/."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.dates import in_local_offset
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts

# A list item: its title links to the post (a post page's h1 does not).
_POSTS = (
    f"//article[{has_class('card-content')}][{has_class('article')}][*[{has_class('title')}]/a]"
)
_META = f"./div[{has_class('article-meta')}]//span[{has_class('level-item')}]"
# The author span is the only one of plain text with a space either side (" {page.author} ").
_AUTHOR = f"{_META}[not(*)][starts-with(., ' ')]/text()"
# The excerpt without scripts and styles a post may carry at its start.
_EXCERPT = f"./div[{has_class('content')}][1]/node()[not(self::script or self::style)]"
# Hidden once on the last page, but its <a> is still written (to the page after the last).
_NEXT = (
    f"//nav[{has_class('pagination')}]/div[{has_class('pagination-next')}]"
    f"[not({has_class('is-invisible')})]/a/@href"
)


def _local_time(time: Selector) -> str | None:
    """A meta row ``<time>``: its UTC ``datetime`` told in the offset its ``title`` (the
    builder's ``toLocaleString()``) shows by its clock; Icarus 4.0 puts the UTC value in the
    title too, and then only UTC exists."""
    title = time.attrib.get("title", "")
    told = in_local_offset(time.attrib.get("datetime", ""), title)
    return told or title or time.xpath("string()").get()


def _tags(node: Selector | SelectorList) -> list[str]:
    # Customised 4.x sites write "flask, " in each link; 5.x puts its "#" in a span before.
    texts = node.css(".article-tags a[rel=tag]").xpath("normalize-space()").getall()
    return [text.rstrip(",，、 ").removeprefix("#") for text in texts]


class IcarusLayout(Layout):
    """Reads the index pages of the Hexo Icarus theme (ppoffice/hexo-theme-icarus).

    One template, ``layout/common/article.jsx``, writes list items and post pages alike: a
    post is ``div.card > article.card-content.article``, its meta row ``div.article-meta
    span.level-item``: ``<time datetime title>`` of creation, of the update (from 5.0 only as
    ``article.update_time`` allows), `` {page.author} `` from the front matter, category links
    ``a.link-muted`` (parent first), read time. The title is ``h1.title > a`` on lists up to 5.1
    (4.x, 5.0, 5.1), ``p.title > a`` from 5.2 (post pages: ``h1`` without a link); then the
    excerpt ``div.content`` and ``a.article-more``; lists show tags only on customised 4.x sites.
    ``datetime`` is UTC (``…Z``); ``title`` is the local time from 4.1 on (4.0: UTC again).
    Paging, hexo-component-inferno's paginator: ``div.pagination-next > a`` (``is-invisible``
    on the last page). Checked against article.jsx and index.jsx at 4.0.0, 4.1.2, 4.2.0, 4.5.0,
    5.0.0, 5.1.1, 5.2.0, 5.3.0 and 6.1.1, hexo-component-inferno's paginator.jsx and
    article_licensing.jsx, and sites built with Icarus 4.1.2 (customised) and 5.0.0-rc.1.
    """

    name = "icarus"
    signature = (
        "article.card-content.article[role=article]",
        "div.article-meta.level",
        "div.card.widget[data-type]",
        "a[href*='github.com/ppoffice/hexo-theme-icarus']",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.xpath(_POSTS)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.xpath(f"./*[{has_class('title')}]/a[@href]")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        loader.add_html_summary("".join(node.xpath(_EXCERPT).getall()))
        times = [_local_time(time) for time in node.xpath(f"{_META}/time")]
        loader.add_value("published_raw", times[:1])
        loader.add_value("updated_raw", times[1:2])
        loader.add_value("author", node_texts(node, _AUTHOR))
        loader.add_value("category", node_texts(node, f"{_META}/a/text()"))
        loader.add_value("tags", _tags(node))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        return unique(h.strip() for h in response.xpath(_NEXT).getall())

    # A post page: the same article, its whole body in div.content; after it, inside the
    # article, the licensing box, tags and share buttons; donate card, post navigation and
    # comments follow the article card. Listed in case a customised theme nests them.
    post_body = "article.card-content.article > div.content"
    post_chrome = (
        ".article-licensing",
        ".article-tags",
        ".sharethis-inline-share-buttons",
        ".addthis_inline_share_toolbox",
        ".post-navigation",
        "a.article-more",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        article = response.css("article.card-content.article")[:1]
        times = [_local_time(time) for time in article.xpath(f"{_META}/time")]
        loader.add_value("updated_raw", times[1:2])
        cls.populate_post_metadata(loader, response)
        loader.add_value("category", node_texts(article, f"{_META}/a/text()"))
        loader.add_value("tags", _tags(article))
        # The licensing box's first item is page.author or the site's author, when set: the
        # creation date (the meta row's date text) comes first otherwise.
        dates = set(node_texts(article, f"{_META}/time/text()"))
        first = node_texts(article, f"(.//*[{has_class('licensing-meta')}]//p)[1]/text()")
        authors = node_texts(article, _AUTHOR) or [t for t in first[:1] if t not in dates]
        loader.add_value("author", authors)
