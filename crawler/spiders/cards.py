"""Spider for card-list blogs: cards with 点赞 / 评论 / 浏览 counters (a "hot" list)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector
from scrapy.http import Response

from crawler.loaders import PostLoader
from crawler.spiders.base import LayoutSpider

# Any link reading 下一页 (also "下一页 ›"), or the pagination's a.next / rel=next.
_NEXT = (
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' pagination ')]"
    "//a[contains(concat(' ', normalize-space(@class), ' '), ' next ')]/@href"
    " | //a[@rel='next']/@href | //a[starts-with(normalize-space(.), '下一页')]/@href"
)


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
        loader.add_css("title", ".post-title a ::text")
        loader.add_css("url", ".post-title a::attr(href)")
        loader.add_css("summary", ".post-summary ::text")
        loader.add_css("category", ".post-category ::text")
        date = node.css("time.post-date, .post-meta time")[:1]
        printed = date.xpath("string()").get()
        loader.add_value("published_raw", date.attrib.get("datetime", "").strip() or printed)
        # One string per stat, so "<i/><em>130</em> 浏览" reads as "130 浏览"; without stat
        # spans, the whole meta line (its date and category carry no count label).
        stats = node.css(".post-stat").xpath("string()").getall()
        loader.add_counts(stats or node.css(".post-meta").xpath("string()").getall())

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        links = (h.strip() for h in response.xpath(_NEXT).getall())
        return [h for h in dict.fromkeys(links) if h and not h.startswith(("#", "javascript:"))]
