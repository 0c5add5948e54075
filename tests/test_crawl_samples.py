"""Crawls through Scrapy's real downloader, against sample sites served on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_jsonl, run_scrapy

from crawler.cases import find_cases
from crawler.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.schema import validate_post

CASES = find_cases(Path(__file__).parent / "cases")


def expected_sample_posts(layout: str, server: SiteServer) -> dict[str, dict]:
    """The posts of every saved case taken from the layout's sample pages, by local URL."""
    posts: dict[str, dict] = {}
    for case in CASES:
        if case.layout == layout and case.page.startswith(f"sample:{layout}/"):
            for item in case.expected():
                if item["title"]:
                    posts.setdefault(server.local(item["url"]), item)
    return posts


@pytest.mark.parametrize("layout", LAYOUTS)
def test_crawl_sample_site(layout: str, tmp_path: Path) -> None:
    server = SiteServer(sample_site(layout)).start()
    try:
        expected = expected_sample_posts(layout, server)
        feed = tmp_path / "posts.jsonl"
        result = run_scrapy(
            "crawl", layout, "-a", f"url={server.url()}", "-O", str(feed), output=tmp_path / "out"
        )
        assert result.returncode == 0, result.stderr[-3000:]
        posts = read_jsonl(feed)
        urls = [post["url"] for post in posts]
        # Every page followed, every post once (pinned posts and the archive repeat them).
        assert sorted(urls) == sorted(expected)
        for post in posts:
            validate_post(post)
            want = expected[post["url"]]
            for field in ("title", "summary", "published_at", "views", "comments", "likes"):
                assert post[field] == want[field], (post["url"], field)
        # Every route of the sample site was asked for, redirects included.
        assert set(server.site.routes) <= set(server.hits), set(server.site.routes) - set(
            server.hits
        )
    finally:
        server.stop()
