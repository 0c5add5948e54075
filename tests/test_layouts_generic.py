"""The generic reader on single pages of the saved real sites (tests/sites/): the rules each
theme's pages needed, one page each. The whole sites, crawled from their home page, are
tests/scenarios/test_saved_sites.py."""

from __future__ import annotations

from scrapy.http import HtmlResponse
from support.project import TESTS

from crawler.layouts.generic import GenericLayout


def saved_page(site: str, path: str, url: str) -> HtmlResponse:
    body = (TESTS / "sites" / site / "files" / path).read_bytes()
    return HtmlResponse(url, body=body, encoding="utf-8")


def test_a_canonical_address_that_differs_only_in_case_is_not_the_posts() -> None:
    # Redefine lowercases <link rel="canonical">: .../prelogue/ answers 404 on the host.
    url = "http://chenapr.github.io/2025/03/04/Prelogue/"
    page = GenericLayout.read_post(
        saved_page("redefine-2-chenapr", "2025/03/04/Prelogue/index.html", url)
    )
    assert page.is_post and page.fields.get("url", url) == url
    assert page.fields["title"] == "Celeste, Me and Prelogue"
    assert page.fields["published_raw"] == "2025-03-05T00:56:55+08:00"  # the clock it prints


def test_midnight_utc_is_a_day_and_an_rdfa_article_section_a_category() -> None:
    # vuepress-theme-hope writes the front matter's date "2024-02-29" as 2024-02-29T00:00:00.000Z,
    # and the post's category only as <meta property="articleSection" content="Website">.
    url = "https://blog.menghuan1918.com/posts/Start_Web.html"
    page = GenericLayout.read_post(saved_page("hope-2-menghuan1918", "posts/Start_Web.html", url))
    assert page.fields["published_raw"] == "2024-02-29"
    assert page.fields["categories"] == ["Website"] and page.fields["tags"] == ["nginx"]


def test_the_article_body_and_not_the_themes_notices_around_it() -> None:
    # Typecho VOID: article.post holds the outdated notice and the vote button around
    # div.articleBody.
    url = "https://dhui626.github.io/index.php/archives/1/"
    page = GenericLayout.read_post(
        saved_page("typecho-void-3-dhui626", "archives/1/index.html", url)
    )
    content = page.fields["content"]
    assert content.startswith("如果您看到这篇文章,表示您的 blog 已经安装成功")
    assert "本文编写于" not in content and "ENJOY" not in content


def test_a_post_whose_article_is_its_body_without_the_neighbours_excerpts() -> None:
    # Volantis 4: the post's text sits in article#post itself, beside the meta boxes, and
    # the neighbours' links carry a p.content excerpt each.
    url = "https://jhin1018.github.io/2021/05/03/codeday1/"
    page = GenericLayout.read_post(
        saved_page("volantis-4-jhin1018", "2021/05/03/codeday1/index.html", url)
    )
    content = page.fields["content"]
    assert content.startswith("# 每日一题 LeetCode 554") and "每日一题 LeetCode 7" not in content
    assert "发布于" not in content and "本文永久链接" not in content
    assert page.fields["published_raw"] == "2021年5月3日"  # the day is all the page shows
    assert page.fields["tags"] == ["LeetCode"] and page.fields["categories"] == ["技术"]


def test_the_local_time_of_a_datetime_attribute_on_any_element() -> None:
    # Volantis 5: article:published_time in UTC, the builder's clock in a div's datetime.
    url = "https://www.meq.me/2020/09/21/npm%E6%9B%B4%E6%96%B0%E5%8D%87%E7%BA%A7/"
    page = GenericLayout.read_post(
        saved_page("volantis-5-leoonlee", "2020/09/21/npm更新升级/index.html", url)
    )
    assert page.fields["published_raw"] == "2020-09-21T15:43:00+08:00"
    assert page.fields.get("url", url) == url  # its canonical link is lowercased, unencoded


def test_a_day_printed_alone_beside_its_local_midnight_in_utc_and_terms_without_links() -> None:
    # vuepress-theme-hope 1 writes the front matter's "2022-5-14" as local midnight in UTC
    # (article:published_time 2022-05-13T16:00:00.000Z) and prints the day alone; its tags
    # and category are spans made clickable by script.
    url = "https://wainblog.netlify.app/notes/algorithm/Leetcode-370/"
    page = GenericLayout.read_post(
        saved_page("hope-1-devinwain", "notes/algorithm/Leetcode-370/index.html", url)
    )
    assert page.is_post
    assert page.fields["published_raw"] == "2022-05-14"
    assert page.fields["tags"] == ["Leetcode", "数组"]
    assert page.fields["categories"] == ["Algorithm"]
    assert page.fields["content"].startswith("# Leetcode-370.区间加法——差分数组java")
    assert "About 1 min" not in page.fields["content"]


def test_a_section_index_is_no_post_but_lists_its_posts() -> None:
    # hope 1's section README pages carry og:type article and no date: the sidebar links
    # of /develop/ are the only way to the posts under it.
    url = "https://wainblog.netlify.app/develop/"
    response = saved_page("hope-1-devinwain", "develop/index.html", url)
    assert not GenericLayout.read_post(response).is_post
    found = {item["url"] for item in GenericLayout.extract(response)}
    assert (
        "https://wainblog.netlify.app/develop/hm-play/Handmack-Play%E6%92%AD%E6%94%BE%E5%99%A8/"
        in found
    )


def test_halo_joe2_its_heading_terms_and_a_picture_for_a_body() -> None:
    # Halo 1 with joe2.0, saved by a site copier: og:title "Post – Site", every page's
    # canonical the home page, <time datetime="09/18"> (no year; the day is in the text),
    # the category above the heading and the tags below the body, a body of one picture.
    url = "http://localhost:8090/archives/hello-halo.html"
    page = GenericLayout.read_post(saved_page("halo-1-carypan01", "archives/hello-halo.html", url))
    assert page.is_post and page.fields.get("url", url) == url
    assert page.fields["title"] == "ZKSync中国站"
    assert page.fields["published_raw"] == "2022-09-18"
    assert page.fields["tags"] == ["ZK"] and page.fields["categories"] == ["默认分类"]
    assert "版权归属" not in page.fields["content"]


def test_typecho_handsome_its_spaced_date_sidebar_tags_and_copyright() -> None:
    # handsome 6 prints "2019 年 12 月 07 日" (spaces around 年 and 月) in time.meta-value,
    # a post's tags only in the sidebar's tag widget, and its copyright inside the body.
    url = "https://4o5.xyz/archives/22/"
    page = GenericLayout.read_post(
        saved_page("typecho-handsome-6-louiseshen", "archives/22/index.html", url)
    )
    assert page.is_post
    assert page.fields["published_raw"] == "2019 年 01 月 05 日"
    assert page.fields["tags"] == ["数学"]
    assert "版权属于" not in page.fields["content"]
