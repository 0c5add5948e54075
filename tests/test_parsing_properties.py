"""Property tests: the loader's processors and the loader itself never raise on any input.

:mod:`crawler.parsing.processors` promises that none of its functions raises on any text ("a strange
page can never crash the loader") and documents what each returns; hypothesis feeds them
arbitrary text and text glued from the fragments real pages are made of (count labels in any
case, abbreviated numbers, markup, entities, odd Unicode). ``normalise_date``'s properties are
in ``test_dates_properties.py``.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from parsel import Selector
from scrapy.http import HtmlResponse, XmlResponse

from crawler.discovery.detect import layout_classes
from crawler.items import POST_FIELDS
from crawler.layouts.feed import FeedLayout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import (
    COUNT_LABELS,
    canonical_url,
    clean_text,
    html_to_text,
    labelled_counts,
    parse_count,
    strip_pinned_mark,
    strip_summary_labels,
)
from crawler.runs.folders import run_dir
from crawler.sites import SITE_NAME_PATTERN, SiteConfig, name_from_url

PROPERTIES = settings(max_examples=150, deadline=None)

FRAGMENTS = [
    *COUNT_LABELS,
    "VIEWS",
    "Likes",
    "lıkes",
    "vıews",
    "LİKES",
    "ſ",
    "K",  # dotless i, Kelvin
    "(",
    ")",
    "（",
    "）",
    ":",
    "：",
    " ",
    "\u3000",
    "\u200b",
    "\ufeff",
    "\x00",
    "\n",
    "0",
    "1",
    "8",
    "1,024",
    "1.2",
    "1e400",
    "9" * 400,
    "k",
    "K",
    "万",
    "亿",
    "w",
    "+",
    "-",
    "次",
    "摘要：",
    "阅读全文",
    "Read more",
    "»",
    "[置顶]",
    "【置顶】",
    "<p>",
    "</p>",
    "<br>",
    "<a href='x'>",
    "</a>",
    "<script>",
    "&lt;p&gt;",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "&nbsp;",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
]
glued = st.lists(st.sampled_from(FRAGMENTS), max_size=16).map("".join)
mixed = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=12).map(
    "".join
)
any_text = st.one_of(st.text(), glued, mixed)

URL_PARTS = [
    "http",
    "https",
    "ftp",
    "javascript",
    "file",
    "://",
    ":",
    "//",
    "/",
    "[",
    "]",
    "::1",
    "127.0.0.1",
    "例子.中国",
    "xn--",
    "@",
    "user:pw",
    ":99999",
    ":0",
    ":abc",
    "?",
    "&",
    "=",
    "#",
    "%",
    "%2F",
    "%zz",
    "..",
    ".",
    " ",
    "\t",
    "\\",
    "页",
    "a",
    "b",
]
url_ish = st.one_of(st.text(), st.lists(st.sampled_from(URL_PARTS), max_size=14).map("".join))


def one_line_clean(value: str | None) -> bool:
    """The documented result of the text cleaners: None, or non-empty, trimmed text."""
    return value is None or (isinstance(value, str) and value == value.strip() and value != "")


@PROPERTIES
@given(any_text)
@example("\u00a0&nbsp;\u3000")
def test_text_cleaners_never_raise_and_return_clean_text_or_none(text: str) -> None:
    cleaned = clean_text(text)
    assert one_line_clean(cleaned)
    assert cleaned is None or not re.search(r"\s\s", cleaned)
    assert one_line_clean(html_to_text(text))
    assert one_line_clean(strip_summary_labels(text))
    assert one_line_clean(strip_pinned_mark(text))


@PROPERTIES
@given(any_text)
@example("9" * 400 + "亿")  # a float overflow
def test_parse_count_never_raises_and_returns_a_count_or_none(text: str) -> None:
    count = parse_count(text)
    assert count is None or (type(count) is int and count >= 0)


@PROPERTIES
@given(st.lists(any_text, max_size=4))
@example(["lıkes 5"])  # dotless i: matches "likes" case-insensitively, lower() is not "likes"
@example(["5 vıews", "LİKES：3"])
def test_labelled_counts_never_raise_and_return_non_negative_counts(texts: list[str]) -> None:
    counts = labelled_counts(texts)
    assert isinstance(counts, dict)
    assert set(counts) <= {"views", "comments", "likes"}
    assert all(type(n) is int and n >= 0 for n in counts.values())


@PROPERTIES
@given(url_ish)
@example("http://[")  # invalid IPv6 literal
@example("http://127.0.0.1:99999/")  # port out of range
def test_canonical_url_never_raises(text: str) -> None:
    url = canonical_url(text)
    assert url is None or isinstance(url, str)


@PROPERTIES
@given(url_ish)
@example("http://[")
@example("http://127.0.0.1:99999/../../etc")
def test_a_name_derived_from_any_url_is_a_safe_file_name(text: str) -> None:
    try:
        name = name_from_url(text)
    except ValueError:
        return  # a URL the arguments check refuses first (see check_http_url)
    assert re.fullmatch(SITE_NAME_PATTERN, name) and ".." not in name


@PROPERTIES
@given(st.text())
def test_a_run_folder_is_inside_runs_or_refused(run: str) -> None:
    try:
        folder = run_dir({"OUTPUT_DIR": "/out"}, run)  # type: ignore[arg-type]
    except ValueError:
        return
    assert folder.parent.as_posix() == "/out/runs" and folder.name == run


# ---- the loader on arbitrary pages ----------------------------------------------------------
SITE = SiteConfig(name="example", layout="cards", url="https://blog.example.cn/hot")
# Every layout the project has, new ones included (whatever the working directory).
LAYOUTS = layout_classes()

CARD = (
    '<main class="post-list"><article class="post-card">'
    '<h2 class="post-title"><a href="{href}">{title}</a></h2>'
    '<p class="post-summary">{summary}</p><div class="post-meta">'
    '<a class="post-category">{category}</a><time class="post-date">{date}</time>'
    '<span class="post-stat">{stat}</span></div></article>'
    '<nav class="pagination"><a class="next" href="{href}">下一页</a></nav></main>'
)
cards = st.builds(
    CARD.format,
    href=url_ish,
    title=any_text,
    summary=any_text,
    category=any_text,
    date=any_text,
    stat=any_text,
)
markup = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "<html>",
                "<body>",
                '<div class="day">',
                '<div class="postTitle">',
                '<a class="postTitle2" href="/p/1">',
                '<div class="post-preview">',
                "<a href='",
                '<article class="post-card">',
                '<h2 class="post-title">',
                "</div>",
                "</a>",
                "<rss><channel><item><title>",
                "</title><link>",
                "</link></item>",
                "<feed><entry>",
                '<link rel="next" href="',
                "<?xml version='1.0'?>",
                "<!DOCTYPE x [",
                "&x;",
            ]
        ),
        any_text,
    ),
    max_size=20,
).map("".join)


def assert_item_types(item: dict) -> None:
    assert set(POST_FIELDS) <= set(item)
    for field in ("url", "title", "summary", "author", "category", "published_raw"):
        assert item[field] is None or isinstance(item[field], str), field
    for field in ("views", "comments", "likes"):
        assert item[field] is None or (type(item[field]) is int and item[field] >= 0), field
    assert isinstance(item["tags"], list) and all(isinstance(t, str) for t in item["tags"])


@PROPERTIES
@given(st.one_of(cards, markup, st.text()))
@example(CARD.format(href="http://[", title="t", summary="", category="", date="", stat="1 赞"))
@example(CARD.format(href="/p", title="t", summary="", category="", date="", stat="lıkes 5"))
def test_every_layout_extracts_any_page_without_raising(page: str) -> None:
    assert len(LAYOUTS) >= 4
    body = page.encode("utf-8", "surrogatepass")
    for spider in LAYOUTS:
        kind = XmlResponse if issubclass(spider, FeedLayout) else HtmlResponse
        response = kind(url=SITE.url, body=body, encoding="utf-8")
        for item in spider.extract(response):
            assert_item_types(dict(item))
        assert all(isinstance(url, str) for url in spider.next_page_urls(response))


@PROPERTIES
@given(cards)
def test_the_post_loader_loads_any_card(page: str) -> None:
    node = Selector(text=page).css("article")[0]
    loader = PostLoader(selector=node, base_url=SITE.url)
    loader.add_css("title", ".post-title a ::text")
    loader.add_css("url", ".post-title a::attr(href)")
    loader.add_html_summary(node.css(".post-summary").get())
    loader.add_counts(node.css(".post-stat").xpath("string()").getall())
    assert_item_types(dict(loader.load_item()))
