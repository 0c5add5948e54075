"""Layout of VuePress blogs on vuepress-theme-reco (1.x on VuePress 1, 2.x on VuePress 2)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import node_texts

# 1.x NoteAbstractItem; 2.x PostItem; 2.x timeline rows (1.x rows link nowhere: no nodes).
_NODES = "div.abstract-item, div.post-item-container, ul.year-wrapper > li.item"
_DATE = re.compile(r"\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}/\d{1,2}/\d{4}")
# Intl.DateTimeFormat($lang) writes D/M/YYYY outside en-US (es-ES 14/2/2022).
_DAY_FIRST = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
# The pager's numbers (1.x div.pagation, hidden when one page; 2.x div.pagation-container).
_PAGES = ".pagation-list span.jump::text, .pagation-container span.jump::text"
_CURRENT = ".pagation-list span.bgprimary::text, .pagation-container span.active::text"
# The theme's other lists: categories (1.x and 2.x), 2.x tags and a linked 2.x timeline.
_LISTS = (
    "ul.category-wrapper a::attr(href), ul.category-list a.category-link::attr(href),"
    " ul.tag-wrapper a.tag-link::attr(href), a[href$='/timeline.html']::attr(href)"
)
_PARTS = (
    "(.//div[contains(@class, 'page-info')])[1]/span[contains(@class, 'xicon-container')]"
    "/span[contains(@class, 'xicon-content')]"
)
_NUMBERED = re.compile(r"(/(?:categories|tags)/[^/]+/)(\d+)(\.html|/)$")


def _texts(node: Selector | SelectorList, css: str) -> list[str]:
    return node.css(css).xpath("normalize-space()").getall()


class RecoLayout(Layout):
    """Reads the home page, category, tag and timeline pages of vuepress-theme-reco.

    1.x (components/NoteAbstractItem.vue, PageInfo.vue, layouts/Category.vue, Tags.vue,
    TimeLines.vue, Page.vue of vuepress-reco/vuepress-theme-reco-1.x; a 1.6.10 site): a post
    is ``div.abstract-item``: ``.title > a``, the excerpt ``div.abstract``, then PageInfo's
    ``i.reco-account span`` (author), ``i.reco-date span`` (the front matter date through
    ``Intl.DateTimeFormat($lang)``: day only, ``2/14/2022`` in en-US) and
    ``i.reco-tag span.tag-item`` (tags, no links); categories are printed nowhere per post.
    2.x (src/client/components/PostList/PostItem.vue, PageInfo.vue, Page/index.vue,
    layouts/Categories.vue, Timeline.vue, plugin-page PageCreater.ts; a 2.0.0-rc.26 site): a
    post is ``div.post-item-container``: ``.title > a`` (a star icon when sticky) and
    ``.page-info`` spans (``.xicon-content``): author, the date as written in the front
    matter (``2025/02/04``), category links ``/categories/<key>/1.html``, tag links
    ``/tags/<key>/1.html``; the timeline (``/timeline.html``) rows ``li.item`` hold
    ``span.date`` (``02-06``) under ``h2.year`` and a real link ``a.title``.
    Paging is client-side in both (spans, no hrefs; server-rendered lists show the first 10),
    so where the list has more pages than the one shown the other lists are followed: the
    category links (``/categories/X/``; 2.x ``/categories/<key>/N.html``, whose page N+1 is a
    real page), 2.x tag links and the timeline (probed at ``timeline.html`` when not linked).
    Posts past the tenth of a 1.x category stay unread: the theme renders them nowhere.
    Checked against the theme's templates (1.x: vuepress-theme-reco-1.x; 2.x: main, where
    other 2.x builds print ``theme-reco-default-content``, and PageInfo.vue at 1b22603 the
    terms as plain text, which is not split) and the saved sites KwiZhou/kwi_blog (1.6.10,
    VuePress 1.9.7) and JAHNAN00/jahnan00.github.io (2.0.0-rc.26, VuePress 2.0.0-rc.19):
    home, tags, timeline, category and post pages.
    """

    name = "reco"
    signature = (
        "a[href*='vuepress-theme-reco.recoluan.com']",
        "//script[contains(., 'vuepress-reco-color-scheme')]",
        "//*[contains(@class, 'footer-wrapper')]//text()[contains(., 'vuepress-theme-reco')]",
        "div.abstract-item i.reco-date",
        "div.post-item-container > div.page-info",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return [node for node in response.css(_NODES) if node.css("a[href]")]

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css(".title > a, a.title")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        if node.css("span.date"):  # 2.x timeline: the year heads the row's group
            year = node.xpath("normalize-space(../../h2)").get("")
            day = node.css("span.date::text").get("").strip().replace("-", "/")
            loader.add_value("published_raw", f"{year}/{day}")
            return
        loader.add_html_summary(node.css("div.abstract").get())
        cls._page_info(loader, node, response, listed=True)

    @staticmethod
    def _page_info(loader: PostLoader, scope: Selector, page: TextResponse, listed: bool) -> None:
        """PageInfo of a list item or a post page: tags, categories and, on a list, the
        author and date (a post page repeats them)."""
        loader.add_value("tags", _texts(scope, "i.reco-tag span.tag-item"))
        parts = scope.xpath(_PARTS)
        for a in parts.css("a[href]"):
            kind = "tags" if "/tags/" in a.attrib["href"] else "category"
            loader.add_value(kind, a.xpath("normalize-space()").get())
        if not listed:
            return
        loader.add_value("author", _texts(scope, "i.reco-account span"))
        lang = (page.xpath("/html/@lang").get() or "en-US").lower()
        for date in _texts(scope, "i.reco-date span"):
            day_first = _DAY_FIRST.match(date)
            if day_first and lang not in ("en", "en-us"):
                date = f"{day_first[3]}-{day_first[2]}-{day_first[1]}"
            loader.add_value("published_raw", date)
        dated = False
        for part in parts:  # 2.x: spans told apart by their icon only; links are terms
            text = part.xpath("normalize-space()").get("")
            if part.css("a") or not text:
                continue
            if _DATE.fullmatch(text.split(" ")[0]):
                loader.add_value("published_raw", text)
                dated = True
            elif not dated:  # the author comes before the date
                loader.add_value("author", text)

    @staticmethod
    def _pager(response: TextResponse) -> tuple[int, int]:
        """The list's current page and its last one (1 and 1 without a pager)."""
        numbers = [int(t) for t in response.css(_PAGES).getall() if t.strip().isdigit()]
        current = [int(t) for t in response.css(_CURRENT).getall() if t.strip().isdigit()]
        return (current or [1])[0], max(numbers, default=1)

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        current, last = cls._pager(response)
        if last <= 1:
            return []  # the list shows every post there is
        links = [h.strip() for h in response.css(_LISTS).getall()]
        numbered = _NUMBERED.search(response.url)
        if numbered and current < last:
            links.insert(0, _NUMBERED.sub(rf"\g<1>{current + 1}\g<3>", response.url))
        return unique(links)

    @classmethod
    def probe_urls(cls, response: TextResponse) -> Iterable[str]:
        # 2.x builds /timeline.html (every post, linked) whether the navbar links it or not.
        linked = response.css("a[href$='/timeline.html']")
        if response.css("div.post-item-container") and not linked and cls._pager(response)[1] > 1:
            return ["timeline.html"]
        return []

    # A post page: 1.x main.page > section > div.page-title (h1, PageInfo) and the body
    # Content div.theme-reco-content; 2.x main.page-container > div.page-content > h1,
    # div.page-info and the body div.theme-reco-md-content (later 2.x builds:
    # theme-reco-default-content). Edit link, last-updated, prev/next, comments and the
    # TOC (1.x ul.sub-sidebar-wrapper, 2.x div.page-catalog-container) are outside the body.
    # Inside: heading anchors (VuePress 1 a.header-anchor "#", VuePress 2's around the
    # heading's text: the shared reader unwraps both), VuePress 1's external-link "(opens
    # new window)" and 2.x line numbers.
    post_body = (
        "main.page .theme-reco-content, main.page-container .theme-reco-md-content,"
        " main.page-container .theme-reco-default-content"
    )
    post_chrome = (".sr-only", "div.line-numbers")

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        info = response.css("main.page .page-title, main.page-container")[:1]
        if info:
            cls._page_info(loader, info[0], response, listed=False)
        # 1.x "Last Updated: <time>", 2.x "Last Updated <time>" (toLocaleString at build).
        updated = ".page-edit .last-updated .time, .page-meta .last-updated"
        for text in _texts(response.selector, updated):
            found = re.search(r"\d.*", text)
            loader.add_value("updated_raw", found.group(0) if found else None)
        cls.populate_post_metadata(loader, response)
