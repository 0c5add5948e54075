"""Spider for cnblogs (博客园) blogs: home pages and monthly archives."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from parsel import Selector
from scrapy.http import Response

from crawler.loaders import PostLoader, node_texts
from crawler.spiders.base import LayoutSpider


def _has(cls: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')"


_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?")
# What the postDesc's own text holds besides the author: the prefix, date, counts, separators.
_NOT_AUTHOR = re.compile(rf"posted\s*@|{_DATE.pattern}|(?:阅读|评论|推荐)\s*[(（]\s*\d+\s*[)）]|\|")
_PINNED, _MORE = _has("pinned-post-mark"), _has("c_b_p_desc_readmore")
_NEXT = (
    "//div[@id='nav_next_page']/a/@href"
    f" | //div[{_has('pager')}]//a[starts-with(normalize-space(), '下一页')]/@href"
)


class CnblogsSpider(LayoutSpider):
    """Reads the server HTML every cnblogs skin shares (skins only add CSS/JS).

    Home pages: ``div.forFlow > div.day``, where a post is the run of siblings
    ``div.postTitle``, ``div.postCon``, ``div.postDesc`` (a day may hold several posts);
    counts in ``span.post-*-count`` or, on older pages, plain text. Monthly archives:
    ``div.entrylist > div.entrylistItem``. Checked against real pages saved as test data in
    huhx/flutter-cnblog (test/common/parser/user_blog_parser_test.dart,
    official_blog_parser_test.dart) and crawlers of cnblogs found with find_string.
    """

    name = "cnblogs"
    signature = ("#blog_nav_sitehome", "div.day > div.postTitle a.postTitle2", "div.entrylistItem")

    @classmethod
    def post_nodes(cls, response: Response) -> Iterable[Selector]:
        return response.xpath(
            f"//div[{_has('day')}]/div[{_has('postTitle')}] | //div[{_has('entrylistItem')}]"
        )

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: Response) -> None:
        if node.xpath(f"self::div[{_has('postTitle')}]"):
            # Only the parts before the next post's title belong to this post.
            part = "following-sibling::div[{0} or {1}][1][{0}]"
            con = node.xpath(part.format(_has("postCon"), _has("postTitle")))
            desc = node.xpath(part.format(_has("postDesc"), _has("postTitle")))
        else:
            con, desc = node.css(".entrylistPostSummary"), node.css(".entrylistItemPostDesc")
        link = node.css("a.postTitle2, a.entrylistItemTitle")[:1]
        loader.add_value("url", link.attrib.get("href"))
        # The pinned mark (span.pinned-post-mark) is not part of the title.
        loader.add_value("title", node_texts(link, f".//text()[not(ancestor::*[{_PINNED}])]"))
        summary = con.css(".c_b_p_desc")
        loader.add_value("summary", node_texts(summary, f".//text()[not(ancestor::*[{_MORE}])]"))
        meta = desc.xpath("string()").get() or ""
        date = _DATE.search(meta)
        loader.add_value("published_raw", date.group() if date else None)
        # The author is the postDesc's own text after the date (counts may be plain text too).
        loader.add_value("author", _NOT_AUTHOR.sub(" ", " ".join(node_texts(desc, "./text()"))))
        loader.add_counts([meta])

    @classmethod
    def next_page_urls(cls, response: Response) -> Iterable[str]:
        return list(dict.fromkeys(h.strip() for h in response.xpath(_NEXT).getall()))

    @classmethod
    def site_root(cls, url: str) -> str:
        # Every blog lives under www.cnblogs.com/<app>/: never wander into another blog.
        parts = urlsplit(url)
        app = parts.path.strip("/").split("/")[0]
        return f"{parts.scheme}://{parts.netloc}/{app}/" if app else super().site_root(url)
