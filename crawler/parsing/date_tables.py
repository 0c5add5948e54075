"""Locale data for :mod:`crawler.parsing.dates`, kept as plain tables.

The parser in ``crawler/parsing/dates.py`` builds its regular expressions from these tables, so
supporting another word (a unit, a period of the day, a month spelling) is a one-line data
change here, not a parser change.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

# Chinese digits as written in dates ("二〇二六年", "二零二六年") and counts ("两天前").
CN_DIGITS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "〇": 0,
        "○": 0,  # U+25CB, often typed instead of 〇 (U+3007)
        "零": 0,
        "一": 1,
        "二": 2,
        "两": 2,
        "三": 3,
        "四": 4,
        "五": 5,
        "六": 6,
        "七": 7,
        "八": 8,
        "九": 9,
    }
)
CN_TEN: Final = "十"
CN_HUNDRED: Final = "百"
# "半" is a count on its own ("半小时前") and a half added to one ("1个半小时前").
CN_HALF: Final = "半"
# Measure word that may sit between the count and the unit ("3个月前", "2个小时前").
CN_MEASURE_WORDS: Final[tuple[str, ...]] = ("个",)

# English counts that stand for a number in "an hour ago", "a day ago".
EN_COUNT_WORDS: Final[Mapping[str, int]] = MappingProxyType({"a": 1, "an": 1, "one": 1})

# Unit word -> (kind, amount). Kinds: "seconds", "minutes", "hours", "days", "months";
# weeks are 7 days and years 12 months so that only two kinds of arithmetic are needed.
UNIT_WORDS: Final[Mapping[str, tuple[str, int]]] = MappingProxyType(
    {
        "秒钟": ("seconds", 1),
        "秒": ("seconds", 1),
        "分钟": ("minutes", 1),
        "分": ("minutes", 1),
        "小时": ("hours", 1),
        "钟头": ("hours", 1),
        "天": ("days", 1),
        "日": ("days", 1),
        "周": ("days", 7),
        "星期": ("days", 7),
        "礼拜": ("days", 7),
        "月": ("months", 1),
        "年": ("months", 12),
        "seconds": ("seconds", 1),
        "second": ("seconds", 1),
        "secs": ("seconds", 1),
        "sec": ("seconds", 1),
        "minutes": ("minutes", 1),
        "minute": ("minutes", 1),
        "mins": ("minutes", 1),
        "min": ("minutes", 1),
        "hours": ("hours", 1),
        "hour": ("hours", 1),
        "hrs": ("hours", 1),
        "hr": ("hours", 1),
        "days": ("days", 1),
        "day": ("days", 1),
        "weeks": ("days", 7),
        "week": ("days", 7),
        "months": ("months", 1),
        "month": ("months", 1),
        "years": ("months", 12),
        "year": ("months", 12),
    }
)

# Words that end a "N unit" sequence and make it a time in the past.
AGO_WORDS: Final[tuple[str, ...]] = ("以前", "之前", "前", "ago")

# Words meaning "now" (a few seconds ago at most).
JUST_NOW_WORDS: Final[tuple[str, ...]] = ("刚刚", "刚才", "just now")

# Day word -> days before today.
DAY_WORDS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "大前天": 3,
        "前天": 2,
        "昨天": 1,
        "昨日": 1,
        "今天": 0,
        "今日": 0,
        "yesterday": 1,
        "today": 0,
    }
)

# Period-of-day word -> (hours added, lowest hour, highest hour exclusive): the offset applies
# only to hours in [low, high), so "下午3点" is 15:00 while "下午13:05" stays 13:05,
# "中午12点" stays 12:00 and "中午1点" is 13:00, "夜里11点" is 23:00 but "夜里2点" is 02:00.
PERIODS_OF_DAY: Final[Mapping[str, tuple[int, int, int]]] = MappingProxyType(
    {
        "凌晨": (0, 0, 24),
        "早上": (0, 0, 24),
        "早晨": (0, 0, 24),
        "上午": (0, 0, 24),
        "中午": (12, 0, 11),
        "下午": (12, 0, 12),
        "傍晚": (12, 0, 12),
        "晚上": (12, 0, 12),
        "夜里": (12, 6, 12),
        "夜间": (12, 6, 12),
        "am": (-12, 12, 13),  # 12 am is midnight
        "pm": (12, 0, 12),
    }
)

# English month names and abbreviations (matched case-insensitively).
MONTHS_EN: Final[Mapping[str, int]] = MappingProxyType(
    {
        "january": 1,
        "february": 2,
        "march": 3,
        "april": 4,
        "may": 5,
        "june": 6,
        "july": 7,
        "august": 8,
        "september": 9,
        "october": 10,
        "november": 11,
        "december": 12,
        "jan": 1,
        "feb": 2,
        "mar": 3,
        "apr": 4,
        "jun": 6,
        "jul": 7,
        "aug": 8,
        "sept": 9,
        "sep": 9,
        "oct": 10,
        "nov": 11,
        "dec": 12,
    }
)

# Zone abbreviation -> UTC offset in minutes (RFC 822 section 5 plus UTC/Z). "CST" is left
# out on purpose: RFC 822 says -06:00, but Chinese servers print it for China Standard Time
# (+08:00); an unknown abbreviation falls back to wall time in the caller's timezone.
TZ_ABBREVIATIONS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "GMT": 0,
        "UTC": 0,
        "UT": 0,
        "Z": 0,
        "EST": -5 * 60,
        "EDT": -4 * 60,
        "CDT": -5 * 60,
        "MST": -7 * 60,
        "MDT": -6 * 60,
        "PST": -8 * 60,
        "PDT": -7 * 60,
    }
)

# Words that make a text worth handing to dateparser although no fast path matched them.
FALLBACK_HINT_WORDS: Final[tuple[str, ...]] = (
    "前",
    "昨",
    "今天",
    "今日",
    "刚",
    "ago",
    "yesterday",
    "today",
    "last",
    "now",
)
