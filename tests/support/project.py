"""The project under test: its root, ``scrapy`` run in it, its JSON Lines read back, free
ports on 127.0.0.1, and a complete post to record."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings, Settings
from scrapy.utils.project import get_project_settings
from scrapy.utils.test import get_crawler

from crawler.items import POST_FIELDS
from crawler.outputs.dataset import DatasetResult, write_dataset
from crawler.parsing.processors import post_id
from crawler.runs.folders import output_dir, run_dir
from crawler.store.base import PostStore

ROOT = Path(__file__).resolve().parents[2]


def make_post(n: int = 1, **fields: Any) -> dict[str, Any]:
    """A complete post with every export field."""
    url = fields.pop("url", f"https://blog.example.org/posts/{n}")
    post = dict.fromkeys(POST_FIELDS)
    post.update(
        id=post_id(url),
        url=url,
        title=f"标题 {n}",
        summary="摘要文字",
        published_at=f"2026-10-{n:02d}T08:00:00+08:00",
        date_precision="minute",
        published_raw=f"2026-10-{n:02d} 08:00",
        category="训练",
        categories=["训练", "并行"],
        tags=["分布式", "训练"],
        content=f"## 背景\n\n第 {n} 篇的正文。\n\n```python\nprint({n})\n```",
        word_count=7,
        gone=False,
        views=10 * n,
        comments=0,
        likes=None,
        site="example",
        layout="cards",
        crawled_at="2026-11-30T02:00:00+00:00",
    )
    post.update(fields)
    return post


def run_scrapy(*args: str, output: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run ``scrapy ARGS`` in the project, writing exports and state under ``output``."""
    command = [sys.executable, "-m", "scrapy", *args, "-s", f"OUTPUT_DIR={output}"]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )


def free_port_base(count: int = 4) -> int:
    """A first port of ``count`` consecutive free ports on 127.0.0.1."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + count >= 65535:
            continue
        try:
            for port in range(base, base + count):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free ports")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


TESTS = ROOT / "tests"
CASES = TESTS / "cases"  # saved list pages and the items expected from them
POST_CASES = TESTS / "post_cases"  # saved post pages and feeds of whole posts
SAMPLES = ROOT / "crawler" / "devtools" / "samples"  # the bundled sample sites


def export_dataset(settings: BaseSettings, store: PostStore, run: str) -> DatasetResult:
    """The dataset and run ``run``'s changes written where a run writes them."""
    return write_dataset(settings, store, output_dir(settings), run, run_dir(settings, run))


def project_settings(**values: Any) -> Settings:
    """The project's settings with ``values`` set (at the command line's priority)."""
    settings = get_project_settings().copy()
    settings.setdict(values, priority="cmdline")
    return settings


def project_crawler(spidercls: type[Spider] | None = None, **values: Any) -> Crawler:
    """A crawler with the project's settings (``values`` set over them), not started: for the
    components that a test drives by hand."""
    settings = get_project_settings().copy_to_dict()
    # No reactor runs here: none is asked for.
    settings.update(TWISTED_REACTOR_ENABLED=False, **values)
    return get_crawler(spidercls, settings_dict=settings)
