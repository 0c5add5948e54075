"""An output folder that cannot be used: one line naming it and why, exit status 2, nothing lost.

The tests run as root, whom file modes do not stop: "read-only" is a read-only bind mount in a
private mount namespace (``unshare``; skipped where that is not allowed) for the commands, and
a failing probe (monkeypatched) for the function.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapy.settings import Settings
from support.project import ROOT, free_port_base, run_scrapy

from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.runs.folders import OutputDirError, prepare_output_dir
from crawler.runs.summary import EXIT_USAGE


@pytest.fixture(scope="module")
def cnblogs() -> Iterator[SiteServer]:
    server = SiteServer(sample_site("cnblogs")).start()
    yield server
    server.stop()


def one_error_line(stderr: str, *needles: str) -> None:
    """stderr is one line (no banner, no traceback) holding every needle."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr[-3000:]
    assert "Traceback" not in stderr and "Task exception" not in stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# prepare_output_dir itself


def test_creates_the_folder_and_leaves_no_probe(tmp_path: Path) -> None:
    out = tmp_path / "new" / "output"
    assert prepare_output_dir(Settings({"OUTPUT_DIR": str(out)})) == out
    assert out.is_dir() and list(out.iterdir()) == []


def test_a_folder_under_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OutputDirError) as caught:
        prepare_output_dir(Settings({"OUTPUT_DIR": str(tmp_path / "file" / "out")}))
    assert str(caught.value) == (
        f"cannot use output folder {tmp_path / 'file' / 'out'}: "
        f"it is under a regular file {tmp_path / 'file'}"
    )


def test_a_regular_file_as_the_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OutputDirError, match=r"output folder .*/file: it is a file$"):
        prepare_output_dir(Settings({"OUTPUT_DIR": str(tmp_path / "file")}))


def test_the_store_folder_is_checked_too(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    settings = Settings(
        {"OUTPUT_DIR": str(tmp_path / "out"), "POST_STORE_PATH": str(tmp_path / "file" / "s.db")}
    )
    with pytest.raises(OutputDirError, match=r"store folder \(POST_STORE_PATH\) .*/file:"):
        prepare_output_dir(settings)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.EROFS, "not writable (read-only file system)"),
        (errno.EACCES, "not writable (permission denied)"),
        (errno.ENOSPC, "not writable (no space left on device)"),
    ],
)
def test_a_folder_where_no_file_can_be_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, reason: str
) -> None:
    real_open = os.open

    def refusing_open(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if Path(path).parent == tmp_path / "out" and flags & os.O_CREAT:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(OutputDirError) as caught:
        prepare_output_dir(Settings({"OUTPUT_DIR": str(tmp_path / "out")}))
    assert str(caught.value) == f"cannot use output folder {tmp_path / 'out'}: {reason}"


# the commands


def test_crawl_into_a_folder_under_a_regular_file(tmp_path: Path, cnblogs: SiteServer) -> None:
    (tmp_path / "file").write_text("not a folder")
    result = run_scrapy(
        "crawl", "cnblogs", "-a", f"url={cnblogs.url()}", output=tmp_path / "file" / "out"
    )
    assert result.returncode == EXIT_USAGE
    one_error_line(result.stderr, f"{tmp_path / 'file' / 'out'}", "under a regular file")
    assert cnblogs.hits == []  # nothing crawled


def test_crawlall_into_a_folder_under_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    port = free_port_base(len(LAYOUTS))
    result = run_scrapy(
        "crawlall", "--sample", "-s", f"SAMPLE_PORT_BASE={port}", output=tmp_path / "file" / "out"
    )
    assert result.returncode == EXIT_USAGE
    one_error_line(result.stderr, f"{tmp_path / 'file' / 'out'}", "under a regular file")


def test_crawl_with_the_store_under_a_regular_file_keeps_the_exports(
    tmp_path: Path, cnblogs: SiteServer
) -> None:
    out = tmp_path / "out"
    args = ("crawl", "cnblogs", "-a", f"url={cnblogs.url()}")
    assert run_scrapy(*args, output=out).returncode == 0
    before = {p.name: p.read_bytes() for p in out.glob("posts.*")}
    (tmp_path / "file").write_text("not a folder")
    store = tmp_path / "file" / "posts.sqlite"
    result = run_scrapy(*args, "-s", f"POST_STORE_PATH={store}", output=out)
    assert result.returncode == EXIT_USAGE
    one_error_line(result.stderr, f"store folder (POST_STORE_PATH) {store.parent}")
    assert {p.name: p.read_bytes() for p in out.glob("posts.*")} == before


def _read_only_run(folder: Path, *scrapy_args: str) -> subprocess.CompletedProcess:
    """``scrapy ARGS -s OUTPUT_DIR=folder`` with ``folder`` bind-mounted read-only, in a mount
    namespace of its own (nothing outside the process sees the mount)."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99; shift; exec "$@"'
    command = [sys.executable, "-m", "scrapy", *scrapy_args, "-s", f"OUTPUT_DIR={folder}"]
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(folder), *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _can_mount_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && ! touch "$1/x"'
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(probe)], capture_output=True, check=False
    )
    return done.returncode == 0


@pytest.mark.parametrize("command", ["crawl", "crawlall"])
def test_read_only_output_folder(command: str, tmp_path: Path, cnblogs: SiteServer) -> None:
    if not _can_mount_read_only(tmp_path):
        pytest.skip("no read-only bind mounts here (unshare -rm not allowed)")
    out = tmp_path / "out"
    crawl = ("crawl", "cnblogs", "-a", f"url={cnblogs.url()}")
    assert run_scrapy(*crawl, output=out).returncode == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    cnblogs.hits.clear()
    args = crawl if command == "crawl" else ("crawlall", "--site", "none")
    result = _read_only_run(out, *args)
    assert result.returncode == EXIT_USAGE, result.stderr[-3000:]
    one_error_line(result.stderr, f"cannot use output folder {out}: not writable (read-only")
    assert cnblogs.hits == []
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
