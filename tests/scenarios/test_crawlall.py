"""``scrapy crawlall --sample``: the offline demo, end to end, run twice; then one site more."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.project import CASES, free_port_base, read_jsonl, run_scrapy

from crawler.devtools.cases import find_cases
from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.items import POST_FIELDS
from crawler.schema import validate_post


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two ``crawlall --sample`` runs with one output folder; the demo writes in its own."""
    given = tmp_path_factory.mktemp("demo") / "output"
    out = given / "sample"
    port = str(free_port_base(len(LAYOUTS)))
    runs = []
    for _ in range(2):
        result = run_scrapy("crawlall", "--sample", "-s", f"SAMPLE_PORT_BASE={port}", output=given)
        assert result.returncode == 0, result.stderr[-3000:]
        runs.append(result)
        runs.append(read_jsonl(out / "posts.jsonl"))
    return {
        "out": out,
        "given": given,
        "first": runs[0],
        "after_first": runs[1],
        "second": runs[2],
        "after_second": runs[3],
    }


def test_demo_keeps_out_of_the_real_dataset(demo: dict) -> None:
    """The demo's posts (127.0.0.1 URLs) never reach the real dataset: output/sample/."""
    assert sorted(p.name for p in demo["given"].iterdir()) == ["sample"]
    assert str(demo["out"] / "posts.jsonl") in demo["first"].stdout


def sample_titles(layout: str) -> set[str]:
    """Titles of the posts on a layout's sample pages, as their saved cases expect them."""
    return {
        item["title"]
        for case in find_cases(CASES)
        if case.page.startswith(f"sample:{layout}/")
        for item in case.expected()
    }


def test_demo_writes_every_sample_post_once(demo: dict) -> None:
    posts = demo["after_first"]
    assert len({post["id"] for post in posts}) == len(posts)
    for layout in LAYOUTS:
        titles = [post["title"] for post in posts if post["layout"] == layout]
        assert sorted(titles) == sorted(sample_titles(layout)), layout
    assert "posts.jsonl" in demo["first"].stdout
    for post in posts:
        validate_post(post)


def test_second_run_doubles_nothing_and_exports_no_new_posts(demo: dict) -> None:
    assert demo["after_second"] == [
        {**post, "crawled_at": again["crawled_at"]}
        for post, again in zip(demo["after_first"], demo["after_second"], strict=True)
    ]
    runs = sorted((demo["out"] / "runs").iterdir())
    assert len(runs) == 2
    assert len(read_jsonl(runs[0] / "changes.jsonl")) == len(demo["after_first"])
    assert read_jsonl(runs[1] / "changes.jsonl") == []


def test_csv_has_the_same_rows_as_json_lines(demo: dict) -> None:
    with (demo["out"] / "posts.csv").open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    posts = demo["after_second"]
    assert len(rows) == len(posts)
    for row, post in zip(rows, posts, strict=True):
        assert list(row) == list(POST_FIELDS)
        assert row["id"] == post["id"] and row["title"] == post["title"]
        assert row["views"] == ("" if post["views"] is None else str(post["views"]))


def test_single_site_crawl_adds_to_the_same_files(demo: dict, tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    for name in ("posts.sqlite",):
        (out / name).write_bytes((demo["out"] / name).read_bytes())
    before = read_jsonl(demo["out"] / "posts.jsonl")
    server = SiteServer(sample_site("cards")).start()  # another port: other URLs, new posts
    try:
        result = run_scrapy("crawl", "cards", "-a", f"url={server.url()}", output=out)
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr[-3000:]
    after = read_jsonl(out / "posts.jsonl")
    added = [post for post in after if post["id"] not in {p["id"] for p in before}]
    assert len(after) == len(before) + len(added) and len(added) == 10
    port = server.base_url.rsplit(":", 1)[1]
    assert {post["site"] for post in added} == {f"127.0.0.1-{port}-hot"}


def test_each_sites_summary_counts_every_post_of_that_site(demo: dict) -> None:
    """A site's line is written when its last page and its last post are done: the pipelines'
    counts (new, dates, dropped) of its last page are in it."""
    [first, second] = sorted((demo["out"] / "runs").iterdir())
    sites = {s["site"]: s for s in json.loads((first / "summary.json").read_text("utf-8"))["sites"]}
    per_site: dict[str, int] = {}
    for post in demo["after_first"]:
        per_site[post["site"]] = per_site.get(post["site"], 0) + 1
    assert {name: site["new"] for name, site in sites.items()} == per_site
    again = json.loads((second / "summary.json").read_text("utf-8"))["sites"]
    assert [site["new"] + site["changed"] for site in again] == [0] * len(LAYOUTS)


def test_each_site_reads_times_in_its_own_timezone(tmp_path: Path) -> None:
    """The cards sample served twice, one registered in New York: the same printed dates are
    midnight in each site's zone."""
    servers = [SiteServer(sample_site("cards")).start() for _ in range(2)]
    try:
        registry = tmp_path / "sites.toml"
        registry.write_text(
            f'[sites.shanghai]\nlayout = "cards"\nurl = "{servers[0].url()}"\n'
            f'[sites.newyork]\nlayout = "cards"\nurl = "{servers[1].url()}"\n'
            'timezone = "America/New_York"\n',
            encoding="utf-8",
        )
        result = run_scrapy(
            "crawlall", "--no-content", "-s", f"SITE_REGISTRY={registry}", output=tmp_path / "out"
        )
    finally:
        for server in servers:
            server.stop()
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    posts = read_jsonl(tmp_path / "out" / "posts.jsonl")
    offsets = {(post["site"], post["published_at"][-6:]) for post in posts}
    assert offsets == {("shanghai", "+08:00"), ("newyork", "-04:00")}
    assert {post["date_precision"] for post in posts} == {"day"}
