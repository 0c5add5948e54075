"""``crawlall`` crawls every site in one crawler: the politeness limits hold per host."""

from __future__ import annotations

from pathlib import Path

from support.faultserver import html_route, list_page, serve  # noqa: F401 (serve: a fixture)
from support.project import read_jsonl, run_scrapy

from crawler.devtools.samples.server import Site

BLOGS = 8
LATENCY = 0.3  # seconds the server takes per page: long enough for requests to overlap


def blogs_on_one_host() -> Site:
    """``BLOGS`` card-list blogs under ``/blogN/hot``, two posts each with its page, on one
    server."""
    routes = {
        f"/blog{n}/hot": html_route(list_page([(f"/blog{n}/p/{i}", f"文章{i}") for i in (1, 2)]))
        for n in range(BLOGS)
    }
    post = html_route(
        '<html><body><article><div class="post-content"><p>正文</p></div></article></body></html>'
    )
    routes.update({f"/blog{n}/p/{i}": post for n in range(BLOGS) for i in (1, 2)})
    return Site(start="/blog0/hot", routes=routes)


def peak_in_flight(arrivals: list[float], latency: float) -> int:
    """The most requests the server held at once: each is held ``latency`` after arriving."""
    return max(sum(1 for other in arrivals if at - latency < other <= at) for at in arrivals)


def test_blogs_of_one_host_share_its_limits(serve, tmp_path: Path) -> None:  # noqa: F811
    server = serve(blogs_on_one_host())
    server.latency = LATENCY
    registry = tmp_path / "sites.toml"
    registry.write_text(
        "".join(
            f'[sites.blog{n}]\nlayout = "cards"\nurl = "{server.url(f"/blog{n}/hot")}"\n'
            for n in range(BLOGS)
        ),
        encoding="utf-8",
    )
    result = run_scrapy(
        "crawlall",
        "-s",
        f"SITE_REGISTRY={registry}",
        # Politeness on for loopback, with short delays so the test stays short: what is left
        # is Scrapy's per-host slot, 2 requests at a time (CONCURRENT_REQUESTS_PER_DOMAIN).
        # (With no delay at all, Scrapy 2.19 lets a burst of queued requests past that limit.)
        "-s",
        "THROTTLE_LOOPBACK=1",
        "-s",
        "DOWNLOAD_DELAY=0.05",
        "-s",
        "AUTOTHROTTLE_ENABLED=0",
        "-s",
        "ROBOTSTXT_OBEY=0",
        output=tmp_path / "output",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    hits = [hit for hit in server.log if hit.path != "/robots.txt"]
    assert len(hits) == BLOGS + 2 * BLOGS  # list pages, then the post pages: same host slot
    # One crawler per site would have sent all of them at once.
    assert peak_in_flight([hit.at for hit in hits], LATENCY) <= 2
    posts = read_jsonl(tmp_path / "output" / "posts.jsonl")
    assert len(posts) == 2 * BLOGS
    assert {post["content"] for post in posts} == {"正文"}
    assert {post["site"] for post in posts} == {f"blog{n}" for n in range(BLOGS)}
    assert f"{BLOGS} of {BLOGS} site(s) crawled" in result.stdout
