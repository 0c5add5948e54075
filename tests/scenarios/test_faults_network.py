"""Network faults, missing pages, loops and traps: real crawls against a fault-injecting server.

Every case runs ``scrapy crawl`` in a subprocess against :class:`faultserver.FaultServer` on
127.0.0.1 and reads what the server saw (requests, their times and outcomes) and what the run
left behind (exit status, ``summary.json``, ``posts.jsonl``).

Faults are injected on list pages (and feeds) only: post pages are never fetched by this
project's layouts — every field comes from the list page, index or feed — so a missing or
failing post page cannot happen in a crawl.
"""

from __future__ import annotations

from pathlib import Path

from scrapy.utils.project import get_project_settings
from support.faultserver import (
    Fault,
    FaultServer,
    cards_site,
    chain_pages,
    crawl,
    linked_site,
    list_page,
    padded_page,
)
from support.project import ROOT

from crawler.devtools.samples.server import Route, Site
from crawler.runs.summary import EXIT_OK, EXIT_SITE_FAILED, EXIT_UNHEALTHY
from crawler.sites import DEFAULT_MAX_PAGES, SiteConfig, registry

SETTINGS = get_project_settings()
PAGE_2 = "/hot?page=2"


def outcomes(server: FaultServer, path: str) -> list[str]:
    return [hit.outcome for hit in server.requests(path)]


# ---- transient faults -----------------------------------------------------------------------
def test_transient_server_errors_are_retried_until_the_page_comes(serve, tmp_path: Path) -> None:
    assert SETTINGS.getint("RETRY_TIMES") == 3
    server = serve(cards_site())
    server.program("/hot", Fault(status=500), Fault(status=502), Fault(status=503))
    server.program(PAGE_2, Fault(status=503, times=2))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert outcomes(server, "/hot") == ["500", "502", "503", "200"]
    assert outcomes(server, PAGE_2) == ["503", "503", "200"]
    assert len(run.posts) == 10
    assert run.site["problems"] == [] and run.site["http_errors"] == 0


def test_retry_after_is_waited_for(serve, tmp_path: Path) -> None:
    # Two pages asked for at once (two per domain), each answered "come back in a second".
    server = serve(linked_site({"/hot": ["/429", "/503"], "/429": [], "/503": []}))
    server.program("/429", Fault(status=429, headers={"Retry-After": "1"}))
    server.program("/503", Fault(status=503, headers={"Retry-After": "1"}))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    for path, status in (("/429", "429"), ("/503", "503")):
        first, retry = server.requests(path)
        assert (first.outcome, retry.outcome) == (status, "200")
        # The server's view of politeness: it was left alone for the second it asked for.
        assert retry.at - first.at >= 0.95, path
    assert len(run.posts) == 3


def test_retry_after_beyond_the_maximum_fails_the_request_at_once(serve, tmp_path: Path) -> None:
    assert SETTINGS.getfloat("RETRY_AFTER_MAX") < 3600
    server = serve(cards_site())
    server.program(PAGE_2, Fault(status=429, headers={"Retry-After": "3600"}, times=None))
    run = crawl("cards", server.url(), output=tmp_path, timeout=30)
    # Neither waited for (the run ends long before an hour) nor retried at once.
    assert outcomes(server, PAGE_2) == ["429"]
    assert run.seconds < 30 and run.site["duration_s"] < 10
    assert run.status == EXIT_UNHEALTHY
    (problem,) = run.problems_naming(server.url(PAGE_2))
    assert "429" in problem
    assert len(run.posts) == 4  # page 1's; page 3 is linked from page 2 only


def test_a_response_slower_than_the_timeout_is_retried_then_reported(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.program(PAGE_2, Fault(delay=3, times=None))
    run = crawl(
        "cards", server.url(), "-s", "DOWNLOAD_TIMEOUT=1", "-s", "RETRY_TIMES=1", output=tmp_path
    )
    assert len(server.requests(PAGE_2)) == 2  # RETRY_TIMES + 1
    assert run.status == EXIT_UNHEALTHY
    (problem,) = run.problems_naming(server.url(PAGE_2))
    assert "took longer than 1.0 seconds" in problem
    assert len(run.posts) == 4


def test_broken_connections_are_retried_then_reported(serve, tmp_path: Path) -> None:
    broken = {
        "/reset-before-response": (Fault(reset="before", times=None), "reset"),
        "/reset-mid-body": (Fault(reset="mid-body", times=None), "reset"),
        "/short-body": (Fault(short=True, times=None), "short"),  # Content-Length says more
    }
    server = serve(linked_site({"/hot": list(broken), **{path: [] for path in broken}}))
    for path, (fault, _) in broken.items():
        server.program(path, fault)
    run = crawl("cards", server.url(), "-s", "RETRY_TIMES=1", output=tmp_path)
    for path, (_, outcome) in broken.items():
        assert outcomes(server, path) == [outcome, outcome], path  # RETRY_TIMES + 1
        assert len(run.problems_naming(server.url(path))) == 1, path
    assert run.status == EXIT_UNHEALTHY
    assert len(run.posts) == 1  # the start page's


# ---- missing pages --------------------------------------------------------------------------
def test_a_missing_start_page_fails_the_site(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.site.routes.pop("/hot")
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_SITE_FAILED
    assert run.site["failed"]
    (problem,) = run.problems_naming(server.url())
    assert "404" in problem


def test_a_missing_second_page_keeps_the_first_pages_posts(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.site.routes.pop(PAGE_2)
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_UNHEALTHY
    assert not run.site["failed"] and run.site["http_errors"] == 1
    (problem,) = run.problems_naming(server.url(PAGE_2))
    assert "404" in problem
    assert outcomes(server, PAGE_2) == ["404"]  # a 404 is not retried
    assert sorted(p["url"] for p in run.posts) == [
        server.url(f"/posts/{n}") for n in range(101, 105)
    ]


# ---- loops and traps ------------------------------------------------------------------------
def test_loops_and_links_to_another_site_fetch_each_page_once(serve, tmp_path: Path) -> None:
    other = serve(linked_site({"/hot": []}))  # another port of 127.0.0.1: another site
    links = {
        "/a": ["/a", "/b", other.url()],  # to itself, on, and off the site
        "/b": ["/a", "/c"],  # back to an earlier page, on
        "/c": ["/d"],
        "/d": ["/b#top"],  # a cycle b -> c -> d -> b (the fragment is the same page)
    }
    server = serve(linked_site(links))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert sorted(server.paths()) == sorted(links)  # each page once
    assert len(run.posts) == len(links)
    assert other.connections == 0 and other.log == []
    assert f"not following {other.url()}" in run.result.stderr


def test_a_never_ending_chain_stops_at_max_pages(serve, tmp_path: Path) -> None:
    server = serve(pages=chain_pages(None))
    run = crawl("cards", server.url(), "-a", "max_pages=5", output=tmp_path)
    assert server.paths() == ["/hot", *(f"/hot?page={n}" for n in range(2, 6))]
    assert len(run.posts) == 10
    assert "page limit 5 reached" in run.result.stderr


def test_the_default_page_limit_is_500_and_documented() -> None:
    """The default bound (not crawled here: 500 pages) holds for every registry site."""
    assert DEFAULT_MAX_PAGES == 500
    assert SiteConfig(name="x", layout="cards", url="https://x.example/").max_pages == 500
    assert all(site.max_pages == DEFAULT_MAX_PAGES for site in registry().values())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `max_pages` | bound on list pages followed (default 500 per site) |" in readme


def test_pages_over_the_size_limit_are_refused_and_reported(serve, tmp_path: Path) -> None:
    assert SETTINGS.getint("DOWNLOAD_MAXSIZE") == 8 * 1024 * 1024
    nine_mb = 9 * 1024 * 1024
    server = serve(linked_site({"/hot": ["/declared", "/streamed"]}))
    # One says its size upfront (Content-Length), one is only known as it arrives.
    server.site.routes["/declared"] = padded_page(list_page([("/p/1", "大")]), nine_mb)
    server.site.routes["/streamed"] = padded_page(
        list_page([("/p/2", "大")]), nine_mb, content_length=False
    )
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_UNHEALTHY
    for path in ("/declared", "/streamed"):
        assert len(run.problems_naming(server.url(path))) == 1, path
    warnings = [line for line in run.result.stderr.splitlines() if " WARNING: " in line]
    assert sum("larger than download max size" in line for line in warnings) == 2
    assert len(run.posts) == 1


def test_fault_programs_are_consumed_in_order() -> None:
    """The server itself: faults apply for their ``times``, then the path answers normally."""
    server = FaultServer(Site(start="/x", routes={"/x": Route(body=b"ok")}))
    server.program("/x", Fault(status=500, times=2), Fault(status=502))
    taken = [server.take_fault("/x") for _ in range(4)]
    assert [f.status if f else None for f in taken] == [500, 500, 502, None]
    server.server_close()
