"""What identifies a run and where its files go, all under the output folder."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from crawler.store import PostStore, StoreRegistry


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, file-name-safe run id: UTC time and pid, e.g. ``20261130T101500Z-4242``."""
    now = now or datetime.now(UTC)
    return f"{now.astimezone(UTC):%Y%m%dT%H%M%SZ}-{os.getpid()}"


def run_id(settings: BaseSettings) -> str:
    """The run id shared by every crawler of this process (set once, in the settings)."""
    return settings.get("RUN_ID") or _process_run_id()


@lru_cache(maxsize=1)
def _process_run_id() -> str:
    return new_run_id()


def output_dir(settings: BaseSettings) -> Path:
    """The folder every export and state file lives in (``OUTPUT_DIR``, default ``output``)."""
    return Path(settings.get("OUTPUT_DIR") or "output")


def run_dir(settings: BaseSettings, run: str) -> Path:
    """``output/runs/<run id>/``: the run's delta and summary. The id never leaves output/."""
    if not run or "/" in run or "\\" in run or run.startswith("."):
        raise ValueError(f"unsafe run id {run!r}")
    return output_dir(settings) / "runs" / run


def store_path(settings: BaseSettings) -> str:
    """Where the store lives: ``POST_STORE_PATH``, default ``<OUTPUT_DIR>/posts.sqlite``."""
    return settings.get("POST_STORE_PATH") or str(output_dir(settings) / "posts.sqlite")


def acquire_store(settings: BaseSettings) -> PostStore:
    """The process's shared store configured by ``POST_STORE_CLASS`` / ``POST_STORE_PATH``."""
    store_class = load_object(settings.get("POST_STORE_CLASS", "crawler.store.SQLiteStore"))
    return StoreRegistry.acquire(store_class, store_path(settings))


def release_store(settings: BaseSettings) -> None:
    """Give back the store taken with :func:`acquire_store`."""
    StoreRegistry.release(store_path(settings))
