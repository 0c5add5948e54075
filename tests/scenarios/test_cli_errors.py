"""A bad command line is one line on stderr and exit status 2: nothing before it (no banner,
no usage block), no traceback, no request. Also: ``scrapy crawl -h`` lists the spider
arguments, and ``scrapy detect`` says at once, in one line, that a page cannot be fetched."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.faultserver import Fault, cards_site
from support.project import ROOT, run_scrapy

from crawler.arguments import SpiderArguments, arguments_help, validate_arguments
from crawler.runs.summary import EXIT_USAGE
from crawler.sites import SiteError


def only_line(result: subprocess.CompletedProcess) -> str:
    """The one line a refused command prints (exit 2, nothing else on stderr)."""
    assert result.returncode == EXIT_USAGE, result.stderr[-3000:]
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["-a", "max_pages=0"], "-a max_pages=0: Input should be greater than or equal to 1"),
        (["-a", "max_pages=-3"], "-a max_pages=-3: Input should be greater than or equal to 1"),
        (["-a", "max_pages=lots"], "-a max_pages=lots: Input should be a valid integer"),
        (
            ["-a", "ulr=x"],
            "-a ulr: unknown argument (known: url, site, full, content, max_pages, timezone)",
        ),
        (["-a", "full=maybe"], "-a full=maybe"),
        (["-a", "site=nope"], "unknown site 'nope'"),
        (["-s", "RUN_ID=../x"], "unsafe run id"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_2(
    serve, tmp_path: Path, arguments: list[str], expected: str
) -> None:
    server = serve(cards_site())
    url = [] if "site=nope" in arguments else ["-a", f"url={server.url()}"]
    result = run_scrapy("crawl", "cards", *url, *arguments, output=tmp_path / "output")
    line = only_line(result)
    assert line.startswith("scrapy: error: ") and expected in line, line
    assert result.stdout == ""
    assert server.connections == 0
    assert not (tmp_path / "output").exists()


def test_a_bad_url_and_an_unknown_spider_are_one_line(tmp_path: Path) -> None:
    bad_url = only_line(run_scrapy("crawl", "cards", "-a", "url=ftp://x.cn/", output=tmp_path))
    assert bad_url == "scrapy: error: URL must start with http:// or https://, got 'ftp://x.cn/'"
    unknown = only_line(run_scrapy("crawl", "cardz", "-a", "url=https://x.cn/", output=tmp_path))
    assert unknown.startswith(
        "scrapy: error: unknown spider 'cardz' (known: auto, butterfly, cards, cnblogs,"
    )


def test_max_pages_is_at_least_one() -> None:
    for value in ("0", "-3"):
        with pytest.raises(SiteError, match="max_pages"):
            validate_arguments("cards", {"url": "https://x.cn/hot", "max_pages": value})
    _, site = validate_arguments("cards", {"url": "https://x.cn/hot", "max_pages": "1"})
    assert site.max_pages == 1


# ---- the spider arguments, described once -----------------------------------------------------
def test_crawl_help_lists_the_spider_arguments_with_their_meaning(tmp_path: Path) -> None:
    result = run_scrapy("crawl", "-h", output=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    section = result.stdout.split("Spider Arguments\n================\n", 1)[1]
    section = section.split("\n\n", 1)[0]
    flat = " ".join(section.split())  # the help wraps long meanings
    assert "-a NAME=VALUE" in flat
    for name, meaning in arguments_help():
        assert f"{name} {' '.join(meaning.replace('`', '').split())}" in flat, name
    assert [name for name, _ in arguments_help()] == list(SpiderArguments.model_fields)
    assert set(SpiderArguments.model_fields) == {
        "url",
        "site",
        "full",
        "content",
        "max_pages",
        "timezone",
    }


def test_the_readme_table_is_the_models_descriptions() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("Spider arguments (`-a NAME=VALUE`)", 1)[1].split("\n#", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", table, flags=re.M))
    for name, meaning in arguments_help():
        assert rows.get(name) == meaning, name


# ---- scrapy detect ----------------------------------------------------------------------------
def detect(url: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "detect", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_detect_on_a_closed_port_is_one_line() -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    result = detect(url)
    line = only_line(result)
    assert line.startswith(f"could not fetch {url}: ") and "refused" in line, line
    assert result.stdout == ""


def test_detect_asks_once_and_says_so_in_one_line(serve) -> None:
    server = serve(cards_site())
    server.program("/robots.txt", Fault(reset="before", times=None))
    server.program("/hot", Fault(reset="before", times=None))
    result = detect(server.url())
    line = only_line(result)
    assert line.startswith(f"could not fetch {server.url()}: "), line
    # No retries: one request for robots.txt, one for the page (Scrapy's default: 4 each).
    assert [hit.path for hit in server.log] == ["/robots.txt", "/hot"]


def test_detect_refuses_a_bad_url_in_one_line() -> None:
    line = only_line(detect("file:///etc/passwd"))
    assert (
        line == "scrapy: error: URL must start with http:// or https://, got 'file:///etc/passwd'"
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            ["hexx", "https://x.cn/"],
            "unknown layout 'hexx' (known: auto, butterfly, cards, cnblogs,",
        ),
        (["hexo", "ftp://x.cn/"], "URL must start with http:// or https://"),
        (["hexo", "https://x.cn/", "--now", "yesterday"], "--now: not an ISO 8601 time"),
        (["hexo"], "give a layout and a URL"),
    ],
)
def test_savecase_refuses_in_one_line(tmp_path: Path, arguments: list[str], expected: str) -> None:
    result = run_scrapy("savecase", *arguments, "--cases-dir", str(tmp_path), output=tmp_path)
    line = only_line(result)
    assert line.startswith("scrapy: error: ") and expected in line, line
    assert list(tmp_path.iterdir()) == []


def test_the_abstract_base_is_no_spider(tmp_path: Path) -> None:
    line = only_line(run_scrapy("crawl", "layout", "-a", "url=https://x.cn/", output=tmp_path))
    assert line.startswith(
        "scrapy: error: unknown spider 'layout' (known: auto, butterfly, cards, cnblogs,"
    )


def test_a_crawl_opens_no_control_ports(serve, tmp_path: Path) -> None:
    """Nothing uses Scrapy's telnet console or remote-control server: neither listens."""
    server = serve(cards_site())
    result = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", output=tmp_path / "out")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Remote control" not in result.stderr and "Telnet console" not in result.stderr
