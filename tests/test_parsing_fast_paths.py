"""Each fast path gives exactly what the general code it stands in for gives.

The shortcuts (the post loader's plain cleaning functions, the plain-URL check, the exporters'
field plan and as-is rows, compiled XPath and the element walk, labelled_counts' early exits)
exist for speed only (README, Performance); hypothesis feeds both sides.
"""

from __future__ import annotations

import html
import io
import re
import unicodedata
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import pytest
import scrapy
from hypothesis import example, given, settings
from hypothesis import strategies as st
from itemloaders import ItemLoader
from itemloaders.processors import Compose, Identity, MapCompose, TakeFirst
from parsel import Selector
from scrapy.exporters import BaseItemExporter, CsvItemExporter, JsonLinesItemExporter
from w3lib.url import canonicalize_url

from crawler.items import POST_FIELDS, PostItem
from crawler.outputs.exporters import JsonLinesExporter, SafeCsvItemExporter, neutralise_formula
from crawler.parsing import processors
from crawler.parsing.loaders import PostLoader
from crawler.parsing.processors import (
    COUNT_LABELS,
    COUNT_SUFFIXES,
    PLAIN_URL,
    clean_text,
    html_to_text,
    join_texts,
    labelled_counts,
    parse_count,
    post_id,
    strip_pinned_mark,
    strip_summary_labels,
    unique,
)
from crawler.parsing.xpath import (
    all_texts,
    has_class,
    node_texts,
    own_elements,
    own_texts,
    string_value,
)

TEXT = st.one_of(st.none(), st.text(max_size=30))


BASE_URL = "https://www.cnblogs.com/x/"


def _absolute_url(value: Any, loader_context: dict[str, Any]) -> str | None:
    """Link resolution by the general code the loader's shortcuts stand in for: ``urljoin``
    against the page's URL (from the loader context), then w3lib's canonical form."""
    text = str(value or "").strip()
    if not text:
        return None
    base = loader_context.get("base_url")
    try:
        return canonicalize_url(urljoin(base, text) if base else text)
    except ValueError:
        return None


class ReferenceLoader(ItemLoader):
    """PostLoader's cleaning declared as itemloaders documents it, and run by itemloaders."""

    default_item_class = PostItem
    default_input_processor = MapCompose(clean_text)
    default_output_processor = TakeFirst()
    url_in = MapCompose(_absolute_url)
    title_in = summary_in = published_raw_in = Identity()
    title_out = Compose(join_texts, clean_text, strip_pinned_mark)
    summary_out = Compose(join_texts, clean_text, strip_summary_labels)
    published_raw_out = Compose(join_texts, clean_text)
    tags_out = categories_out = Compose(unique)
    views_in = comments_in = likes_in = MapCompose(parse_count)

    def add_value(self, field_name: str | None, value: Any, *args: Any, **kwargs: Any) -> None:
        # A post's category values are its categories: every one in `categories`.
        if field_name == "category":
            value = list(value) if isinstance(value, Iterator) else value
            super().add_value("categories", value, *args, **kwargs)
        super().add_value(field_name, value, *args, **kwargs)

    def add_counts(self, texts: list[str]) -> None:
        for field, count in labelled_counts(texts).items():
            self.add_value(field, count)

    def add_html_summary(self, markup: str | None) -> None:
        self.add_value("summary", html_to_text(markup) or "")


def _completed(item: dict[str, Any]) -> dict[str, Any]:
    """An itemloaders item with what PostLoader adds: every column, the id of the url."""
    values = {**dict.fromkeys(POST_FIELDS), "tags": [], "categories": [], "gone": False, **item}
    if values["url"]:
        values["id"] = post_id(values["url"])
    return values


SAMPLES = st.sampled_from(
    [
        "/p/1.html",
        "https://A.com/x/../y?b=1&a=2#f",
        "https://a.com/p/2",
        "http://[",
        "阅读(8)",
        "1.5万",
        "0",
        " [置顶] 标题 ",
        "摘要： 正文 阅读全文",
        "a &amp;\u200b b",
        "",
    ]
)
VALUE = st.one_of(TEXT, SAMPLES, st.integers(-1, 2), st.integers(-2, 10**6))
# A tuple and an iterator hold several values, as a list does; an iterator is made anew for
# each loader (a thunk), since the first loader would use it up.
VALUES = st.one_of(
    VALUE,
    st.lists(VALUE, max_size=4),
    st.lists(VALUE, max_size=3).map(tuple),
    st.lists(VALUE, max_size=3).map(lambda values: lambda: iter(values)),
)
FIELD_NAMES = [
    "url",
    "title",
    "summary",
    "author",
    "published_raw",
    "category",
    "tags",
    "views",
    "comments",
    "likes",
    "id",
]
NODE_TEXT = st.text(alphabet="ab 中\t&;<>\"'[]置顶阅读(8)/.:#?", max_size=12)
NODES = st.tuples(NODE_TEXT, NODE_TEXT, NODE_TEXT, NODE_TEXT, NODE_TEXT).map(
    lambda t: (
        "<div><a href='{}'>{} <b>{}</b></a><p>{}</p><span>{}</span><span>阅读(3)</span>"
        "</div>".format(*map(html.escape, t))
    )
)
LOADER_QUERIES = [
    ("add_css", "title", "a ::text"),
    ("add_css", "url", "a::attr(href)"),
    ("add_xpath", "summary", ".//p//text()"),
    ("add_css", "tags", "span::text"),
    ("add_xpath", "views", "string(.//span)"),
    ("add_xpath", "author", ".//b/text()"),
]


def _operations(fields: list[str]) -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """Loader calls on a few fields only, so that a field often gets several values."""
    return st.lists(
        st.one_of(
            st.tuples(st.just("add_value"), st.sampled_from(fields), VALUES),
            st.sampled_from([q for q in LOADER_QUERIES if q[1] in fields] or LOADER_QUERIES),
            st.tuples(st.just("add_counts"), st.lists(st.one_of(NODE_TEXT, SAMPLES), max_size=3)),
            st.tuples(
                st.just("add_html_summary"),
                st.one_of(TEXT, st.just("<p>摘要：a</p><p>b &amp; c</p>阅读全文")),
            ),
        ),
        max_size=10,
    )


OPERATIONS = st.lists(st.sampled_from(FIELD_NAMES), min_size=1, max_size=3).flatmap(_operations)


@settings(max_examples=300, deadline=None)
@given(page=NODES, operations=OPERATIONS)
@example(
    page="<div><a href='/p/1.html'>t</a></div>",
    operations=[
        ("add_value", "views", [0, 5]),  # 0 is a count
        ("add_value", "likes", ("", "1.2k")),
        ("add_value", "tags", lambda: iter(["b", " b ", None, "", "a"])),
        ("add_value", "url", None),
        ("add_css", "url", "a::attr(href)"),
        ("add_value", "url", "https://a.com/p/2"),
    ],
)
def test_post_loader_equals_itemloaders(page: str, operations: list[tuple[Any, ...]]) -> None:
    node = Selector(text=page).css("div")[0]
    ours = PostLoader(selector=node, base_url=BASE_URL)
    reference = ReferenceLoader(selector=node, base_url=BASE_URL)
    for loader in (ours, reference):
        for method, *args in operations:
            getattr(loader, method)(*(arg() if callable(arg) else arg for arg in args))
    assert dict(ours.load_item()) == _completed(dict(reference.load_item()))


URL_PARTS = st.text(alphabet="abcXYZ019._~-/%?#:;=& ", max_size=25)


@settings(max_examples=500, deadline=None)
@given(
    host=st.text(alphabet="abz09.-A", min_size=1, max_size=12),
    port=st.one_of(st.just(""), st.integers(0, 99999).map(lambda n: f":{n}"), st.just(":080")),
    path=URL_PARTS,
)
def test_plain_urls_stay_as_they_are(host: str, port: str, path: str) -> None:
    """w3lib and urljoin give back a URL PLAIN_URL accepts unchanged."""
    url = f"https://{host}{port}/{path}"
    if not PLAIN_URL.fullmatch(url):
        return
    assert canonicalize_url(url) == url
    assert urljoin("https://www.cnblogs.com/x/", url) == url


@pytest.mark.parametrize(
    "url",
    [
        "https://a.com/./y",
        "https://a.com/x/../y",
        "https://a.com/..",
        "https://A.com/x",
        "https://a.com/x?a=1",
        "https://a.com/x#f",
        "https://a.com",
        "https://a.com:080/x",
        "https://a.com:65536/x",
        "https://a.com:0/x",
        "https://a.com/a b",
        "https://a.com/%7e",
    ],
)
def test_urls_needing_w3lib_take_the_slow_path(url: str) -> None:
    assert not PLAIN_URL.fullmatch(url)


class ItemWithSerializer(scrapy.Item):
    title = scrapy.Field(serializer=lambda value: f"<{value}>")
    tags = scrapy.Field()
    views = scrapy.Field()


ITEMS = st.one_of(
    st.builds(
        lambda title, tags, views, drop: {
            k: v for k, v in {"title": title, "tags": tags, "views": views}.items() if k != drop
        },
        st.text(alphabet="ab=+-@\t中", max_size=5),
        st.lists(st.text(max_size=3), max_size=3),
        st.one_of(st.none(), st.integers()),
        st.sampled_from(["", "title", "tags", "views"]),
    ),
)


@pytest.mark.parametrize(
    ("ours", "scrapys"),
    [(JsonLinesExporter, JsonLinesItemExporter), (SafeCsvItemExporter, CsvItemExporter)],
)
@pytest.mark.parametrize("include_empty", [True, False])
@pytest.mark.parametrize("item_class", [dict, ItemWithSerializer])
@settings(max_examples=40, deadline=None)
@given(values=ITEMS)
def test_exporter_fields_equal_scrapys(
    ours: type[BaseItemExporter],
    scrapys: type[BaseItemExporter],
    include_empty: bool,
    item_class: type,
    values: dict[str, Any],
) -> None:
    item = item_class(values)
    if ours is SafeCsvItemExporter:
        # Ours neutralises formulas in what lands in a cell (after a field's serializer and
        # the list join): Scrapy's exporter is given those cells, as a plain dict.
        cells = {
            k: item.fields[k].get("serializer", str)(v)
            if k == "title" and isinstance(item, ItemWithSerializer)
            else v
            for k, v in values.items()
        }
        cells = {k: " | ".join(v) if isinstance(v, list) else v for k, v in cells.items()}
        reference_item = {
            k: neutralise_formula(v) if isinstance(v, str) else v for k, v in cells.items()
        }
    else:
        reference_item = item
    fields = ["title", "tags", "views"]
    files = io.BytesIO(), io.BytesIO()
    joined = {"join_multivalued": " | "} if scrapys is CsvItemExporter else {}
    for exporter, exported in (
        (
            ours(
                files[0],
                fields_to_export=fields,
                export_empty_fields=include_empty,
                encoding="utf-8",
            ),
            item,
        ),
        (
            scrapys(
                files[1],
                fields_to_export=fields,
                export_empty_fields=include_empty,
                encoding="utf-8",
                **joined,
            ),
            reference_item,
        ),
    ):
        exporter.start_exporting()
        exporter.export_item(exported)
        exporter.finish_exporting()
    assert files[0].getvalue() == files[1].getvalue()


def test_post_items_export_like_scrapy() -> None:
    item = PostItem({name: None for name in POST_FIELDS} | {"title": "=1+1", "tags": ["a", "b"]})
    for ours, scrapys in (
        (JsonLinesExporter, JsonLinesItemExporter),
        (SafeCsvItemExporter, CsvItemExporter),
    ):
        files = io.BytesIO(), io.BytesIO()
        for exporter_class, file in zip((ours, scrapys), files, strict=True):
            joined = {"join_multivalued": " | "} if exporter_class is CsvItemExporter else {}
            exporter = exporter_class(
                file, fields_to_export=list(POST_FIELDS), encoding="utf-8", **joined
            )
            exporter.start_exporting()
            exporter.export_item(item)
            exporter.finish_exporting()
        if ours is SafeCsvItemExporter:  # the one difference: the formula is neutralised
            assert files[0].getvalue() == files[1].getvalue().replace(b"=1+1", b"'=1+1")
            assert b"a | b" in files[0].getvalue()
        else:
            assert files[0].getvalue() == files[1].getvalue()


PAGE = Selector(
    text="""<div class="card x"><h2 class="post-title"><a href="/1">One <b>bold</b></a></h2>
    <p class="post-summary">Sum &amp; more</p><span class="post-stat"><em>3</em> 浏览</span>
    <div class="card"><h2 class="post-title"><a href="/2">Two</a></h2></div></div>"""
)
QUERIES = [
    ".//text()",
    f".//*[{has_class('post-title')}]//a/@href",
    f"(.//*[{has_class('post-title')}]//a)[1]//text()",
    "string(.//p)",
    f".//*[{has_class('card')}]/h2/a/text()",
    ".//nothing/text()",
]


@pytest.mark.parametrize("query", QUERIES)
def test_node_texts_equal_parsel(query: str) -> None:
    for node in (PAGE, PAGE.css("div.card"), PAGE.css("div.card")[1]):
        assert node_texts(node, query) == node.xpath(query).getall()


def test_own_elements_and_texts_equal_xpath() -> None:
    card = PAGE.css("div.card")[0]
    own = f".//*[count(ancestor::*[{has_class('card')}]) = 1][not({has_class('card')})]"
    walked = own_elements(card, "card")
    assert [element for element, _ in walked] == card.root.xpath(own)
    assert [classes for _, classes in walked][:2] == [["post-title"], []]
    for element, _ in walked:
        assert all_texts(element) == element.xpath(".//text()")
        assert own_texts(element) == element.xpath("text()")


# labelled_counts' rules as the README states them, written here apart from its code: a text
# with one label and one number pairs them; otherwise label-first forms ("阅读(8)", "阅读：8")
# are read, then number-first forms ("130 浏览") in what remains; the first count of a field
# wins. Every pattern runs on every text (the code skips the ones that cannot match).
_REF_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*([kKwWmM千万亿]?)\+?"
_REF_LABEL = "|".join(sorted(map(re.escape, COUNT_LABELS), key=len, reverse=True))


def _ref_field(label: str) -> str:
    return next(
        field
        for name, field in COUNT_LABELS.items()
        if re.fullmatch(re.escape(name), label, re.IGNORECASE)
    )


def _ref_store(found: dict[str, int], label: str, number: str, suffix: str) -> None:
    try:
        value = round(float(number.replace(",", "")) * COUNT_SUFFIXES[suffix])
    except (ValueError, OverflowError):
        return
    found.setdefault(_ref_field(label), value)


def _labelled_counts_reference(texts: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    label_first = re.compile(
        rf"({_REF_LABEL})\s*(?:[(（]\s*{_REF_NUMBER}\s*[)）]|[:：]\s*{_REF_NUMBER})", re.I
    )
    number_first = re.compile(rf"{_REF_NUMBER}\s*(?:次|人)?\s*({_REF_LABEL})", re.I)
    for raw in texts:
        text = unicodedata.normalize("NFKC", str(raw))
        labels = re.findall(_REF_LABEL, text, re.I)
        numbers = re.findall(_REF_NUMBER, text)
        if len(labels) == 1 and len(numbers) == 1:
            _ref_store(found, labels[0], *numbers[0])
            continue
        for match in label_first.finditer(text):
            number, suffix = match.group(2, 3) if match.group(2) else match.group(4, 5)
            _ref_store(found, match.group(1), number, suffix)
        for match in number_first.finditer(label_first.sub(" ", text)):
            _ref_store(found, match.group(3), match.group(1), match.group(2))
    return found


COUNT_TEXT = st.lists(
    st.sampled_from(
        [
            "阅读",
            "评论",
            "推荐",
            "点赞",
            "浏览",
            "likes",
            "(",
            ")",
            "（",
            "：",
            ":",
            "8",
            "1.2k",
            "1,024",
            "1.5万",
            " ",
            "次",
            "2024-05-01 10:20",
            "|",
            "x",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts=st.lists(COUNT_TEXT, max_size=3))
def test_labelled_counts_equal_every_pattern_on_every_text(texts: list[str]) -> None:
    assert processors.labelled_counts(texts) == _labelled_counts_reference(texts)


class _Row(dict):  # type: ignore[type-arg]
    """A dict the exporters' as-is path does not take (it checks ``type(item) is dict``)."""


ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "title": st.one_of(st.none(), st.text(alphabet="ab=+-@\t中\"',\n", max_size=6)),
            "tags": st.lists(st.text(alphabet="ab=,|", max_size=3), max_size=3),
            "views": st.one_of(st.none(), st.integers(-5, 10**12)),
        }
    ),
    min_size=1,
    max_size=4,
)


@pytest.mark.parametrize("exporter_class", [JsonLinesExporter, SafeCsvItemExporter])
@settings(max_examples=60, deadline=None)
@given(rows=ROWS)
def test_dataset_rows_export_as_the_general_path_does(
    exporter_class: type[BaseItemExporter], rows: list[dict[str, Any]]
) -> None:
    outputs = []
    for make in (dict, _Row):
        file = io.BytesIO()
        exporter = exporter_class(file, fields_to_export=["title", "tags", "views"])
        exporter.start_exporting()
        for row in rows:
            exporter.export_item(make(row))
        exporter.finish_exporting()
        outputs.append(file.getvalue())
    assert outputs[0] == outputs[1]


def test_string_value_equals_xpath_string_with_unresolved_entities() -> None:
    feed = Selector(
        text='<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
        "<r><title>&e;Title <b>bold</b><![CDATA[ & more]]></title></r>",
        type="xml",
    )
    title = feed.xpath("//title")[0]
    assert string_value(title.root) == title.xpath("string()").get() == "Title bold & more"
