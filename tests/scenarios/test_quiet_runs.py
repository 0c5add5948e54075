"""A scheduled run that finds nothing new leaves the dataset files alone; a killed export is
redone by the next run."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from scrapy.settings import Settings
from support.project import free_port_base, make_post, read_jsonl, run_scrapy

from crawler.devtools.samples.server import LAYOUTS
from crawler.store import store_path
from crawler.store.sqlite import SQLiteStore


def demo(output: Path, port: int) -> str:
    result = run_scrapy("crawlall", "--sample", "-s", f"SAMPLE_PORT_BASE={port}", output=output)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def report_posts(out: Path) -> tuple[int, list[dict[str, Any]]]:
    """The number of posts and the newest posts the report page embeds."""
    page = (out / "report.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert found is not None
    data = json.loads(found.group(1))
    return data["post_total"], data["posts"]


def identity(path: Path) -> tuple[int, int]:
    """The file's inode and modification time: an atomic rewrite changes both."""
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns


def test_a_quiet_run_keeps_the_dataset_and_a_killed_export_is_redone(tmp_path: Path) -> None:
    port = free_port_base(len(LAYOUTS))
    out = tmp_path / "sample"  # where the demo writes
    demo(tmp_path, port)
    files = [out / "posts.jsonl", out / "posts.csv"]
    feeds = sorted((out / "feeds").iterdir())
    before = [identity(path) for path in files]
    feeds_before = [identity(path) for path in feeds]
    posts = read_jsonl(files[0])
    total, newest = report_posts(out)
    assert total == len(posts) and newest

    quiet = demo(tmp_path, port)  # every list page answers 304: nothing recorded
    assert [identity(path) for path in files] == before
    assert [identity(path) for path in feeds] == feeds_before  # not even rebuilt
    # The report's posts, kept in the store by the export that read them, are the same.
    assert report_posts(out) == (total, newest)
    assert f"all posts ({len(posts)}, unchanged since the last run)" in quiet
    # The run's own delta is still written, empty but with its header.
    [latest] = sorted((out / "runs").iterdir())[-1:]
    assert (latest / "changes.csv").read_text(encoding="utf-8").startswith("id,url,title")

    # A run killed after it recorded a post and before its export finished: the store has
    # the post, the dataset files do not. The next run, quiet as it is, writes them again.
    store = SQLiteStore(store_path(Settings({"OUTPUT_DIR": str(out)})))
    store.record(make_post(99, site="sample-cards"), "killed-run")
    store.close()
    demo(tmp_path, port)
    assert [identity(path) for path in files] != before
    assert len(read_jsonl(files[0])) == len(posts) + 1
    assert report_posts(out)[0] == len(posts) + 1


def test_identity_changes_with_an_atomic_rewrite(tmp_path: Path) -> None:
    """The check above means something: os.replace gives the path a new inode."""
    path = tmp_path / "f"
    path.write_text("a")
    first = identity(path)
    (tmp_path / "g").write_text("a")
    os.replace(tmp_path / "g", path)
    assert identity(path) != first
