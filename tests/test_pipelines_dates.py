"""DatesPipeline: a post's times in its own site's timezone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from support.project import project_crawler

from crawler.items import PostItem
from crawler.pipelines.dates import DatesPipeline


@pytest.fixture
def dates() -> DatesPipeline:
    return DatesPipeline.from_crawler(project_crawler())


def post(**fields: object) -> PostItem:
    return PostItem(site="example", url="https://x.cn/p/1", title="t", **fields)


@pytest.mark.parametrize(
    ("timezone", "published"),
    [
        ("Asia/Shanghai", "2026-10-04T08:00:00+08:00"),
        ("America/New_York", "2026-10-04T08:00:00-04:00"),  # summer time there
        ("Europe/Berlin", "2026-10-04T08:00:00+02:00"),
        ("UTC", "2026-10-04T08:00:00+00:00"),
    ],
)
def test_a_time_without_offset_is_read_in_the_site_timezone(
    dates: DatesPipeline, timezone: str, published: str
) -> None:
    item = dates.process_item(post(published_raw="2026-10-04 08:00", timezone=timezone))
    assert item["published_at"] == published and item["date_precision"] == "minute"


def test_a_date_is_midnight_in_the_site_timezone_and_an_offset_is_kept(
    dates: DatesPipeline,
) -> None:
    day = dates.process_item(post(published_raw="July 5, 2026", timezone="America/New_York"))
    assert (day["published_at"], day["date_precision"]) == ("2026-07-05T00:00:00-04:00", "day")
    given = post(published_raw="Mon, 07 Sep 2026 04:00:00 GMT", timezone="Asia/Shanghai")
    assert dates.process_item(given)["published_at"] == "2026-09-07T04:00:00+00:00"


def test_without_a_timezone_the_default_applies(dates: DatesPipeline) -> None:
    item = dates.process_item(post(published_raw="2026-10-04 08:00"))
    assert item["published_at"] == "2026-10-04T08:00:00+08:00"


def test_the_update_time_comes_only_from_a_page_of_this_run(dates: DatesPipeline) -> None:
    read = dates.process_item(
        post(published_raw="2026-10-04", updated_raw="2026-11-02 10:30", timezone="UTC")
    )
    assert read["updated_at"] == "2026-11-02T10:30:00+00:00"
    kept = dates.process_item(post(published_raw="2026-10-04", updated_at="2026-11-01T00:00:00Z"))
    assert kept["updated_at"] == "2026-11-01T00:00:00Z"  # the store's, the page not read


def test_crawl_time_and_counts(dates: DatesPipeline) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    item = dates.process_item(post(published_raw="很久很久以前", timezone="UTC"))
    assert item["published_at"] is None and item["published_raw"] == "很久很久以前"
    assert datetime.fromisoformat(item["crawled_at"]) >= before
    assert item["crawled_at"].endswith("+00:00")
    dates.process_item(post(timezone="UTC"))  # no date at all
    stats = dates.sites.crawler.stats
    assert stats.get_value("dates/unparsed") == 1 and stats.get_value("dates/missing") == 1


def test_a_replayed_post_keeps_its_times(dates: DatesPipeline) -> None:
    stored = post(published_at="2026-01-01T00:00:00+08:00", crawled_at="x", replayed=True)
    assert dict(dates.process_item(stored)) == dict(stored)
