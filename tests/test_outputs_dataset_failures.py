"""A dataset file that cannot be written at the end of a run (disk full): one ERROR line naming
the file, the previous files intact, exit status 1."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapy.settings import Settings
from support.project import ROOT, export_dataset, free_port_base, make_post

from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.outputs.files import ExportError
from crawler.runs.summary import EXIT_SITE_FAILED
from crawler.store import open_store

FULL = errno.ENOSPC


def fail_writes_to(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Every ``os.write`` to the temporary file of ``name`` fails as on a full disk."""
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        if f"/.{name}." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(FULL, os.strerror(FULL))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)


def dataset(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in ("posts.jsonl", "posts.csv")}


def export(settings: Settings, run: str, posts: int) -> None:
    store = open_store(settings)
    try:
        for n in range(1, posts + 1):
            store.record(make_post(n, title=f"{run} {n}"), run)
        export_dataset(settings, store, run)
    finally:
        store.close()


@pytest.mark.parametrize("name", ["posts.csv", "posts.jsonl", "changes.csv"])
def test_a_failed_write_names_the_file_and_keeps_the_old_ones(
    name: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = Path(settings["OUTPUT_DIR"])
    export(settings, "20261101T000000Z-1", 3)
    before = dataset(out)
    fail_writes_to(monkeypatch, name)
    with pytest.raises(ExportError) as caught:
        export(settings, "20261102T000000Z-1", 2000)  # more than a write buffer
    target = out / name if name.startswith("posts") else out / "runs/20261102T000000Z-1" / name
    assert str(caught.value) == f"cannot write {target}: no space left on device"
    assert dataset(out) == before
    assert not list(out.rglob(".*.tmp"))  # no temporary file left behind


def test_a_failed_fsync_names_the_file(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    out = Path(settings["OUTPUT_DIR"])
    export(settings, "20261101T000000Z-1", 3)
    before = dataset(out)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if "/.posts.jsonl." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(FULL, os.strerror(FULL))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(ExportError, match=r"cannot write .*/posts\.jsonl: no space left"):
        export(settings, "20261102T000000Z-1", 1)
    assert dataset(out) == before


# the commands, with os.write failing for the dataset's CSV in the crawling process

PATCHED_SCRAPY = """
import errno, os, sys
real_write = os.write
def write(fd, data):
    if "/.posts.csv." in os.readlink(f"/proc/self/fd/{fd}"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real_write(fd, data)
os.write = write
from scrapy.cmdline import execute
execute(["scrapy", *sys.argv[1:]])
"""


def run_with_full_disk(*args: str, output: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", PATCHED_SCRAPY, *args, "-s", f"OUTPUT_DIR={output}"]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )


@pytest.fixture(scope="module")
def cnblogs() -> Iterator[SiteServer]:
    server = SiteServer(sample_site("cnblogs")).start()
    yield server
    server.stop()


def assert_one_export_error(result: subprocess.CompletedProcess, csv_path: Path) -> None:
    assert result.returncode == EXIT_SITE_FAILED, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, result.stderr[-3000:]
    assert f"cannot write {csv_path}: no space left on device" in errors[0]
    assert "Traceback" not in result.stderr


def test_crawl_whose_exports_fail(tmp_path: Path, cnblogs: SiteServer) -> None:
    out = tmp_path / "out"
    args = ("crawl", "cnblogs", "-a", f"url={cnblogs.url()}", "-a", "full=1")
    subprocess.run(
        [sys.executable, "-m", "scrapy", *args, "-s", f"OUTPUT_DIR={out}"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=180,
    )
    before = dataset(out)
    result = run_with_full_disk(*args, output=out)
    assert_one_export_error(result, out / "posts.csv")
    assert dataset(out) == before


def test_crawlall_whose_exports_fail(tmp_path: Path) -> None:
    port = free_port_base(len(LAYOUTS))
    result = run_with_full_disk(
        "crawlall", "--sample", "-s", f"SAMPLE_PORT_BASE={port}", output=tmp_path
    )
    out = tmp_path / "sample"  # the demo's own folder
    assert_one_export_error(result, out / "posts.csv")
    assert "the dataset files were not written" in result.stdout
    assert not (out / "posts.csv").exists() and not list(out.glob(".*.tmp"))
