"""Layout of Hexo blogs on the Matery theme (blinkfox/hexo-theme-matery, 1.x and 2.x)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts

# The card: a link around the cover image and span.card-title, then the summary and meta.
_LINK = f"./div[{has_class('card')}]/a[@href][1]"
_TITLE = f"{_LINK}//span[{has_class('card-title')}]//text()"
_DATE = f".//span[{has_class('publish-date')}]//text()"
_CATEGORY = f".//span[{has_class('publish-author')}]/a[{has_class('post-category')}]//text()"
_AUTHOR = f".//span[{has_class('publish-author')}][i[{has_class('fa-user')}]]//text()"
# A post page's own tags and categories are in the card's header (.article-info); the tags
# come again in .tag_share and the prev/next cards. A post without tags shows a "notag" chip
# that links nowhere: only linked chips are tags.
_INFO = f"//div[@id='artDetail']//div[{has_class('article-info')}]"
_TAGS = f"({_INFO}//div[{has_class('article-tag')}])[1]/a//span[{has_class('chip')}]//text()"
_CATEGORIES = f"{_INFO}//*[{has_class('post-cate')}]/a[{has_class('post-category')}]"
# "更新日期:&nbsp;&nbsp; 2024-05-01": the update date is the .post-date with the check icon.
_UPDATED = f"string({_INFO}//div[{has_class('post-date')}][i[{has_class('fa-calendar-check')}]])"


class MateryLayout(Layout):
    """Reads the home page (``/``, ``/page/N/``) and post pages of the Hexo Matery theme.

    List (layout/index.ejs, the same in 1.0.0 to 2.0.0 and master): posts are
    ``article#articles > div.article-row > div.article`` (the home page's ``#recommend-sections``
    cards and cover carousel repeat posts outside it; a post page's ``article#prenext-posts``
    uses the same cards under another id). In a card: ``div.card > a[href]`` around
    ``span.card-title``; ``div.summary`` (front matter ``summary``, else the stripped content
    cut to 120 characters, no ellipsis); ``span.publish-date`` with the date only, in the
    site's ``date_format`` (no time, no ``datetime``); ``span.publish-author`` holds the
    categories as ``a.post-category`` or, without any, the author after an ``i.fa-user``
    (``fa`` in 1.0/1.1, ``fas`` from 1.2); tags ``div.article-tags a > span.chip``. 2.x adds
    ``post.hide`` (a hidden post is not printed). Paging (paging.ejs): ``div.paging`` with
    ``a.right.btn-floating[href]`` (no rel, no text; ``a.disabled`` without href on the last).
    Post page (post-detail.ejs): ``#artDetail .article-info`` holds the tags
    (``div.article-tag a > span.chip``; a "notag" chip without link when none), the
    categories ``div.post-cate > a.post-category`` and ``div.post-info`` with dates only:
    "发布日期" (``i.fa-calendar-minus``) and, from 1.2, "更新日期" (``i.fa-calendar-check``).
    The body is ``div#articleContent``; the reprint box (``.reprint``, ``#reprint-statement``
    from 1.1), share (``.tag_share`` from 1.2, ``#article-share``), reward (``#reward``),
    comments, ``#prenext-posts`` and the TOC (``#toc-aside``) follow outside it.
    Checked against blinkfox/hexo-theme-matery at tags v1.0.0, v1.1.0, v1.2.0, v1.2.2, v1.3.2,
    v2.0.0 and master 31cae5e (layout/index.ejs, category.ejs, _partial/paging.ejs,
    post-detail.ejs, prev-next.ejs, reprint-statement.ejs, reward.ejs) and the sites built
    with 1.2.2 (1411v6/hexobeifen) and 2.0.0 (Check-LC/ops_blog).
    """

    name = "matery"
    signature = (
        "link[href*='css/matery.css']",
        "a[href*='blinkfox/hexo-theme-matery']",
        "#articles .article-row .card-title",
        "#artDetail #articleContent",
        "#prenext-posts",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css("#articles > .article-row > .article")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        loader.add_value("url", node_texts(node, f"{_LINK}/@href"))
        loader.add_value("title", node_texts(node, _TITLE))
        # As HTML: a front-matter summary may hold markup.
        loader.add_html_summary("".join(node.css(".summary").xpath("node()").getall()))
        loader.add_value("published_raw", node_texts(node, _DATE))
        loader.add_value("category", node_texts(node, _CATEGORY))
        loader.add_value("author", node_texts(node, _AUTHOR))
        loader.add_value("tags", node.css(".article-tags a .chip::text").getall())

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = response.css(".paging a.right[href]::attr(href)").getall()
        return unique(h.strip() for h in links)

    # The body holds only the post; the boxes after it are listed too, as an unclosed tag in a
    # post can make the parser nest them inside. The bb (说说) layout adds a Vue app (#app).
    post_body = "#articleContent"
    post_chrome = (
        ".reprint",
        "#reprint-statement",
        ".tag_share",
        "#article-share",
        "#reward",
        "#prenext-posts",
        "#toc-aside",
        "main#app",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        page = response.selector
        loader.add_value("tags", node_texts(page, _TAGS))
        loader.add_value("category", [" ".join(node_texts(a)) for a in page.xpath(_CATEGORIES)])
        # The label is localised; the date follows its colon.
        updated = "".join(node_texts(page, _UPDATED)).rpartition(":")[2]
        loader.add_value("updated_raw", updated)
        cls.populate_post_metadata(loader, response)
