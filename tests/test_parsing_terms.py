"""A post page's tags and categories by the standards, on saved real pages."""

from __future__ import annotations

from parsel import Selector
from support.project import POST_CASES

from crawler.parsing.terms import meta_tags, path_terms, rel_terms


def page(case: str) -> Selector:
    return Selector(text=(POST_CASES / case / "page.html").read_text(encoding="utf-8"))


def test_rel_tag_links_say_tag_and_category_apart_on_wordpress() -> None:
    article = page("wordpress/jetpack-sharedaddy-itnerd-2016").css("article")[0]
    terms = rel_terms(article)
    assert terms.categories == ["Cloud", "How-to", "Linux"]
    assert terms.tags == ["backup", "cloud", "docker", "duplicity", "mega"]


def test_rel_tag_links_of_a_hexo_theme_drop_its_hash_mark() -> None:
    assert rel_terms(page("hexo/next771-tags-xin98-2019")).tags == ["hadoop", "思维导图"]


def test_article_tag_is_no_tag_when_it_is_the_sites_keywords() -> None:
    tagless = page("hexo/next771-notags-xin98-2019")
    assert rel_terms(tagless).tags == []
    # Alone, the page cannot tell its article:tag is the site's keywords...
    assert meta_tags(tagless) == ["学习记录 生活"]
    # ...the site's other pages carry the same value: it is theirs, not the post's.
    assert meta_tags(tagless, site_keywords={"学习记录 生活"}) == []
    # Hexo 5 writes the keywords as one string, commas and all: never split into tags.
    assert meta_tags(page("hexo/next780-notags-wasonisgood-2022"), {"轉型正義,資訊,科法"}) == []


def test_article_tag_repeating_the_pages_keywords_is_no_tag() -> None:
    html = (
        '<meta name="keywords" content="分布式,训练">'
        '<meta property="article:tag" content="分布式,训练"><p>x</p>'
    )
    assert meta_tags(Selector(text=html)) == []
    own = '<meta name="keywords" content="博客"><meta property="article:tag" content="NCCL">'
    assert meta_tags(Selector(text=own)) == ["NCCL"]


def test_links_into_tag_and_category_pages() -> None:
    html = (
        '<a href="/tags/nccl/">NCCL</a><a href="https://x.cn/categories/infra/gpu/">GPU</a>'
        '<a href="https://other.cn/tags/x/">elsewhere</a><a href="/2024/01/01/post/">post</a>'
    )
    terms = path_terms(Selector(text=html), "https://x.cn/")
    assert terms.tags == ["NCCL"] and terms.categories == ["GPU"]
