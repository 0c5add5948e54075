"""A post page that cannot be read never costs the post what its list page shows.

Each failure kind (503 after retries, a timeout, 404, 410, a page without a body) on a cards
list whose counts, titles and summaries change between two runs: the second run records the
list's values (dataset, the run's changes, the counts' history), keeps what was read of the
page before, and marks the post for a retry.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.faultserver import Crawl, Fault, FaultServer, crawl, html_route, list_page
from support.project import SAMPLES

from crawler.devtools.samples.server import Route, Site

POST_PAGE = (SAMPLES / "cards" / "post-101.html").read_bytes()
TITLES = {"/p/1": "第一篇", "/p/2": "第二篇", "/p/3": "第三篇"}

# How each kind of failure is made: the faults of every post page, and the crawl's settings.
FAILURES: dict[str, tuple[tuple[Fault, ...], tuple[str, ...]]] = {
    "503 after retries": ((Fault(status=503, times=None),), ("-s", "RETRY_TIMES=1")),
    "timeout": ((Fault(delay=3, times=None),), ("-s", "DOWNLOAD_TIMEOUT=1", "-s", "RETRY_TIMES=0")),
    "404": ((Fault(status=404, times=None),), ()),
    "410": ((Fault(status=410, times=None),), ()),
    "no body": ((), ()),  # the page answers 200 with nothing of a post in it
}
EMPTY_PAGE = html_route("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>")


def listing(titles: dict[str, str], views: int) -> Route:
    return html_route(list_page(list(titles.items()), views=views))


def site(titles: dict[str, str], views: int) -> Site:
    routes = {"/hot": listing(titles, views)}
    routes.update({path: Route(body=POST_PAGE) for path in titles})
    return Site(start="/hot", routes=routes)


def break_post_pages(server: FaultServer, kind: str, paths: list[str]) -> tuple[str, ...]:
    """Make the post pages ``paths`` fail as ``kind``; the crawl arguments it needs."""
    faults, arguments = FAILURES[kind]
    for path in paths:
        if faults:
            server.program(path, *faults)
        else:
            server.site.routes[path] = EMPTY_PAGE
    return arguments


def next_second() -> None:
    time.sleep(1.05 - time.time() % 1)


def run_files(run: Crawl) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The run's changes (JSON Lines) and the counts' history (CSV)."""
    folder = run.output / "runs" / run.summary["run_id"]
    changes = [json.loads(line) for line in (folder / "changes.jsonl").read_text().splitlines()]
    with (run.output / "metrics.csv").open(encoding="utf-8", newline="") as file:
        metrics = list(csv.DictReader(file))
    return changes, metrics


def by_path(run: Crawl) -> dict[str, dict[str, Any]]:
    return {post["url"].split("//", 1)[1].split("/", 1)[1]: post for post in run.posts}


@pytest.mark.parametrize("kind", FAILURES)
def test_a_failing_post_page_keeps_the_news_of_its_list_page(
    kind: str, serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(site(TITLES, views=1))
    arguments = break_post_pages(server, kind, list(TITLES))
    url = server.url("/hot")
    first = crawl("cards", url, *arguments, output=tmp_path, content=True)
    assert len(first.site["post_failures"]) == 3, first.result.stderr[-3000:]

    # The list shows five more views on every post and a new title (and summary) for post 2.
    titles = {**TITLES, "/p/2": "第二篇（修订）"}
    server.site.routes["/hot"] = listing(titles, views=6)
    next_second()  # the counts' history keeps one row a post a second
    second = crawl("cards", url, *arguments, output=tmp_path, content=True)
    posts = by_path(second)
    assert {path: post["views"] for path, post in posts.items()} == dict.fromkeys(
        ("p/1", "p/2", "p/3"), 6
    ), second.result.stderr[-3000:]
    assert posts["p/2"]["title"] == "第二篇（修订）"
    assert posts["p/2"]["summary"] == "第二篇（修订）"
    assert second.site["changed"] == 3 and second.site["posts_seen"] == 3
    assert all(post["content"] is None for post in posts.values())  # never read
    assert {post["gone"] for post in posts.values()} == {kind in ("404", "410")}
    changes, metrics = run_files(second)
    assert sorted(change["url"].rsplit("/", 1)[1] for change in changes) == ["1", "2", "3"]
    fields = {change["url"].rsplit("/", 1)[1]: change["changed_fields"] for change in changes}
    assert fields["1"] == fields["3"] == ["views"]
    assert fields["2"] == ["title", "summary", "views"]
    assert sorted((row["url"].rsplit("/", 1)[1], row["views"]) for row in metrics) == [
        ("1", "1"),
        ("1", "6"),
        ("2", "1"),
        ("2", "6"),
        ("3", "1"),
        ("3", "6"),
    ]
    # Each page asked for once a run (and its retries): never dropped, never doubled.
    assert len(second.site["post_failures"]) == 3


@pytest.mark.parametrize("kind", FAILURES)
def test_a_post_page_read_before_keeps_its_content_when_it_fails_later(
    kind: str, serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(site(TITLES, views=1))
    url = server.url("/hot")
    first = crawl("cards", url, output=tmp_path, content=True)
    assert first.status == 0 and all(post["content"] for post in first.posts)
    read = by_path(first)["p/2"]

    titles = {**TITLES, "/p/2": "第二篇（修订）"}
    server.site.routes["/hot"] = listing(titles, views=6)
    arguments = break_post_pages(server, kind, ["/p/2"])
    second = crawl("cards", url, *arguments, output=tmp_path, content=True)
    post = by_path(second)["p/2"]
    assert post["title"] == "第二篇（修订）" and post["views"] == 6
    # Only what the page gives stays as it was read.
    for name in ("content", "word_count", "updated_at", "categories", "tags"):
        assert post[name] == read[name], name
    assert post["gone"] is (kind in ("404", "410"))
    (failure,) = second.site["post_failures"]
    assert failure.startswith(f"{server.url('/p/2')}: ") and _reason(kind) in failure

    # Marked for a retry: the next run asks for the page again though its entry is unchanged.
    asked = len(server.requests("/p/2"))
    server.faults.clear()
    server.site.routes["/p/2"] = Route(body=POST_PAGE)
    third = crawl("cards", url, output=tmp_path, content=True)
    assert len(server.requests("/p/2")) == asked + 1
    assert third.site["post_failures"] == [] and by_path(third)["p/2"]["gone"] is False


def _reason(kind: str) -> str:
    return {
        "503 after retries": "HTTP 503",
        "timeout": "took longer than 1.0 seconds",
        "404": "HTTP 404",
        "410": "HTTP 410",
        "no body": "no post body found",
    }[kind]
