"""A crawl cut short by ``max_pages`` is not complete: the next run reads what it skipped."""

from __future__ import annotations

from pathlib import Path

from support.faultserver import latest_summary
from support.project import read_jsonl, run_scrapy

from crawler.devtools.samples.server import SiteServer, sample_site


def test_pages_skipped_by_the_page_bound_are_read_by_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "output"
    server = SiteServer(sample_site("cnblogs")).start()
    try:
        url = f"url={server.url()}"
        bounded = run_scrapy(
            "crawl",
            "cnblogs",
            "-a",
            url,
            "-a",
            "max_pages=1",
            "-O",
            str(tmp_path / "a.jsonl"),
            output=out,
        )
        assert bounded.returncode == 0, bounded.stderr[-3000:]
        assert "page limit 1 reached" in bounded.stderr
        second = run_scrapy(
            "crawl", "cnblogs", "-a", url, "-O", str(tmp_path / "b.jsonl"), output=out
        )
        assert second.returncode == 0, second.stderr[-3000:]
        # Complete now: a third run is incremental again and still exports the whole site.
        third = run_scrapy(
            "crawl", "cnblogs", "-a", url, "-O", str(tmp_path / "c.jsonl"), output=out
        )
        assert third.returncode == 0, third.stderr[-3000:]
    finally:
        server.stop()
    first_page = read_jsonl(tmp_path / "a.jsonl")
    every_post = read_jsonl(tmp_path / "b.jsonl")
    # The sample blog: 6 posts on its home page, 13 over its three list pages.
    assert len(first_page) == 6
    assert len(every_post) == 13
    assert {p["id"] for p in read_jsonl(out / "posts.jsonl")} == {p["id"] for p in every_post}
    assert latest_summary(out)["sites"][0]["counts"]["layout/pages_unchanged"] >= 1
    assert {p["id"] for p in read_jsonl(tmp_path / "c.jsonl")} == {p["id"] for p in every_post}
