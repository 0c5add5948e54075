"""Bare Scrapy spiders for the benchmark: the floor a crawl of each layout could cost.

One spider, ``bare``, reads any of the four layouts (``-a layout=cnblogs|hux|cards|feed``) with
parsel selectors and a regular expression per field: no item loaders, no processors, no
pipelines, no extensions. It yields plain dicts with the project's fields (same id, URL,
title, summary, author, ISO dates with the site's offset, counts, site and layout), drops a
post already yielded (cnblogs' pinned post) and follows the same next-page links.

With ``-a posts=1`` it also follows each post's own page (on the start page's host, as the
project's on-site rule; before further list pages, as the project's priority) and puts the
text of the post body, found with one CSS selector per layout (:data:`BODY_CSS`), its text
by XPath ``string()`` (in libxml2: several times cheaper than joining ``::text`` nodes, each a
Python selector) and whitespace collapsed, into a ``content`` field: the floor of reading post
pages. On cnblogs it then asks for the category/tag endpoint the page's script names (one
regular expression an id) and takes its tags with one selector: the same requests as the
project, whose cnblogs posts need that endpoint. Run it as::

    python -m scrapy runspider bench/bare_spiders.py -a layout=cnblogs -a url=URL \\
        -a site=NAME [-a posts=1] -O out.jsonl -s CONCURRENT_REQUESTS=16 ...

from a folder without ``scrapy.cfg`` (so none of the project's settings apply);
``bench/bench_crawl.py`` does this with the project's throughput settings.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import scrapy
from scrapy.http import Response

Post = dict[str, Any]
Parsed = tuple[list[Post], list[str]]

_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]+>")
_CNBLOGS_DESC = re.compile(
    r"posted\s*@\s*(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})\s*(.*?)\s*阅读\((\d+)\)"
    r"\s*评论\((\d+)\)\s*推荐\((\d+)\)",
    re.DOTALL,
)
_HUX_META = re.compile(r"Posted\s+by\s+(.*\S)\s+on\s+([A-Z][a-z]+)\s+(\d{1,2}),\s+(\d{4})")
_CARDS_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日")
_CARDS_STAT = re.compile(r"([\d.]+)\s*([kK万]?)\s*(点赞|评论|浏览)")
_RSS_AUTHOR = re.compile(r"\((.+)\)\s*$")
_MONTHS = {
    name: number
    for number, name in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        start=1,
    )
}
_STAT_FIELDS = {"点赞": "likes", "评论": "comments", "浏览": "views"}
_SUFFIX = {"": 1, "k": 1_000, "K": 1_000, "万": 10_000}
_ATOM = {"atom": "http://www.w3.org/2005/Atom"}


def squash(text: str | None) -> str | None:
    """Whitespace collapsed; None for an empty text."""
    text = _SPACE.sub(" ", text or "").strip()
    return text or None


def text_of(nodes: scrapy.selector.SelectorList) -> str | None:
    """The whitespace-collapsed text under the nodes."""
    return squash(" ".join(nodes.xpath(".//text()").getall()))


def post(url: str, **fields: Any) -> Post:
    """A post dict with every exported field; ``id`` from the URL as the project makes it."""
    base: Post = {
        "id": hashlib.sha1(url.encode("utf-8")).hexdigest()[:16],
        "url": url,
        "title": None,
        "summary": None,
        "author": None,
        "published_at": None,
        "date_precision": None,
        "published_raw": None,
        "category": None,
        "tags": [],
        "views": None,
        "comments": None,
        "likes": None,
    }
    base.update(fields)
    return base


def parse_cnblogs(response: Response, zone: ZoneInfo) -> Parsed:
    """cnblogs home pages: ``div.day > div.postTitle`` and the postCon/postDesc after it."""
    posts = []
    for title in response.css("div.day > div.postTitle"):
        link = title.css("a.postTitle2")
        con = title.xpath("following-sibling::div[@class='postCon'][1]")
        desc = title.xpath("following-sibling::div[@class='postDesc'][1]")
        summary = squash(" ".join(con.xpath(".//div[@class='c_b_p_desc']/text()").getall())) or ""
        meta = _CNBLOGS_DESC.search(desc.xpath("string()").get() or "")
        if meta is None:
            continue
        y, mo, d, h, mi, author, views, comments, likes = meta.groups()
        published = datetime(int(y), int(mo), int(d), int(h), int(mi), tzinfo=zone)
        posts.append(
            post(
                link.attrib["href"],
                title=squash(" ".join(link.xpath("span/text()").getall())),
                summary=summary.removeprefix("摘要：").strip() or None,
                author=squash(author),
                published_at=published.isoformat(),
                date_precision="minute",
                published_raw=f"{y}-{mo}-{d} {h}:{mi}",
                views=int(views),
                comments=int(comments),
                likes=int(likes),
            )
        )
    links = response.css("#nav_next_page a::attr(href)").getall()
    links += response.xpath("//div[@class='pager']/a[last()][.='下一页']/@href").getall()
    return posts, links


def parse_hux(response: Response, zone: ZoneInfo) -> Parsed:
    """Hux Blog index pages: ``div.post-preview``, ``ul.pager li.next``."""
    posts = []
    for preview in response.css("div.post-preview"):
        meta = _HUX_META.search(preview.css("p.post-meta::text").get() or "")
        if meta is None:
            continue
        author, month, day, year = meta.groups()
        published = datetime(int(year), _MONTHS[month], int(day), tzinfo=zone)
        posts.append(
            post(
                response.urljoin(preview.css("a::attr(href)").get()),
                title=text_of(preview.css("h2.post-title")),
                summary=text_of(preview.css("div.post-content-preview")),
                author=author,
                published_at=published.isoformat(),
                date_precision="day",
                published_raw=f"{month} {day}, {year}",
            )
        )
    return posts, response.css("ul.pager li.next a::attr(href)").getall()


def parse_cards(response: Response, zone: ZoneInfo) -> Parsed:
    """Card lists: ``article.post-card``, ``nav.pagination a.next``."""
    posts = []
    for card in response.css("article.post-card"):
        raw = card.css("time.post-date::text").get() or ""
        date = _CARDS_DATE.search(raw)
        counts = {}
        for number, suffix, label in _CARDS_STAT.findall(
            " ".join(card.css(".post-stat::text").getall())
        ):
            counts[_STAT_FIELDS[label]] = round(float(number) * _SUFFIX[suffix])
        published = datetime(*map(int, date.groups()), tzinfo=zone) if date else None
        posts.append(
            post(
                response.urljoin(card.css("h2.post-title a::attr(href)").get()),
                title=squash(card.css("h2.post-title a::text").get()),
                summary=squash(card.css("p.post-summary::text").get()),
                category=squash(card.css("a.post-category::text").get()),
                published_at=published.isoformat() if published else None,
                date_precision="day" if published else None,
                published_raw=squash(raw),
                **counts,
            )
        )
    return posts, response.css("nav.pagination a.next::attr(href)").getall()


def parse_feed(response: Response, zone: ZoneInfo) -> Parsed:
    """RSS 2.0: ``channel/item``; paged feeds (RFC 5005) by ``atom:link rel="next"``."""
    posts = []
    for item in response.xpath("/rss/channel/item"):
        raw = item.xpath("pubDate/text()").get() or ""
        published = datetime.strptime(raw.replace("GMT", "+0000"), "%a, %d %b %Y %H:%M:%S %z")
        description = item.xpath("description/text()").get() or ""
        author = _RSS_AUTHOR.search(item.xpath("author/text()").get() or "")
        posts.append(
            post(
                item.xpath("link/text()").get().strip(),
                title=squash(item.xpath("title/text()").get()),
                summary=squash(html.unescape(_TAG.sub(" ", description))),
                author=author.group(1) if author else None,
                published_at=published.astimezone(timezone(timedelta(0))).isoformat(),
                date_precision="second",
                published_raw=raw,
                # RSS 2.0 <category> elements are categories (the project's reading).
                category=squash(item.xpath("category/text()").get()),
            )
        )
    links = response.xpath("/rss/channel/atom:link[@rel='next']/@href", namespaces=_ATOM)
    return posts, links.getall()


PARSERS: dict[str, Callable[[Response, ZoneInfo], Parsed]] = {
    "cnblogs": parse_cnblogs,
    "hux": parse_hux,
    "cards": parse_cards,
    "feed": parse_feed,
}


# cnblogs' post page script: currentBlogApp = 'app', currentBlogId = 1, cb_entryId = 2.
_CNBLOGS_IDS = (
    re.compile(r"currentBlogApp = '([\w-]+)'"),
    re.compile(r"currentBlogId = (\d+)"),
    re.compile(r"cb_entryId = (\d+)"),
)

# The post body on a post page: one CSS selector per layout.
BODY_CSS = {
    "cnblogs": "#cnblogs_post_body",
    "hux": ".post-container",
    "cards": "article .post-content",
    "feed": ".post-content",
}


def body_text(response: Response, layout: str) -> str:
    """The text of the post body of ``layout`` on ``response``, whitespace collapsed."""
    return squash(response.css(BODY_CSS[layout])[:1].xpath("string()").get()) or ""


class BareSpider(scrapy.Spider):
    """Reads one site of ``layout`` from ``url``; ``site`` names it in the items."""

    name = "bare"

    def __init__(
        self,
        layout: str = "cnblogs",
        url: str = "",
        site: str = "bench",
        timezone: str = "Asia/Shanghai",
        posts: str = "0",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.layout, self.url, self.site_name = layout, url, site
        self.parser = PARSERS[layout]
        self.zone = ZoneInfo(timezone)
        self.seen: set[str] = set()
        self.posts = posts.strip().lower() in ("1", "true", "yes", "on")
        self.host = urlsplit(url).netloc

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.url, callback=self.parse)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Post | scrapy.Request]:
        posts, links = self.parser(response, self.zone)
        crawled_at = datetime.now(UTC).replace(microsecond=0).isoformat()
        for item in posts:
            if item["id"] in self.seen:
                continue
            self.seen.add(item["id"])
            item.update(site=self.site_name, layout=self.layout, crawled_at=crawled_at)
            if self.posts and urlsplit(item["url"]).netloc == self.host:
                yield response.follow(
                    item["url"], callback=self.parse_post, cb_kwargs={"item": item}, priority=1
                )
            else:
                yield item
        for link in dict.fromkeys(links):
            yield response.follow(link, callback=self.parse)

    def parse_post(self, response: Response, item: Post) -> Iterator[Post | scrapy.Request]:
        """A post's page: the body's text, one selector, into ``content``."""
        item["content"] = body_text(response, self.layout)
        found = [p.search(response.text) for p in _CNBLOGS_IDS] if self.layout == "cnblogs" else []
        if not found or not all(found):
            yield item
            return
        app, blog, entry = (match.group(1) for match in found if match)
        yield response.follow(
            f"/{app}/ajax/CategoriesTags.aspx?blogId={blog}&postId={entry}",
            callback=self.parse_tags,
            cb_kwargs={"item": item},
            priority=2,
        )

    def parse_tags(self, response: Response, item: Post) -> Iterator[Post]:
        """cnblogs' category/tag endpoint: the tags, one selector."""
        item["tags"] = response.css("#EntryTag a::text").getall()
        yield item
