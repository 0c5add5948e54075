"""Property tests for :mod:`crawler.parsing.dates`: it never raises and never returns naive
times."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.parsing.date_tables import CN_DIGITS, DAY_WORDS, MONTHS_EN, PERIODS_OF_DAY, UNIT_WORDS
from crawler.parsing.dates import parse_date

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SHANGHAI)
TIMEZONES = ["Asia/Shanghai", "UTC", "America/New_York", "Europe/London", "Asia/Kolkata"]

# Pieces of real date texts, glued in random order to reach the parser's odd corners.
FRAGMENTS = [
    *CN_DIGITS,
    *DAY_WORDS,
    *PERIODS_OF_DAY,
    *UNIT_WORDS,
    *list(MONTHS_EN)[:6],
    "十",
    "半",
    "个",
    "年",
    "月",
    "日",
    "号",
    "前",
    "ago",
    "刚刚",
    "星期",
    "点",
    "分",
    "秒",
    "-",
    "/",
    ".",
    ":",
    "：",
    "T",
    "Z",
    "GMT",
    "+0800",
    "-05:00",
    ",",
    " ",
    "\u3000",
    "\x00",
    "posted @ ",
    "阅读(8)",
    "2026",
    "1999",
    "9999",
    "0000",
    "02",
    "12",
    "13",
    "29",
    "30",
    "31",
    "45",
    "59",
    "60",
    "99",
    "1e9",
]

date_ish = st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join)
any_text = st.one_of(st.text(), st.text(alphabet=st.characters(codec="utf-8")), date_ish)
nows = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(SHANGHAI)
)


@settings(max_examples=300, deadline=None)
@given(text=any_text, timezone=st.sampled_from(TIMEZONES), now=st.one_of(st.none(), nows))
def test_never_raises_and_never_naive(text: str, timezone: str, now: datetime | None) -> None:
    parsed = parse_date(text, timezone, now)
    if parsed is not None:
        assert parsed.value.tzinfo is not None
        assert parsed.value.utcoffset() is not None
        assert parsed.precision in ("day", "minute", "second")
        if parsed.precision == "day":
            local = parsed.value
            assert (local.hour, local.minute, local.second) == (0, 0, 0)


@settings(max_examples=300, deadline=None)
@given(
    count=st.one_of(
        st.integers(min_value=0, max_value=10_000_000).map(str),
        st.sampled_from(["半", "两", "一", "十", "三十", "一百零五", "二十四"]),
    ),
    half=st.sampled_from(["", "个", "个半"]),
    unit=st.sampled_from([u for u in UNIT_WORDS if not u.isascii()]),
    space=st.sampled_from(["", " "]),
    suffix=st.sampled_from(["前", "以前", "之前"]),
    now=nows,
)
def test_relative_is_never_in_the_future(
    count: str, half: str, unit: str, space: str, suffix: str, now: datetime
) -> None:
    parsed = parse_date(f"{count}{space}{half}{unit}{suffix}", "Asia/Shanghai", now)
    if parsed is not None:
        assert parsed.value.tzinfo is not None
        assert parsed.value <= now + timedelta(days=1)


@settings(max_examples=300, deadline=None)
@given(
    count=st.integers(min_value=1, max_value=100_000),
    unit=st.sampled_from([u for u in UNIT_WORDS if u.isascii()]),
    now=nows,
)
def test_english_relative_is_never_in_the_future(count: int, unit: str, now: datetime) -> None:
    parsed = parse_date(f"{count} {unit} ago", "Asia/Shanghai", now)
    if parsed is not None:
        assert parsed.value <= now + timedelta(days=1)


@settings(max_examples=300, deadline=None)
@given(
    value=st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2150, 1, 1)),
    fmt=st.sampled_from(
        ["%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y年%m月%d日", "%B %d, %Y", "%d %b %Y"]
    ),
)
def test_formatted_datetimes_round_trip(value: datetime, fmt: str) -> None:
    text = value.strftime(fmt)
    parsed = parse_date(text, "Asia/Shanghai", NOW)
    assert parsed is not None, text
    expected = value.replace(microsecond=0, tzinfo=SHANGHAI)
    if "%S" not in fmt:
        expected = expected.replace(second=0)
    if "%H" not in fmt:
        expected = expected.replace(hour=0, minute=0)
    assert parsed.value == expected
