"""``crawler.discovery.detect.detect`` on every saved case and on pages of no layout, and
``scrapy detect``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable

import pytest
from parsel import Selector
from scrapy.http import HtmlResponse, Response
from support.project import CASES, ROOT

from crawler.devtools.cases import find_cases, run_case
from crawler.devtools.samples.server import Route, Site, SiteServer, sample_site
from crawler.discovery.detect import detect, examine, examine_all, layout_classes
from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.xpath import node_texts

CASES = find_cases(CASES)
SIX = {"cnblogs", "hux", "cards", "feed", "hexo", "wordpress"}

PLAIN = """<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>关于我</title>
</head><body><header><h1>关于我</h1></header><main><p>我在杭州做分布式训练。</p>
<p><a href="/contact/">联系方式</a></p></main></body></html>"""
# Articles without title links, a generator meta of no known platform, a "next" link.
ALMOST = """<!DOCTYPE html><html><head><meta name="generator" content="Zola"></head><body>
<article class="post"><p>没有标题链接的摘要。</p><time datetime="2026-10-01">10月1日</time>
</article>
<a rel="next" href="/page/2/">下一页</a></body></html>"""


def html(body: str, url: str = "https://example.cn/") -> HtmlResponse:
    return HtmlResponse(url=url, body=body.encode("utf-8"), encoding="utf-8")


def test_every_layout_has_cases() -> None:
    assert {case.layout for case in CASES} >= SIX
    assert {cls.name for cls in layout_classes()} >= SIX


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_detect_names_the_layout_of_each_saved_page(case) -> None:
    matches = detect(case.response())
    assert [m.layout for m in matches] == [case.layout]
    match = matches[0]
    assert match.posts == sum(1 for item in case.expected() if item["url"] and item["title"])
    assert match.matched_selectors
    if case.next_pages is not None:
        assert match.next_pages == case.next_pages


def test_evidence_names_selectors_and_the_first_title() -> None:
    # NexT 7.7.1 (Gemini): five posts, the first a sticky one.
    case = next(c for c in CASES if c.name == "hexo/next771-gemini-2026")
    match = detect(case.response())[0]
    first = run_case(case)[0]
    assert match.first_title == first["title"] and match.first_url == first["url"]
    assert match.first_title == "ClawdBot（OpenClaw）试用记录"
    assert match.signature["a.post-title-link"] == 5
    assert match.score == (len(match.matched_selectors), 5)


@pytest.mark.parametrize("body", [PLAIN, ALMOST, "", "<rss><channel></channel></rss>"])
def test_none_for_pages_of_no_layout(body: str) -> None:
    assert detect(html(body)) == []


def test_binary_and_xml_responses_are_examined_too() -> None:
    feed = next(c for c in CASES if c.name == "feed/wordpress-feed")
    raw = Response(url=feed.url, body=feed.body())  # e.g. served as application/octet-stream
    assert [m.layout for m in detect(raw)] == ["feed"]
    as_html = HtmlResponse(url=feed.url, body=feed.body())  # served as text/html
    assert [m.layout for m in detect(as_html)] == ["feed"]
    assert detect(Response(url="https://example.cn/x.bin", body=b"\x00\x01\xff")) == []


def test_a_failing_extraction_is_evidence_not_a_crash() -> None:
    class Broken(Layout):
        name = "broken"
        signature = ("p",)

        @classmethod
        def post_nodes(cls, response: Response) -> Iterable[Selector]:
            raise ValueError("cannot read this")

    match = examine(html(PLAIN), Broken)
    assert not match.matched and match.error == "ValueError: cannot read this"
    assert match.signature == {"p": 2}


def test_a_new_layout_is_detected_without_changing_detect() -> None:
    class Zola(Layout):
        name = "zola"
        signature = ("meta[name=generator][content=Zola]",)

        @classmethod
        def post_nodes(cls, response: Response) -> Iterable[Selector]:
            return response.css("article.post")

        @classmethod
        def populate(cls, loader: PostLoader, node: Selector, response: Response) -> None:
            loader.add_value("title", node_texts(node.css("p")))
            loader.add_value("url", "/posts/1/")

    layouts = [*layout_classes(), Zola]
    assert [m.layout for m in detect(html(ALMOST), layouts)] == ["zola"]
    assert examine_all(html(ALMOST), layouts)[0].layout == "zola"


def _detect(url: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "detect",
            url,
            "-s",
            "DOWNLOAD_DELAY=0",
            "-s",
            "AUTOTHROTTLE_ENABLED=0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_scrapy_detect_prints_the_evidence_and_exits_by_result() -> None:
    hux = SiteServer(sample_site("hux")).start()
    blog = (
        '<html><head><meta name="generator" content="Zola 0.19">'
        '<link rel="alternate" type="application/atom+xml" href="/atom.xml">'
        '<link rel="sitemap" href="/sitemap.xml"></head><body><p>博客</p></body></html>'
    )
    routes = {"/": Route(body=PLAIN.encode()), "/blog/": Route(body=blog.encode())}
    plain = SiteServer(Site(start="/", routes=routes)).start()
    try:
        found = _detect(hux.url("/page2"))  # redirected to /page2/
        assert found.returncode == 0, found.stderr[-2000:]
        assert "hux: MATCH, 4 post(s)" in found.stdout
        assert "signature found: nav.navbar-custom (1)" in found.stdout
        assert "redirected to" in found.stdout
        none = _detect(plain.url())
        assert none.returncode == 1, none.stderr[-2000:]
        assert "generic: no known layout reads" in none.stdout
        assert "the generic reader does: no marks" in none.stdout
        marked = _detect(plain.url("/blog/"))
        assert marked.returncode == 1, marked.stderr[-2000:]
        assert (
            f"the generic reader does: generator Zola 0.19; feed {plain.url('/atom.xml')}; "
            f"sitemap {plain.url('/sitemap.xml')}"
        ) in marked.stdout
        missing = _detect(plain.url("/missing"))
        assert missing.returncode == 2 and "HTTP 404" in missing.stderr
    finally:
        hux.stop()
        plain.stop()
