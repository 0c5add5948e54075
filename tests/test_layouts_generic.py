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
