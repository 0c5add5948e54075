"""A throwaway PostgreSQL server for the tests, and a fresh database per test.

``.ci/run`` starts one and names it in ``TEST_POSTGRES_URL``. Elsewhere the session starts its
own from Debian's PostgreSQL binaries (as the ``postgres`` user when run as root: PostgreSQL
refuses root) in a temporary folder, on a free port of 127.0.0.1, and stops it at the end.
Without PostgreSQL the tests that need it are skipped, saying why, except in CI (``CI`` set),
where that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from support.project import free_port_base


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is needed in CI: {reason}")
    pytest.skip(f"PostgreSQL not available: {reason}")


def _binaries() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: p.parts[-3])
    return found[-1].parent if found else None


def _as_postgres(command: list[str]) -> list[str]:
    """``command`` as the postgres user when this process is root."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's ``postgres`` database (``TEST_POSTGRES_URL``'s server,
    or one started for the session)."""
    given = os.environ.get("TEST_POSTGRES_URL")
    if given:
        yield given
        return
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    binaries = _binaries()
    if binaries is None:
        _unavailable("no /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    assert binaries is not None
    home = Path(tempfile.mkdtemp(prefix="pg-"))
    home.chmod(0o755)  # the postgres user must reach it
    data = home / "data"
    if os.geteuid() == 0:
        shutil.chown(home, "postgres", "postgres")
    port = free_port_base(1)
    run = subprocess.run
    initdb = [
        str(binaries / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--no-locale",
    ]
    result = run(_as_postgres(initdb), capture_output=True, text=True, check=False)
    if result.returncode:
        _unavailable(f"initdb failed: {result.stderr[-500:]}")
    options = f"-k {home} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off"
    start = [
        str(binaries / "pg_ctl"),
        "-D",
        str(data),
        "-l",
        str(home / "log"),
        "-w",
        "-o",
        options,
        "start",
    ]
    result = run(_as_postgres(start), capture_output=True, text=True, check=False)
    if result.returncode:
        _unavailable(f"pg_ctl start failed: {result.stderr[-500:]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        stop = [str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]
        run(_as_postgres(stop), capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the session's server, dropped after the test."""
    import psycopg

    name = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(postgres_server)
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
