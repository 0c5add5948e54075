"""Spider for card-list blogs: cards with 点赞 / 评论 / 浏览 counters (a "hot" list)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector
from scrapy.http import Response

from crawler.loaders import PostLoader
from crawler.spiders.base import LayoutSpider
from crawler.xpath import has_class, node_number, node_strings, node_texts

# Any link reading 下一页 (also "下一页 ›"), or the pagination's a.next / rel=next.
_NEXT = (
    f"//*[{has_class('pagination')}]//a[{has_class('next')}]/@href"
    " | //a[@rel='next']/@href | //a[starts-with(normalize-space(.), '下一页')]/@href"
)


_CARD = has_class("post-card")
# A match belongs to this card, not to a card nested in it (with a closing tag missing, the
# parser puts the following cards inside this one): it has exactly $depth card ancestors.
_OWN = f"[count(ancestor::*[{_CARD}]) = $depth]"
_LINK = f"(.//*[{has_class('post-title')}]//a{_OWN})[1]"
_SUMMARY = f"(.//*[{has_class('post-summary')}]{_OWN})[1]"
_CATEGORY = f"(.//*[{has_class('post-category')}]{_OWN})[1]"
_DATE = f"(.//time[{has_class('post-date')}]{_OWN} | .//*[{has_class('post-meta')}]//time{_OWN})[1]"
_STATS = f".//*[{has_class('post-stat')}]{_OWN}"
_META = f"(.//*[{has_class('post-meta')}]{_OWN})[1]"


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
        own = {"depth": node_number(node, f"count(ancestor-or-self::*[{_CARD}])")}
        loader.add_value("title", node_texts(node, f"{_LINK}//text()", **own))
        loader.add_value("url", node_texts(node, f"{_LINK}/@href", **own))
        loader.add_value("summary", node_texts(node, f"{_SUMMARY}//text()", **own))
        # Its own first text: with </a> missing, the rest of the card ends up inside.
        loader.add_value("category", node_texts(node, f"{_CATEGORY}/text()", **own)[:1])
        # The time's own text: with </time> missing, the stats after it end up inside.
        printed = "".join(node_texts(node, f"{_DATE}/text()", **own))
        machine = "".join(node_texts(node, f"{_DATE}/@datetime", **own)).strip()
        loader.add_value("published_raw", machine or printed)
        # One string per stat, so "<i/><em>130</em> 浏览" reads as "130 浏览"; without stat
        # spans, the whole meta line (its date and category carry no count label).
        loader.add_counts(node_strings(node, _STATS, **own) or node_strings(node, _META, **own))

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        links = (h.strip() for h in response.xpath(_NEXT).getall())
        return [h for h in dict.fromkeys(links) if h and not h.startswith(("#", "javascript:"))]
