"""Shared fixtures: items, settings pointing at a temporary output folder."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings
from scrapy.settings import Settings
from scrapy.utils.project import get_project_settings

from crawler.items import POST_FIELDS
from crawler.parsing.processors import post_id

# CI runs the property tests with a fixed seed, so one CI run is one verdict on the change;
# developers' runs explore new examples each time (and keep failures in .hypothesis/).
hypothesis_settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


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


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Project settings writing under a temporary output folder."""
    project = get_project_settings().copy()
    project.set("OUTPUT_DIR", str(tmp_path / "output"))
    return project


ROOT = Path(__file__).resolve().parent.parent


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


# The PostgreSQL fixtures (pgserver.py) for every test module: one server for the session.
from pgserver import postgres_server, postgres_url  # noqa: E402, F401
