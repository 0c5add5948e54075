"""Crawls through Scrapy's real downloader, against sample sites served on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.project import CASES, read_jsonl, run_scrapy

from crawler.devtools.cases import find_cases
from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.schema import validate_post

CASES = find_cases(CASES)


def expected_sample_posts(layout: str, server: SiteServer) -> dict[str, dict]:
    """The posts of every saved case taken from the layout's sample pages, by local URL."""
    posts: dict[str, dict] = {}
    for case in CASES:
        if case.layout == layout and case.page.startswith(f"sample:{layout}/"):
            for item in case.expected():
                if item["title"]:
                    posts.setdefault(server.local(item["url"]), item)
    return posts


def crawl(layout: str, url: str, tmp_path: Path, name: str) -> list[dict]:
    feed = tmp_path / f"{name}.jsonl"
    result = run_scrapy(
        "crawl", layout, "-a", f"url={url}", "-O", str(feed), output=tmp_path / name
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return read_jsonl(feed)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_crawl_sample_site(layout: str, tmp_path: Path) -> None:
    server = SiteServer(sample_site(layout)).start()
    try:
        expected = expected_sample_posts(layout, server)
        # From the start page and from each entry page nothing links to (cnblogs' archive).
        entries = [server.url(), *(server.url(path) for path in server.site.entries)]
        for number, url in enumerate(entries):
            posts = crawl(layout, url, tmp_path, f"crawl{number}")
            urls = [post["url"] for post in posts]
            # Every page followed, every post once (pinned posts repeat on the home pages).
            assert len(urls) == len(set(urls))
            assert set(urls) <= set(expected)
            for post in posts:
                validate_post(post)
                want = expected[post["url"]]
                for field in ("title", "summary", "published_at", "views", "comments", "likes"):
                    assert post[field] == want[field], (post["url"], field)
            if number == 0:
                assert sorted(urls) == sorted(expected)
        # Every route of the sample site was asked for, redirects included.
        missing = set(server.site.routes) - set(server.hits)
        assert not missing
    finally:
        server.stop()
