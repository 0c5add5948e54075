"""Post pages in a crawl: read once, kept while unchanged, failures kept visible, never lost.

The post pages are real rendered pages saved in tests/post_cases/ (a Hux Blog post, a cnblogs
post with its category/tag endpoint), served on 127.0.0.1 behind list pages that link them.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lxml import etree
from support.faultserver import Crawl, Fault, FaultServer, crawl, list_page
from support.project import POST_CASES

from crawler.devtools.samples.server import Route, Site
from crawler.outputs.exporters import CELL_CUT_MARK, EXCEL_CELL_LIMIT

CASES = POST_CASES
HUX_POST = (CASES / "hux" / "huxblog-rouge-lineno-2020" / "page.html").read_bytes()
CNBLOGS = CASES / "cnblogs" / "extreme-custom-2020"
POSTS = [("/p/1/", "第一篇"), ("/p/2/", "第二篇"), ("/p/3/", "第三篇")]


def _html(body: bytes) -> Route:
    return Route(body=body, content_type="text/html; charset=utf-8")


def hux_site(posts: list[tuple[str, str]] = POSTS) -> Site:
    """A Hux list page linking three posts, each the saved real Hux post page."""
    routes = {"/": _html(list_page(posts, layout="hux").encode("utf-8"))}
    routes.update({path: _html(HUX_POST) for path, _ in posts})
    return Site(start="/", routes=routes)


def posts_by_url(run: Crawl) -> dict[str, dict[str, Any]]:
    """The posts of a run by their URL's path ("p/1")."""
    return {urlsplit(post["url"]).path.strip("/"): post for post in run.posts}


def feed_links(run: Crawl) -> set[str]:
    """The links of the entries of the site's Atom feed."""
    (feed,) = (run.output / "feeds").glob("127.0.0.1*.xml")
    root = etree.parse(str(feed))
    return set(
        root.xpath("//a:entry/a:link/@href", namespaces={"a": "http://www.w3.org/2005/Atom"})
    )


def post_hits(server: FaultServer) -> list[str]:
    return [path for path in server.paths() if path.startswith("/p/")]


def test_posts_get_their_page_once_and_an_unchanged_run_fetches_none(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    url = server.url("/")
    first = crawl("hux", url, output=tmp_path, content=True)
    assert first.status == 0, first.result.stderr[-2000:]
    assert sorted(post_hits(server)) == ["/p/1/", "/p/2/", "/p/3/"]
    posts = posts_by_url(first)
    for path, title in POSTS:
        post = posts[path.strip("/")]
        assert post["title"] == title  # the list's fields stay
        assert post["content"].startswith("## 0x00 简介")  # the page's body, as Markdown
        assert "```shell\nnmap -sS -sV -sC -T4 -v -p- 10.10.10.160\n```" in post["content"]
        assert "Previous" not in post["content"] and "分享到微信" not in post["content"]
        assert post["tags"] == ["HTB", "渗透测试"]
        assert post["word_count"] > 500 and post["gone"] is False
    assert first.site["post_pages"] == 3 and first.site["post_failures"] == []

    second = crawl("hux", url, output=tmp_path, content=True)
    assert second.status == 0
    assert sorted(post_hits(server)) == ["/p/1/", "/p/2/", "/p/3/"]  # none asked again
    assert [p["content"] for p in second.posts] == [p["content"] for p in first.posts]
    assert second.site["new"] == second.site["changed"] == 0


def test_a_changed_list_entry_asks_again_conditionally_and_an_edit_is_a_content_change(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    url = server.url("/")
    assert crawl("hux", url, output=tmp_path, content=True).status == 0
    # The list shows a new title for post 2: its page is asked for with its validators,
    # answered 304, and the post keeps the content read before.
    server.site.routes["/"] = _html(
        list_page([POSTS[0], ("/p/2/", "第二篇（修订）"), POSTS[2]], layout="hux").encode()
    )
    again = crawl("hux", url, output=tmp_path, content=True)
    assert again.status == 0
    assert [hit.outcome for hit in server.requests("/p/2/")] == ["200", "304"]
    assert server.requests("/p/1/")[-1:] and len(server.requests("/p/1/")) == 1
    post = posts_by_url(again)["p/2"]
    assert post["title"] == "第二篇（修订）" and post["content"].startswith("## 0x00 简介")
    delta = list(
        csv.DictReader(
            (again.output / "runs" / again.summary["run_id"] / "changes.csv").open(encoding="utf-8")
        )
    )
    # (the list page's summary repeats the title)
    assert [(row["change"], row["changed_fields"]) for row in delta] == [
        ("changed", "title | summary")
    ]

    # The post is edited (new page) and its list summary changes with it.
    edited = HUX_POST.replace("也算是自己边学边记录".encode(), "后来又补充了一段".encode())
    server.site.routes["/p/2/"] = _html(edited)
    server.site.routes["/"] = _html(
        list_page([POSTS[0], ("/p/2/", "第二篇（再修订）"), POSTS[2]], layout="hux").encode()
    )
    third = crawl("hux", url, output=tmp_path, content=True)
    post = posts_by_url(third)["p/2"]
    assert "后来又补充了一段" in post["content"]
    changes = [
        json.loads(line)
        for line in (third.output / "runs" / third.summary["run_id"] / "changes.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    assert [c["changed_fields"] for c in changes] == [["title", "summary", "content"]]


def test_a_missing_post_page_keeps_the_post_marks_it_gone_and_is_tried_again(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    server.program("/p/3/", Fault(status=404))
    url = server.url("/")
    first = crawl("hux", url, output=tmp_path, content=True)
    assert first.status == 0  # one post page of three: reported, not a broken site
    post = posts_by_url(first)["p/3"]
    assert post["title"] == "第三篇" and post["summary"] == "第三篇"
    assert post["content"] is None and post["gone"] is True and post["word_count"] is None
    assert first.site["post_failures"] == [f"{server.url('/p/3/')}: HTTP 404"]
    output = first.result.stdout + first.result.stderr
    assert f"post page not read: {server.url('/p/3/')}: HTTP 404" in output
    # A gone post leaves the feeds; the others are there.
    assert feed_links(first) == {server.url("/p/1/"), server.url("/p/2/")}

    # Next run the page is back: asked for again, read, no longer gone.
    second = crawl("hux", url, output=tmp_path, content=True)
    assert [hit.outcome for hit in server.requests("/p/3/")] == ["404", "200"]
    assert len(server.requests("/p/1/")) == 1
    post = posts_by_url(second)["p/3"]
    assert post["gone"] is False and post["content"].startswith("## 0x00 简介")
    assert second.site["post_failures"] == []
    assert server.url("/p/3/") in feed_links(second)  # gone no more: back in the feeds


def test_most_post_pages_failing_is_a_broken_site(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    for path, _ in POSTS:
        server.program(path, Fault(status=500, times=None))
    run = crawl("hux", server.url("/"), "-s", "RETRY_TIMES=0", output=tmp_path, content=True)
    assert run.status == 3
    assert "3 of 3 post pages not read" in " ".join(run.site["problems"])
    assert sorted(post["title"] for post in run.posts) == ["第一篇", "第三篇", "第二篇"]


def test_content_0_stays_on_list_pages_and_keeps_what_was_read(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    url = server.url("/")
    bare = crawl("hux", url, "-a", "content=0", output=tmp_path / "bare", content=True)
    assert bare.status == 0 and post_hits(server) == []
    assert {post["content"] for post in bare.posts} == {None}

    assert crawl("hux", url, output=tmp_path / "full", content=True).status == 0
    # A later list-only run (a new title too) keeps every post's content from the store.
    server.site.routes["/"] = _html(
        list_page([POSTS[0], ("/p/2/", "新标题"), POSTS[2]], layout="hux").encode()
    )
    hits = len(post_hits(server))
    later = crawl("hux", url, "-a", "content=0", output=tmp_path / "full", content=True)
    assert len(post_hits(server)) == hits
    assert all(post["content"].startswith("## 0x00 简介") for post in later.posts)
    assert posts_by_url(later)["p/2"]["title"] == "新标题"


def test_cnblogs_categories_and_tags_come_from_the_endpoint_its_page_calls(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    post_path = "/dongwanhong/p/13735671.html"
    endpoint = "/dongwanhong/ajax/CategoriesTags.aspx?blogId=382149&postId=13735671"
    listing = (
        '<div id="blog_nav_sitehome"></div><div class="forFlow"><div class="day">'
        f'<div class="postTitle"><a class="postTitle2" href="{post_path}">Promise</a></div>'
        '<div class="postCon"><div class="c_b_p_desc">摘要：异步</div></div>'
        '<div class="postDesc">posted @ 2020-10-30 14:28 Kisstar 阅读(1) 评论(4)</div>'
        "</div></div>"
    )
    site = Site(
        start="/dongwanhong/",
        routes={
            "/dongwanhong/": _html(f"<html><body>{listing}</body></html>".encode()),
            post_path: _html((CNBLOGS / "page.html").read_bytes()),
            endpoint: _html((CNBLOGS / "categories-tags.html").read_bytes()),
        },
    )
    server = serve(site)
    run = crawl("cnblogs", server.url("/dongwanhong/"), output=tmp_path, content=True)
    assert run.status == 0, run.result.stderr[-2000:]
    assert server.paths() == ["/dongwanhong/", post_path, endpoint]
    (post,) = run.posts
    assert post["tags"] == ["javascript", "原型", "原型链", "作用域", "作用域链"]
    assert post["content"].startswith("# Promise")


def test_a_cell_over_excels_limit_is_cut_in_csv_and_whole_in_json_lines(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    long_body = b"<p>" + "长文".encode() * 20_000 + b"</p>"
    page = HUX_POST.replace(b'<h2 id="0x00-', long_body + b'<h2 id="0x00-', 1)
    site = hux_site(POSTS[:1])
    site.routes["/p/1/"] = _html(page)
    server = serve(site)
    run = crawl("hux", server.url("/"), output=tmp_path, content=True)
    (post,) = run.posts
    assert len(post["content"]) > EXCEL_CELL_LIMIT
    with (tmp_path / "posts.csv").open(encoding="utf-8", newline="") as file:
        (row,) = list(csv.DictReader(file))
    assert len(row["content"]) == EXCEL_CELL_LIMIT
    assert row["content"].endswith(CELL_CUT_MARK)
    assert post["content"].startswith(row["content"][: -len(CELL_CUT_MARK)])


def test_a_page_that_failed_and_then_answers_304_is_not_asked_for_again(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(hux_site())
    url = server.url("/")
    assert crawl("hux", url, output=tmp_path, content=True).status == 0
    # Post 3's entry changes and its page fails this once: kept, and flagged for a retry.
    server.site.routes["/"] = _html(
        list_page([*POSTS[:2], ("/p/3/", "第三篇（改）")], layout="hux").encode()
    )
    server.program("/p/3/", Fault(status=500))
    failed = crawl("hux", url, "-s", "RETRY_TIMES=0", output=tmp_path, content=True)
    assert posts_by_url(failed)["p/3"]["content"].startswith("## 0x00 简介")
    # Retried next run (its list page unchanged): the page is as stored, a 304, so done...
    crawl("hux", url, output=tmp_path, content=True)
    assert [hit.outcome for hit in server.requests("/p/3/")] == ["200", "500", "304"]
    # ...and not asked for again after that.
    crawl("hux", url, output=tmp_path, content=True)
    assert len(server.requests("/p/3/")) == 3


def test_a_wordpress_feeds_categories_are_split_by_the_post_page(
    serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    """RSS ``<category>`` holds a WordPress post's categories and tags alike; its page's
    links say which is which. The real feed, set to summaries (WordPress's "For each post in
    a feed, show: Summary": no ``content:encoded``), so that the page is read."""
    feed = POST_CASES / "feed" / "wordpress-rss-mixed-categories-itnerd-2017" / "page.xml"
    page = POST_CASES / "wordpress" / "jetpack-sharedaddy-itnerd-2016" / "page.html"
    origin = "http://itnerd.space"
    summaries = re.sub(
        rb"<content:encoded>.*?</content:encoded>", b"", feed.read_bytes(), flags=re.DOTALL
    )
    site = Site(
        start="/tag/mega/feed/",
        origin=origin,
        routes={
            "/tag/mega/feed/": Route(body=summaries, content_type="application/rss+xml"),
            "/2016/10/26/offsite-backup-with-duplicity-and-mega/": _html(page.read_bytes()),
        },
    )
    server = serve(site)
    run = crawl("feed", server.url("/tag/mega/feed/"), output=tmp_path, content=True)
    assert run.status == 0, run.result.stderr[-2000:]
    (post,) = run.posts
    assert post["categories"] == ["Cloud", "How-to", "Linux"]
    assert post["tags"] == ["backup", "cloud", "docker", "duplicity", "mega"]
    assert post["content"].startswith("This is about a small personal initiative")

    # Without the page (a list-only run), the feed's reading stands: all categories.
    bare = crawl(
        "feed",
        server.url("/tag/mega/feed/"),
        "-a",
        "content=0",
        output=tmp_path / "bare",
        content=True,
    )
    (post,) = bare.posts
    assert post["categories"] == [
        "Cloud",
        "How-to",
        "Linux",
        "backup",
        "cloud",
        "docker",
        "duplicity",
        "mega",
    ]
    assert post["tags"] == []
