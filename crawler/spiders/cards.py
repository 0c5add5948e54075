"""Spider for card-list blogs: cards with 点赞 / 评论 / 浏览 counters (a "hot" list)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector, SelectorList
from scrapy.http import Response

from crawler.loaders import PostLoader, node_texts
from crawler.spiders.base import LayoutSpider

# Any link reading 下一页 (also "下一页 ›"), or the pagination's a.next / rel=next.
_NEXT = (
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' pagination ')]"
    "//a[contains(concat(' ', normalize-space(@class), ' '), ' next ')]/@href"
    " | //a[@rel='next']/@href | //a[starts-with(normalize-space(.), '下一页')]/@href"
)


_CLASS_CARD = "[contains(concat(' ', normalize-space(@class), ' '), ' post-card ')]"
_CARD = f"ancestor-or-self::*{_CLASS_CARD}"
_NESTED_CARD = f"descendant::*{_CLASS_CARD}"


def _own(card: Selector, css: str, nested: bool) -> SelectorList:
    """Matches inside this card but not inside a card nested in it: with a closing tag
    missing, the parser puts the following cards inside this one."""
    if not nested:  # the usual case, and the cheap one
        return card.css(css)
    depth = len(card.xpath(_CARD))
    return SelectorList(m for m in card.css(css) if len(m.xpath(_CARD)) == depth)


class CardsSpider(LayoutSpider):
    """Reads ``main.post-list > article.post-card`` cards (title, summary, category, date, stats).

    The platform could not be identified in public sources; the markup is the project's
    reference markup (/work/shared/layouts.md, section 3). Tolerant of theme drift: counts
    are read by label (any order, abbreviated as 1.2k / 1,024 / 1.5万), the category may be
    missing, and ``time[datetime]`` wins over the printed date when present.
    """

    name = "cards"
    signature = ("main.post-list > article.post-card", ".post-card .post-stat")
    # The "hot" list is sorted by views, not date: a new post can be on any page.
    date_ordered = False

    @classmethod
    def post_nodes(cls, response: Response) -> Iterable[Selector]:
        # A theme may use div cards; the XPath union keeps each node once, in page order.
        return response.css("article.post-card, .post-list > .post-card")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: Response) -> None:
        # (css() would match the card itself: descendant-or-self.)
        nested = bool(node.xpath(_NESTED_CARD))

        def own(css: str) -> SelectorList:
            return _own(node, css, nested)

        link = own(".post-title a")[:1]
        loader.add_value("title", node_texts(link))
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("summary", node_texts(own(".post-summary")[:1]))
        # Its own first text: with </a> missing, the rest of the card ends up inside.
        loader.add_value("category", node_texts(own(".post-category")[:1], "text()")[:1])
        date = own("time.post-date, .post-meta time")[:1]
        # The time's own text: with </time> missing, the stats after it end up inside.
        printed = "".join(node_texts(date, "text()"))
        loader.add_value("published_raw", date.attrib.get("datetime", "").strip() or printed)
        # One string per stat, so "<i/><em>130</em> 浏览" reads as "130 浏览"; without stat
        # spans, the whole meta line (its date and category carry no count label).
        stats = ["".join(node_texts(stat)) for stat in own(".post-stat")]
        loader.add_counts(stats or ["".join(node_texts(own(".post-meta")[:1]))])

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        links = (h.strip() for h in response.xpath(_NEXT).getall())
        return [h for h in dict.fromkeys(links) if h and not h.startswith(("#", "javascript:"))]
