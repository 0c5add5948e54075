"""Layout of Jekyll blogs on the Hux Blog theme (Huxpro/huxpro.github.io): the paginated index."""

from __future__ import annotations

import re
from collections.abc import Iterable

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.xpath import has_class, node_texts

# index.html prints `Posted by {author, else site.title} on {{ post.date | date: "%B %-d, %Y" }}`.
# The author match is greedy: a name may itself hold " on ", the date never does.
_META = re.compile(r"^\s*Posted\s+by\s+(.*\S)\s+on\s+(.+?)\s*$", re.DOTALL)
_LINK = "./a[@href][1]"
_TITLE = f"{_LINK}//h2[{has_class('post-title')}]//text()"
_SUMMARY = f"{_LINK}//div[{has_class('post-content-preview')}]//text()"
_POSTED = f"string((.//p[{has_class('post-meta')}])[1])"


class HuxLayout(Layout):
    """Reads the index pages of the Hux Blog Jekyll theme.

    A post is ``div.post-preview``: ``a[href]`` wrapping ``h2.post-title``, an optional
    ``h3.post-subtitle`` (not part of the title) and ``div.post-content-preview`` (the post text,
    HTML stripped and cut to 200 characters with ``...``), then ``p.post-meta``. Paging is
    jekyll-paginate's ``ul.pager > li.next > a`` (``/page2``). Checked against the theme's
    ``index.html``, ``_layouts/page.html`` and ``_includes/intro-header.html`` / ``friends.html``
    in Huxpro/huxpro.github.io. The index shows no category, tags or counts.
    """

    name = "hux"
    signature = ("nav.navbar-custom", "div.post-preview > a > h2.post-title", "ul.pager li.next")

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css("div.post-preview")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        loader.add_value("url", node_texts(node, f"{_LINK}/@href"))
        loader.add_value("title", node_texts(node, _TITLE))
        loader.add_value("summary", node_texts(node, _SUMMARY))
        match = _META.match("".join(node_texts(node, _POSTED)))
        if match:
            loader.add_value("author", match.group(1))
            loader.add_value("published_raw", match.group(2))

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        links = (h.strip() for h in response.css("ul.pager li.next a::attr(href)").getall())
        return unique(links)

    # A post page (_layouts/post.html): the body is div.post-container, which also holds the
    # previous/next pager, the share box and the comment box; tags are in the header. Older
    # builds (2016-2019) put Duoshuo's share box there (div.ds-share, "分享到：", with its
    # comment box div.ds-thread), or JiaThis / Baidu share bars.
    post_body = ".post-container"
    post_chrome = (
        "ul.pager",
        ".social-share-wrapper",
        ".social-share",
        ".ds-share",
        ".ds-thread",
        ".jiathis_style",
        ".bdsharebuttonbox",
        ".comment",
        "#disqus_comment",
        "#disqus_thread",
        "#gitalk-container",
        "#lv-container",
        "hr[style]",
        ".post-footer-item",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        loader.add_css("tags", "header .post-heading .tags a.tag::text, header .tags a::text")
        cls.populate_post_metadata(loader, response)
