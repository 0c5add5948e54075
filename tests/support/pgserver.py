"""Throwaway PostgreSQL servers for the tests, and a fresh database per test.

``.ci/run`` starts one and names it in ``TEST_POSTGRES_URL``. Elsewhere the session starts its
own from Debian's PostgreSQL binaries (as the ``postgres`` user when run as root: PostgreSQL
refuses root) in a temporary folder, on a free port of 127.0.0.1, and stops it at the end.
A test that restarts or stops its server gets one of its own (:func:`private_postgres`).
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


class PostgresServer:
    """One PostgreSQL server in a temporary folder: started, restarted, stopped at will."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.home = Path(tempfile.mkdtemp(prefix="pg-"))
        self.home.chmod(0o755)  # the postgres user must reach it
        self.data = self.home / "data"
        if os.geteuid() == 0:
            shutil.chown(self.home, "postgres", "postgres")
        self.port = free_port_base(1)
        initdb = [
            str(binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
        ]
        self._run(initdb, "initdb")

    @property
    def url(self) -> str:
        """The URL of the server's ``postgres`` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, command: list[str], what: str) -> None:
        result = subprocess.run(_as_postgres(command), capture_output=True, text=True, check=False)
        if result.returncode:
            _unavailable(f"{what} failed: {result.stderr[-500:]}")

    def _pg_ctl(self, *args: str) -> list[str]:
        options = f"-k {self.home} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off"
        return [
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.home / "log"),
            "-w",
            "-o",
            options,
            *args,
        ]

    def start(self) -> PostgresServer:
        self._run(self._pg_ctl("start"), "pg_ctl start")
        return self

    def restart(self) -> None:
        """A fast restart: every session is ended, as a server restart ends them."""
        self._run(self._pg_ctl("-m", "fast", "restart"), "pg_ctl restart")

    def stop(self) -> None:
        subprocess.run(
            _as_postgres(self._pg_ctl("-m", "fast", "stop")), capture_output=True, check=False
        )

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)


def _new_server() -> PostgresServer:
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    binaries = _binaries()
    if binaries is None:
        _unavailable("no /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    assert binaries is not None
    return PostgresServer(binaries).start()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's ``postgres`` database (``TEST_POSTGRES_URL``'s server,
    or one started for the session)."""
    given = os.environ.get("TEST_POSTGRES_URL")
    if given:
        yield given
        return
    server = _new_server()
    try:
        yield server.url
    finally:
        server.remove()


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A server of the test's own, to restart or stop (``.url``: its postgres database)."""
    server = _new_server()
    try:
        yield server
    finally:
        server.remove()


def fresh_database(server_url: str) -> str:
    """A new, empty database on the server of ``server_url``; its URL."""
    import psycopg

    name = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the session's server, dropped after the test."""
    import psycopg

    url = fresh_database(postgres_server)
    yield url
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path[1:]}" WITH (FORCE)')
