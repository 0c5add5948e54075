"""The README's load snippets, run exactly as written on the exports of real crawls.

The snippets are read from README.md (the fenced block after each ``<!-- analyst-snippet:
NAME -->`` marker), so the README and this test cannot drift apart. Two crawls: one whose
posts carry mixed UTC offsets (+08:00 and +00:00) and no tags at all, one with tags.
"""

from __future__ import annotations

import re
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.project import ROOT, read_jsonl, run_scrapy

from crawler.devtools.samples.server import Route, Site, SiteServer, sample_site
from crawler.items import POST_FIELDS

pd = pytest.importorskip("pandas")
duckdb = pytest.importorskip("duckdb")

WORDPRESS_FEED = ROOT / "tests" / "cases" / "feed" / "wordpress-feed" / "page.xml"


def snippet(name: str) -> str:
    """The code block after ``<!-- analyst-snippet: NAME -->`` in README.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- analyst-snippet: {name} -->\n```\w+\n(.*?)\n```", readme, flags=re.DOTALL
    )
    assert found, f"README.md has no snippet {name!r}"
    return found.group(1)


def tagged_feed() -> Site:
    """A WordPress feed (saved from a real blog) with +00:00 times, its posts' categories in
    RSS ``<category>`` and the whole posts in ``content:encoded``."""
    body = WORDPRESS_FEED.read_bytes()
    route = Route(body=body, content_type="application/rss+xml")
    return Site(start="/feed/", routes={"/feed/": route})


def crawl(folder: Path, sites: list[tuple[str, Site]], *args: str) -> list[dict[str, Any]]:
    """``scrapy crawl`` each site into ``folder/output``; the posts of ``posts.jsonl``."""
    for layout, site in sites:
        server = SiteServer(site).start()
        try:
            result = run_scrapy(
                "crawl", layout, "-a", f"url={server.url()}", *args, output=folder / "output"
            )
        finally:
            server.stop()
        assert result.returncode == 0, result.stderr[-3000:]
    return read_jsonl(folder / "output" / "posts.jsonl")


@pytest.fixture(scope="module", params=["no-tags", "tags"])
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A folder holding ``output/`` from real crawls, and the posts it holds."""
    folder = tmp_path_factory.mktemp(request.param)
    # Without post pages neither site shows tags; with them, cnblogs' endpoint gives some.
    list_only = ("-a", "content=0") if request.param == "no-tags" else ()
    sites = [("cnblogs", sample_site("cnblogs")), ("feed", tagged_feed())]
    posts = crawl(folder, sites, *list_only)
    offsets = {post["published_at"][-6:] for post in posts if post["published_at"]}
    assert {"+08:00", "+00:00"} <= offsets  # what makes pandas refuse without utc=True
    assert any(post["tags"] for post in posts) == (request.param == "tags")
    assert any(post["views"] is None for post in posts)  # counts with nulls
    return {"folder": folder, "posts": posts}


def utc(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text).astimezone(UTC)


def test_without_utc_pandas_refuses_the_mixed_offsets(exported: dict) -> None:
    """Why the README says utc=True (if pandas ever accepts this, the note can go)."""
    with pytest.raises(ValueError, match="utc=True"):
        pd.to_datetime(pd.Series([p["published_at"] for p in exported["posts"]]))


def test_pandas_snippet(exported: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(exported["folder"])
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecated call in the README fails here first
        exec(snippet("pandas"), namespace)
    posts, expected = namespace["posts"], exported["posts"]
    for frame in (posts, namespace["posts_csv"]):
        assert list(frame.columns) == list(POST_FIELDS)
        assert len(frame) == len(expected)
        for column in ("published_at", "crawled_at"):
            assert isinstance(frame[column].dtype, pd.DatetimeTZDtype), column
            assert str(frame[column].dtype.tz) == "UTC"
            got = [None if pd.isna(t) else t.to_pydatetime() for t in frame[column]]
            assert got == [utc(p[column]) for p in expected], column
        for column in ("views", "comments", "likes"):
            assert frame[column].dtype == pd.Int64Dtype(), column
            got = [None if pd.isna(v) else int(v) for v in frame[column]]
            assert got == [p[column] for p in expected], column
        for column in ("id", "url", "summary", "author", "category", "site"):
            assert pd.api.types.is_string_dtype(frame[column].dtype), column
    assert posts["tags"].dtype == object
    assert posts["tags"].tolist() == [p["tags"] for p in expected]
    csv_tags = namespace["posts_csv"]["tags"]
    assert pd.api.types.is_string_dtype(csv_tags.dtype)
    split = [[] if pd.isna(t) else t.split(" | ") for t in csv_tags]
    assert split == [p["tags"] for p in expected]


def test_duckdb_snippet(exported: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(exported["folder"])
    con = duckdb.connect()
    con.sql(snippet("duckdb"))
    expected = exported["posts"]
    for view in ("posts", "posts_csv"):
        types = dict(con.sql(f"SELECT column_name, column_type FROM (DESCRIBE {view})").fetchall())
        assert list(types) == list(POST_FIELDS)
        assert types["published_at"] == types["crawled_at"] == "TIMESTAMP WITH TIME ZONE"
        assert types["tags"] == "VARCHAR[]"
        assert types["views"] == types["comments"] == types["likes"] == "BIGINT"
        rows = con.sql(
            f"SELECT epoch(published_at), tags, views, likes FROM {view}"
        ).fetchall()  # in file order
        assert len(rows) == len(expected)
        for (epoch, tags, views, likes), post in zip(rows, expected, strict=True):
            published = utc(post["published_at"])
            assert epoch == (None if published is None else published.timestamp())
            assert (tags, views, likes) == (post["tags"], post["views"], post["likes"])
