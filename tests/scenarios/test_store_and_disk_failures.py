"""When the store or the disk fails: PostgreSQL restarted or gone in the middle of a run, a
full disk before the run, a disk that fills up at its end. Each is one line naming what
failed, a documented exit status, the summary of what was done, and nothing lost.

The PostgreSQL servers are the tests' own (they are restarted and stopped); the full disks are
size-limited tmpfs mounts, where this machine allows mounting (skipped elsewhere, saying why).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.faultserver import FaultServer, html_route, latest_summary, list_page, wait_for
from support.pgserver import PostgresServer, fresh_database
from support.project import ROOT, read_jsonl, run_scrapy

from crawler.devtools.samples.server import Site, SiteServer, sample_site
from crawler.runs.summary import EXIT_OK, EXIT_SITE_FAILED, EXIT_STORE_FAILED, EXIT_USAGE

PAGES = 4  # list pages a blog, two posts each: 8 posts a blog


def blogs(count: int) -> Site:
    """``count`` card blogs under ``/blogN/``, each a chain of list pages of two posts with
    their pages (post pages are small: the crawl's time is the server's latency)."""
    post = html_route(
        '<html><body><article><div class="post-content"><p>正文</p></div></article></body></html>'
    )
    routes = {}
    for n in range(count):
        for page in range(1, PAGES + 1):
            path = f"/blog{n}/hot" + (f"?page={page}" if page > 1 else "")
            after = f"/blog{n}/hot?page={page + 1}" if page < PAGES else None
            posts = [(f"/blog{n}/p/{page}-{i}", f"文章{n}-{page}-{i}") for i in (1, 2)]
            routes[path] = html_route(list_page(posts, after))
            routes.update({href: post for href, _ in posts})
    return Site(start="/blog0/hot", routes=routes)


def registry(path: Path, server: FaultServer, count: int) -> Path:
    path.write_text(
        "".join(
            f'[sites.b{n}]\nlayout = "cards"\nurl = "{server.url(f"/blog{n}/hot")}"\n'
            for n in range(count)
        ),
        encoding="utf-8",
    )
    return path


def start_crawlall(*args: str, output: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "scrapy", "crawlall", *args, "-s", f"OUTPUT_DIR={output}"]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


@pytest.fixture
def slow_blogs(serve: Callable[..., FaultServer]) -> FaultServer:
    server = serve(blogs(3))
    server.latency = 0.4  # every answer waits: the crawl takes a few seconds
    return server


def test_a_postgresql_restart_mid_run_costs_nothing(
    private_postgres: PostgresServer, slow_blogs: FaultServer, tmp_path: Path
) -> None:
    store = fresh_database(private_postgres.url)
    sites = registry(tmp_path / "sites.toml", slow_blogs, 3)
    run = start_crawlall(
        "-s", f"SITE_REGISTRY={sites}", "-s", f"POST_STORE_URL={store}", output=tmp_path / "out"
    )
    wait_for(lambda: len(slow_blogs.paths()) >= 6, what="the crawl under way")
    private_postgres.restart()  # every session ended, the server back within a second
    output, _ = run.communicate(timeout=180)
    assert run.returncode == EXIT_OK, output[-3000:]
    assert "Traceback" not in output and "Error caught on signal handler" not in output
    assert "lost the connection to the store" in output
    assert "connected to the store" in output and "again" in output
    assert len(read_jsonl(tmp_path / "out" / "posts.jsonl")) == 3 * PAGES * 2  # every post


def test_a_store_that_stays_away_stops_the_run_in_one_line_and_loses_nothing(
    private_postgres: PostgresServer, slow_blogs: FaultServer, tmp_path: Path
) -> None:
    store = fresh_database(private_postgres.url).replace("postgres@", "postgres:s3cret@")
    sites = registry(tmp_path / "sites.toml", slow_blogs, 3)
    args = (
        "-s",
        f"SITE_REGISTRY={sites}",
        "-s",
        f"POST_STORE_URL={store}",
        "-s",
        "POST_STORE_RECONNECT_SECONDS=2",
    )
    run = start_crawlall(*args, output=tmp_path / "out")
    wait_for(lambda: len(slow_blogs.paths()) >= 6, what="the crawl under way")
    private_postgres.stop()
    output, _ = run.communicate(timeout=180)
    assert run.returncode == EXIT_STORE_FAILED, output[-3000:]
    assert "Traceback" not in output and "s3cret" not in output
    where = store.replace(":s3cret", "")
    stopped = [line for line in output.splitlines() if "could not connect again within 2 s" in line]
    assert len(stopped) == 1 and where in stopped[0], output[-3000:]
    summary = latest_summary(tmp_path / "out")
    assert summary["exit_status"] == EXIT_STORE_FAILED and summary["partial"] is True
    assert {site["finish_reason"] for site in summary["sites"]} == {"store_unavailable"}

    # The store back: the next run reads what the stopped one missed. Nothing is lost.
    private_postgres.start()
    again = run_scrapy("crawlall", *args, output=tmp_path / "out")
    assert again.returncode == EXIT_OK, again.stdout[-3000:]
    assert len(read_jsonl(tmp_path / "out" / "posts.jsonl")) == 3 * PAGES * 2


# ---- a full disk ----------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """Mounts a tmpfs of the given size (bytes) and gives its folder; unmounted after."""
    mounted: list[Path] = []

    def mount(size: int) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path, leave: int) -> None:
    """Fill ``folder``'s file system until only about ``leave`` bytes are free."""
    free = shutil.disk_usage(folder).free
    with (folder / "filler").open("wb") as filler, contextlib.suppress(OSError):
        filler.write(b"\0" * max(free - leave, 0))  # or as full as it gets


def test_a_full_disk_before_the_run_is_one_line_and_exit_2(
    small_disk: Callable[[int], Path], tmp_path: Path
) -> None:
    disk = small_disk(64 * 1024)
    fill(disk, 0)
    server = SiteServer(sample_site("cards")).start()
    try:
        result = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", output=disk / "out")
    finally:
        server.stop()
    assert result.returncode == EXIT_USAGE
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert f"cannot use output folder {disk / 'out'}: not writable (no space left on device)" in (
        output
    )


def test_a_disk_that_fills_up_at_the_end_keeps_the_files_that_were_there(
    small_disk: Callable[[int], Path], tmp_path: Path
) -> None:
    disk = small_disk(512 * 1024)
    out = disk / "out"
    site = sample_site("cards")
    server = SiteServer(site).start()
    store = ("-s", f"POST_STORE_PATH={tmp_path / 'posts.sqlite'}")  # the store has room
    try:
        first = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", *store, output=out)
        assert first.returncode == EXIT_OK, first.stderr[-2000:]
        before = {name: (out / name).read_bytes() for name in ("posts.jsonl", "posts.csv")}
        # A post changes, so the dataset is rewritten: then the disk has about 4 KB left.
        page = site.routes["/hot"]
        changed = page.body.replace("MoE大模型".encode(), "MoE 大模型".encode())
        assert changed != page.body
        site.routes["/hot"] = dataclasses.replace(page, body=changed)
        fill(disk, 4096)
        second = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", *store, output=out)
    finally:
        server.stop()
    output = second.stdout + second.stderr
    assert second.returncode == EXIT_SITE_FAILED, output[-3000:]
    assert "Traceback" not in output
    assert f"cannot write {out / 'posts.jsonl'}: no space left on device" in output
    assert {name: (out / name).read_bytes() for name in before} == before  # as they were
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    summaries = sorted(out.glob("runs/*/summary.json"))
    if len(summaries) == 2:  # the summary fitted in what was left
        assert json.loads(summaries[-1].read_text())["sites"][0]["new"] == 0
    else:
        assert "the run summary is the table above" in output
