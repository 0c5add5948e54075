"""Where a blog lists its posts besides its pages: the feeds a page announces, the usual feed
paths, the Sitemap: lines of robots.txt, whether a body is a feed or a sitemap, and a
sitemap's (or sitemap index's) entries with their lastmod."""

from __future__ import annotations

import pytest
from parsel import Selector

from crawler.discovery.sources import (
    USUAL_FEEDS,
    USUAL_SITEMAP,
    SitemapEntry,
    announced_feeds,
    feed_candidates,
    is_sitemap,
    looks_like_feed,
    robots_sitemaps,
    sitemap_entries,
)

ROOT = "https://blog.example.cn/"
BOM = b"\xef\xbb\xbf"

# ---- feeds a page announces ---------------------------------------------------------------


def test_a_hexo_page_announces_its_atom_feed() -> None:
    html = (
        '<html><head><meta name="generator" content="Hexo 6.3.0">'
        '<link rel="alternate" href="/atom.xml" title="某人的博客" type="application/atom+xml">'
        '<link rel="stylesheet" href="/css/main.css" type="text/css">'
        '<link rel="icon" href="/favicon.ico" type="image/x-icon">'
        "</head><body></body></html>"
    )
    page = Selector(text=html)
    assert announced_feeds(page, "https://blog.example.cn/2023/01/19/slug/") == [
        "https://blog.example.cn/atom.xml"
    ]


def test_a_wordpress_page_announces_its_feeds_in_page_order_without_repeats() -> None:
    html = (
        '<link rel="alternate" type="application/rss+xml" title="博客 &raquo; Feed" '
        'href="https://blog.example.cn/feed/" />'
        '<link rel="alternate" type="application/rss+xml" title="博客 &raquo; 评论 Feed" '
        'href="https://blog.example.cn/comments/feed/" />'
        '<link rel="alternate" type="application/json+oembed" '
        'href="https://blog.example.cn/wp-json/oembed/1.0/embed?url=x" />'
        '<link rel="alternate" hreflang="en" href="https://blog.example.cn/en/" />'
        '<link rel="alternate" type="application/rss+xml" href="https://blog.example.cn/feed/" />'
    )
    assert announced_feeds(Selector(text=html), ROOT) == [
        "https://blog.example.cn/feed/",
        "https://blog.example.cn/comments/feed/",
    ]


def test_json_feed_and_loose_spelling_of_rel_and_type_are_announced() -> None:
    html = (
        '<link rel="Alternate" type=" Application/RSS+XML " href=" rss.xml ">'
        '<link rel="alternate nofollow" type="application/feed+json" href="/feed.json">'
        '<link rel="alternate" type="application/atom+xml" href="https://feeds.example.cn/a">'
    )
    base = "https://someone.github.io/blog/"
    assert announced_feeds(Selector(text=html), base) == [
        "https://someone.github.io/blog/rss.xml",
        "https://someone.github.io/feed.json",
        "https://feeds.example.cn/a",
    ]


def test_links_that_are_no_feed_are_not_announced() -> None:
    html = (
        '<link rel="canonical" href="/x/" type="application/rss+xml">'  # not alternate
        '<link rel="alternate" href="/atom.xml">'  # no type
        '<a rel="alternate" type="application/rss+xml" href="/rss.xml">RSS</a>'  # not <link>
        '<link rel="alternate" type="text/html" href="/m/">'
    )
    assert announced_feeds(Selector(text=html), ROOT) == []


def test_feed_candidates_are_the_announced_feeds_else_the_usual_paths() -> None:
    announced = ["https://blog.example.cn/feed/"]
    assert feed_candidates(ROOT, announced) == announced
    assert feed_candidates(ROOT, iter(announced)) == announced  # any iterable
    assert feed_candidates(ROOT, []) == [
        "https://blog.example.cn/atom.xml",
        "https://blog.example.cn/feed.xml",
        "https://blog.example.cn/index.xml",
        "https://blog.example.cn/rss.xml",
    ]
    assert feed_candidates("https://someone.github.io/blog/", ()) == [
        "https://someone.github.io/blog/" + path for path in USUAL_FEEDS
    ]


def test_usual_paths_are_those_of_hexo_jekyll_and_hugo() -> None:
    assert {"atom.xml", "feed.xml", "index.xml"} <= set(USUAL_FEEDS)
    assert USUAL_SITEMAP == "sitemap.xml"


# ---- robots.txt ----------------------------------------------------------------------------

ROBOTS = b"""\
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php

Sitemap: https://blog.example.cn/sitemap_index.xml
sitemap: https://blog.example.cn/post-sitemap.xml
  SITEMAP:/page-sitemap.xml
Sitemap: https://blog.example.cn/sitemap_index.xml
# Sitemap: https://blog.example.cn/old-sitemap.xml
"""


def test_robots_sitemaps_are_every_sitemap_line_absolute_without_repeats() -> None:
    assert robots_sitemaps(ROBOTS, ROOT) == [
        "https://blog.example.cn/sitemap_index.xml",
        "https://blog.example.cn/post-sitemap.xml",
        "https://blog.example.cn/page-sitemap.xml",
    ]


def test_robots_sitemaps_with_crlf_lines() -> None:
    robots = b"User-agent: *\r\nDisallow:\r\nSitemap: https://blog.example.cn/sitemap.xml\r\n"
    assert robots_sitemaps(robots, ROOT) == ["https://blog.example.cn/sitemap.xml"]


@pytest.mark.filterwarnings("ignore::scrapy.exceptions.ScrapyDeprecationWarning")
def test_robots_sitemaps_of_text() -> None:
    robots = "User-agent: *\nSitemap: /sitemap.xml\n"
    assert robots_sitemaps(robots, ROOT) == ["https://blog.example.cn/sitemap.xml"]


def test_robots_without_sitemaps() -> None:
    assert robots_sitemaps(b"User-agent: *\nDisallow: /admin/\n", ROOT) == []
    assert robots_sitemaps(b"", ROOT) == []


def test_robots_sitemaps_of_a_robots_txt_saved_with_a_bom() -> None:
    robots = BOM + b"Sitemap: https://blog.example.cn/sitemap.xml\nUser-agent: *\nDisallow:\n"
    assert robots_sitemaps(robots, ROOT) == ["https://blog.example.cn/sitemap.xml"]


# ---- feeds ---------------------------------------------------------------------------------

RSS = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel><title>Blog</title><link>https://blog.example.cn/</link>
<item><title>First</title><link>https://blog.example.cn/2023/01/19/first/</link></item>
</channel></rss>
"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>
<entry><title>First</title><link href="https://blog.example.cn/posts/first/"/></entry>
</feed>
"""
RDF = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://blog.example.cn/"><title>Blog</title></channel></rdf:RDF>
"""


@pytest.mark.parametrize(
    "body",
    [
        RSS,
        ATOM,
        RDF,
        b'<rss version="2.0"><channel></channel></rss>',  # no declaration
        b"\n\n   " + ATOM,  # whitespace before the declaration (a PHP include's newline)
        b"\r\n" + RSS,
        # A stylesheet to show the feed in browsers (Hexo, Hugo, WordPress plugins).
        b'<?xml version="1.0" encoding="utf-8"?>\n'
        b'<?xml-stylesheet type="text/xsl" href="/rss.xsl"?>\n'
        b'<rss version="2.0"><channel></channel></rss>',
        b'<?xml version="1.0"?>\n<!-- generator="WordPress/6.4" -->\n<rss version="2.0"></rss>',
        b'<?xml version="1.0"?>\n<!-- one\nand two -->\n<!-- three -->\n<feed xmlns="x"></feed>',
    ],
)
def test_rss_atom_and_rdf_documents_look_like_feeds(body: bytes) -> None:
    assert looks_like_feed(body)


@pytest.mark.parametrize("body", [BOM + RSS, BOM + ATOM])
def test_feeds_saved_with_a_bom_look_like_feeds(body: bytes) -> None:
    assert looks_like_feed(body)


@pytest.mark.parametrize(
    "body",
    [
        b"<!DOCTYPE html><html><head><title>Blog</title></head><body>rss</body></html>",
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>',
        b'{"version": "https://jsonfeed.org/version/1.1", "items": []}',
        b'<html><body><pre>&lt;rss version="2.0"&gt;</pre></body></html>',
        b"<rsstuff/>",  # a root that only starts like one
        b"",
    ],
)
def test_other_bodies_do_not_look_like_feeds(body: bytes) -> None:
    assert not looks_like_feed(body)


# ---- sitemaps ------------------------------------------------------------------------------

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="//blog.example.cn/main-sitemap.xsl"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>https://blog.example.cn/2023/01/19/first/</loc>
    <lastmod>2023-01-20T08:30:00+08:00</lastmod>
    <image:image><image:loc>https://blog.example.cn/images/a.png</image:loc></image:image>
  </url>
  <url>
    <loc>
      https://blog.example.cn/posts/second/
    </loc>
    <lastmod> 2022-12-01 </lastmod>
    <changefreq>monthly</changefreq>
    <priority>0.6</priority>
  </url>
  <url><loc>https://blog.example.cn/about/</loc></url>
  <url><loc>https://blog.example.cn/tags/go/</loc><lastmod></lastmod></url>
  <url><lastmod>2020-01-01</lastmod></url>
</urlset>
"""
INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://blog.example.cn/post-sitemap.xml</loc>
    <lastmod>2024-05-01T10:00:00+00:00</lastmod></sitemap>
  <sitemap><loc>https://blog.example.cn/page-sitemap.xml</loc></sitemap>
</sitemapindex>
"""


def test_a_urlset_gives_each_url_with_its_lastmod() -> None:
    assert sitemap_entries(URLSET) == (
        "urlset",
        [
            SitemapEntry("https://blog.example.cn/2023/01/19/first/", "2023-01-20T08:30:00+08:00"),
            SitemapEntry("https://blog.example.cn/posts/second/", "2022-12-01"),
            SitemapEntry("https://blog.example.cn/about/", None),
            SitemapEntry("https://blog.example.cn/tags/go/", None),  # an empty lastmod is none
        ],
    )


def test_a_sitemap_index_gives_each_sitemap_with_its_lastmod() -> None:
    assert sitemap_entries(INDEX) == (
        "sitemapindex",
        [
            SitemapEntry("https://blog.example.cn/post-sitemap.xml", "2024-05-01T10:00:00+00:00"),
            SitemapEntry("https://blog.example.cn/page-sitemap.xml", None),
        ],
    )


def test_sitemaps_with_a_bom_or_whitespace_before_the_declaration_are_read() -> None:
    # WordPress sites often send a stray newline first ("XML declaration allowed only at
    # the start of the document" in browsers).
    for body in (BOM + INDEX, b"\n" + INDEX, b"\r\n  " + INDEX):
        kind, entries = sitemap_entries(body)
        assert kind == "sitemapindex"
        assert [entry.loc for entry in entries] == [
            "https://blog.example.cn/post-sitemap.xml",
            "https://blog.example.cn/page-sitemap.xml",
        ]


def test_a_sitemap_without_namespace() -> None:
    body = b"<urlset><url><loc>https://blog.example.cn/p/1/</loc></url></urlset>"
    assert sitemap_entries(body) == ("urlset", [SitemapEntry("https://blog.example.cn/p/1/", None)])


@pytest.mark.parametrize(
    "body",
    [
        RSS,
        ATOM,
        b"<!DOCTYPE html><html><body><p>404 Not Found</p></body></html>",
        b"not xml at all",
        b"\x1f\x8b\x08\x00garbage",  # a gzip body not decompressed
        b"",
    ],
)
def test_a_body_that_is_no_sitemap_has_no_entries(body: bytes) -> None:
    assert sitemap_entries(body) == ("", [])


@pytest.mark.parametrize(("body", "expected"), [(URLSET, True), (INDEX, True), (BOM + INDEX, True)])
def test_sitemaps_and_sitemap_indexes_are_sitemaps(body: bytes, expected: bool) -> None:
    assert is_sitemap(body) is expected
    assert is_sitemap(body.replace(b"<urlset", b"<URLSET")) is expected


@pytest.mark.parametrize(
    "body",
    [RSS, ATOM, b"<!DOCTYPE html><html><body>Blog</body></html>", b"User-agent: *\n", b""],
)
def test_feeds_pages_and_robots_are_no_sitemaps(body: bytes) -> None:
    assert not is_sitemap(body)
