"""The site registry's file: ``SITE_REGISTRY``, and a file that cannot be used.

A registry that is missing, not TOML, or holds an entry of no known layout is one line naming
the file (and the entry, or the line and column) and exit status 2 for ``crawl`` and
``crawlall``, never a traceback; ``crawlall --sample`` does not read it at all.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy.settings import Settings
from scrapy.utils.project import get_project_settings
from support.faultserver import cards_site
from support.project import ROOT, free_port_base, read_jsonl, run_scrapy

from crawler.devtools.samples.server import LAYOUTS
from crawler.layouts import layouts
from crawler.runs.summary import EXIT_USAGE
from crawler.sites import SiteError, load_registry, registry

KNOWN = sorted(layouts())  # every layout module of crawler/layouts/
UNCLOSED = '[sites.a\nlayout = "cards"\nurl = "https://blog.example.cn/hot"\n'


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def registry_settings(path: Path | str) -> Settings:
    settings = get_project_settings().copy()
    settings.set("SITE_REGISTRY", str(path))
    return settings


# ---- the registry file, in process ----------------------------------------------------------
def test_the_default_is_the_packaged_registry() -> None:
    settings = get_project_settings()
    assert settings.get("SITE_REGISTRY") == ""
    assert registry(settings) == registry() and "robindevnotes" in registry(settings)


def test_site_registry_names_the_file_read(tmp_path: Path) -> None:
    path = write(tmp_path / "mine.toml", '[sites.mine]\nlayout = "hux"\nurl = "https://a.cn/"\n')
    sites = registry(registry_settings(path))
    assert list(sites) == ["mine"] and sites["mine"].layout == "hux"


def test_a_toml_syntax_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.toml", UNCLOSED)
    with pytest.raises(SiteError) as error:
        registry(registry_settings(path))
    assert str(error.value).startswith(f"site registry {path}: not valid TOML:")
    assert "(at line 1, column 9)" in str(error.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(SiteError, match=f"site registry {path}: cannot read it"):
        registry(registry_settings(path))


def test_an_unknown_layout_names_the_entry_and_the_known_layouts(tmp_path: Path) -> None:
    path = write(tmp_path / "typo.toml", '[sites.a]\nlayout = "cnblgs"\nurl = "https://a.cn/"\n')
    with pytest.raises(SiteError) as error:
        registry(registry_settings(path))
    message = str(error.value)
    assert message.startswith(f"{path}: registry entry [sites.a] is invalid: layout 'cnblgs'")
    assert f"(known: {', '.join(KNOWN)})" in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sites = 3\n", "`sites` must be a table"),
        ("[sites]\na = 1\n", "[sites.a] is invalid: expected a table"),
    ],
)
def test_entries_that_are_not_tables_are_refused(text: str, message: str) -> None:
    with pytest.raises(SiteError, match=re.escape(message)):
        load_registry(text, source="x.toml")


MINE = '[sites.mine]\nlayout = "cards"\nurl = "{url}"\n'


# ---- the commands ---------------------------------------------------------------------------
def assert_one_line(result: subprocess.CompletedProcess, *expected: str) -> str:
    """Exit status 2, no traceback, and the error line saying each of ``expected``."""
    assert result.returncode == EXIT_USAGE, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if ": error: " in line]
    for text in expected:
        assert text in line, line
    return line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (UNCLOSED, ["not valid TOML", "line 1, column 9"]),
        ('[sites.a]\nlayout = "cnblgs"\nurl = "{url}"\n', ["[sites.a]", "'cnblgs'", "known:"]),
        (None, ["cannot read it"]),
    ],
    ids=["syntax", "layout", "missing"],
)
@pytest.mark.parametrize("command", [["crawlall"], ["crawl", "cards", "-a", "url={url}"]])
def test_a_bad_registry_is_exit_2_and_one_line(
    serve, tmp_path: Path, text: str | None, expected: list[str], command: list[str]
) -> None:
    server = serve(cards_site())
    path = tmp_path / "sites.toml"
    if text is not None:
        write(path, text.format(url=server.url()))
    command = [part.format(url=server.url()) for part in command]
    result = run_scrapy(*command, "-s", f"SITE_REGISTRY={path}", output=tmp_path / "output")
    assert_one_line(result, str(path), *expected)
    assert server.connections == 0


def test_crawl_by_site_name_and_url_use_the_registry_of_site_registry(
    serve, tmp_path: Path
) -> None:
    server = serve(cards_site())
    path = write(tmp_path / "mine.toml", MINE.format(url=server.url()))
    for argument in ("site=mine", f"url={server.url()}"):
        feed = tmp_path / f"{argument[:3]}.jsonl"
        result = run_scrapy(
            "crawl",
            "cards",
            "-a",
            argument,
            "-s",
            f"SITE_REGISTRY={path}",
            "-O",
            str(feed),
            output=tmp_path / "output",
        )
        assert result.returncode == 0, result.stderr[-3000:]
        posts = read_jsonl(feed)
        assert posts and {post["site"] for post in posts} == {"mine"}, argument


def test_crawlall_crawls_the_sites_of_site_registry(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    path = write(tmp_path / "mine.toml", MINE.format(url=server.url()))
    output = tmp_path / "output"
    result = run_scrapy("crawlall", "-s", f"SITE_REGISTRY={path}", output=output)
    assert result.returncode == 0, result.stderr[-3000:]
    assert {post["site"] for post in read_jsonl(output / "posts.jsonl")} == {"mine"}


# Runs scrapy with every read of a registry failing loudly: argv[1:] is the command line.
_NO_REGISTRY = """
import sys
import crawler.sites

def read(*args, **kwargs):
    raise AssertionError("the registry was read")

crawler.sites.read_registry_file = crawler.sites.load_registry = read
from scrapy.cmdline import execute
execute(["scrapy", *sys.argv[1:]])
"""


def test_crawlall_sample_never_reads_the_registry(tmp_path: Path) -> None:
    port = free_port_base(len(LAYOUTS))
    broken = write(tmp_path / "broken.toml", UNCLOSED)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _NO_REGISTRY,
            "crawlall",
            "--sample",
            "-s",
            f"SAMPLE_PORT_BASE={port}",
            "-s",
            f"SITE_REGISTRY={broken}",
            "-s",
            f"OUTPUT_DIR={tmp_path / 'output'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "the registry was read" not in result.stderr
    assert "Traceback" not in result.stderr
