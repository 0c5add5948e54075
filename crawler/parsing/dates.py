"""Normalise the publication dates printed by Chinese and English blogs.

``parse_date`` turns texts such as ``posted @ 2026-09-29 20:12``, ``2026年10月4日 下午3:05``,
``Mon, 07 Sep 2026 04:00:00 GMT``, ``3天前`` or ``昨天 12:30`` into a timezone-aware datetime
plus the precision the text had. The frequent formats go through precompiled regular
expressions and a direct ``datetime(...)`` call; dateparser is only the fallback for the
rest, imported on first use. The words the regular expressions accept come from the tables
in :mod:`crawler.parsing.date_tables`.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from datetime import timezone as fixed_timezone
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from crawler.parsing.date_tables import (
    AGO_WORDS,
    CN_DIGITS,
    CN_HALF,
    CN_HUNDRED,
    CN_MEASURE_WORDS,
    CN_TEN,
    DAY_WORDS,
    EN_COUNT_WORDS,
    FALLBACK_HINT_WORDS,
    JUST_NOW_WORDS,
    MONTHS_EN,
    PERIODS_OF_DAY,
    TZ_ABBREVIATIONS,
    UNIT_WORDS,
)

__all__ = ["ParsedDate", "normalise_date", "parse_date"]

# A publication-date field is short; longer input is a page or garbage, not a date.
MAX_TEXT_LEN = 4096
# dateparser is slow (about a millisecond for a short text) and keeps guessing on long noisy
# text, so only short leftovers are handed to it.
FALLBACK_MAX_LEN = 120
# Blogs are younger than this; it also keeps offset arithmetic far from datetime's limits.
MIN_YEAR, MAX_YEAR = 1900, 2200

PRECISION_DAY = "day"
PRECISION_MINUTE = "minute"
PRECISION_SECOND = "second"


@dataclass(frozen=True, slots=True)
class ParsedDate:
    """A parsed publication time and how precise the source text was."""

    value: datetime  # always timezone-aware
    precision: str  # "day" (the text gave only a date), "minute", or "second"


# --- regular expressions, built once from the tables -------------------------------------


def _alternation(words: Iterable[str]) -> str:
    """Regex alternation of ``words``, longest first so that 分钟 wins over 分."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_CN_NUMERAL_CHARS = "".join(CN_DIGITS) + CN_TEN + CN_HUNDRED
_DATE_SEP = r"[-/.－／．]"  # full-width forms show up in Chinese text
_COLON = r"[:：]"
_CN_PERIODS = _alternation(w for w in PERIODS_OF_DAY if not w.isascii())
_MONTHS = _alternation(MONTHS_EN)
_TZ_NAMES = _alternation(TZ_ABBREVIATIONS)

# Zone after a time: numeric offset (optionally after GMT/UTC) or an abbreviation. The
# abbreviation is matched case-sensitively so that "10:00 Est. reading" is no zone.
_TZ = (
    r"(?P<tz>(?:GMT|UTC)[+-]\d{1,2}(?::?\d{2})?(?!\d)|[+-]\d{2}(?::?\d{2})?(?!\d)"
    rf"|(?-i:{_TZ_NAMES})(?![A-Za-z]))"
)
# am/pm after a time; also the lookahead that makes a bare "5pm" a time.
_AMPM = r"\s*(?P<ampm>[AaPp])\.?[Mm]\.?(?![A-Za-z])"
_AMPM_AHEAD = r"\s*[AaPp]\.?[Mm]\.?(?![A-Za-z])"
# One time syntax for every format, so every regex has the same groups (_TIME_GROUPS):
# [下午] HH:MM[:SS[.frac]] | 3点[05分[20秒]] | 3点半 | 5pm, then [am/pm] [zone].
_TIME = (
    rf"(?:(?P<pod>{_CN_PERIODS})\s*)?"
    rf"(?:(?P<H>\d{{1,2}}){_COLON}(?P<M>\d{{2}})"
    rf"(?:{_COLON}(?P<S>\d{{2}})(?:[.,](?P<frac>\d{{1,9}}))?)?(?!\d)"
    r"|(?P<H2>\d{1,2})\s*[点时]"
    r"(?:\s*(?P<M2>\d{1,2})\s*分(?:\s*(?P<S2>\d{1,2})\s*秒)?|(?P<half>半))?"
    rf"|(?P<H3>\d{{1,2}})(?={_AMPM_AHEAD}))"
    rf"(?:{_AMPM})?(?:\s*{_TZ})?"
)
_TIME_GROUPS = ("pod", "H", "M", "S", "frac", "H2", "M2", "S2", "half", "H3", "ampm", "tz")

# 2026-09-29 20:12, 2026/10/04 10:00, 2026.10.04, ISO 8601 with T / Z / offsets.
_NUMERIC_DATE = re.compile(
    rf"(?<!\d)(?P<y>\d{{4}}){_DATE_SEP}(?P<m>\d{{1,2}}){_DATE_SEP}(?P<d>\d{{1,2}})(?!\d)"
    rf"(?:(?:[Tt]|\s+){_TIME})?"
)
# 2026年10月4日 [星期日] [下午3:05], 二〇二六年十月四日, 10月4日 (no year).
_CN_MD = rf"\d{{1,2}}|[{CN_TEN}一二三四五六七八九]{{1,3}}"
_CN_YEAR_DIGITS = "".join(k for k in CN_DIGITS if k != "两")  # 两 counts, it is no digit
_CN_DATE = re.compile(
    rf"(?:(?<!\d)(?P<y>\d{{4}}|[{_CN_YEAR_DIGITS}]{{4}})\s*年\s*)?"
    rf"(?<!\d)(?P<m>{_CN_MD})\s*月\s*(?P<d>{_CN_MD})\s*[日号]"
    r"(?:\s*[,，]?\s*(?:星期|周|礼拜)[一二三四五六日天])?"
    rf"(?:\s*{_TIME})?"
)
# 5 July 2026, 07 Sep 2026 04:00:00 GMT (RFC 822), 07-Sep-2026.
_EN_DMY = re.compile(
    rf"(?<!\d)(?P<d>\d{{1,2}})(?:st|nd|rd|th)?[\s-]+(?P<mon>{_MONTHS})\.?(?![A-Za-z])"
    rf"[\s,-]*(?P<y>\d{{4}})(?!\d)(?:\s*,?\s*(?:at\s+)?{_TIME})?",
    re.IGNORECASE,
)
# July 5, 2026 / Jul. 5th 2026 [at 3:05 pm]. The first-letter lookahead lets the scan skip
# most positions without trying the 24 month names.
_EN_MDY = re.compile(
    rf"(?<![A-Za-z])(?=[JFMASOND])(?P<mon>{_MONTHS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?"
    rf"(?!\d)\s*,?\s*(?P<y>\d{{4}})(?!\d)(?:\s*,?\s*(?:at\s+)?{_TIME})?",
    re.IGNORECASE,
)
# 10-04 [12:30] as the whole text: with noise around, "1-2" is too often not a date.
_MONTH_DAY = re.compile(rf"(?P<m>\d{{1,2}})[-/](?P<d>\d{{1,2}})(?:\s+{_TIME})?")
# 12:30 as the whole text (Chinese list pages print only the time for today's posts).
_TIME_ONLY = re.compile(_TIME)

# "N unit [N unit] 前/ago": one pair, and a run of pairs ending in an ago word.
_COUNT = (
    rf"(?<!\d)\d{{1,6}}|[{_CN_NUMERAL_CHARS}]{{1,6}}|{CN_HALF}"
    rf"|(?<![A-Za-z])(?:{_alternation(EN_COUNT_WORDS)})(?=\s)"
)
_UNITS = _alternation(UNIT_WORDS)
_MEASURE = _alternation(CN_MEASURE_WORDS)
_PAIR_BODY = rf"(?:{_COUNT})\s*(?:{_MEASURE})?\s*(?:{CN_HALF})?\s*(?:{_UNITS})(?![A-Za-z])"
_PAIR = re.compile(
    rf"(?P<n>{_COUNT})\s*(?:{_MEASURE})?\s*(?P<half>{CN_HALF})?\s*(?P<u>{_UNITS})(?![A-Za-z])",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    rf"(?:{_PAIR_BODY}[\s,]*(?:and\s+)?){{1,4}}(?:{_alternation(AGO_WORDS)})",
    re.IGNORECASE,
)
_JUST_NOW = re.compile(_alternation(JUST_NOW_WORDS), re.IGNORECASE)
# 今天 09:15, 昨天 12:30, 前天, yesterday at 9:15.
_DAY_WORD = re.compile(rf"(?P<w>{_alternation(DAY_WORDS)})(?:\s*(?:at\s+)?{_TIME})?", re.IGNORECASE)

# Something date-like that dateparser may read, checked before paying for it.
_FALLBACK_HINT = re.compile(
    rf"(?<![A-Za-z])(?:{_MONTHS})(?![A-Za-z])"  # no weekdays: "Sun" alone is no date
    rf"|[\d{_CN_NUMERAL_CHARS}]\s*[年月日号]"
    rf"|\d{{1,4}}{_DATE_SEP}\d{{1,2}}{_DATE_SEP}\d{{1,4}}"
    rf"|\d{{1,2}}{_COLON}\d{{2}}"
    rf"|(?<![A-Za-z])(?:{_alternation(FALLBACK_HINT_WORDS)})",
    re.IGNORECASE,
)
_NUMERIC_ONLY = (_NUMERIC_DATE,)
_ENGLISH = (_EN_DMY, _EN_MDY)
_HAS_SECONDS = re.compile(rf"\d{_COLON}\d{{2}}{_COLON}\d{{2}}")

_UNIT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
_UNITS_LOWER = {k.lower(): v for k, v in UNIT_WORDS.items()}
_DAY_WORDS_LOWER = {k.lower(): v for k, v in DAY_WORDS.items()}
_MONTHS_LOWER = {k.lower(): v for k, v in MONTHS_EN.items()}


# --- caches -------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _zone(name: str) -> tzinfo:
    """ZoneInfo for ``name``, cached: constructing one per call costs more than parsing."""
    return ZoneInfo(name)


@lru_cache(maxsize=256)
def _fixed_offset(minutes: int) -> tzinfo:
    """A fixed UTC offset; 0 is ``UTC`` so that it prints as +00:00."""
    return UTC if minutes == 0 else fixed_timezone(timedelta(minutes=minutes))


def _dateparser_for(timezone: str, now: datetime) -> Any:
    """A ``DateDataParser`` for a timezone, with relative dates counted from ``now``.

    Made per call through dateparser's public settings: making one costs a small fraction of
    a parse, and the parser's settings are then never shared or changed.
    """
    # Imported here, not at module level: it takes ~0.5 s and most texts never need it.
    from dateparser import DateDataParser

    return DateDataParser(
        languages=["zh", "en"],
        settings={
            "RETURN_AS_TIMEZONE_AWARE": True,
            "TIMEZONE": timezone,
            "PREFER_DATES_FROM": "past",  # a publication date without a year is in the past
            "RELATIVE_BASE": now.replace(tzinfo=None),
        },
    )


# --- helpers ------------------------------------------------------------------------------


def _to_int(text: str) -> int:
    """Int from ASCII/full-width digits or Chinese numerals (二〇二六, 三十一, 两, 一百零五)."""
    if text[0] not in CN_DIGITS and text[0] not in (CN_TEN, CN_HUNDRED):
        return int(text)  # \d groups only: int() takes full-width digits too
    total = current = 0
    for char in text:
        if char == CN_TEN:
            total += (current or 1) * 10
            current = 0
        elif char == CN_HUNDRED:
            total += (current or 1) * 100
            current = 0
        else:
            current = current * 10 + CN_DIGITS[char]  # digit by digit, as in years
    return total + current


def _clock(match: re.Match[str]) -> tuple[int, int, int, int, str, str | None] | None:
    """(hour, minute, second, microsecond, precision, zone text) of a match, None: no time."""
    pod, hour, minute, second, frac, hour2, minute2, second2, half, hour3, ampm, tz = match.group(
        *_TIME_GROUPS
    )
    if hour is None:
        if hour2 is not None:
            hour, minute, second = hour2, "30" if half else minute2 or "0", second2
        elif hour3 is not None:
            hour, minute = hour3, "0"
        else:
            return None
    h = int(hour)
    # A period-of-day word (下午, 晚上) or am/pm moves a 12-hour clock value.
    for word in (pod, ampm and ampm.lower() + "m"):
        if word:
            offset, low, high = PERIODS_OF_DAY[word]
            if low <= h < high:
                h += offset
    micro = int(frac[:6].ljust(6, "0")) if frac else 0
    precision = PRECISION_SECOND if second is not None else PRECISION_MINUTE
    return h, int(minute), int(second or 0), micro, precision, tz


def _tz_from(token: str) -> tzinfo:
    """tzinfo for "Z", "GMT", "+0800", "+08:00", "GMT+8"; keeps the text's own offset."""
    upper = token.upper()
    if upper in TZ_ABBREVIATIONS:
        return _fixed_offset(TZ_ABBREVIATIONS[upper])
    if upper[0].isalpha():
        upper = upper[3:]  # GMT+8 / UTC+08:00
    sign = -1 if upper[0] == "-" else 1
    digits = upper[1:].replace(":", "")
    hours, minutes = (int(digits), 0) if len(digits) <= 2 else (int(digits[:-2]), int(digits[-2:]))
    if hours > 23 or minutes > 59:
        raise ValueError(f"bad UTC offset {token!r}")
    return _fixed_offset(sign * (hours * 60 + minutes))


def _build(year: int, month: int, day: int, match: re.Match[str], zone: tzinfo) -> ParsedDate:
    """The date with the match's time and zone; raises ValueError for an impossible date."""
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ValueError(f"year {year} out of range")
    clock = _clock(match)
    if clock is None:
        return ParsedDate(datetime(year, month, day, tzinfo=zone), PRECISION_DAY)
    hour, minute, second, micro, precision, tz = clock
    tzinfo_ = _tz_from(tz) if tz else zone
    return ParsedDate(
        datetime(year, month, day, hour, minute, second, micro, tzinfo=tzinfo_), precision
    )


def _current(now: datetime | None, zone: tzinfo) -> datetime:
    """``now`` as wall time in ``zone`` (naive ``now`` is already that wall time)."""
    if now is None:
        return datetime.now(zone)
    if now.tzinfo is None or now.tzinfo.utcoffset(now) is None:
        return now.replace(tzinfo=zone)
    return now.astimezone(zone)


def _minus_months(day: date, months: int) -> date:
    """``day`` moved back ``months`` calendar months, clamped to the month's last day."""
    if not months:
        return day
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _most_recent(
    month: int, day: int, match: re.Match[str], now: datetime, zone: tzinfo
) -> ParsedDate | None:
    """A date without a year: the latest such date not after ``now`` (29 Feb: leap years)."""
    for year in range(now.year, now.year - 9, -1):
        try:
            parsed = _build(year, month, day, match, zone)
        except ValueError:
            continue
        if parsed.precision == PRECISION_DAY:
            if parsed.value.date() <= now.date():
                return parsed
        elif parsed.value <= now:
            return parsed
    return None


def _date_at(day: date, match: re.Match[str], zone: tzinfo) -> ParsedDate:
    """``day`` with the time the match may hold, else midnight with day precision."""
    return _build(day.year, day.month, day.day, match, zone)


# --- fast paths -----------------------------------------------------------------------------


def _absolute(
    regexes: tuple[re.Pattern[str], ...], text: str, zone: tzinfo
) -> ParsedDate | bool | None:
    """Dates that carry a year. False: none found; None: found but impossible (2026-02-30)."""
    for regex in regexes:
        match = regex.search(text)
        if match is None:
            continue
        named_month = "mon" in regex.groupindex
        while match is not None:
            month = _MONTHS_LOWER[match["mon"].lower()] if named_month else int(match["m"])
            try:
                return _build(int(match["y"]), month, int(match["d"]), match, zone)
            except ValueError:
                match = regex.search(text, match.end())  # maybe a later one is valid
        return None
    return False


def _chinese(text: str, zone: tzinfo, now: datetime | None) -> ParsedDate | bool | None:
    """2026年10月4日, 二〇二六年十月四日, 10月4日 [time]; same return convention as _absolute."""
    found = False
    for match in _CN_DATE.finditer(text):
        found = True
        try:
            month, day = _to_int(match["m"]), _to_int(match["d"])
            if match["y"]:
                return _build(_to_int(match["y"]), month, day, match, zone)
            result = _most_recent(month, day, match, _current(now, zone), zone)
        except (ValueError, KeyError):
            continue
        if result is not None:
            return result
    return None if found else False


def _relative(match: re.Match[str], now: datetime, zone: tzinfo) -> ParsedDate | None:
    """Relative texts ("1小时10分钟前", "3天前", "半小时前", "2 hours ago") from ``now``."""
    seconds = 0.0
    months = 0
    kinds: set[str] = set()
    for pair in _PAIR.finditer(match.group()):
        count_text = pair["n"]
        count: float = (
            0.5
            if count_text == CN_HALF
            else EN_COUNT_WORDS.get(count_text.lower()) or _to_int(count_text)
        )
        if pair["half"]:
            count += 0.5
        kind, amount = _UNITS_LOWER[pair["u"].lower()]
        count *= amount
        kinds.add(kind)
        if kind == "months":
            whole = int(count)
            months += whole
            seconds += (count - whole) * 30 * 86400  # half a month is 15 days
        else:
            seconds += count * _UNIT_SECONDS[kind]
    if not kinds:
        return None
    if "seconds" in kinds:
        precision = PRECISION_SECOND
    elif kinds & {"minutes", "hours"} or seconds % 86400:
        precision = PRECISION_MINUTE
    else:
        day = _minus_months(now.date() - timedelta(seconds=seconds), months)
        return ParsedDate(datetime(day.year, day.month, day.day, tzinfo=zone), PRECISION_DAY)
    base = now
    if months:
        day = _minus_months(now.date(), months)
        base = now.replace(year=day.year, month=day.month, day=day.day)
    # Through UTC so that "2小时前" across a DST change is two real hours.
    value = (base.astimezone(UTC) - timedelta(seconds=seconds)).astimezone(zone)
    return ParsedDate(value, precision)


def _fallback(text: str, timezone: str, now: datetime, zone: tzinfo) -> ParsedDate | None:
    """dateparser for what no fast path knows, guarded against its false positives."""
    if len(text) > FALLBACK_MAX_LEN or not _FALLBACK_HINT.search(text):
        return None  # a bare number or a count ("130 浏览") would come back as a date
    data = _dateparser_for(timezone, now).get_date_data(text)
    value = data.date_obj
    # "2026" (period "year") or "2026年10月" ("month") name no day: not a publication date.
    if value is None or data.period not in ("day", "time"):
        return None
    value = value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)
    if not MIN_YEAR <= value.year <= MAX_YEAR or value > now + timedelta(days=1):
        return None  # "明天", "in 3 days": not when something was published
    if _HAS_SECONDS.search(text):
        return ParsedDate(value, PRECISION_SECOND)
    if "time" in getattr(data, "parts", ("time",)):
        return ParsedDate(value, PRECISION_MINUTE)
    return ParsedDate(datetime(value.year, value.month, value.day, tzinfo=zone), PRECISION_DAY)


# A Unix time in seconds, or in milliseconds as JavaScript writes one (Pagefind's ``date``
# metadata of VitePress themes): an instant, told in the site's zone.
_EPOCH = re.compile(r"\d{10}|\d{13}")
_EPOCH_RANGE = (946_684_800, 4_102_444_800)  # 2000 to 2100: other ten-digit numbers are no time


def _epoch(text: str, zone: tzinfo) -> ParsedDate | None:
    seconds = int(text) / 1000 if len(text) == 13 else int(text)
    if not _EPOCH_RANGE[0] <= seconds < _EPOCH_RANGE[1]:
        return None
    return ParsedDate(datetime.fromtimestamp(seconds, zone), PRECISION_SECOND)


def _parse(text: str, timezone: str, now: datetime | None) -> ParsedDate | None:
    """parse_date without the exception guard: fast paths in turn, then dateparser."""
    text = text.strip()
    if not text or len(text) > MAX_TEXT_LEN:
        return None
    zone = _zone(timezone)
    if _EPOCH.fullmatch(text):
        return _epoch(text, zone)

    # Most frequent first; the Chinese regex only runs when its key character is there.
    result = _absolute(_NUMERIC_ONLY, text, zone)
    if result is False and "月" in text:
        result = _chinese(text, zone, now)
    if result is False:
        result = _absolute(_ENGLISH, text, zone)
    if not isinstance(result, bool):
        return result

    current = _current(now, zone)
    match = _RELATIVE.search(text)
    if match:
        return _relative(match, current, zone)
    if _JUST_NOW.search(text):
        return ParsedDate(current, PRECISION_SECOND)
    match = _DAY_WORD.search(text)
    if match:
        day = current.date() - timedelta(days=_DAY_WORDS_LOWER[match["w"].lower()])
        return _date_at(day, match, zone)
    match = _MONTH_DAY.fullmatch(text)
    if match:
        return _most_recent(int(match["m"]), int(match["d"]), match, current, zone)
    match = _TIME_ONLY.fullmatch(text)
    if match:
        # A bare time is today's, unless that is still to come: then it was yesterday's.
        parsed = _date_at(current.date(), match, zone)
        if parsed.value <= current:
            return parsed
        return _date_at(current.date() - timedelta(days=1), match, zone)
    return _fallback(text, timezone, current, zone)


# --- public API -----------------------------------------------------------------------------


def parse_date(
    text: str | None, timezone: str = "Asia/Shanghai", now: datetime | None = None
) -> ParsedDate | None:
    """Parse a publication date text into an aware datetime and its precision.

    ``timezone`` is the site's zone: text without an offset is wall time there, and a
    date-only text is midnight there. A text with an offset keeps that offset. ``now``
    (default: the current time; naive means wall time in ``timezone``) anchors relative
    texts ("3天前") and dates without a year. Returns None for anything that is not a date,
    and never raises.
    """
    if not isinstance(text, str):
        return None
    try:
        return _parse(text, timezone, now)
    except Exception:
        # The contract is "None, never an exception" for any input, bad timezone or now
        # included: a crawl must not die on one odd page.
        return None


def normalise_date(
    text: str | None, timezone: str = "Asia/Shanghai", now: datetime | None = None
) -> datetime | None:
    """``parse_date(...).value``, or None when the text holds no date."""
    parsed = parse_date(text, timezone, now)
    return parsed.value if parsed is not None else None


def iso_instant(value: object) -> datetime | None:
    """The aware instant of an ISO 8601 text as the exports write it (no offset: UTC);
    None for anything else. The one reader of stored times: store order, feeds, report."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_AM = re.compile(r"\b[Aa]\.?[Mm]\b|上午|凌晨|早上|午前|오전")
_PM = re.compile(r"\b[Pp]\.?[Mm]\b|下午|中午|晚上|午後|오후")


def in_local_offset(utc: str, local: str) -> str | None:
    """A UTC instant (``2025-05-12T13:56:43.000Z``) told in the offset a rendering of the
    same moment in local time shows by its clock (``Created 2025-05-12 21:56:43``,
    ``2022/7/6 下午1:13:12``): themes that print UTC in ``datetime`` and the builder's local
    time in a ``title``. The clock alone is read (the order of day and month in such a text
    depends on the builder's locale). ``utc`` as it is when the clock says nothing (no
    clock, other seconds, not a quarter-hour offset); None when ``utc`` is no ISO time."""
    try:
        instant = datetime.fromisoformat(utc.strip())
    except ValueError:
        return None
    clock = _CLOCK.search(local)
    if instant.tzinfo is None or not clock or int(clock[3] or instant.second) != instant.second:
        return utc.strip()
    pm = bool(_PM.search(local))  # a 12-hour clock says AM or PM
    hour = int(clock[1]) % (12 if pm or _AM.search(local) else 24) + 12 * pm
    minutes = (hour * 60 + int(clock[2]) - instant.hour * 60 - instant.minute) % 1440
    minutes -= 1440 if minutes > 14 * 60 else 0  # offsets run from -12:00 to +14:00
    if minutes % 15:
        return utc.strip()
    local_time = instant.astimezone(fixed_timezone(timedelta(minutes=minutes)))
    return local_time.isoformat(timespec="milliseconds" if local_time.microsecond else "seconds")


def iso_text(value: datetime) -> str:
    """An aware time as the exports write it: milliseconds kept as the page gives them
    (``…38.334+00:00``), not padded to microseconds."""
    spec = "milliseconds" if value.microsecond and value.microsecond % 1000 == 0 else "auto"
    return value.isoformat(timespec=spec)


def post_dates(
    published_raw: str | None, updated_raw: str | None, timezone: str, now: datetime
) -> dict[str, str | None]:
    """``published_at``, ``date_precision`` and ``updated_at`` of a post from the texts its
    pages print, in the site's ``timezone`` (all None where a text holds no date)."""
    published = parse_date(published_raw, timezone, now) if published_raw else None
    updated = parse_date(updated_raw, timezone, now) if updated_raw else None
    return {
        "published_at": iso_text(published.value) if published else None,
        "date_precision": published.precision if published else None,
        "updated_at": iso_text(updated.value) if updated else None,
    }
