"""What identifies a run: its id, shared by every crawler of a process and every node."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from functools import cache

from scrapy.settings import BaseSettings

# What new_run_id makes; only folders named like this are ever pruned from output/runs/.
RUN_ID_PATTERN = re.compile(r"\d{8}T\d{6}Z-\d+")


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, file-name-safe run id: UTC time and pid, e.g. ``20261130T101500Z-4242``."""
    now = now or datetime.now(UTC)
    return f"{now.astimezone(UTC):%Y%m%dT%H%M%SZ}-{os.getpid()}"


def run_id(settings: BaseSettings) -> str:
    """The run's id: ``RUN_ID`` (a controller gives its nodes its own), else one made once
    for this process."""
    return settings["RUN_ID"] or _process_run_id()


@cache
def _process_run_id() -> str:
    return new_run_id()
