"""RunSummaryExtension: a site's summary when it closes, in the store and the run summary;"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.project import make_post, project_crawler

from crawler.extensions.summary import RunSummaryExtension, summaries_ready
from crawler.layouts import get_layout
from crawler.runs.summary import SiteSummary
from crawler.sites import SiteConfig
from crawler.state.site_crawls import SiteCrawl, SiteCrawls
from crawler.store import crawler_store


def crawl_of(tmp_path: Path, **settings: Any) -> tuple[RunSummaryExtension, SiteCrawls]:
    crawler = project_crawler(OUTPUT_DIR=str(tmp_path), RUN_ID="run-1", **settings)
    extension = RunSummaryExtension.from_crawler(crawler)
    sites = SiteCrawls.of(crawler)
    config = SiteConfig(name="example", layout="cards", url="https://x.cn/hot")
    sites.add(SiteCrawl(config=config, layout=get_layout("cards"), root="https://x.cn/"))
    return extension, sites


def test_a_closed_site_is_summarised_recorded_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    extension, sites = crawl_of(tmp_path)
    store = crawler_store(sites.crawler)
    for n in range(5):  # two posts from earlier runs, three new in this one
        store.record(make_post(n, site="example"), "run-0" if n < 2 else "run-1")
    for key, value in {
        "layout/list_pages": 2,
        "layout/posts_extracted": 20,
        "store/new": 3,
        "validate/passed": 20,
        "dates/parsed": 20,
    }.items():
        sites.count("example", key, value)
    caplog.set_level("INFO")
    sites.close_all("finished")
    recorded = dict(store.site_runs("run-1"))["example"]
    assert (recorded["pages_fetched"], recorded["posts_seen"], recorded["new"]) == (2, 20, 3)
    assert recorded["stored_before"] == 2 and recorded["problems"] == []
    assert "site example done (ok): 2 pages, 0 unchanged, 20 posts, 3 new" in caplog.text

    heard: list[list[SiteSummary]] = []
    sites.crawler.signals.connect(
        lambda summaries: heard.append(summaries), signal=summaries_ready, weak=False
    )
    extension.spider_closed(None, "finished")
    assert [summary.site for summary in heard[0]] == ["example"]
    document = json.loads((tmp_path / "runs" / "run-1" / "summary.json").read_text())
    assert document["exit_status"] == 0 and document["sites"][0]["site"] == "example"


def test_a_site_that_read_nothing_is_failed_and_deferred_summaries_write_no_file(
    tmp_path: Path,
) -> None:
    extension, sites = crawl_of(tmp_path, SUMMARY_DEFERRED=True)
    sites.close_all("finished")
    (summary,) = extension.ordered()
    assert summary.failed and summary.problems == ["no list page was read"]
    extension.spider_closed(None, "finished")
    assert not (tmp_path / "runs").exists()  # the command writes one for all its sites
