"""Whole real sites from their home page: ``scrapy crawl auto -a url=HOME`` on each saved site
of tests/sites/ (one per theme and version, saved byte-exact from public repositories, their
posts' values read off the pages by eye) exports every post once and nothing else, with
title, publication time (with the site's offset), tags, categories and the whole body right;
a second run asks only conditional requests and exports the same; and ``crawlall`` reads
registry entries without a layout the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.project import TESTS, read_jsonl, run_scrapy
from support.savedsites import SavedSite, SavedSiteServer, problems_of

SITES = sorted(path for path in (TESTS / "sites").iterdir() if (path / "site.json").exists())


@pytest.fixture(params=SITES, ids=[path.name for path in SITES])
def saved(request: pytest.FixtureRequest) -> Any:
    server = SavedSiteServer(SavedSite.load(request.param)).start()
    yield server
    server.stop()


def crawl(server: SavedSiteServer, output: Path) -> tuple[list[dict[str, Any]], str]:
    site = server.site
    result = run_scrapy(
        "crawl", "auto", "-a", f"url={server.url()}", "-a", f"timezone={site.spec['timezone']}",
        "-O", str(output / "posts.jsonl"), output=output,
    )  # fmt: skip
    # A site saved in part: its unsaved post pages answer 404, over the health bound (3).
    assert result.returncode in ((0, 3) if site.partial else (0,)), result.stderr[-3000:]
    return read_jsonl(output / "posts.jsonl"), result.stderr


def test_a_saved_site_is_read_whole_from_its_home_page(
    saved: SavedSiteServer, tmp_path: Path
) -> None:
    site = saved.site
    expected, unsaved = saved.posts(), saved.posts("unsaved_posts")
    posts, log = crawl(saved, tmp_path)
    urls = [post["url"] for post in posts]
    assert len(urls) == len(set(urls)), "a post exported twice"
    # A post whose page was not saved is exported from a list that shows it, or not at all.
    found = sorted(url for url in urls if url not in unsaved)
    assert found == sorted(expected), f"posts found: {sorted(urls)}"
    assert {post["layout"] for post in posts} == {site.spec["layout"]}, log[-2000:]
    wrong = {
        url: problems_of(expected[url], post) for post in posts if (url := post["url"]) in expected
    }
    assert not {url: found for url, found in wrong.items() if found}

    # Nothing changed: conditional requests only, the same posts (from the store). A site
    # saved in part is read whole again (its failed pages left it incomplete).
    saved.hits.clear()
    saved.conditional.clear()
    again, _ = crawl(saved, tmp_path)
    asked = [path for path, _ in saved.hits if not path.endswith("/robots.txt")]
    assert asked and (site.partial or asked == saved.conditional), saved.hits
    assert sorted(post["url"] for post in again) == sorted(urls)


def test_crawlall_reads_registry_entries_without_a_layout(tmp_path: Path) -> None:
    """Two saved sites in a registry, one with no ``layout``, one with ``layout = "auto"``:
    each read by what its home page is (a theme's layout, the generic reader), every post
    once; the second run asks conditionally and changes nothing."""
    chosen = [TESTS / "sites" / "stack-3-liaoziw", TESTS / "sites" / "chirpy-5-0xliu"]
    servers = [SavedSiteServer(SavedSite.load(path)).start() for path in chosen]
    try:
        registry = tmp_path / "sites.toml"
        stack, chirpy = servers
        registry.write_text(
            f'[sites.stack]\nurl = "{stack.url()}"\n'
            f'timezone = "{stack.site.spec["timezone"]}"\n'
            f'[sites.chirpy]\nlayout = "auto"\nurl = "{chirpy.url()}"\n'
            f'timezone = "{chirpy.site.spec["timezone"]}"\n',
            encoding="utf-8",
        )
        out = tmp_path / "out"
        first = run_scrapy("crawlall", "-s", f"SITE_REGISTRY={registry}", output=out)
        assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
        posts = read_jsonl(out / "posts.jsonl")
        for name, server in zip(("stack", "chirpy"), servers, strict=True):
            site = server.site
            expected = server.posts()
            mine = [post for post in posts if post["site"] == name]
            assert sorted(post["url"] for post in mine) == sorted(expected)
            assert {post["layout"] for post in mine} == {site.spec["layout"]}
            wrong = {post["url"]: problems_of(expected[post["url"]], post) for post in mine}
            assert not {url: found for url, found in wrong.items() if found}
        for server in servers:
            server.hits.clear()
            server.conditional.clear()
        again = run_scrapy("crawlall", "-s", f"SITE_REGISTRY={registry}", output=out)
        assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
        for server in servers:
            asked = [path for path, _ in server.hits if not path.endswith("/robots.txt")]
            assert asked and asked == server.conditional, server.hits
        assert len(read_jsonl(out / "posts.jsonl")) == len(posts)
    finally:
        for server in servers:
            server.stop()
