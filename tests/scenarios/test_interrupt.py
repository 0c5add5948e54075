"""Ctrl-C at any point of a run ends it as "stopped": exit status 4, ``partial: true``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from support.project import ROOT, free_port_base

from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.runs.summary import EXIT_INTERRUPTED


def interrupt_when(marker: str, *args: str, output: Path) -> tuple[int, str, str]:
    """Run ``scrapy ARGS``, send SIGINT as soon as stderr shows ``marker``; the exit status,
    stdout and stderr."""
    command = [sys.executable, "-m", "scrapy", *args, "-s", f"OUTPUT_DIR={output}"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if marker in line:
            process.send_signal(signal.SIGINT)
            break
    out, err = process.communicate(timeout=120)
    return process.returncode, out, "".join(seen) + err


def test_ctrl_c_before_any_site_is_crawled_is_a_stopped_run(tmp_path: Path) -> None:
    port = free_port_base(len(LAYOUTS))
    # "Overridden settings" is logged when the crawler is made, before its spider opens.
    status, out, err = interrupt_when(
        "Overridden settings",
        "crawlall",
        "-s",
        "LOG_SCRAPY_INFO=1",
        "--sample",
        "-s",
        f"SAMPLE_PORT_BASE={port}",
        output=tmp_path,
    )
    assert status == EXIT_INTERRUPTED, (out, err[-3000:])
    assert "Traceback" not in err
    [summary] = (tmp_path / "sample" / "runs").glob("*/summary.json")
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert document["partial"] is True and document["exit_status"] == EXIT_INTERRUPTED
    assert f"exit status {EXIT_INTERRUPTED}" in out
    assert f"of {len(LAYOUTS)} site(s) crawled" in out


def test_ctrl_c_before_a_single_crawl_starts_is_a_stopped_run(tmp_path: Path) -> None:
    server = SiteServer(sample_site("cards")).start()
    try:
        status, out, err = interrupt_when(
            "Overridden settings",
            "crawl",
            "cards",
            "-a",
            f"url={server.url()}",
            "-s",
            "LOG_SCRAPY_INFO=1",
            output=tmp_path,
        )
    finally:
        server.stop()
    assert status == EXIT_INTERRUPTED, (out, err[-3000:])
    assert "Traceback" not in err
    [summary] = (tmp_path / "runs").glob("*/summary.json")
    assert json.loads(summary.read_text(encoding="utf-8"))["partial"] is True
