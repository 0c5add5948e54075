"""Layout of CSDN blogs (blog.csdn.net): author lists, columns, the author's RSS, post pages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.discovery.sources import looks_like_feed
from crawler.layouts.base import Layout, PostPage
from crawler.layouts.feed import FeedLayout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.xpath import has_class, node_texts

# The old author list (2019 phoenix; its first box is a hidden post of another user) and a
# column (分类专栏) page of blogv2.
_POSTS = (
    f"//div[{has_class('article-list')}]/div[{has_class('article-item-box')}]"
    "[not(contains(translate(@style, ' ', ''), 'display:none'))]"
    f" | //ul[{has_class('column_article_list')}]/li[a[@href]]"
)
_NOT_TYPE = f"[not(ancestor::span[{has_class('article-type')}])]"  # the 原/原创/转 mark
_TERMS = (
    f"//div[{has_class('tags-box')} and {has_class('artic-tag-box')}]//a[{has_class('tag-link')}]"
)
_HEADER = f"//div[{has_class('article-info-box')}]"
_PAGER = re.compile(r"var\s+(currentPage|baseUrl|pageSize|listTotal|pageQueryStr)\s*=\s*([^;\n]+)")
_SCRIPT_VAR = r"var\s+{}\s*=\s*[\"']?([^\"';\n]+)"


def _script_var(response: TextResponse, name: str) -> str | None:
    found = re.search(_SCRIPT_VAR.format(name), response.text)
    return found.group(1).strip() if found else None


def _is_challenge(response: TextResponse) -> bool:
    """The JS cookie challenge (YunDun ydclearance) CSDN answers a client without its cookie
    with: a tiny page of one obfuscated script, no title, no CSDN markup."""
    head = response.body[:16_385].lower()
    return (
        len(head) <= 16_384
        and b"<script" in head
        and b"eval(" in head
        and not any(mark in head for mark in (b"<title", b"article_content", b"article-list"))
    )


def _add_counts(loader: PostLoader, spans: SelectorList[Selector]) -> None:
    """Counts labelled by text (2019: "阅读数 22") or by icon (blogv2: readCountWhite.png)."""
    texts = []
    for span in spans:
        icon, text = span.xpath("./img/@src").get(""), span.xpath("normalize-space()").get("")
        if "readCount" in icon or "commentCount" in icon:
            loader.add_value("views" if "readCount" in icon else "comments", text)
        else:
            texts.append(text)  # one text per span: "22 评论数" must not pair across spans
    loader.add_counts(texts)


def _baidu_pub_dates(page: Selector) -> list[str]:
    """``pubDate`` of the Baidu JSON-LD: the first publication (schema.org's
    ``datePublished``, from 2025, is the last edit and is not read)."""
    found = []
    for script in page.xpath("//script[@type='application/ld+json']/text()").getall():
        try:
            data = json.loads(script)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("pubDate"), str):
            found.append(data["pubDate"])
    return found


class CsdnLayout(Layout):
    """Reads the server HTML of CSDN's list and post pages, and the author's RSS feed.

    Lists: the old author home and ``/article/list/N`` (2019 "phoenix" template,
    list-*.min.css): ``div.article-list > div.article-item-box`` (skipping the
    ``display: none`` box of another user the template puts first) with ``h4 > a`` (its
    ``span.article-type`` 原 is no part of the title), ``p.content``, ``span.date``,
    ``span.read-num`` 阅读数/评论数. A column (``/category_N.html``, blogv2):
    ``ul.column_article_list > li > a`` with ``h2.title``, ``div.column_article_desc`` and
    ``div.column_article_data`` spans (date; views and comments marked by their icon); the
    column's ``h3.column_title`` is each post's category. Both page by JavaScript only
    (``baseUrl``, ``pageSize``, ``listTotal``: ``/N`` or ``_N.html``). The author is the
    profile's ``#uid`` (the list shows none per post). The blogv2 home page is filled by
    JavaScript: from a start page listing nothing the author's ``/rss/list`` is probed, and a
    feed is read as the feed layout reads one.
    Post pages: the body is ``div#content_views`` (blogv2, rich text or markdown) or, in the
    2018 phoenix markup, ``div#article_content > div.htmledit_views`` without an id. The
    first publication is the Baidu JSON-LD ``pubDate`` (``div.up-time`` "于 … 首次发布",
    ``var postTime``); the visible ``span.time`` "已于 … 修改" / "最后发布于" is the last
    edit, while in 2018 it is the only date (the publication). schema.org ``datePublished``
    (2025+) is the last edit and is not read. Views from the header ``span.read-count`` only
    (the aside's 热门文章 count is stale), likes ``#blog-digg-num`` (2018: the tool box's
    ``button.btn-like``), comments ``var commentscount``; tags and categories are the
    ``a.tag-link`` of ``.tags-box.artic-tag-box`` after 文章标签 / 分类专栏 (never the
    blog-wide aside ``#asideCategory``; 2018 leaves these links unclosed). A JS cookie
    challenge is no page: a list gets a ``page_problem``, a post page gives no body, so the
    spider counts the post page as not read. Checked against saved pages (tests/cases/csdn,
    tests/post_cases/csdn: 2018 and 2024 posts, a 2019 list, a 2021 column, a challenge).
    """

    name = "csdn"
    signature = (
        "link[href*='csdnimg.cn/release/phoenix/'], link[href*='csdnimg.cn/release/blogv2/']",
        "div.article-list > div.article-item-box[data-articleid]",
        "ul.column_article_list > li > a > div.column_article_title",
        "h1.title-article, div#content_views",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        if looks_like_feed(response.body):
            return FeedLayout.post_nodes(response)
        return response.xpath(_POSTS)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        if node.type == "xml":  # an item of the author's RSS
            FeedLayout.populate(loader, node, response)
            return
        if node.root.tag == "li":  # a column page
            title = f".//h2[{has_class('title')}]//text(){_NOT_TYPE}"
            loader.add_value("url", node_texts(node, "./a/@href"))
            loader.add_value("title", node_texts(node, title))
            loader.add_value("summary", node_texts(node.css(".column_article_desc")))
            data = node.css(".column_article_data > span")
            loader.add_value("published_raw", node_texts(data[:1]))
            _add_counts(loader, data[1:])
            column = f"normalize-space((//h3[{has_class('column_title')}])[1])"
            loader.add_value("category", node_texts(response.selector, column))
        else:
            loader.add_value("url", node_texts(node, "(./h4/a/@href)[1]"))
            loader.add_value("title", node_texts(node, f"(./h4/a)[1]//text(){_NOT_TYPE}"))
            loader.add_value("summary", node_texts(node.css("p.content")))
            loader.add_value("published_raw", node_texts(node.css("span.date")))
            _add_counts(loader, node.css("span.read-num"))
        loader.add_value("author", node_texts(response.selector, "normalize-space(//*[@id='uid'])"))
        loader.add_value("author", _script_var(response, "nickName"))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        if looks_like_feed(response.body):
            return FeedLayout.next_page_urls(response)
        script = " ".join(response.xpath("//script[contains(., 'listTotal')]/text()").getall())
        pager = {name: value.strip().strip("'\" ") for name, value in _PAGER.findall(script)}
        numbers = [pager.get(name, "") for name in ("currentPage", "pageSize", "listTotal")]
        base = pager.get("baseUrl")
        if not base or not all(number.isdigit() for number in numbers):
            return []
        current, size, total = map(int, numbers)
        if current * size >= total:
            return []
        if "/category_" in base:  # the page's getAllUrl: a column's pages are _N.html
            return [f"{base}_{current + 1}.html"]
        query = pager.get("pageQueryStr", "")
        return [f"{base}/{current + 1}{query if query.strip('?') else ''}"]  # no bare "?"

    @classmethod
    def page_problem(cls, response: TextResponse) -> str | None:
        if _is_challenge(response):
            return "a CSDN JS cookie challenge (ydclearance), not the page: retry it more slowly"
        return None

    @classmethod
    def probe_urls(cls, response: TextResponse) -> Iterable[str]:
        # The blogv2 home lists its posts by JavaScript: the author's RSS lists them too.
        parts = urlsplit(response.url)
        user = _script_var(response, "username") or parts.path.strip("/").split("/")[0]
        if parts.netloc != "blog.csdn.net" or not user or looks_like_feed(response.body):
            return ()
        return () if response.xpath(_POSTS) else [f"https://blog.csdn.net/{user}/rss/list"]

    @classmethod
    def site_root(cls, url: str) -> str:
        # Every blog lives under blog.csdn.net/<user>/: never wander into another blog.
        parts = urlsplit(url)
        user = parts.path.strip("/").split("/")[0]
        return f"{parts.scheme}://{parts.netloc}/{user}/" if user else super().site_root(url)

    # ---- post pages -------------------------------------------------------------------
    post_body = "#content_views, #article_content > .htmledit_views"
    # Line numbers CSDN's markdown view puts in its code blocks (not in the saved cases).
    post_chrome = (".pre-numbering", ".hljs-button")
    post_page = "#article_content"

    @classmethod
    def read_post(cls, response: TextResponse) -> PostPage:
        if _is_challenge(response):  # no body: the spider counts the page as not read
            return PostPage(evidence=("a CSDN JS cookie challenge",))
        return super().read_post(response)

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        page = response.selector
        for link in page.xpath(_TERMS):
            label = link.xpath(f"normalize-space(preceding::span[{has_class('label')}][1])")
            is_column = "/category_" in link.attrib.get("href", "")
            category = is_column or label.get("").startswith("分类")
            loader.add_value("category" if category else "tags", node_texts(link))
        shown = " ".join(
            node_texts(page, f"normalize-space(({_HEADER}//span[{has_class('time')}])[1])")
        )
        edited = any(word in shown for word in ("修改", "最后", "更新"))
        loader.add_value("published_page", _baidu_pub_dates(page))
        up_time = f"normalize-space(//*[{has_class('up-time')}])"  # "于 … 首次发布"
        loader.add_value("published_page", node_texts(page, up_time))
        loader.add_value("published_page", _script_var(response, "postTime"))
        loader.add_value("updated_raw" if edited else "published_page", shown)
        cls.populate_post_metadata(loader, response)
        read = f"({_HEADER}//span[{has_class('read-count')}][not(@id='blog-digg-num')])[1]"
        loader.add_value("views", node_texts(page, f"normalize-space({read})"))
        likes = (
            "normalize-space(//*[@id='blog-digg-num'] | //button[contains(@class, 'btn-like')]/p)"
        )
        loader.add_value("likes", node_texts(page, likes))
        loader.add_value("comments", _script_var(response, "commentscount"))
