"""Real Scrapyd nodes for the tests: the project's egg, a Scrapyd process on 127.0.0.1, and
deploying the egg to it (``addversion.json``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from urllib.request import Request, urlopen

import pytest

from support.project import ROOT

PROJECT = "blogcrawler"


def clean_env() -> dict[str, str]:
    """The environment without Scrapy's project variables or PYTHONPATH, so the Scrapyd jobs
    import the crawler from the uploaded egg, not from this checkout."""
    drop = {"PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT", "SCRAPY_PYTHON_SHELL"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call_api(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
    """A Scrapyd API call (loopback only); the decoded JSON answer."""
    assert url.startswith("http://127.0.0.1:"), url
    with urlopen(Request(url, data=data, headers=headers or {}), timeout=30) as response:
        return json.loads(response.read())


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + value.encode()
            + b"\r\n"
        )
    for name, (filename, content) in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}";'
            f' filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            + content
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


# ---- the egg -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def egg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project egg, built by ``scrapyd-deploy --build-egg`` from a copy of the project."""
    base = tmp_path_factory.mktemp("egg")
    source = base / "project"
    source.mkdir()
    shutil.copytree(
        ROOT / "crawler", source / "crawler", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    for name in ("setup.py", "pyproject.toml", "scrapy.cfg", "README.md"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, source / name)
    target = base / f"{PROJECT}.egg"
    script = Path(sys.executable).with_name("scrapyd-deploy")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from scrapyd_client.deploy import main; main()"]
    )
    result = subprocess.run(
        [*command, "--build-egg", str(target), "--debug"],
        cwd=source,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and target.exists(), result.stdout[-2000:] + result.stderr[-3000:]
    return target


class Scrapyd:
    """A Scrapyd process on 127.0.0.1 with its folders under one temporary directory."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs_dir = home / "logs"
        self.items_dir = home / "items"
        (home / "scrapyd.conf").write_text(
            "[scrapyd]\n"
            "bind_address = 127.0.0.1\n"
            f"http_port = {self.port}\n"
            f"eggs_dir = {home / 'eggs'}\n"
            f"logs_dir = {self.logs_dir}\n"
            f"items_dir = {self.items_dir}\n"
            f"dbs_dir = {home / 'dbs'}\n"
            "jobs_dir =\n"
            "jobs_to_keep = 5\n"
            "finished_to_keep = 100\n"
            "max_proc = 2\n"
            "poll_interval = 0.5\n"
            "username =\n"
            "password =\n",
            encoding="utf-8",
        )
        self.output = (home / "scrapyd.out").open("wb")
        # Scrapyd reads ./scrapyd.conf: run it in its folder (jobs inherit that working dir).
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scrapyd", "--pidfile", str(home / "twistd.pid")],
            cwd=home,
            env=clean_env(),
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, with its jobs: see kill()
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"scrapyd exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if self.get("daemonstatus.json")["status"] == "ok":
                    return
            except OSError:
                time.sleep(0.2)
        pytest.fail(f"scrapyd did not answer daemonstatus.json in {timeout} s:\n{self.log_tail()}")

    def get(self, endpoint: str, **params: str) -> Any:
        query = f"?{urlencode(params)}" if params else ""
        return call_api(f"{self.url}/{endpoint}{query}")

    def post(self, endpoint: str, params: list[tuple[str, str]]) -> Any:
        return call_api(f"{self.url}/{endpoint}", data=urlencode(params).encode())

    def wait_log(self, job_marker: str, timeout: float = 10.0) -> str:
        """How Scrapyd's log says the job's process ended ("Process finished" or "died")."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log_tail(chars=10**7).splitlines():
                if job_marker in line and ("Process finished" in line or "Process died" in line):
                    return "Process finished" if "Process finished" in line else line
            time.sleep(0.2)
        return "no end of process logged"

    def log_tail(self, chars: int = 4000) -> str:
        self.output.flush()
        return (self.home / "scrapyd.out").read_text(encoding="utf-8", errors="replace")[-chars:]

    def kill(self) -> None:
        """The node dies with its running jobs (SIGKILL to its process group), as a machine
        that goes down."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=15)
        self.output.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self.output.close()


def deploy(url: str, egg: Path, version: str = "1") -> None:
    """Upload the project's egg to the Scrapyd node at ``url`` as project ``blogcrawler``."""
    body, content_type = multipart(
        {"project": PROJECT, "version": version}, {"egg": (egg.name, egg.read_bytes())}
    )
    headers = {"Content-Type": content_type}
    added = call_api(f"{url}/addversion.json", data=body, headers=headers)
    assert added["status"] == "ok", added
