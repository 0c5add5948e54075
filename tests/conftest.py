"""Shared fixtures: settings pointing at a temporary output folder, the PostgreSQL server and
the fault servers (tests/support/), a fixed hypothesis seed on CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from scrapy.settings import Settings
from scrapy.utils.project import get_project_settings

# CI runs the property tests with a fixed seed, so one CI run is one verdict on the change;
# developers' runs explore new examples each time (and keep failures in .hypothesis/).
hypothesis_settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Project settings writing under a temporary output folder."""
    project = get_project_settings().copy()
    project.set("OUTPUT_DIR", str(tmp_path / "output"))
    return project


# The fixtures of tests/support/ for every test module: one PostgreSQL server for the session,
# fault servers per test.
from support.faultserver import serve  # noqa: E402, F401
from support.pgserver import postgres_server, postgres_url, private_postgres  # noqa: E402, F401
from support.scrapydnodes import egg  # noqa: E402, F401
