"""Layout of Hugo blogs on the PaperMod theme (adityatelange/hugo-PaperMod, 7.x and 8.x)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts

# A post of a list: an entry with the overlay link (home, sections, terms; the home-info and
# profile blocks have none) or a row of the archives page.
_LINK = f"a[@href][{has_class('entry-link')}]"
_POSTS = f"//article[{_LINK}] | //div[{has_class('archive-entry')}][{_LINK}]"
# A title without the draft mark (7: sup > span.entry-isdraft; 8: span.entry-hint, an icon).
_DRAFT = f"{has_class('entry-isdraft')} or {has_class('entry-hint')}"
_TITLE = f".//text()[not(ancestor::*[{_DRAFT}])]"
# post_meta.html joins date, reading time, word count and author with "&nbsp;·&nbsp;".
_SEPARATOR = "\xa0·\xa0"
# Reading time and word count hold a number of their own ("3 min", "3 分钟", "1,024 words");
# an author's name may hold digits inside a word ("Chasing1020").
_COUNT = re.compile(r"(?<![A-Za-z\d])\d+(?![A-Za-z\d])")


def _author(meta: Selector) -> str | None:
    """The last part of the post meta when it is no date and no count: the author."""
    parts = [part.strip() for part in meta.xpath("string()").get("").split(_SEPARATOR)]
    if len(parts) < 2 or not parts[-1] or _COUNT.search(parts[-1]):
        return None
    return parts[-1]


class PapermodLayout(Layout):
    """Reads the lists (home, ``/page/N/``, sections, terms, archives) of Hugo PaperMod.

    A list entry is ``article.post-entry`` (``first-entry`` for the home's special first post,
    ``post-entry tag-entry`` on term pages; the home-info box ``article.first-entry.home-info``
    is no post): ``header.entry-header > h2`` (the title), ``div.entry-content > p`` (plain
    summary, ``...`` when cut), ``footer.entry-footer`` (post_meta.html) and the empty overlay
    link ``a.entry-link[href]`` (the permalink). post_meta.html starts with
    ``<span title='2006-01-02 15:04:05 -0700 MST'>`` (Go's ``Time.String()``: local time with
    its offset, read rather than the ``DateFormat`` text), then reading time, word count and
    author joined by ``&nbsp;·&nbsp;``: bare text in 7.x, each part in a ``<span>`` in 8.x.
    The draft mark is ``sup > span.entry-isdraft`` "[draft]" in 7.x, an svg
    ``span.entry-hint`` in 8.x (``h2.entry-hint-parent``). The archives page lists
    ``div.archive-entry > h3.archive-entry-title + div.archive-meta + a.entry-link``. Lists
    show no tags or categories. Paging: ``footer.page-footer > nav.pagination > a.next``
    (no ``rel``). A post (single.html) is ``article.post-single``: body ``div.post-content``
    (8.x adds ``md-content``; a post without content has none), tags
    ``footer.post-footer > ul.post-tags a``; categories are not shown. Early versions printed
    the date as ``<time>`` text (read when there is no ``span[title]``). Checked against
    adityatelange/hugo-PaperMod (layouts/list.html, single.html, _partials/post_meta.html of
    master after 8.0; early layouts/_default/list.html, single.html, partials/post_meta.html),
    the 7.0 templates as read for the staged site's notes, and the sites
    FeiNiaoBF/FeiNiaoBF.github.io (7.0, 2023) and Chasing1020/Chasing1020.github.io (master
    after 8.0, 2026).
    """

    name = "papermod"
    signature = (
        "a[href^='https://github.com/adityatelange/hugo-PaperMod']",
        "article.post-entry > a.entry-link",
        ".archive-entry > a.entry-link",
        "article.post-single > header.post-header",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.xpath(_POSTS)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        loader.add_value("url", node.xpath("./a[@href]/@href").get())
        loader.add_value(
            "title", node_texts(node.css(".entry-header h2, h3.archive-entry-title"), _TITLE)
        )
        loader.add_value("summary", node_texts(node.css(".entry-content"), ".//text()"))
        meta = node.css(".entry-footer, .archive-meta")[:1]
        date = meta.css("span[title]")[:1]
        loader.add_value("published_raw", date.attrib.get("title") or node_texts(meta.css("time")))
        if meta:
            loader.add_value("author", _author(meta[0]))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = response.css("nav.pagination a.next::attr(href)").getall()
        return unique(h.strip() for h in links)

    # A post page: headings carry a hidden "#" a.anchor; TOC, cover, tags, prev/next, share
    # buttons and comments are outside the body (Chroma's line numbers go with every Hugo
    # theme's code blocks).
    post_body = "article.post-single .post-content"
    # A post without content has no div.post-content at all (single.html).
    post_page = "article.post-single"
    post_chrome = ("a.anchor",)

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        article = response.css("article.post-single")[:1]
        tags = article.css(".post-footer .post-tags a")
        loader.add_value("tags", [a.xpath("normalize-space()").get("") for a in tags])
        # article:modified_time is .Lastmod, equal to the date unless the post was updated.
        published = response.css("meta[property='article:published_time']::attr(content)").get()
        modified = response.css("meta[property='article:modified_time']::attr(content)").get()
        if modified and modified != published:
            cls.populate_post_metadata(loader, response)
