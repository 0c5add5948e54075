"""Layout of WordPress blogs on a classic default theme (Twenty Twenty-One and its kin)."""

from __future__ import annotations

from collections.abc import Iterable

from parsel import Selector
from scrapy.http import TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import unique
from crawler.parsing.terms import rel_terms
from crawler.parsing.xpath import node_texts

# The excerpt without the "Continue reading <title>" link the theme appends to auto-excerpts.
_EXCERPT = ".//text()[not(ancestor::*[contains(@class, 'more-link')])]"
# the_posts_pagination()'s a.next is "Older posts"; so is the_posts_navigation()'s .nav-previous.
_NEXT = ".nav-links a.next::attr(href), .posts-navigation .nav-previous a::attr(href)"


class WordpressLayout(Layout):
    """Reads the blog index (``/``, ``/page/N/``) and archives of classic WordPress themes.

    A post is ``article.post`` (``post_class()``; a sticky post adds ``sticky`` on page 1,
    where WordPress lists it first, and appears again at its place on a later page): title
    link ``.entry-title a``, excerpt ``.entry-content`` or ``.entry-summary`` (``the_excerpt``;
    an auto-excerpt ends with ``&hellip;`` and ``a.more-link``), date
    ``time.entry-date[datetime]`` (``DATE_W3C``, with offset), categories ``.cat-links a``,
    tags ``.tags-links a``, author ``.byline a`` where the theme prints one (Twenty Twenty-One
    does not on lists). Checked against WordPress/twentytwentyone and
    WordPress/wordpress-develop (src/wp-content/themes/twentytwentyone: index.php,
    template-parts/content/content-excerpt.php, template-parts/header/excerpt-header.php,
    inc/template-tags.php, inc/template-functions.php; src/wp-includes/link-template.php
    ``_navigation_markup``, general-template.php ``paginate_links``).
    """

    name = "wordpress"
    signature = (
        "meta[name=generator][content^=WordPress]",
        "link[rel='https://api.w.org/']",
        "article.post .entry-title a",
        "time.entry-date[datetime]",
    )

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return response.css("article.post")

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        link = node.css(".entry-title a")[:1]
        loader.add_value("url", link.attrib.get("href"))
        loader.add_value("title", node_texts(link))
        body = node.css(".entry-summary, .entry-content")[:1]
        loader.add_value("summary", node_texts(body, _EXCERPT))
        loader.add_css("published_raw", "time.entry-date::attr(datetime)")
        loader.add_css("author", ".byline a::text")
        loader.add_css("category", ".cat-links a::text")
        loader.add_value("tags", node.css(".tags-links a::text").getall())

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        return unique(h.strip() for h in response.css(_NEXT).getall())

    # A post page (single.php): the body is .entry-content, where plugins append their boxes
    # (removed by their own markup, as each plugin writes it): post ratings (WP-PostRatings,
    # lesterchan/wp-postratings the_ratings(): div.post-ratings and its -loading sibling),
    # related posts (YARPP div.yarpp-related / .yarpp; Jetpack #jp-relatedposts; WordPress
    # Related Posts div.wp_rp_wrap > ul.related_post), share bars (Jetpack div.sharedaddy,
    # AddToAny .addtoany_share_save_container / .a2a_kit, Kiwi, JiaThis div.jiathis_style /
    # #ckepop, Baidu div.bdsharebuttonbox / #bdshare). Categories and tags: the links
    # the_category() and the_tags() write (rel="category tag" or "category"; rel="tag"),
    # whatever the theme, then the default themes' .cat-links, .tags-links.
    post_body = ".entry-content"
    post_chrome = (
        ".post-ratings",
        ".post-ratings-loading",
        ".yarpp-related",
        ".yarpp",
        ".jp-relatedposts",
        "#jp-relatedposts",
        ".wp_rp_wrap",
        "ul.related_post",
        ".sharedaddy",
        ".addtoany_share_save_container",
        ".a2a_kit",
        ".kiwi-article-bar",
        ".jiathis_style",
        "#ckepop",
        ".bdsharebuttonbox",
        "#bdshare",
        ".post-nav-links",
        ".screen-reader-text",
    )

    @classmethod
    def populate_post(cls, loader: PostLoader, response: TextResponse) -> None:
        article = response.css("article")[:1] or response.css("body")
        scope = article[0] if article else response.selector
        terms = rel_terms(scope)
        loader.add_value("category", terms.categories)
        loader.add_value(
            "category", article.css(".entry-categories a::text, .cat-links a::text").getall()
        )
        loader.add_value("tags", terms.tags)
        loader.add_value("tags", article.css(".tags-links a::text, .post-tags a::text").getall())
        cls.populate_post_metadata(loader, response)
