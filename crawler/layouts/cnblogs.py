"""Layout of cnblogs (博客园) blogs: home pages and monthly archives."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.xpath import has_class, node_texts

_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?")
# What the postDesc's own text holds besides the author: the prefix, date, counts, separators.
_NOT_AUTHOR = re.compile(rf"posted\s*@|{_DATE.pattern}|(?:阅读|评论|推荐)\s*[(（]\s*\d+\s*[)）]|\|")
_PINNED, _MORE = has_class("pinned-post-mark"), has_class("c_b_p_desc_readmore")
# A post on a home page (the title of a day's run of siblings) or in a monthly archive.
_POSTS = (
    f"//div[{has_class('day')}]/div[{has_class('postTitle')}] | //div[{has_class('entrylistItem')}]"
)
_LINK = f"(.//a[{has_class('postTitle2')} or {has_class('entrylistItemTitle')}])[1]"
_SUMMARY = f"descendant-or-self::*[{has_class('c_b_p_desc')}]//text()[not(parent::*[{_MORE}])]"
# The ids a post page's scripts carry, for the category/tag endpoint its JavaScript calls.
_BLOG_ID = re.compile(r"\b(?:currentBlogId|cb_blogId)\s*=\s*(\d+)")
_BLOG_APP = re.compile(r"\b(?:currentBlogApp|cb_blogApp)\s*=\s*['\"]([\w-]+)['\"]")
_ENTRY_ID = re.compile(r"\bcb_entryId\s*=\s*(\d+)")
_CATEGORIES, _TAGS = "//*[@id='BlogPostCategory']//a/text()", "//*[@id='EntryTag']//a/text()"
_NEXT = (
    "//div[@id='nav_next_page']/a/@href"
    f" | //div[{has_class('pager')}]//a[starts-with(normalize-space(), '下一页')]/@href"
)


def _parts_after(title: Selector) -> tuple[SelectorList, SelectorList]:
    """The ``div.postCon`` and ``div.postDesc`` of the post whose ``div.postTitle`` is given:
    the siblings after it, up to the next post's title (a day may hold several posts)."""
    found: dict[str, Selector] = {}
    for sibling in title.root.itersiblings():
        classes = str(sibling.get("class", "")).split() if isinstance(sibling.tag, str) else []
        if "postTitle" in classes:
            break
        for part in ("postCon", "postDesc"):
            if part in classes and part not in found:
                found[part] = Selector(root=sibling, type="html")
        if "postDesc" in found:
            break
    con, desc = (SelectorList([found[p]] if p in found else []) for p in ("postCon", "postDesc"))
    return con, desc


class CnblogsLayout(Layout):
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
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.xpath(_POSTS)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        if "postTitle" in node.attrib.get("class", "").split():
            con, desc = _parts_after(node)
        else:
            con, desc = node.css(".entrylistPostSummary"), node.css(".entrylistItemPostDesc")
        loader.add_value("url", node_texts(node, f"{_LINK}/@href"))
        # The pinned mark (span.pinned-post-mark) is not part of the title.
        loader.add_value("title", node_texts(node, f"{_LINK}//text()[not(parent::*[{_PINNED}])]"))
        loader.add_value("summary", node_texts(con, _SUMMARY))
        meta = "".join(node_texts(desc[:1], "string()"))
        date = _DATE.search(meta)
        loader.add_value("published_raw", date.group() if date else None)
        # The author is the postDesc's own text after the date (counts may be plain text too).
        loader.add_value("author", _NOT_AUTHOR.sub(" ", " ".join(node_texts(desc, "./text()"))))
        loader.add_counts([meta])

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        return list(dict.fromkeys(h.strip() for h in response.xpath(_NEXT).getall()))

    # A post page (/<app>/p/<id>.html): the body is the same div in every skin; the
    # signature and the code toolbars of the old editor are not the post.
    post_body = "#cnblogs_post_body"
    post_chrome = ("#MySignature", ".cnblogs_code_toolbar", ".cnblogs_code_copy")

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        cls.populate_post_metadata(loader, response)
        cls.populate_post_extra(loader, response)  # filled when the page was saved after JS

    @classmethod
    def post_extra_urls(cls, response: TextResponse) -> Iterable[str]:
        """The category/tag endpoint the page's JavaScript would call, unless the page
        already holds its answer."""
        if node_texts(response.selector, f"{_CATEGORIES} | {_TAGS}"):
            return ()
        scripts = " ".join(response.xpath("//script[not(@src)]/text()").getall())
        found = [pattern.search(scripts) for pattern in (_BLOG_APP, _BLOG_ID, _ENTRY_ID)]
        if not all(found):
            return ()
        app, blog, entry = (match.group(1) for match in found if match)
        return [f"/{app}/ajax/CategoriesTags.aspx?blogId={blog}&postId={entry}"]

    @classmethod
    def populate_post_extra(cls, loader: PostLoader, response: TextResponse) -> None:
        loader.add_value("category", node_texts(response.selector, _CATEGORIES))
        loader.add_value("tags", node_texts(response.selector, _TAGS))

    @classmethod
    def site_root(cls, url: str) -> str:
        # Every blog lives under www.cnblogs.com/<app>/: never wander into another blog.
        parts = urlsplit(url)
        app = parts.path.strip("/").split("/")[0]
        return f"{parts.scheme}://{parts.netloc}/{app}/" if app else super().site_root(url)
