"""Layout of card-list blogs: cards with 点赞 / 评论 / 浏览 counters (a "hot" list)."""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree
from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.xpath import all_texts, has_class, own_elements, own_texts

# Any link reading 下一页 (also "下一页 ›"), or the pagination's a.next / rel=next.
_NEXT = (
    f"//*[{has_class('pagination')}]//a[{has_class('next')}]/@href"
    " | //a[@rel='next']/@href | //a[starts-with(normalize-space(.), '下一页')]/@href"
)


# The parts of a card, by class; a card's own parts only (see own_elements).
_PARTS = ("post-title", "post-summary", "post-category", "post-date", "post-meta", "post-stat")


def _inside(element: etree._Element, containers: list[etree._Element]) -> bool:
    return any(ancestor in containers for ancestor in element.iterancestors())


def _card_parts(node: Selector) -> dict[str, list[etree._Element]]:
    """The card's own elements of each class in _PARTS, and its ``a`` and ``time`` elements."""
    parts: dict[str, list[etree._Element]] = {name: [] for name in (*_PARTS, "a", "time")}
    for element, classes in own_elements(node, "post-card"):
        for name in classes:
            if name in parts:
                parts[name].append(element)
        if element.tag in ("a", "time"):
            parts[element.tag].append(element)
    return parts


class CardsLayout(Layout):
    """Reads ``main.post-list > article.post-card`` cards (title, summary, category, date, stats).

    The platform could not be identified in public sources; the markup is the project's
    reference markup (the bundled sample, crawler/samples/cards/). Tolerant of theme drift:
    counts are read by label (any order, abbreviated as 1.2k / 1,024 / 1.5万), the category
    may be missing, and ``time[datetime]`` wins over the printed date when present.
    """

    name = "cards"
    signature = ("main.post-list > article.post-card", ".post-card .post-stat")
    # The "hot" list is sorted by views, not date: a new post can be on any page.
    date_ordered = False
    # A post page: the body in article .post-content, tags as .post-tags links (the sample's
    # markup; NexT 8's article.post-content is a whole article, not matched).
    post_body = "article .post-content"

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        loader.add_css("tags", ".post-tags a::text")
        cls.populate_post_metadata(loader, response)

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        # A theme may use div cards; the XPath union keeps each node once, in page order.
        return response.css("article.post-card, .post-list > .post-card")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        parts = _card_parts(node)
        # ".post-title a", ".post-summary", ...: the first of each, in page order.
        link = next((a for a in parts["a"] if _inside(a, parts["post-title"])), None)
        if link is not None:
            loader.add_value("title", all_texts(link))
            loader.add_value("url", link.get("href"))
        for summary in parts["post-summary"][:1]:
            loader.add_value("summary", all_texts(summary))
        # Its own first text: with </a> missing, the rest of the card ends up inside.
        for category in parts["post-category"][:1]:
            loader.add_value("category", own_texts(category)[:1])
        dates = [
            time
            for time in parts["time"]
            if time in parts["post-date"] or _inside(time, parts["post-meta"])
        ]
        for date in dates[:1]:
            # The time's own text: with </time> missing, the stats after it end up inside.
            machine = str(date.get("datetime", "")).strip()
            loader.add_value("published_raw", machine or "".join(own_texts(date)))
        # One string per stat, so "<i/><em>130</em> 浏览" reads as "130 浏览"; without stat
        # spans, the whole meta line (its date and category carry no count label).
        stats = parts["post-stat"] or parts["post-meta"][:1]
        loader.add_counts(["".join(all_texts(stat)) for stat in stats])

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = (h.strip() for h in response.xpath(_NEXT).getall())
        return [h for h in dict.fromkeys(links) if h and not h.startswith(("#", "javascript:"))]
