"""Bad input: legacy encodings, broken markup, hostile feeds, hostile arguments and registry.

Real crawls (``scrapy crawl`` subprocesses) against :class:`faultserver.FaultServer` on
127.0.0.1, compared with the saved cases' expected items where the page is a sample page.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from scrapy.http import HtmlResponse, XmlResponse
from scrapy.settings import Settings
from support.faultserver import (
    FaultServer,
    cards_html,
    cards_site,
    crawl,
    encoded_page,
    html_route,
    list_page,
    start_crawl,
)
from support.project import ROOT, run_scrapy

from crawler.devtools.samples.server import Route, Site
from crawler.layouts.cards import CardsLayout
from crawler.runs.folders import run_dir
from crawler.runs.summary import EXIT_OK, EXIT_SITE_FAILED, EXIT_UNHEALTHY, EXIT_USAGE

CASES = ROOT / "tests" / "cases"
FEED_SAMPLE = ROOT / "crawler" / "devtools" / "samples" / "feed" / "index.xml"
TEXT_FIELDS = ("title", "summary", "category", "published_raw", "views", "comments", "likes")


def expected(*cases: str) -> dict[str, dict[str, Any]]:
    """The expected items of saved cases (``"cards/hot-1"``), by URL."""
    items = (
        item
        for case in cases
        for item in json.loads((CASES / case / "output.json").read_text(encoding="utf-8"))
    )
    return {item["url"]: item for item in items}


CARDS_EXPECTED = expected("cards/hot-1", "cards/hot-2", "cards/hot-3")


def assert_posts_exact(server: FaultServer, posts: list[dict], want: dict[str, dict]) -> None:
    """Every post is one of ``want`` (by URL, as served here), field for field."""
    local = {server.local(url): item for url, item in want.items()}
    assert sorted(post["url"] for post in posts) == sorted(local)
    for post in posts:
        for field in TEXT_FIELDS:
            assert post[field] == local[post["url"]][field], (post["url"], field)


# ---- encodings ------------------------------------------------------------------------------
# Each crawl reads the three sample pages, each in another encoding and declared another way:
# (encoding, where the charset is declared, the label declared).
ENCODINGS = {
    "gbk-meta, gbk-header, gbk-none": [
        ("gbk", "meta", None),
        ("gbk", "header", None),
        ("gbk", "none", None),
    ],
    "gb18030-none, gb18030-meta, gbk-labelled-gb2312": [
        ("gb18030", "none", None),
        ("gb18030", "meta", None),
        ("gbk", "header", "gb2312"),  # the common mislabel: GB2312 declared, GBK characters
    ],
}


@pytest.mark.parametrize("encodings", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_pages_in_chinese_legacy_encodings_read_exactly(
    serve, tmp_path: Path, encodings: list[tuple[str, str, str | None]]
) -> None:
    pages = {}
    for number, (path, (encoding, charset_in, label)) in enumerate(
        zip(("/hot", "/hot?page=2", "/hot?page=3"), encodings, strict=True), start=1
    ):
        pages[path] = encoded_page(cards_html(number), encoding, charset_in, label)
        assert b'charset="utf-8"' not in pages[path].body
    server = serve(cards_site(**pages))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert_posts_exact(server, run.posts, CARDS_EXPECTED)


def test_a_short_page_in_gbk_without_a_charset_is_not_guessed_at(serve, tmp_path: Path) -> None:
    """Too little text for statistical detection: Scrapy alone reads these as Korean (cp949)."""
    titles = ["显存", "分布式", "训练笔记"]
    cards = "".join(
        f'<article class="post-card"><h2 class="post-title"><a href="/p/{n}">{title}</a></h2>'
        "</article>"
        for n, title in enumerate(titles)
    )
    page = f'<html><body><main class="post-list">{cards}</main></body></html>'
    route = Route(body=page.encode("gbk"), content_type="text/html")
    server = serve(Site(start="/hot", routes={"/hot": route}))
    run = crawl("cards", server.url(), output=tmp_path)
    assert sorted(post["title"] for post in run.posts) == sorted(titles)


def test_an_rss_feed_in_gbk_reads_exactly(serve, tmp_path: Path) -> None:
    xml = FEED_SAMPLE.read_text(encoding="utf-8").replace("³", "3")  # ³ is not in GBK
    body = xml.replace('encoding="utf-8"', 'encoding="GBK"', 1).encode("gbk")
    assert body.startswith(b'<?xml version="1.0" encoding="GBK"')
    site = Site(
        start="/index.xml",
        routes={"/index.xml": Route(body=body, content_type="application/rss+xml")},
        origin="http://124.223.202.120:8088",
    )
    server = serve(site)
    run = crawl("feed", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    want = {
        url: {k: v.replace("³", "3") if isinstance(v, str) else v for k, v in item.items()}
        for url, item in expected("feed/hugo-rss").items()
    }
    assert_posts_exact(server, run.posts, want)


# ---- broken markup --------------------------------------------------------------------------
# Closing tags a sloppy template forgets, which HTML parsers close by themselves. (</h2> stays:
# with both </a> and </h2> missing, the summary is inside the title's link in any parser,
# browsers included.)
_OPTIONAL_CLOSERS = re.compile(r"</(?:p|span|a|li|nav|main|section|body|html)>")


def test_unclosed_and_truncated_markup_still_reads_every_post(serve, tmp_path: Path) -> None:
    unclosed = _OPTIONAL_CLOSERS.sub("", cards_html(1))
    assert "</p>" not in unclosed and "</a>" not in unclosed
    page_3 = cards_html(3)
    truncated = page_3[: page_3.index("</article>") + len("</article>")]  # cut mid-document
    server = serve(
        cards_site(**{"/hot": html_route(unclosed), "/hot?page=3": html_route(truncated)})
    )
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    first_card_of_page_3 = next(iter(expected("cards/hot-3")))
    want = {url: item for url, item in CARDS_EXPECTED.items() if not url.endswith(("/109", "/110"))}
    want[first_card_of_page_3] = CARDS_EXPECTED[first_card_of_page_3]
    assert_posts_exact(server, run.posts, want)


@pytest.mark.parametrize("closer", ["</article>", "</div>", "</time>"])
def test_cards_whose_closing_tags_are_missing_read_like_closed_ones(closer: str) -> None:
    url = "https://aiinfra.example.cn/hot"
    body = cards_html(1).replace(closer, "").encode("utf-8")
    items = CardsLayout.extract(HtmlResponse(url=url, body=body, encoding="utf-8"))
    want = list(expected("cards/hot-1").values())
    assert [{f: i[f] for f in TEXT_FIELDS} for i in items] == [
        {f: w[f] for f in TEXT_FIELDS} for w in want
    ]


def test_cards_without_a_title_are_dropped_and_named(serve, tmp_path: Path) -> None:
    html = cards_html(1)
    # Card 102 loses its whole title (and with it its link); card 103 keeps an empty link.
    html = re.sub(r'<h2 class="post-title"><a href="/posts/102">.*?</h2>', "", html)
    html = re.sub(r'(<a href="/posts/103">).*?(</a>)', r"\1\2", html)
    server = serve(cards_site(**{"/hot": html_route(html)}))
    run = crawl("cards", server.url(), output=tmp_path)
    urls = sorted(post["url"] for post in run.posts)
    assert urls == sorted(
        server.local(u) for u in CARDS_EXPECTED if not u.endswith(("/102", "/103"))
    )
    dropped = [
        line
        for line in run.result.stderr.splitlines()
        if " WARNING: Dropped: " in line and f"on {server.url()} has no" in line
    ]
    assert len(dropped) == 2, run.result.stderr[-3000:]
    assert run.site["counts"]["validate/dropped/title"] == 2
    assert run.site["dropped"] == 2  # posts, not missing fields (102 lacks url and title)
    assert run.status == EXIT_UNHEALTHY
    assert any("titles found for only 80%" in problem for problem in run.site["problems"])


def test_a_garbage_date_keeps_the_post_without_a_time(serve, tmp_path: Path) -> None:
    garbage = r"哈哈 ¯\_(ツ)_/¯"
    html = cards_html(1).replace("2026年10月04日", garbage, 1)
    server = serve(cards_site(**{"/hot": html_route(html)}))
    run = crawl("cards", server.url(), output=tmp_path)
    assert len(run.posts) == 10
    (post,) = [p for p in run.posts if p["url"] == server.url("/posts/101")]
    assert (post["published_at"], post["date_precision"]) == (None, None)
    assert post["published_raw"] == garbage
    assert post["title"] == CARDS_EXPECTED["https://aiinfra.example.cn/posts/101"]["title"]
    assert run.site["date_failures"] == 1
    assert f"unparsed date '{garbage}'" in run.result.stderr.replace("\\\\", "\\")


def test_an_empty_list_page_fails_the_site(serve, tmp_path: Path) -> None:
    server = serve(Site(start="/hot", routes={"/hot": html_route(list_page([]))}))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_SITE_FAILED
    assert run.site["problems"] == ["no posts found"]
    assert run.posts == []


# ---- hostile feeds --------------------------------------------------------------------------
def measured_crawl(layout: str, url: str, output: Path, timeout: float = 60) -> tuple[int, float]:
    """Run a crawl; return its exit status and its peak resident memory in MB (``wait4``).

    The peak includes this test process's own memory (Linux counts the pages of the process
    image the child replaced at exec), so compare it with :func:`baseline_peak`, not a constant.
    """
    process = start_crawl(layout, url, output=output, log=output.parent / "crawl.log")
    timer = threading.Timer(timeout, process.kill)  # a runaway parse is killed, and fails
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss / 1024


def feed_with(doctype: str, title_prefix: str, description_prefix: str = "") -> bytes:
    """The sample feed with a DOCTYPE and entity references in its first item."""
    xml = FEED_SAMPLE.read_text(encoding="utf-8")
    xml = xml.replace("<rss version", f"{doctype}\n<rss version", 1)
    xml = xml.replace("<title>给多模态", f"<title>{title_prefix}给多模态", 1)
    xml = xml.replace(
        "<description>&lt;p&gt;为多模态", f"<description>{description_prefix}为多模态", 1
    )
    return xml.encode("utf-8")


def feed_site(body: bytes, content_type: str = "application/rss+xml") -> Site:
    return Site(
        start="/index.xml", routes={"/index.xml": Route(body=body, content_type=content_type)}
    )


def exported_text(output: Path) -> str:
    return "".join(
        p.read_text(encoding="utf-8")
        for p in output.rglob("*")
        if p.suffix in (".jsonl", ".csv", ".json")
    )


@pytest.fixture
def baseline_peak(serve, tmp_path: Path) -> float:
    """The peak memory of a crawl of the plain sample feed, measured the same way."""
    server = serve(feed_site(FEED_SAMPLE.read_bytes()))
    status, peak_mb = measured_crawl("feed", server.url(), tmp_path / "baseline")
    assert status == EXIT_OK
    return peak_mb


# Memory a hostile feed may add to a plain crawl's peak: expanding the bomb would take GBs.
HOSTILE_FEED_EXTRA_MB = 100


def test_an_entity_expansion_bomb_is_refused(serve, tmp_path: Path, baseline_peak: float) -> None:
    levels = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)
    ]  # &lol9; is 10⁹ "lol"s: 3 GB if expanded
    body = feed_with(f"<!DOCTYPE rss [{''.join(levels)}]>", "&lol9;", "&lol9;")
    server = serve(feed_site(body))
    output = tmp_path / "output"
    status, peak_mb = measured_crawl("feed", server.url(), output)
    assert status >= 0  # exited by itself, not killed by the timeout
    assert peak_mb < baseline_peak + HOSTILE_FEED_EXTRA_MB
    assert "lollol" not in exported_text(output)


def test_external_entities_are_never_loaded(serve, tmp_path: Path, baseline_peak: float) -> None:
    server = serve(feed_site(b""))
    doctype = (
        f'<!DOCTYPE rss SYSTEM "{server.url("/evil.dtd")}" ['
        '<!ENTITY file SYSTEM "file:///etc/passwd">'
        f'<!ENTITY web SYSTEM "{server.url("/evil")}">'
        f'<!ENTITY % remote SYSTEM "{server.url("/evil-parameter")}"> %remote;]>'
    )
    server.site.routes["/index.xml"] = Route(
        body=feed_with(doctype, "&file;&web;", "&file;"), content_type="application/rss+xml"
    )
    assert "root:" in Path("/etc/passwd").read_text()
    output = tmp_path / "output"
    status, peak_mb = measured_crawl("feed", server.url(), output)
    assert status >= 0 and peak_mb < baseline_peak + HOSTILE_FEED_EXTRA_MB
    exported = exported_text(output)
    assert "root:" not in exported
    assert server.paths() == ["/index.xml"]  # no DTD, no entity fetched
    titles = [json.loads(line)["title"] for line in (output / "posts.jsonl").open(encoding="utf-8")]
    assert "给多模态 Agent 训一个评委：奖励模型的三次返工" in titles


def test_an_html_page_where_a_feed_belongs_fails_the_site(serve, tmp_path: Path) -> None:
    server = serve(feed_site(cards_html(1).encode("utf-8"), "text/html; charset=utf-8"))
    run = crawl("feed", server.url(), output=tmp_path)
    assert run.status == EXIT_SITE_FAILED
    (problem,) = run.problems_naming(server.url())
    assert "not an RSS or Atom feed" in problem


# ---- hostile arguments and configuration ----------------------------------------------------
def assert_refused(result: subprocess.CompletedProcess, server: FaultServer, output: Path) -> None:
    """Exit status 2 with one clear error line, no traceback, no request, no data files."""
    assert result.returncode == EXIT_USAGE, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert server.connections == 0
    # crawlall takes the output folder's lock before it reads the registry: only that file.
    assert [p.name for p in output.rglob("*")] in ([], [".lock"])


@pytest.mark.parametrize(
    "argument",
    [
        "site=../../etc",
        "site=a/b",
        "url=file:///etc/passwd",
        "url=ftp://127.0.0.1:{port}/hot",
        "url=http://127.0.0.1:99999/hot",
    ],
)
def test_a_hostile_argument_is_refused_before_the_crawl(
    serve, tmp_path: Path, argument: str
) -> None:
    server = serve(cards_site())
    argument = argument.format(port=server.server_address[1])
    # A bad site name is refused even next to a good start URL.
    extra = ["-a", f"url={server.url()}"] if argument.startswith("site=") else []
    output = tmp_path / "output"
    result = run_scrapy("crawl", "cards", "-a", argument, *extra, output=output)
    assert_refused(result, server, output)
    assert argument.split("=", 1)[1] in result.stderr


# Runs scrapy with the registry replaced by the TOML text in argv[1].
_WITH_REGISTRY = """
import sys
import crawler.sites
crawler.sites.registry = lambda *_: crawler.sites.load_registry(sys.argv[1])
from scrapy.cmdline import execute
execute(["scrapy", *sys.argv[2:]])
"""


@pytest.mark.parametrize(
    ("name", "command"),
    [("../evil", ["crawlall"]), ("a/b", ["crawl", "cards", "-a", "site=a/b"])],
)
def test_a_hostile_registry_entry_is_refused_before_the_crawl(
    serve, tmp_path: Path, name: str, command: list[str]
) -> None:
    server = serve(cards_site())
    registry = f'[sites."{name}"]\nlayout = "cards"\nurl = "{server.url()}"\n'
    output = tmp_path / "output"
    result = subprocess.run(
        [sys.executable, "-c", _WITH_REGISTRY, registry, *command, "-s", f"OUTPUT_DIR={output}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert_refused(result, server, output)
    assert f"registry entry [sites.{name}] is invalid" in result.stderr


def files_outside(root: Path, output: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p != output and output not in p.parents]


def test_no_file_leaves_the_output_folder(serve, tmp_path: Path) -> None:
    """Names of files come from site names (from the URL) and run ids: neither can escape."""
    start = "/..%2F..%2Fescape/hot"  # a site name made of this verbatim would climb out
    server = serve(Site(start=start, routes={start: html_route(list_page([("/p/1", "文章")]))}))
    output = tmp_path / "a" / "b" / "output"
    # (An unsafe -s RUN_ID is refused before the crawl: see the test above.)
    crawl("cards", server.url(), output=output)
    assert server.paths() == [start]
    assert files_outside(tmp_path, output) == [tmp_path / "a", tmp_path / "a" / "b"]
    settings = Settings({"OUTPUT_DIR": str(output)})
    assert run_dir(settings, "20261130T101500Z-4242").parent == output / "runs"
    for unsafe in ("", "../x", "..", "a/b", "a\\b", ".hidden"):
        with pytest.raises(ValueError):
            run_dir(settings, unsafe)


def test_an_unsafe_run_id_is_refused_before_the_crawl(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    output = tmp_path / "output"
    result = run_scrapy(
        "crawl", "cards", "-a", f"url={server.url()}", "-s", "RUN_ID=../x", output=output
    )
    assert result.returncode == EXIT_USAGE and server.connections == 0
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("stray", ["<:", "<a:1>x</a:1>", "<:b>x</:b>"])
def test_stray_prefixed_markup_does_not_break_the_feed_parser(stray: str) -> None:
    """The XML parser's recovery can make elements named ":" or "a:1": not a crash."""
    from crawler.layouts.feed import FeedLayout

    body = f"<rss><channel><item><title>T</title><link>https://x.cn/p/1</link>{stray}</item>"
    response = XmlResponse(url="https://x.cn/feed", body=(body + "</channel></rss>").encode())
    assert [item["title"] for item in FeedLayout.extract(response)] == ["T"]
