"""The one atomic writer: a file replaced whole or not at all, errors naming the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crawler.outputs.files import AtomicFile, ExportError, read_if_present, replace_file


def test_a_file_is_replaced_whole_with_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.html"
    replace_file(target, b"one")
    replace_file(target, b"two")
    assert target.read_bytes() == b"two"
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_an_error_inside_the_block_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "posts.jsonl"
    replace_file(target, b"old\n")
    with pytest.raises(KeyboardInterrupt), AtomicFile(target) as file:
        file.write(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["posts.jsonl"]


def test_a_stale_temporary_file_of_a_killed_run_goes(tmp_path: Path) -> None:
    stale = tmp_path / ".posts.csv.abc123.tmp"
    stale.write_bytes(b"x")
    replace_file(tmp_path / "posts.csv", b"id\n")
    assert not stale.exists()


def test_a_file_that_cannot_be_written_is_one_line_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    with pytest.raises(ExportError, match=rf"cannot write {blocker}/out.xml: "):
        replace_file(blocker / "out.xml", b"x")
    assert read_if_present(tmp_path / "absent") is None
    assert read_if_present(blocker) == b"in the way"
