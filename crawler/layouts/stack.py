"""Layout of Hugo blogs on the Stack theme (CaiJimmy/hugo-theme-stack, 2.x and 3.x)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import node_texts

# The home page (and its /page/N/) lists posts as cards; the archives page as compact rows
# grouped by year. Other compact lists are left out: on /categories/ they are the terms, and
# a post page's "links" box holds other sites.
_POSTS = "section.article-list > article, .archives-group > .article-list--compact > article"
_PUBLISHED = "time.article-time--published, .article-time > time[datetime]"


def _terms(scope: SelectorList[Selector], css: str) -> list[str]:
    return [link.xpath("normalize-space()").get("") for link in scope.css(css)]


class StackLayout(Layout):
    """Reads the home page, its pages and the archives page of the Hugo Stack theme.

    A post card is ``section.article-list > article`` (class ``has-image`` with a cover):
    ``header.article-header > div.article-details`` holding the categories
    ``header.article-category > a``, the title ``h2.article-title > a`` (3.x wraps it and the
    subtitle in ``div.article-title-wrapper``; 2.x does not), ``h3.article-subtitle`` (the
    front matter's description: the only summary a list shows) and ``footer.article-time``
    with ``time.article-time--published`` (in 3.x inside a ``div``, beside the reading time
    ``time.article-time--reading``). The date is text in ``params.dateFormat.published``
    (default ``Jan 02, 2006``); from 3.32 it also carries ``datetime`` (the same time with
    its offset), read first. The archives page (``body.template-archives``) lists
    ``div.archives-group > div.article-list--compact > article > a[href]`` with the title in
    ``h2.article-title`` and ``time[datetime]`` (with offset in every version). No author,
    tags or counts are shown. Paging (``nav.pagination``, no ``rel``): up to 3.32 the current
    page is ``span.page-link.current`` among ``a.page-link`` numbers; from 3.33 it is
    ``a.page-link.current`` and a chevron ``a[aria-label="Next page"]`` follows; the next
    page is the link numbered one more than the current (``/page/N/``).
    Checked against CaiJimmy/hugo-theme-stack at v2.3.0 (2.0.0-2.6.0 list and article
    partials are the same), v3.24.2 and v3.34.2 (layouts/index.html, _default/archives.html,
    _default/single.html, partials/article-list/{default,compact}.html,
    partials/article/article.html and components/{header,details,content,footer,tags}.html,
    partials/pagination.html, _default/_markup/render-heading.html) and the sites
    fanlide/fanlide.github.io (2.3.0) and LiaoZiw/K0max.github.io (3.24.2).
    """

    name = "stack"
    signature = (
        "a[data-version][href='https://github.com/CaiJimmy/hugo-theme-stack']",
        "section.article-list > article > header.article-header > div.article-details",
        ".archives-group > .article-list--compact > article",
        "footer.article-time time.article-time--published",
        # Every page's colour-scheme script (partials/head/colorScheme.html, 2.x and 3.x).
        "//script[contains(., 'StackColorScheme')]",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css(_POSTS)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        title = node.css(".article-title")[:1]
        # A card's link is the title's; a compact row is one link around everything.
        link = title.css("a[href]")[:1] or node.xpath("./a[@href]")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(title))
        loader.add_value("summary", node_texts(node.css(".article-subtitle")[:1]))
        date = node.css(_PUBLISHED)[:1]
        loader.add_value("published_raw", date.attrib.get("datetime") or node_texts(date))
        loader.add_value("category", _terms(SelectorList([node]), ".article-category a"))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        nav = response.css("nav.pagination")[:1]
        links = nav.css("a[aria-label='Next page']::attr(href)").getall()
        current = nav.css(".current").xpath("normalize-space()").get("")
        if not links and current.isdigit():
            following = str(int(current) + 1)
            numbered = ((a.xpath("normalize-space()").get(), a) for a in nav.css("a.page-link"))
            links = [a.attrib.get("href", "") for number, a in numbered if number == following]
        return unique(h.strip() for h in links)

    # A post page: article.main-article holds the same header, section.article-content (the
    # post alone: the theme adds only div.table-wrapper around tables and, from 3.25, an
    # anchor link in headings) and footer.article-footer (tags, license, update time);
    # related posts, comments, TOC (right sidebar) are outside it. Chroma's line numbers
    # (lineNumbersInTable, the theme's default) and the heading anchors (a.header-anchor;
    # 3.25.0's without a class, the text "#") go as every theme's do (the shared reader).
    post_body = "article.main-article > section.article-content"

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        article = response.css("article.main-article")[:1]
        loader.add_value("category", _terms(article, ".article-category a"))
        loader.add_value("tags", _terms(article, ".article-tags a"))
        # The list prints the day; Hugo's metadata the time too (midnight when the front
        # matter gave only a day: then it says no more than the list).
        published = response.xpath("//meta[@property='article:published_time']/@content").get()
        if published and "T00:00:00" not in published:
            loader.add_value("published_page", published)
        # The update is shown only when Lastmod differs from Date (article:modified_time is
        # always written, equal to the date otherwise): then the metadata's time (the same
        # time as the text, with seconds and a numeric offset), else the text.
        shown = article.css(".article-lastmod span, span.article-time--modified")[:1]
        if shown:
            cls.populate_post_metadata(loader, response)
            loader.add_value("updated_raw", shown.xpath("normalize-space()").get())
