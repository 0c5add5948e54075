"""The shared loader's cleaning processors."""

from __future__ import annotations

import pytest
from parsel import Selector

from crawler.items import POST_FIELDS, PostItem
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import (
    canonical_url,
    clean_text,
    html_to_text,
    labelled_counts,
    merge_terms,
    parse_count,
    post_id,
    strip_pinned_mark,
    strip_summary_labels,
)


def test_a_loaded_item_has_every_column_with_its_empty_value() -> None:
    item = PostLoader(selector=Selector(text="<p>x</p>"), base_url="https://x.cn/").load_item()
    assert list(item.keys()) == list(POST_FIELDS)  # every column, in export order
    empty = {name: item[name] for name in ("tags", "categories", "gone", "url", "views")}
    assert empty == {"tags": [], "categories": [], "gone": False, "url": None, "views": None}
    assert isinstance(item, PostItem) and "id" in item and item["id"] is None


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("阅读(8)", 8),
        ("130 浏览", 130),
        ("1.2k", 1200),
        ("1,024", 1024),
        ("1.5万", 15000),
        ("3亿", 300_000_000),
        ("９９ 点赞", 99),  # full-width digits
        ("浏览", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_count(text: str | None, count: int | None) -> None:
    assert parse_count(text) == count


@pytest.mark.parametrize(
    ("texts", "counts"),
    [
        (["阅读(8) 评论(0) 推荐(0)"], {"views": 8, "comments": 0, "likes": 0}),
        (
            ["posted @ 2026-09-29 20:12 RobinDevNotes 阅读(15) 评论(2) 推荐(1) 编辑"],
            {"views": 15, "comments": 2, "likes": 1},
        ),
        (["0 点赞", "0 评论", "130 浏览"], {"likes": 0, "comments": 0, "views": 130}),
        (["130 浏览 1.2k 点赞 1,024 评论"], {"views": 130, "likes": 1200, "comments": 1024}),
        (["1.5万 浏览", "评论：7"], {"views": 15000, "comments": 7}),
        (["2026年10月04日", "推理部署"], {}),
        (["浏览 130", "点赞 5", "1.2K 次浏览"], {"views": 130, "likes": 5}),
        (["1.2K 次浏览"], {"views": 1200}),
    ],
)
def test_counts_are_read_by_label_not_position(texts: list[str], counts: dict) -> None:
    assert labelled_counts(texts) == counts


def test_text_cleaning() -> None:
    assert clean_text("  a \n\t b&amp;c\u200b ") == "a b&c"
    assert clean_text("   ") is None
    assert strip_summary_labels("摘要：摘要 同样是 PyTo 阅读全文") == "摘要 同样是 PyTo"
    assert strip_pinned_mark("[置顶]为什么AI训练工程师都要懂NCCL") == "为什么AI训练工程师都要懂NCCL"


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("<p>a &amp; b</p><p>c</p>", "a & b c"),
        ("&lt;p&gt;escaped &amp;amp; twice&lt;/p&gt;", "escaped & twice"),
        ("plain", "plain"),
    ],
)
def test_html_to_text(markup: str, text: str) -> None:
    assert html_to_text(markup) == text


def test_url_canonical_and_id_stable() -> None:
    url = canonical_url("https://www.cnblogs.com/x/p/1.html?b=2&a=1#comments")
    assert url == "https://www.cnblogs.com/x/p/1.html?a=1&b=2"
    assert post_id(url) == post_id(canonical_url("https://www.cnblogs.com/x/p/1.html?a=1&b=2"))
    assert len(post_id(url)) == 16


def test_loader_fills_every_field() -> None:
    node = Selector(text='<a href="/p/1.html">[置顶] Title <b>x</b></a><span>阅读(3)</span>')
    loader = PostLoader(selector=node, base_url="https://www.cnblogs.com/x/")
    loader.add_xpath("url", "//a/@href")
    loader.add_xpath("title", "//a//text()")
    loader.add_counts(node.xpath("//span/text()").getall())
    item = loader.load_item()
    assert item["url"] == "https://www.cnblogs.com/p/1.html"
    assert item["title"] == "Title x"
    assert item["views"] == 3 and item["likes"] is None
    assert item["tags"] == [] and set(POST_FIELDS) <= set(item)


def test_terms_of_page_and_list_merge_page_first_and_once_whatever_their_case() -> None:
    # Hexo Matery: the home list shows "Personal", the post page "personal".
    merged = merge_terms(["personal", "Opentelemetry"], ["OpenTelemetry", "Personal", "Go"])
    assert merged == ["personal", "Opentelemetry", "Go"]
    assert merge_terms(None, ["a", "a"]) == ["a"]
    assert merge_terms([], None) == []
