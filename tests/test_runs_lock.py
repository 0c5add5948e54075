"""One run at a time per PostgreSQL store (``POST_STORE_URL``): the server's advisory lock,
released with its session however the holder dies; and a real crawl into the store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from scrapy.settings import Settings
from support.project import ROOT, read_jsonl, run_scrapy

from crawler.devtools.samples.server import SiteServer, sample_site
from crawler.runs.lock import LockBusy, RunLock, StoreRunLock, run_lock
from crawler.runs.summary import EXIT_LOCKED


def store_settings(url: str, tmp_path: Path) -> Settings:
    return Settings({"POST_STORE_URL": url, "OUTPUT_DIR": str(tmp_path / "out")})


def test_without_a_store_url_the_lock_is_the_output_folders(tmp_path: Path) -> None:
    lock = run_lock(Settings({"OUTPUT_DIR": str(tmp_path / "out")}))
    assert isinstance(lock, RunLock) and lock.path == tmp_path / "out" / ".lock"


def test_a_second_holder_is_refused_until_the_first_lets_go(
    postgres_url: str, tmp_path: Path
) -> None:
    first, second = (
        run_lock(store_settings(postgres_url, tmp_path)),
        run_lock(
            store_settings(postgres_url, tmp_path / "elsewhere")  # another machine's folder
        ),
    )
    assert isinstance(first, StoreRunLock)
    with first:
        with pytest.raises(LockBusy) as busy, second:
            pass
        message = str(busy.value)
        assert f"another run (pid {os.getpid()} on " in message
        assert f"is using the store {urlsplit(postgres_url).netloc}" in message.replace(
            "postgresql://", ""
        )
        assert not (tmp_path / "out").exists()  # no lock file either
    with second:  # released: free for the next run
        pass


def test_stores_in_other_databases_lock_separately(
    postgres_server: str, postgres_url: str, tmp_path: Path
) -> None:
    import psycopg

    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute('CREATE DATABASE "other_store"')
    other = urlunsplit(urlsplit(postgres_server)._replace(path="/other_store"))
    try:
        # Both taken at once; only a second holder of one of them is refused.
        both = (StoreRunLock(postgres_url), StoreRunLock(other))
        with both[0], both[1], pytest.raises(LockBusy), StoreRunLock(other):
            pass
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as connection:
            connection.execute('DROP DATABASE "other_store" WITH (FORCE)')


HOLDER = """
import sys, time
from crawler.runs.lock import StoreRunLock
lock = StoreRunLock(sys.argv[1])
lock.acquire()
print("locked", flush=True)
time.sleep(120)
"""


def test_a_killed_holder_releases_the_lock(postgres_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, postgres_url], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockBusy, match=f"pid {holder.pid} on "), StoreRunLock(postgres_url):
            pass
        holder.send_signal(signal.SIGKILL)  # no cleanup of its own: the server's
        holder.wait(10)
        deadline = time.monotonic() + 15
        while True:
            try:
                with StoreRunLock(postgres_url):
                    break
            except LockBusy:
                assert time.monotonic() < deadline, "the killed holder's lock was never released"
                time.sleep(0.1)
    finally:
        holder.kill()
        holder.wait(10)


def test_crawl_writes_into_postgresql_and_no_sqlite_file(postgres_url: str, tmp_path: Path) -> None:
    from crawler.store.postgres import PostgresStore

    out = tmp_path / "out"
    server = SiteServer(sample_site("cards")).start()
    try:
        crawl = (
            "crawl",
            "cards",
            "-a",
            f"url={server.url()}",
            "-s",
            f"POST_STORE_URL={postgres_url}",
        )
        with StoreRunLock(postgres_url):  # another run holds the store: refused, exit 75
            refused = run_scrapy(*crawl, output=out)
        assert refused.returncode == EXIT_LOCKED, refused.stderr[-2000:]
        assert f"pid {os.getpid()} on " in refused.stdout
        result = run_scrapy(*crawl, output=out)
        assert result.returncode == 0, result.stderr[-3000:]
        again = run_scrapy(*crawl, output=out)  # incremental, from the store
        assert again.returncode == 0, again.stderr[-3000:]
    finally:
        server.stop()
    exported = read_jsonl(out / "posts.jsonl")
    store = PostgresStore(postgres_url)
    try:
        stored = list(store.posts())
        assert len(stored) >= 5 and store.count(stored[0]["site"]) == len(stored)
        assert [post["url"] for post in stored] == [post["url"] for post in exported]
        assert store.crawl_complete(stored[0]["site"])
    finally:
        store.close()
    # The second crawl found every post in the store (its summary counts no new post).
    first, second = sorted(out.glob("runs/*/summary.json"))
    counts = [json.loads(path.read_text())["sites"][0]["counts"] for path in (first, second)]
    assert counts[0]["store/new"] == len(exported) and "store/new" not in counts[1]
    assert not [path for path in tmp_path.rglob("*") if "sqlite" in path.name]
