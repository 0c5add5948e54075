"""Atom feeds (crawler/feeds.py) as a feed reader sees them: parsed with feedparser, checked
against RFC 4287's RELAX NG schema (tests/atom.rng) and its two Schematron rules, written
only when they change; then the feeds of a real ``crawlall --sample`` run."""

from __future__ import annotations

import calendar
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import feedparser
import pytest
from lxml import etree
from scrapy.settings import Settings
from support.project import (
    TESTS,
    free_port_base,
    make_post,
    project_settings,
    read_jsonl,
    run_scrapy,
)

from crawler.outputs.atom import ALL_FEED_ID, EXTENSION_NS, write_feeds
from crawler.outputs.dataset import ExportError
from crawler.store.sqlite import SQLiteStore

ATOM = "http://www.w3.org/2005/Atom"
NS = {"a": ATOM}
SCHEMA = etree.RelaxNG(etree.parse(str(TESTS / "support" / "atom.rng")))
SITE_URL = "https://blog.example.org/"


def check_atom(path: Path) -> feedparser.FeedParserDict:
    """``path`` is a valid Atom feed: the RFC's schema and Schematron rules, then feedparser
    with no error and every entry's id, link, title and updated; the parsed feed."""
    document = etree.parse(str(path))
    assert SCHEMA.validate(document), f"{path.name}: {SCHEMA.error_log}"
    root = document.getroot()
    entries = root.findall("a:entry", NS)
    # RFC 4287 Appendix B's rules: a feed has an author unless every entry has one, and each
    # entry an alternate link (a link with no rel is one, §4.2.7.2) or a content.
    assert root.find("a:author/a:name", NS) is not None or all(
        entry.find("a:author", NS) is not None for entry in entries
    )
    for entry in entries:
        assert entry.xpath("a:link[not(@rel) or @rel='alternate'] | a:content", namespaces=NS)
    parsed = feedparser.parse(path.read_bytes())
    assert not parsed.bozo, f"{path.name}: {parsed.get('bozo_exception')}"
    assert parsed.version == "atom10"
    for entry in parsed.entries:
        assert entry.id and entry.title and entry.updated_parsed
        assert [link.rel for link in entry.links] == ["alternate"]
        assert entry.link == entry.id  # the post URL is both
    return parsed


class CountingStore(SQLiteStore):
    """A real store that remembers which posts were read whole by id."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.fetched: list[list[str]] = []

    def posts_by_id(self, ids: Iterable[str]) -> Iterator[dict[str, Any]]:
        ids = list(ids)
        self.fetched.append(ids)
        return super().posts_by_id(ids)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CountingStore]:
    store = CountingStore(tmp_path / "posts.sqlite")
    yield store
    store.close()


def fill(store: SQLiteStore) -> None:
    """Five posts of ``example`` (one never read, one without author, one undated, one
    updated later) and three of ``other``, one of them gone."""
    for n in range(1, 6):
        post = make_post(n, author="张三")
        if n == 2:
            post.update(content=None, word_count=None, author=None)
        if n == 3:  # 15:30 in +08:00: after post 4 (08:00+08:00) though it reads earlier
            post.update(published_at="2026-10-04T07:30:00+00:00")
        if n == 4:
            post.update(updated_at="2026-11-20T10:00:00+08:00")
        store.record(post, "run-1")
    store.record(
        make_post(
            1,
            url="https://other.example.net/a",
            site="other",
            author=None,
            published_at=None,
            crawled_at="2026-11-01T00:00:00+00:00",
            tags=[],
        ),
        "run-1",
    )
    store.record(
        make_post(
            2,
            url="https://other.example.net/b",
            site="other",
            published_at="2026-09-01T00:00:00+08:00",
        ),
        "run-1",
    )
    store.record(
        make_post(
            3,
            url="https://other.example.net/gone",
            site="other",
            gone=True,
            published_at="2026-12-01T00:00:00+08:00",
        ),
        "run-1",
    )
    store.flush()


def feeds_settings(site: int = 3, everything: int = 6) -> Settings:
    return project_settings(FEEDS_SITE_ENTRIES=site, FEEDS_ALL_ENTRIES=everything)


def test_site_and_all_feeds_hold_the_newest_posts_newest_first(
    store: CountingStore, tmp_path: Path
) -> None:
    fill(store)
    out = tmp_path / "output"
    result = write_feeds(feeds_settings(), store, out, {"example": SITE_URL})
    folder = out / "feeds"
    assert sorted(path.name for path in result.rewritten) == ["all.xml", "example.xml", "other.xml"]
    assert result.unchanged == () and result.skipped_sites == ()

    example = check_atom(folder / "example.xml")
    # 5 posts, FEEDS_SITE_ENTRIES=3: the three newest by instant, not by the text of the date.
    assert [entry.id for entry in example.entries] == [
        "https://blog.example.org/posts/5",
        "https://blog.example.org/posts/3",
        "https://blog.example.org/posts/4",
    ]
    assert example.feed.id == SITE_URL and example.feed.title == "example"
    assert example.feed.link == SITE_URL

    everything = check_atom(folder / "all.xml")
    assert everything.feed.id == ALL_FEED_ID
    # 7 posts not gone, FEEDS_ALL_ENTRIES=6: dated ones by instant, the undated one last.
    assert [entry.id for entry in everything.entries] == [
        "https://blog.example.org/posts/5",
        "https://blog.example.org/posts/3",
        "https://blog.example.org/posts/4",
        "https://blog.example.org/posts/2",
        "https://blog.example.org/posts/1",
        "https://other.example.net/b",
    ]
    assert_newest_first(everything.entries)
    # all.xml names each entry's blog when its URL is known.
    assert everything.entries[0].source.title == "example"

    other = check_atom(folder / "other.xml")
    # The gone post is left out; the undated one comes last, its updated its crawl time.
    assert [entry.id for entry in other.entries] == [
        "https://other.example.net/b",
        "https://other.example.net/a",
    ]
    assert other.feed.id == "tag:blogcrawler,2026:site/other"
    assert "published" not in other.entries[1]
    assert other.entries[1].updated == "2026-11-01T00:00:00+00:00"


def test_entries_carry_the_post(store: CountingStore, tmp_path: Path) -> None:
    fill(store)
    out = tmp_path / "output"
    write_feeds(feeds_settings(site=5), store, out)
    entries = {entry.id: entry for entry in check_atom(out / "feeds" / "example.xml").entries}
    read = entries["https://blog.example.org/posts/5"]
    unread = entries["https://blog.example.org/posts/2"]
    assert read.title == "标题 5" and read.summary == "摘要文字" and read.author == "张三"
    # Markdown rendered to HTML: heading, paragraph, fenced code with its language.
    assert read.content[0].type == "text/html"
    html = read.content[0].value
    assert "<h2>背景</h2>" in html and "<p>第 5 篇的正文。</p>" in html
    assert '<code class="language-python">print(5)' in html
    # One category per category and per tag, a term in both only once.
    assert [tag.term for tag in read.tags] == ["训练", "并行", "分布式"]
    assert read.published == "2026-10-05T08:00:00+08:00" == read.updated
    # A post whose page was never read has no content, and no author element.
    assert "content" not in unread and "author" not in unread
    assert unread.summary == "摘要文字"
    # updated_at wins over published_at; the feed's updated is its newest entry's, not now.
    assert entries["https://blog.example.org/posts/4"].updated == "2026-11-20T10:00:00+08:00"
    feed = feedparser.parse((out / "feeds" / "example.xml").read_bytes()).feed
    assert feed.updated == "2026-11-20T10:00:00+08:00"


def test_tables_and_an_empty_post(store: CountingStore, tmp_path: Path) -> None:
    store.record(make_post(1, content="| a | b |\n|---|---|\n| 1 | 2 |\n"), "run-1")
    store.record(make_post(2, content=""), "run-1")
    write_feeds(feeds_settings(), store, tmp_path)
    entries = check_atom(tmp_path / "feeds" / "example.xml").entries
    assert "<td>1</td>" in entries[1].content[0].value
    # An empty post was read: it has a content, an empty one.
    root = etree.parse(str(tmp_path / "feeds" / "example.xml")).getroot()
    content = root.find("a:entry/a:content", NS)
    assert content is not None and content.get("type") == "html" and not content.text


def test_an_unchanged_store_rewrites_no_file(store: CountingStore, tmp_path: Path) -> None:
    fill(store)
    out = tmp_path / "output"
    write_feeds(feeds_settings(), store, out, {"example": SITE_URL})
    files = sorted((out / "feeds").iterdir())
    for path in files:  # old mtimes: a write within the same clock tick still shows
        os.utime(path, ns=(10**9, 10**9))
    before = [(path.stat().st_ino, path.stat().st_mtime_ns, path.read_bytes()) for path in files]
    again = write_feeds(feeds_settings(), store, out, {"example": SITE_URL})
    assert again.rewritten == () and len(again.unchanged) == 3 and again.rendered == 0
    after = [(path.stat().st_ino, path.stat().st_mtime_ns, path.read_bytes()) for path in files]
    assert after == before

    # One post of example changes: its feed and all.xml are rewritten, other.xml is not; its
    # body is the same, so no Markdown is rendered again.
    store.record(make_post(5, author="张三", title="标题 5 (改)"), "run-2")
    third = write_feeds(feeds_settings(), store, out, {"example": SITE_URL})
    assert sorted(path.name for path in third.rewritten) == ["all.xml", "example.xml"]
    assert [path.name for path in third.unchanged] == ["other.xml"]
    assert third.rendered == 0
    assert check_atom(out / "feeds" / "example.xml").entries[0].title == "标题 5 (改)"
    assert not list((out / "feeds").glob(".*.tmp"))


def test_only_new_or_edited_bodies_are_rendered(store: CountingStore, tmp_path: Path) -> None:
    fill(store)
    first = write_feeds(feeds_settings(), store, tmp_path)
    # example.xml's 3 bodies, other.xml's 2, all.xml's 5 (its post 2 was never read): a
    # first write renders every body of every feed.
    assert first.rendered == 3 + 2 + 5
    store.record(make_post(5, author="张三", content="## 改过\n\n新的正文。"), "run-2")
    second = write_feeds(feeds_settings(), store, tmp_path)
    assert second.rendered == 2  # the edited body, in example.xml and in all.xml
    for name in ("example.xml", "all.xml"):
        entry = check_atom(tmp_path / "feeds" / name).entries[0]
        assert entry.id.endswith("/posts/5") and "<h2>改过</h2>" in entry.content[0].value
        # The others kept the HTML made before, each with the digest of its Markdown.
        root = etree.parse(str(tmp_path / "feeds" / name)).getroot()
        contents = root.findall("a:entry/a:content", NS)
        digests = root.findall("a:entry/bc:markdown-digest", {**NS, "bc": EXTENSION_NS})
        assert len(digests) == len(contents)
        assert "<h2>背景</h2>" in contents[1].text


def test_only_the_kept_posts_are_read_whole(store: CountingStore, tmp_path: Path) -> None:
    """Streaming: the newest ids are chosen without holding posts; only they are read by id."""
    for n in range(1, 29):
        store.record(make_post(n), "run-1")
    write_feeds(feeds_settings(site=4, everything=5), store, tmp_path)
    assert [len(ids) for ids in store.fetched] == [4, 5]
    assert len(check_atom(tmp_path / "feeds" / "all.xml").entries) == 5


def test_text_xml_cannot_carry_is_dropped(store: CountingStore, tmp_path: Path) -> None:
    store.record(make_post(1, title="标题\x0b一", summary="摘\x00要", content="正文\x1b"), "run-1")
    write_feeds(feeds_settings(), store, tmp_path)
    entry = check_atom(tmp_path / "feeds" / "example.xml").entries[0]
    assert entry.title == "标题一" and entry.summary == "摘要"
    assert entry.content[0].value.strip() == "<p>正文</p>"


def test_a_site_name_that_cannot_be_a_file_gets_no_feed(
    store: CountingStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store.record(make_post(1, site="all"), "run-1")
    store.record(make_post(2, site="../up"), "run-1")
    with caplog.at_level(logging.WARNING, logger="crawler.outputs.atom"):
        result = write_feeds(feeds_settings(), store, tmp_path)
    assert sorted(result.skipped_sites) == ["../up", "all"]
    assert sorted(path.name for path in (tmp_path / "feeds").iterdir()) == ["all.xml"]
    assert not (tmp_path / "up.xml").exists()
    assert len(check_atom(tmp_path / "feeds" / "all.xml").entries) == 2
    assert "site 'all': no feed of its own" in caplog.text


def test_no_posts_no_feeds(store: CountingStore, tmp_path: Path) -> None:
    result = write_feeds(feeds_settings(), store, tmp_path)
    assert result.rewritten == () and not (tmp_path / "feeds").exists()


def test_every_post_gone_leaves_a_valid_empty_feed(store: CountingStore, tmp_path: Path) -> None:
    store.record(make_post(1, gone=True, crawled_at="2026-11-02T03:04:05+00:00"), "run-1")
    write_feeds(feeds_settings(), store, tmp_path)
    parsed = check_atom(tmp_path / "feeds" / "example.xml")
    assert parsed.entries == [] and parsed.feed.updated == "2026-11-02T03:04:05+00:00"


def test_a_feed_that_cannot_be_written_is_one_error_naming_it(
    store: CountingStore, tmp_path: Path
) -> None:
    store.record(make_post(1), "run-1")
    (tmp_path / "feeds").write_text("a file where the folder goes")
    with pytest.raises(ExportError, match=r"^cannot write .*/feeds/example\.xml: "):
        write_feeds(feeds_settings(), store, tmp_path)


@pytest.mark.parametrize("value", ["-1", "many"])
def test_a_bad_entries_setting_is_named(store: CountingStore, tmp_path: Path, value: str) -> None:
    with pytest.raises(ValueError, match="FEEDS_SITE_ENTRIES"):
        write_feeds(project_settings(FEEDS_SITE_ENTRIES=value), store, tmp_path)


def test_the_schema_rejects_what_rfc_4287_forbids(tmp_path: Path, store: CountingStore) -> None:
    """The validator has teeth: an entry without updated, a date that is no date."""
    store.record(make_post(1), "run-1")
    write_feeds(feeds_settings(), store, tmp_path)
    good = etree.parse(str(tmp_path / "feeds" / "example.xml"))
    assert SCHEMA.validate(good)
    no_updated = etree.fromstring(etree.tostring(good))
    entry_updated = no_updated.find("a:entry/a:updated", NS)
    entry_updated.getparent().remove(entry_updated)
    assert not SCHEMA.validate(no_updated)
    bad_date = etree.fromstring(etree.tostring(good))
    bad_date.find("a:updated", NS).text = "2026-11-30 10:00"
    assert not SCHEMA.validate(bad_date)


def test_the_demo_writes_feeds_that_readers_accept(tmp_path: Path) -> None:
    """``scrapy crawlall --sample``: every sample site gets a feed, all.xml holds them all."""
    given = tmp_path / "output"
    port = free_port_base(4)
    result = run_scrapy("crawlall", "--sample", "-s", f"SAMPLE_PORT_BASE={port}", output=given)
    assert result.returncode == 0, result.stderr[-3000:]
    folder = given / "sample" / "feeds"
    if not (folder / "all.xml").exists():
        pytest.skip(
            "crawlall does not write feeds yet (write_feeds is not wired into the"
            " exports): no output/sample/feeds/all.xml"
        )
    posts = read_jsonl(given / "sample" / "posts.jsonl")
    sites = sorted(path.stem for path in folder.glob("*.xml") if path.stem != "all")
    assert len(sites) == 4
    total = 0
    for site in sites:
        parsed = check_atom(folder / f"{site}.xml")
        assert 0 < len(parsed.entries) <= 50
        assert parsed.feed.title == site
        total += len(parsed.entries)
        # Each sample site has post pages: their entries carry the whole post.
        assert any(entry.get("content") for entry in parsed.entries), site
        assert_newest_first(parsed.entries)
    everything = check_atom(folder / "all.xml")
    assert_newest_first(everything.entries)
    assert len(everything.entries) == min(200, sum(not post["gone"] for post in posts))
    assert total >= len(everything.entries)
    # Written again from the same store (without the sites' URLs): byte for byte the same.
    store = SQLiteStore(given / "sample" / "posts.sqlite")
    try:
        again = write_feeds(project_settings(), store, given / "sample")
    finally:
        store.close()
    assert again.rewritten == () and len(again.unchanged) == 5 and again.rendered == 0


def assert_newest_first(entries: list[Any]) -> None:
    """Dated entries newest first by instant, then the undated ones."""
    dated = [calendar.timegm(entry.published_parsed) for entry in entries if "published" in entry]
    assert dated == sorted(dated, reverse=True)
    assert all("published" in entry for entry in entries[: len(dated)])


def test_a_feed_keeps_its_id(store: CountingStore, tmp_path: Path) -> None:
    """Atom ids are permanent: a site's URL learnt later gives the feed a link, not a new id."""
    store.record(make_post(1), "run-1")
    write_feeds(feeds_settings(), store, tmp_path)
    later = write_feeds(feeds_settings(), store, tmp_path, {"example": SITE_URL})
    # The feed gains a link, all.xml's entry a source naming the blog; no id changes.
    assert sorted(path.name for path in later.rewritten) == ["all.xml", "example.xml"]
    parsed = check_atom(tmp_path / "feeds" / "example.xml")
    assert parsed.feed.id == "tag:blogcrawler,2026:site/example"
    assert parsed.feed.link == SITE_URL
    # A call that does not know the URL (one site crawled alone) keeps the link: no rewrite.
    alone = write_feeds(feeds_settings(), store, tmp_path)
    assert alone.rewritten == () and len(alone.unchanged) == 2
    assert check_atom(tmp_path / "feeds" / "all.xml").entries[0].source.title == "example"
