"""The history of the posts' counts: ``metrics.csv``/``metrics.jsonl`` grow a row exactly when a
post's views, comments or likes changed between crawls."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pandas as pd
from support.project import read_jsonl, run_scrapy

from crawler.devtools.samples.server import SiteServer, sample_site
from crawler.store.records import METRIC_FIELDS


def metrics_rows(output: Path) -> list[dict[str, str]]:
    with (output / "metrics.csv").open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def test_a_row_exactly_when_a_count_changed(tmp_path: Path) -> None:
    server = SiteServer(sample_site("cards")).start()
    try:
        url = f"url={server.url()}"
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        first = metrics_rows(tmp_path)
        posts = read_jsonl(tmp_path / "posts.jsonl")
        # Every post with counts has its first row, with the counts the list page shows.
        assert len(first) == sum(1 for p in posts if p["views"] is not None) > 0
        assert list(first[0]) == list(METRIC_FIELDS)
        by_id = {p["id"]: p for p in posts}
        assert all(int(row["views"]) == by_id[row["id"]]["views"] for row in first)

        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        assert metrics_rows(tmp_path) == first  # nothing changed: no row

        route = server.site.routes["/hot?page=3"]
        server.site.routes["/hot?page=3"] = replace(
            route, body=route.body.replace("93 浏览".encode(), "940 浏览".encode())
        )
        assert run_scrapy("crawl", "cards", "-a", url, output=tmp_path).returncode == 0
        rows = metrics_rows(tmp_path)
        assert len(rows) == len(first) + 1
        (new,) = [row for row in rows if row not in first]
        assert new["views"] == "940" and new["url"] == by_id[new["id"]]["url"]
        assert [r["views"] for r in rows if r["id"] == new["id"]] == ["93", "940"]
    finally:
        server.stop()
    # As the README loads it: one row a post and time, counts as nullable integers.
    history = pd.read_csv(
        tmp_path / "metrics.csv",
        dtype={
            "id": "string",
            "url": "string",
            "site": "string",
            "views": "Int64",
            "comments": "Int64",
            "likes": "Int64",
        },
    )
    history["seen_at"] = pd.to_datetime(history["seen_at"], utc=True, format="ISO8601")
    assert len(history) == len(rows) and history["views"].max() == 940
    assert len(read_jsonl(tmp_path / "metrics.jsonl")) == len(rows)
