"""Table-driven tests for :mod:`crawler.parsing.dates`.

Every expected value below was worked out by hand from the text and ``NOW`` (2026-11-30
10:00 in Asia/Shanghai, UTC+08:00 all year), not copied from the function's output.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from support.project import ROOT

from crawler.parsing.dates import ParsedDate, in_local_offset, normalise_date, parse_date

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SHANGHAI)
NEW_YEAR = datetime(2026, 1, 1, 8, 0, tzinfo=SHANGHAI)

DAY, MINUTE, SECOND = "day", "minute", "second"

CASES: list[tuple[str | None, datetime, str | None, str | None]] = [
    # --- absolute ---
    ("2026年10月04日", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("2026年10月4日 下午3:05", NOW, "2026-10-04T15:05:00+08:00", MINUTE),
    ("2026-09-29 20:12", NOW, "2026-09-29T20:12:00+08:00", MINUTE),
    ("2026/10/04 10:00", NOW, "2026-10-04T10:00:00+08:00", MINUTE),
    ("2026.10.04", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("July 5, 2026", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("Jul 5, 2026", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("5 July 2026", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("July 5, 2026 at 3:05 pm", NOW, "2026-07-05T15:05:00+08:00", MINUTE),
    ("Mon, 07 Sep 2026 04:00:00 GMT", NOW, "2026-09-07T04:00:00+00:00", SECOND),
    ("Fri, 02 Oct 2026 21:30:00 +0800", NOW, "2026-10-02T21:30:00+08:00", SECOND),
    ("Fri, 02 Oct 2026 21:30:00 -0500", NOW, "2026-10-02T21:30:00-05:00", SECOND),
    ("2026-07-05T21:10:00+08:00", NOW, "2026-07-05T21:10:00+08:00", SECOND),
    ("2026-07-05T13:10:00Z", NOW, "2026-07-05T13:10:00+00:00", SECOND),
    (" 2026-07-05 21:10:00 +0800", NOW, "2026-07-05T21:10:00+08:00", SECOND),
    ("2026-07-05T21:10:00.5+05:30", NOW, "2026-07-05T21:10:00.500000+05:30", SECOND),
    ("2026-07-05", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("２０２６年１０月４日", NOW, "2026-10-04T00:00:00+08:00", DAY),  # full-width digits
    ("2026年10月4日 星期日 15:05", NOW, "2026-10-04T15:05:00+08:00", MINUTE),
    ("2026年10月4日 晚上8点20分", NOW, "2026-10-04T20:20:00+08:00", MINUTE),
    # --- relative to now ---
    ("刚刚", NOW, "2026-11-30T10:00:00+08:00", SECOND),
    ("30秒前", NOW, "2026-11-30T09:59:30+08:00", SECOND),
    ("10分钟前", NOW, "2026-11-30T09:50:00+08:00", MINUTE),
    ("半小时前", NOW, "2026-11-30T09:30:00+08:00", MINUTE),
    ("2小时前", NOW, "2026-11-30T08:00:00+08:00", MINUTE),
    ("1小时10分钟前", NOW, "2026-11-30T08:50:00+08:00", MINUTE),
    ("1个半小时前", NOW, "2026-11-30T08:30:00+08:00", MINUTE),
    ("3天前", NOW, "2026-11-27T00:00:00+08:00", DAY),
    ("1周前", NOW, "2026-11-23T00:00:00+08:00", DAY),
    ("两天前", NOW, "2026-11-28T00:00:00+08:00", DAY),
    ("3个月前", NOW, "2026-08-30T00:00:00+08:00", DAY),
    ("今天 09:15", NOW, "2026-11-30T09:15:00+08:00", MINUTE),
    ("昨天 12:30", NOW, "2026-11-29T12:30:00+08:00", MINUTE),
    ("前天 08:05", NOW, "2026-11-28T08:05:00+08:00", MINUTE),
    ("昨天", NOW, "2026-11-29T00:00:00+08:00", DAY),
    ("大前天", NOW, "2026-11-27T00:00:00+08:00", DAY),
    ("10 minutes ago", NOW, "2026-11-30T09:50:00+08:00", MINUTE),
    ("an hour ago", NOW, "2026-11-30T09:00:00+08:00", MINUTE),
    ("3 days ago", NOW, "2026-11-27T00:00:00+08:00", DAY),
    ("yesterday at 5pm", NOW, "2026-11-29T17:00:00+08:00", MINUTE),
    ("3天前", NEW_YEAR, "2025-12-29T00:00:00+08:00", DAY),  # across a year boundary
    # a bare time is today's unless still to come, then yesterday's
    ("09:30", NOW, "2026-11-30T09:30:00+08:00", MINUTE),
    ("12:30", NOW, "2026-11-29T12:30:00+08:00", MINUTE),
    # --- no year: the most recent such date not after now ---
    ("10月4日", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("10-04", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("12月31日 23:59", NOW, "2025-12-31T23:59:00+08:00", MINUTE),
    ("12-25", NOW, "2025-12-25T00:00:00+08:00", DAY),
    ("11月30日", NOW, "2026-11-30T00:00:00+08:00", DAY),  # today counts
    ("11月30日 10:01", NOW, "2025-11-30T10:01:00+08:00", MINUTE),  # a minute ahead
    ("2月29日", NOW, "2024-02-29T00:00:00+08:00", DAY),  # last leap year
    ("1月2日", NEW_YEAR, "2025-01-02T00:00:00+08:00", DAY),
    ("Jul 5", NOW, "2026-07-05T00:00:00+08:00", DAY),  # via dateparser
    # --- noise around the date ---
    (
        "posted @ 2026-09-29 20:12 RobinDevNotes 阅读(8) 评论(0) 推荐(0) 编辑",
        NOW,
        "2026-09-29T20:12:00+08:00",
        MINUTE,
    ),
    ("发布于 2026-10-04", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("Posted by X on July 5, 2026", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("Posted by 无限可能的想象力 on July 5, 2026", NOW, "2026-07-05T00:00:00+08:00", DAY),
    ("2026年9月29日", NOW, "2026-09-29T00:00:00+08:00", DAY),
    ("更新于：2026-10-04 08:00:00", NOW, "2026-10-04T08:00:00+08:00", SECOND),
    ("v2026-13-45 then 2026-10-04", NOW, "2026-10-04T00:00:00+08:00", DAY),
    # --- Chinese numerals ---
    ("二〇二六年十月四日", NOW, "2026-10-04T00:00:00+08:00", DAY),
    ("二零二六年十二月三十一日", NOW, "2026-12-31T00:00:00+08:00", DAY),
    ("十月四日", NOW, "2026-10-04T00:00:00+08:00", DAY),
    # --- a Unix time (Pagefind's date metadata: JavaScript milliseconds): in the site's zone ---
    ("1780016400000", NOW, "2026-05-29T09:00:00+08:00", SECOND),
    ("1772113572", NOW, "2026-02-26T21:46:12+08:00", SECOND),
    # --- not a date ---
    ("0000000001", NOW, None, None),  # ten digits, but before 2000: a count, an id
    ("9999999999999", NOW, None, None),
    ("阅读(8)", NOW, None, None),
    ("130 浏览", NOW, None, None),
    ("0 点赞", NOW, None, None),
    ("N/A", NOW, None, None),
    ("2026-13-45", NOW, None, None),
    ("2026-02-30", NOW, None, None),
    ("2026年2月30日", NOW, None, None),
    ("", NOW, None, None),
    ("   ", NOW, None, None),
    (None, NOW, None, None),
    ("abc", NOW, None, None),
    ("1.2k", NOW, None, None),
    ("2026", NOW, None, None),
    ("2026年10月", NOW, None, None),  # a month, not a day
    ("第3天", NOW, None, None),
    ("3.5", NOW, None, None),
    ("12", NOW, None, None),
    ("明天", NOW, None, None),  # the future is no publication date
    ("\x00\x1f\x7f", NOW, None, None),
]


@pytest.mark.parametrize(("text", "now", "expected", "precision"), CASES)
def test_parse_date_table(
    text: str | None, now: datetime, expected: str | None, precision: str | None
) -> None:
    parsed = parse_date(text, "Asia/Shanghai", now)
    if expected is None:
        assert parsed is None
        assert normalise_date(text, "Asia/Shanghai", now) is None
        return
    assert parsed is not None
    assert parsed.value.isoformat() == expected
    assert parsed.precision == precision
    assert normalise_date(text, "Asia/Shanghai", now) == parsed.value


def test_naive_now_is_wall_time_in_timezone() -> None:
    naive = datetime(2026, 11, 30, 10, 0)
    assert parse_date("10分钟前", now=naive) == ParsedDate(
        datetime(2026, 11, 30, 9, 50, tzinfo=SHANGHAI), MINUTE
    )
    utc = parse_date("10分钟前", "UTC", naive)
    assert utc is not None
    assert utc.value.isoformat() == "2026-11-30T09:50:00+00:00"


def test_aware_now_in_another_zone_is_converted() -> None:
    # 2026-11-29 17:30 UTC is already 2026-11-30 01:30 in Shanghai, so 昨天 is the 29th.
    now = datetime(2026, 11, 29, 17, 30, tzinfo=UTC)
    parsed = parse_date("昨天", "Asia/Shanghai", now)
    assert parsed is not None
    assert parsed.value.isoformat() == "2026-11-29T00:00:00+08:00"


@pytest.mark.parametrize(
    ("text", "timezone", "expected"),
    [
        ("2026-07-05", "America/New_York", "2026-07-05T00:00:00-04:00"),  # EDT
        ("2026-12-05", "America/New_York", "2026-12-05T00:00:00-05:00"),  # EST
        ("July 5, 2026", "UTC", "2026-07-05T00:00:00+00:00"),
        ("2026-07-05 21:10", "UTC", "2026-07-05T21:10:00+00:00"),
        # an explicit offset wins over the site's timezone
        ("2026-07-05T21:10:00+08:00", "America/New_York", "2026-07-05T21:10:00+08:00"),
        ("Mon, 07 Sep 2026 04:00:00 GMT", "Asia/Shanghai", "2026-09-07T04:00:00+00:00"),
    ],
)
def test_timezone_argument(text: str, timezone: str, expected: str) -> None:
    value = normalise_date(text, timezone, NOW)
    assert value is not None
    assert value.isoformat() == expected


def test_relative_hours_count_real_time_across_dst() -> None:
    # US clocks jump from 02:00 EST to 03:00 EDT on 2026-03-08: 03:30 EDT is 07:30 UTC,
    # two real hours earlier is 05:30 UTC, which is 00:30 EST.
    now = datetime(2026, 3, 8, 3, 30, tzinfo=ZoneInfo("America/New_York"))
    value = normalise_date("2小时前", "America/New_York", now)
    assert value is not None
    assert value.isoformat() == "2026-03-08T00:30:00-05:00"


def test_default_now_is_current_time() -> None:
    before = datetime.now(UTC)
    parsed = parse_date("刚刚")
    after = datetime.now(UTC)
    assert parsed is not None
    assert before <= parsed.value <= after
    assert parsed.value.utcoffset() == timedelta(hours=8)


@pytest.mark.parametrize("bad", [123, b"2026-10-04", ["2026-10-04"], object()])
def test_non_string_input_is_none(bad: object) -> None:
    assert parse_date(bad) is None  # type: ignore[arg-type]


def test_unknown_timezone_is_none_not_an_error() -> None:
    assert parse_date("2026-10-04", "Not/A_Zone", NOW) is None


def test_very_long_text_is_none_or_aware() -> None:
    assert parse_date("阅读" * 100_000, now=NOW) is None
    parsed = parse_date("x" * 3000 + " 2026-10-04", now=NOW)
    assert parsed is not None
    assert parsed.value.isoformat() == "2026-10-04T00:00:00+08:00"


def test_parsed_date_is_frozen() -> None:
    parsed = parse_date("2026-10-04", now=NOW)
    assert parsed is not None
    with pytest.raises(AttributeError):
        parsed.precision = "minute"  # type: ignore[misc]


def test_dateparser_is_imported_lazily() -> None:
    code = (
        "import sys, crawler.parsing.dates as d\n"
        "assert 'dateparser' not in sys.modules, 'imported at module import'\n"
        "d.parse_date('2026-09-29 20:12')\n"
        "assert 'dateparser' not in sys.modules, 'imported by a fast path'\n"
        "d.parse_date('Jul 5')\n"
        "assert 'dateparser' in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("utc", "local", "expected"),
    [
        # Butterfly: UTC in datetime, the builder's clock in title (24-hour, then 12-hour).
        ("2025-05-12T13:56:43.000Z", "Created 2025-05-12 21:56:43", "2025-05-12T21:56:43+08:00"),
        ("2022-07-06T05:13:12.000Z", "2022/7/6 下午1:13:12", "2022-07-06T13:13:12+08:00"),
        ("2022-07-06T04:13:12.250Z", "2022/7/6 下午12:13:12", "2022-07-06T12:13:12.250+08:00"),
        ("2023-02-15T08:00:00Z", "Feb 15, 2023 12:00:00 AM", "2023-02-15T00:00:00-08:00"),
        # The local day is the next one; half- and quarter-hour offsets.
        ("2023-01-01T20:30:00Z", "2023-01-02 04:30:00", "2023-01-02T04:30:00+08:00"),
        ("2023-01-01T00:00:00+00:00", "1/1/2023, 5:30:00", "2023-01-01T05:30:00+05:30"),
        ("2023-01-01T00:00:00+00:00", "05:45:00", "2023-01-01T05:45:00+05:45"),
    ],
)
def test_a_utc_time_is_told_in_the_offset_its_local_rendering_shows(
    utc: str, local: str, expected: str
) -> None:
    told = in_local_offset(utc, local)
    assert told == expected
    assert datetime.fromisoformat(told) == datetime.fromisoformat(utc.replace("Z", "+00:00"))


@pytest.mark.parametrize(
    "local",
    ["2025-05-12", "Created 2025-05-12 21:56:40", "2025-05-12 21:49:43", ""],
    ids=["no clock", "other seconds", "not a quarter-hour offset", "empty"],
)
def test_a_local_text_that_says_nothing_of_the_offset_leaves_the_utc_time(local: str) -> None:
    assert in_local_offset(" 2025-05-12T13:56:43.000Z ", local) == "2025-05-12T13:56:43.000Z"


def test_in_local_offset_of_no_iso_time_is_none() -> None:
    assert in_local_offset("May 12, 2025", "2025-05-12 21:56:43") is None
