"""A blog's links by what they lead to (hubs, candidate posts, skipped), on the URL shapes of
real themes (Hexo, Hugo, Jekyll, VuePress, WordPress, Typecho, Halo); their normal form; and
the links of a page into its site."""

from __future__ import annotations

import pytest
from parsel import Selector

from crawler.discovery.links import CANDIDATE, HUB, SKIP, kind_of, normalise, site_links

ROOT = "https://blog.example.cn/"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://blog.example.cn/a/b/#more", "https://blog.example.cn/a/b/"),
        (
            "https://blog.example.cn/2023/01/19/slug/index.html",
            "https://blog.example.cn/2023/01/19/slug/",
        ),
        ("https://blog.example.cn/index.html", "https://blog.example.cn/"),
        ("https://blog.example.cn/archives/index.htm", "https://blog.example.cn/archives/"),
        ("https://blog.example.cn/index.php", "https://blog.example.cn/"),
        ("https://blog.example.cn", "https://blog.example.cn/"),
        ("https://blog.example.cn/#comments", "https://blog.example.cn/"),
        # The query is part of the address: WordPress posts and pagination live there.
        ("https://blog.example.cn/?p=123#respond", "https://blog.example.cn/?p=123"),
        ("https://blog.example.cn/?paged=2", "https://blog.example.cn/?paged=2"),
        # Only a whole index file is noise: a post named like one is not.
        ("https://blog.example.cn/myindex.html", "https://blog.example.cn/myindex.html"),
        (
            "https://blog.example.cn/2019/05/01/slug.html",
            "https://blog.example.cn/2019/05/01/slug.html",
        ),
    ],
)
def test_normalise_drops_fragments_and_index_files(url: str, expected: str) -> None:
    assert normalise(url) == expected


def test_normalise_is_idempotent() -> None:
    once = normalise("https://blog.example.cn/posts/x/index.html#top")
    assert normalise(once) == once


@pytest.mark.parametrize(
    "path",
    [
        "",  # the home page
        "page/2/",  # Hexo, Hugo, WordPress pagination
        "page/12/",
        "posts/page/3/",  # Hugo section pagination
        "tags/x/page/2/",
        "page2/",  # jekyll-paginate
        "?page=2",
        "blog/?page=3",
        "?paged=2",  # WordPress plain permalinks
        "archives/",  # Hexo
        "archives/2024/05/",
        "archives/page/2/",
        "archives/2024/",
        "author/someone/",  # WordPress author archives
        "archive/",
        "tags/",
        "tags/x/",
        "tags/%E6%80%9D%E7%BB%B4%E5%AF%BC%E5%9B%BE/",
        "tag/y/",  # WordPress, VuePress hope
        "categories/",
        "categories/a/b/",  # Hexo nested categories
        "category/x/",  # WordPress
        "Categories/Linux/",  # case is no matter
        "timeline/",  # VuePress reco / hope
        "series/go/",
        "2024/",  # date archives
        "2024/05/",
        "2024/5/",
        "2024/05/page/2/",
        "posts/",  # a section's own list
        "post/",
        "blog/",
        "blogs/",
        "article/",  # VuePress hope's article list
        "articles/",
        "notes/",
        "archives.html",  # a site saved with its pages as files (Halo through a site copier)
        "categories.html",
        "tags/zk.html",
    ],
)
def test_pages_that_list_posts_are_hubs(path: str) -> None:
    assert kind_of(ROOT + path, ROOT) == HUB


@pytest.mark.parametrize(
    "path",
    [
        "2023/01/19/slug/",  # Hexo default permalink
        "2023/01/19/slug/#more",
        "2020/05/slug/",  # WordPress month-and-name
        "2019/05/01/slug.html",  # Jekyll
        "jekyll/update/2019/05/01/welcome-to-jekyll.html",  # Jekyll with categories
        "posts/slug/",  # Hugo, Jekyll
        "post/slug/",  # Hugo
        "p/slug/",  # Hugo Stack
        "blogs/cat/2021/slug.html",  # VuePress reco
        "posts/%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83/",
        "1234.html",
        "2024/hello-world/",  # a year and a name is no date archive
        "page/about/",  # "page" then no number is no pagination
    ],
)
def test_pages_that_may_be_posts_are_candidates(path: str) -> None:
    assert kind_of(ROOT + path, ROOT) == CANDIDATE


@pytest.mark.parametrize(
    "path",
    ["?p=123", "?page_id=7", "archives/123/", "archives/hello-world", "archives/hello-halo.html"],
)
def test_posts_of_wordpress_typecho_and_halo_default_permalinks_are_candidates(path: str) -> None:
    assert kind_of(ROOT + path, ROOT) == CANDIDATE


@pytest.mark.parametrize(
    "url",
    [
        "https://blog.example.cn/images/cover.png",
        "https://blog.example.cn/2023/01/19/slug/diagram.PNG",  # case is no matter
        "https://blog.example.cn/css/style.css",
        "https://blog.example.cn/js/main.js",
        "https://blog.example.cn/wp-content/uploads/2020/05/a.jpg",
        "https://blog.example.cn/images/cover.webp?v=3",
        "https://blog.example.cn/files/slides.pdf",
        "https://blog.example.cn/atom.xml",  # feeds and sitemaps are read as such
        "https://blog.example.cn/sitemap.xml",
        "https://blog.example.cn/index.xml",
        "https://blog.example.cn/tags/x/index.xml",
        "https://blog.example.cn/search.json",
        "https://blog.example.cn/feed/",  # WordPress
        "https://blog.example.cn/rss/",
        "https://blog.example.cn/about/",
        "https://blog.example.cn/about",
        "https://blog.example.cn/About/",
        "https://blog.example.cn/links/",  # Hexo friends' links
        "https://blog.example.cn/friends/",
        "https://blog.example.cn/search/",
        "https://blog.example.cn/404/",
        "https://blog.example.cn/404.html",
        "https://blog.example.cn/wp-login.php",
        "https://blog.example.cn/wp-admin/",
        "https://blog.example.cn/cdn-cgi/l/email-protection",
        "https://blog.example.cn/guestbook/",
        "https://blog.example.cn/about.html",
        "https://blog.example.cn/s/about.html",  # Halo 1's custom pages (sheets)
        "https://other.example.cn/2023/01/19/slug/",  # another host
        "http://blog.example.cn.evil.cn/2023/01/19/slug/",
        "https://github.com/someone",
        "mailto:me@example.cn",
    ],
)
def test_assets_other_pages_and_other_hosts_are_skipped(url: str) -> None:
    assert kind_of(url, ROOT) == SKIP


def test_a_site_under_a_path_is_read_from_its_root() -> None:
    root = "https://someone.github.io/blog/"
    assert kind_of(root, root) == HUB
    assert kind_of(root + "page/2/", root) == HUB
    assert kind_of(root + "tags/go/", root) == HUB
    assert kind_of(root + "2023/01/19/slug/", root) == CANDIDATE
    assert kind_of(root + "about/", root) == SKIP
    assert kind_of("https://someone.github.io/other-project/x/", root) == SKIP


HOME = """
<html><body>
<nav>
  <a href="/">首页</a><a href="/archives/">归档</a><a href="/tags/">标签</a>
  <a href="/about/">关于</a><a href="https://github.com/someone">GitHub</a>
</nav>
<article><h2><a href="/2023/01/19/first/">First</a></h2>
  <a href="/2023/01/19/first/#more">阅读全文</a></article>
<article><h2><a href="https://blog.example.cn/2022/12/01/second/index.html">Second</a></h2></article>
<article><h2><a href="  /2022/11/05/third/  ">Third</a></h2></article>
<a href="#top">top</a><a href="javascript:void(0)">js</a><a href="mailto:me@example.cn">mail</a>
<a href="tel:+8610000">tel</a><a href="data:text/plain,x">data</a><a href="">empty</a>
<a href="//cdn.example.cn/lib.js">cdn</a><a href="http://[bad">broken</a>
<a>no href</a>
<a href="/page/2/">下一页</a>
</body></html>
"""


def test_site_links_are_absolute_normalised_unique_and_in_page_order() -> None:
    found = site_links(Selector(text=HOME), ROOT, ROOT)
    assert found == [
        "https://blog.example.cn/",
        "https://blog.example.cn/archives/",
        "https://blog.example.cn/tags/",
        "https://blog.example.cn/about/",
        "https://blog.example.cn/2023/01/19/first/",
        "https://blog.example.cn/2022/12/01/second/",
        "https://blog.example.cn/2022/11/05/third/",
        "https://blog.example.cn/page/2/",
    ]


def test_site_links_resolve_relative_links_against_the_page() -> None:
    html = '<a href="../../02/slug/">prev</a><a href="next/">next</a><a href="?page=3">3</a>'
    base = "https://blog.example.cn/2023/01/19/slug/"
    assert site_links(Selector(text=html), base, ROOT) == [
        "https://blog.example.cn/2023/01/02/slug/",
        "https://blog.example.cn/2023/01/19/slug/next/",
        "https://blog.example.cn/2023/01/19/slug/?page=3",
    ]


def test_site_links_of_a_page_without_links_into_the_site() -> None:
    html = '<a href="https://other.example.cn/x/">x</a><a href="mailto:a@b.cn">m</a>'
    assert site_links(Selector(text=html), ROOT, ROOT) == []
