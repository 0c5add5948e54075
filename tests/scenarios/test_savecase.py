"""``scrapy savecase``: a page served on 127.0.0.1 becomes a case folder the harness replays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.project import CASES, ROOT

from crawler.commands.savecase import case_name, default_case_name
from crawler.devtools.cases import EXPECTED_FIELDS, find_cases, load_case, next_pages, run_case
from crawler.devtools.samples.server import Route, Site, SiteServer, sample_site

NOW = "2026-11-30T10:00:00+08:00"
CURATED = {case.name: case for case in find_cases(CASES)}


def savecase(*args: str, cases: Path) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "savecase",
        *args,
        "--cases-dir",
        str(cases),
        "-s",
        "DOWNLOAD_DELAY=0",
        "-s",
        "AUTOTHROTTLE_ENABLED=0",
    ]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def hux():
    server = SiteServer(sample_site("hux")).start()
    yield server
    server.stop()


def replayed(folder: Path) -> list[dict]:
    return [{k: row[k] for k in EXPECTED_FIELDS} for row in run_case(load_case(folder))]


def test_savecase_writes_a_case_the_harness_reproduces(hux: SiteServer, tmp_path: Path) -> None:
    url = hux.url("/page2")
    result = savecase("hux", url, "--now", NOW, "--site", "imagination", cases=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "CHECK output.json AGAINST THE PAGE BY HAND" in result.stdout
    folder = tmp_path / "hux" / "page2"
    assert sorted(p.name for p in folder.iterdir()) == ["case.json", "output.json", "page.html"]
    spec = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    # The redirect /page2 -> /page2/ was followed: the case is of the final URL.
    assert spec["url"] == hux.url("/page2/")
    assert spec["layout"] == "hux" and spec["site"] == "imagination" and spec["now"] == NOW
    assert spec["timezone"] == "Asia/Shanghai"
    assert spec["headers"] == {"Content-Type": "text/html; charset=utf-8"}
    assert spec["next_pages"] == [hux.url("/page3")]
    case = load_case(folder)
    assert next_pages(case) == case.next_pages
    saved = json.loads((folder / "output.json").read_text(encoding="utf-8"))
    assert saved == replayed(folder)
    # Same items as the curated case of that page (written by hand), URLs aside.
    curated = CURATED["hux/index-page-2"].expected()
    assert [hux.local(item["url"]) for item in curated] == [item["url"] for item in saved]
    for mine, theirs in zip(saved, curated, strict=True):
        for field in ("title", "summary", "author", "published_at", "date_precision", "site"):
            assert mine[field] == theirs[field], field


def test_savecase_never_overwrites_a_case(hux: SiteServer, tmp_path: Path) -> None:
    first = savecase("hux", hux.url(), "--name", "home", "--now", NOW, cases=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    page = tmp_path / "hux" / "home" / "page.html"
    page.write_text("edited by hand", encoding="utf-8")
    again = savecase("hux", hux.url(), "--name", "home", "--now", NOW, cases=tmp_path)
    assert again.returncode == 2 and "not overwriting" in again.stderr
    assert page.read_text(encoding="utf-8") == "edited by hand"
    assert sorted(p.name for p in (tmp_path / "hux").iterdir()) == ["home"]  # no draft left


def test_savecase_of_a_feed_keeps_xml_and_its_content_type(tmp_path: Path) -> None:
    server = SiteServer(sample_site("feed")).start()
    try:
        result = savecase("feed", server.url(), "--now", NOW, cases=tmp_path)
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr[-3000:]
    folder = tmp_path / "feed" / "index-xml"
    case = load_case(folder)
    assert case.page == "page.xml" and case.headers["Content-Type"].startswith("application/")
    assert len(case.expected()) == len(CURATED["feed/hugo-rss"].expected()) == 16
    assert case.expected() == replayed(folder)


def test_an_undeclared_gbk_page_replays_as_the_crawl_decoded_it(tmp_path: Path) -> None:
    # The Hux sample page without its <meta charset>, in GBK, served as plain "text/html":
    # the crawl decodes it as GB18030 (ChineseEncodingMiddleware); so must the case.
    page = sample_site("hux").routes["/"].body.decode("utf-8")
    page = page.replace('<meta charset="utf-8">', "").encode("gb18030")
    site = Site(start="/", routes={"/": Route(body=page, content_type="text/html")})
    server = SiteServer(site).start()
    try:
        result = savecase("hux", server.url(), "--now", NOW, cases=tmp_path)
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr[-3000:]
    case = load_case(tmp_path / "hux" / "index")
    assert case.headers == {"Content-Type": "text/html; charset=gb18030"}
    assert case.body() == page
    titles = [item["title"] for item in case.expected()]
    assert titles == [item["title"] for item in CURATED["hux/index-page-1"].expected()]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--name", "../escape"), "not a path"),
        (("--name", "a/b"), "not a path"),
        (("--name", "..."), "not a path"),
        (("--site", "Bad Name!"), "bad site name"),
        (("--now", "2026-11-30 10:00"), "UTC offset"),
        (("--timezone", "Mars/Base"), "unknown timezone"),
    ],
)
def test_bad_arguments_are_refused_before_fetching(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    # The URL is never fetched (nothing listens there): arguments are checked first.
    result = savecase("hux", "http://127.0.0.1:9/", *args, cases=tmp_path)
    assert result.returncode == 2 and message in result.stderr
    assert not any(tmp_path.iterdir())


def test_unknown_layout_and_unfetchable_page(hux: SiteServer, tmp_path: Path) -> None:
    unknown = savecase("nosuch", hux.url(), cases=tmp_path)
    assert unknown.returncode == 2 and "unknown layout" in unknown.stderr
    missing = savecase("hux", hux.url("/missing/"), cases=tmp_path)
    assert missing.returncode == 1 and "HTTP 404" in missing.stderr
    assert not (tmp_path / "hux" / "missing").exists()


def test_case_names_are_sanitised() -> None:
    assert case_name("My Case: page 2!") == "my-case-page-2"
    assert case_name("首页") == ""
    assert default_case_name("https://blog.example.cn/") == "index"
    assert default_case_name("https://blog.example.cn/page/2/") == "page-2"
    cnblogs = "https://www.cnblogs.com/X/default.html?page=3"
    assert default_case_name(cnblogs) == "x-default-html-page-3"
    assert ".." not in default_case_name("https://example.cn/../../etc/passwd")
