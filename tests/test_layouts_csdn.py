"""The CSDN layout's way to the posts of a blogv2 home page, which lists them by JavaScript
only: the author's RSS (``/<user>/rss/list``), probed from a start page listing nothing and
read as the feed layout reads a feed. No CSDN feed or blogv2 home page answer was found
saved in a public repository: the two pages below are written here, in the shape RSS 2.0
and the saved CSDN pages have (``var username``), and say so."""

from __future__ import annotations

from pathlib import Path

from scrapy.http import HtmlResponse, XmlResponse

from crawler.layouts.csdn import CsdnLayout

CASES = Path(__file__).parent / "cases" / "csdn"
HOME = "https://blog.csdn.net/2403_89110232"
# Written here: a blogv2 home as the server sends it, the list left to a script.
BLOGV2_HOME = """<!DOCTYPE html><html><head><title>crispsea的博客_CSDN博客</title>
<link rel="stylesheet" href="https://csdnimg.cn/release/blogv2/dist/pc/css/common.css">
<script>var username = "2403_89110232"; var nickName = "crispsea";</script></head>
<body><div id="app"></div></body></html>"""
# Written here: RSS 2.0 as a feed of the author's posts.
FEED = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>crispsea的博客</title>
<link>https://blog.csdn.net/2403_89110232</link>
<item><title><![CDATA[git设置多用户配置]]></title>
<link>https://blog.csdn.net/2403_89110232/article/details/143888439</link>
<pubDate>Tue, 19 Nov 2024 16:16:18 +0800</pubDate>
<description><![CDATA[<p>作为一名出色的开发工程师</p>]]></description></item>
</channel></rss>"""


def test_a_home_page_listing_nothing_probes_the_authors_rss() -> None:
    home = HtmlResponse(HOME, body=BLOGV2_HOME.encode(), encoding="utf-8")
    assert list(CsdnLayout.extract(home)) == []
    assert list(CsdnLayout.probe_urls(home)) == [f"{HOME}/rss/list"]


def test_a_list_page_that_lists_its_posts_probes_nothing() -> None:
    page = (CASES / "list-2019-angcyo" / "page.html").read_bytes()
    listed = HtmlResponse("https://blog.csdn.net/angcyo", body=page)
    assert CsdnLayout.extract(listed)
    assert list(CsdnLayout.probe_urls(listed)) == []


def test_the_authors_rss_is_read_as_a_feed() -> None:
    feed = XmlResponse(f"{HOME}/rss/list", body=FEED.encode())
    (post,) = CsdnLayout.extract(feed)
    assert post["url"] == f"{HOME}/article/details/143888439"
    assert post["title"] == "git设置多用户配置"
    assert post["published_raw"] == "Tue, 19 Nov 2024 16:16:18 +0800"
    assert list(CsdnLayout.next_page_urls(feed)) == []
    assert list(CsdnLayout.probe_urls(feed)) == []
