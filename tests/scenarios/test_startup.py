"""Heavy libraries are imported where they are used: a ``scrapy list`` (every command module
and every layout imported, no store URL) loads none of them."""

from __future__ import annotations

import subprocess
import sys

from support.project import ROOT

# The store's PostgreSQL driver, the Atom and report writers, the fallback body reader and
# the structured-data reader: each loaded by the first thing that needs it.
HEAVY = ("psycopg", "feedgen", "markdown_it", "trafilatura", "extruct", "htmldate")


def test_scrapy_list_imports_no_heavy_library() -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "scrapy", "list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "generic" in result.stdout.split()  # the layouts were imported
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert imported and not imported & set(HEAVY), sorted(imported & set(HEAVY))
