"""Crashes: a run stopped by SIGTERM or killed by SIGKILL, mid-crawl and mid-export.

The crawl runs as a subprocess against a slow :class:`faultserver.FaultServer` (a chain of
list pages, each answered after a delay); the signal is sent once the run is provably in the
middle of its work — the log shows stored posts, the server sees a later page asked for, or
the export's temporary file exists. What must hold afterwards: the exports are complete files
(the previous ones after SIGKILL), the store opens intact, and the next run reads the whole
site again (a crashed run never marks its site complete) and ends with every post.

The hux layout is used for the chains: its lists are date-ordered, so an incremental run would
stop at a page of known posts; only the completeness flag makes the next run read on.
"""

from __future__ import annotations

import csv
import signal
import sqlite3
from pathlib import Path

from support.faultserver import (
    chain_pages,
    crawl,
    html_route,
    latest_summary,
    list_page,
    start_crawl,
    wait_for,
)
from support.project import make_post, read_jsonl

from crawler.devtools.samples.server import Site
from crawler.runs.summary import EXIT_INTERRUPTED, EXIT_OK
from crawler.store.sqlite import SQLiteStore

CHAIN = 40  # pages of 2 posts
EXPORTS = ("posts.jsonl", "posts.csv")


def stored_posts(output: Path) -> int:
    with sqlite3.connect(output / "posts.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM posts").fetchone()[0]


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def chain_paths(length: int) -> list[str]:
    return ["/hot", *(f"/hot?page={n}" for n in range(2, length + 1))]


def test_sigterm_mid_crawl_ends_a_partial_run_with_consistent_files(serve, tmp_path: Path) -> None:
    server = serve(pages=chain_pages(CHAIN, layout="hux"))
    server.latency = 0.3
    output, log = tmp_path / "output", tmp_path / "crawl.log"
    process = start_crawl(
        "hux",
        server.url(),
        "-a",
        f"max_pages={CHAIN}",
        "-s",
        "LOG_LEVEL=DEBUG",
        output=output,
        log=log,
    )
    try:
        # "Scraped from" is logged once an item went through every pipeline, the store too.
        wait_for(lambda: "Scraped from" in log.read_text(errors="replace"), what="a stored post")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == EXIT_INTERRUPTED, log.read_text()[-3000:]
    finally:
        process.kill()
    summary = latest_summary(output)
    assert summary["partial"] is True and summary["exit_status"] == EXIT_INTERRUPTED
    assert len(server.paths()) < CHAIN  # it really was cut short
    stored = stored_posts(output)
    assert 0 < stored < 2 * CHAIN
    assert len(read_jsonl(output / "posts.jsonl")) == stored  # every line is valid JSON
    assert len(csv_rows(output / "posts.csv")) == stored
    # The next run may not trust the store to know the rest: it reads every page.
    server.latency = 0
    server.log.clear()
    run = crawl("hux", server.url(), "-a", f"max_pages={CHAIN}", output=output)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert server.paths() == chain_paths(CHAIN)
    assert len(run.posts) == 2 * CHAIN == stored_posts(output)


def test_sigkill_mid_crawl_keeps_the_previous_files(serve, tmp_path: Path) -> None:
    server = serve(pages=chain_pages(5, layout="hux"))
    output, log = tmp_path / "output", tmp_path / "crawl.log"
    assert crawl("hux", server.url(), output=output).status == EXIT_OK
    before = {name: (output / name).read_bytes() for name in EXPORTS}
    # The blog grows to 40 pages and answers slowly; a full re-read is killed midway.
    server.pages = chain_pages(CHAIN, layout="hux")
    server.latency = 0.15
    process = start_crawl("hux", server.url(), "-a", "full=1", output=output, log=log)
    try:
        # Page 7 asked for: page 6's new posts went through the pipelines.
        wait_for(lambda: "/hot?page=7" in server.paths(), what="page 7 requested")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert {name: (output / name).read_bytes() for name in EXPORTS} == before
    with sqlite3.connect(output / "posts.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    server.latency = 0
    server.log.clear()
    run = crawl("hux", server.url(), "-a", f"max_pages={CHAIN}", output=output)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert server.paths() == chain_paths(CHAIN)
    assert len(run.posts) == 2 * CHAIN
    assert len(csv_rows(output / "posts.csv")) == 2 * CHAIN


SEEDED = 10_000  # enough rows that writing the exports takes a good fraction of a second


def seed_store(path: Path, count: int) -> None:
    """Add ``count`` posts of another site straight through the store (no crawl)."""
    store = SQLiteStore(path, batch_size=count)
    try:
        for n in range(count):
            store.record(make_post(1, url=f"https://seed.example.org/p/{n}", site="seed"), "seed")
    finally:
        store.close()


def test_sigkill_mid_export_keeps_the_previous_files(serve, tmp_path: Path) -> None:
    posts = [(f"/posts/{n}", f"文章 {n}") for n in range(4)]
    server = serve(Site(start="/hot", routes={"/hot": html_route(list_page(posts))}))
    output, log = tmp_path / "output", tmp_path / "crawl.log"
    assert crawl("cards", server.url(), output=output).status == EXIT_OK
    before = {name: (output / name).read_bytes() for name in EXPORTS}
    seed_store(output / "posts.sqlite", SEEDED)
    process = start_crawl("cards", server.url(), output=output, log=log)
    try:
        wait_for(lambda: any(output.glob(".posts.jsonl.*.tmp")), what="the export's temp file")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert any(output.glob(".posts.jsonl.*.tmp"))  # killed while writing it
    assert {name: (output / name).read_bytes() for name in EXPORTS} == before
    run = crawl("cards", server.url(), output=output)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    assert len(run.posts) == SEEDED + 4
    assert len(csv_rows(output / "posts.csv")) == SEEDED + 4
    assert list(output.glob(".*.tmp")) == []  # the stale temp file is gone
