"""Cleaning processors shared by every layout: text, labels, counts, URLs, ids.

Each function takes one extracted value and returns the cleaned value or None; none of them
raises on any text, so a strange page can never crash the loader.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from collections.abc import Iterable

from w3lib.html import remove_tags
from w3lib.url import canonicalize_url

_WHITESPACE = re.compile(r"\s+")
# An absolute URL already in canonical form, the usual post link: lower-case host, maybe a
# port (1-65535, no leading zero), a path of unreserved characters without "." or ".."
# segments, no query or fragment. w3lib and urljoin return it unchanged
# (tests/test_parsing_fast_paths.py checks), so skipping them changes nothing but the cost.
_PORT = r"(?::(?:[1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d\d|655[0-2]\d|6553[0-5]))?"
PLAIN_URL = re.compile(rf"https?://[a-z0-9.-]+{_PORT}(?![^?#]*/\.\.?(?:/|$))/[A-Za-z0-9._~/-]*")
# Platform labels in front of a summary (cnblogs' "摘要：") and "read more" links behind it.
_LEADING_LABEL = re.compile(r"^\s*(?:摘要|简介|概要|Summary|Abstract)\s*[:：]\s*", re.IGNORECASE)
_TRAILING_READMORE = re.compile(
    r"\s*(?:阅读全文|阅读更多|继续阅读|查看全文|Read\s*more|Continue\s*reading)\s*(?:»|>>|→)?\s*$",
    re.IGNORECASE,
)
_PINNED_MARK = re.compile(r"^\s*[\[【［(（]\s*置顶\s*[\]】］)）]\s*")

# Count labels, as a table: label text -> item field. Counts are read by label, never position.
COUNT_LABELS: dict[str, str] = {
    "阅读": "views",
    "浏览": "views",
    "阅读量": "views",
    "浏览量": "views",
    "views": "views",
    "评论": "comments",
    "comments": "comments",
    "推荐": "likes",
    "点赞": "likes",
    "赞": "likes",
    "喜欢": "likes",
    "likes": "likes",
}
# Multipliers for abbreviated counts: 1.2k, 1.5万, 3亿.
COUNT_SUFFIXES: dict[str, int] = {
    "": 1,
    "k": 1_000,
    "K": 1_000,
    "千": 1_000,
    "w": 10_000,
    "W": 10_000,
    "万": 10_000,
    "m": 1_000_000,
    "M": 1_000_000,
    "亿": 100_000_000,
}
_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*([kKwWmM千万亿]?)\+?"
_COUNT = re.compile(_NUMBER)
_LABEL_ALT = "|".join(sorted((re.escape(k) for k in COUNT_LABELS), key=len, reverse=True))
# "阅读(8)", "阅读：8", "阅读 8" — label first.
_LABEL_FIRST = re.compile(
    rf"({_LABEL_ALT})\s*(?:[(（]\s*{_NUMBER}\s*[)）]|[:：]\s*{_NUMBER})", re.IGNORECASE
)
# "130 浏览", "1.2k 点赞", "130 次浏览" — number first (次/人 are measure words).
_NUMBER_FIRST = re.compile(rf"{_NUMBER}\s*(?:次|人)?\s*({_LABEL_ALT})", re.IGNORECASE)
_LABEL = re.compile(_LABEL_ALT, re.IGNORECASE)


def clean_text(value: str | None) -> str | None:
    """Unescape entities, normalise compatibility forms of spaces, collapse whitespace."""
    if value is None:
        return None
    text = html.unescape(str(value)).replace("\u200b", "").replace("\ufeff", "")
    text = _WHITESPACE.sub(" ", text).strip()
    return text or None


def join_texts(values: Iterable[str | None]) -> str:
    """The texts of a field's nodes as one string (a None among them is skipped)."""
    return "".join(str(value) for value in values if value is not None)


def html_to_text(value: str | None) -> str | None:
    """Plain text of an HTML fragment (a feed description, escaped or CDATA)."""
    if value is None:
        return None
    markup = str(value)
    # Markup that is still entity-escaped (Hugo's RSS read as text twice) is unescaped once.
    if "<" not in markup and "&lt;" in markup:
        markup = html.unescape(markup)
    # Block-level tags become spaces so words of adjacent paragraphs do not run together.
    markup = re.sub(r"(?i)<\s*(?:br|/p|/div|/li|/h\d)\b[^>]*>", " ", markup)
    return clean_text(remove_tags(markup))


def strip_summary_labels(value: str | None) -> str | None:
    """Remove one leading platform label ("摘要：") and a trailing "阅读全文" link text."""
    if value is None:
        return None
    text = _TRAILING_READMORE.sub("", _LEADING_LABEL.sub("", value, count=1))
    return text.strip() or None


def strip_pinned_mark(value: str | None) -> str | None:
    """Remove a leading "[置顶]" mark that some platforms put inside the title."""
    if value is None:
        return None
    return _PINNED_MARK.sub("", value).strip() or None


def _to_int(number: str, suffix: str) -> int | None:
    try:
        return round(float(number.replace(",", "")) * COUNT_SUFFIXES.get(suffix, 1))
    except (ValueError, OverflowError):
        return None


def parse_count(value: str | None) -> int | None:
    """The first count in a text.

    "阅读(8)" -> 8, "1,024" -> 1024, "1.2k" -> 1200, "1.5万" -> 15000, no number -> None.
    """
    if value is None:
        return None
    if type(value) is int:
        return value  # read already (labelled_counts)
    match = _COUNT.search(unicodedata.normalize("NFKC", str(value)))
    return _to_int(match.group(1), match.group(2)) if match else None


def labelled_counts(texts: Iterable[str]) -> dict[str, int]:
    """Read counts by their label from texts such as "阅读(8) 评论(0)" or "130 浏览".

    Returns a mapping of item field ("views", "comments", "likes") to the count; the first
    occurrence of a field wins.
    """
    found: dict[str, int] = {}
    for raw in texts:
        text = unicodedata.normalize("NFKC", str(raw))
        labels = _LABEL.findall(text)
        if not labels:
            continue
        if len(labels) == 1:
            numbers = _COUNT.findall(text)
            if len(numbers) == 1:
                # One label and one number in a text (a stat span): they belong together,
                # whichever comes first ("浏览 130", "130 浏览").
                _store(found, _field_of(labels[0]), *numbers[0])
                continue
        # Label-first forms are unambiguous ("阅读(8)"); remove them before reading number-first
        # forms, so that "(8) 评论" can never be read as 8 comments.
        label_first = list(_LABEL_FIRST.finditer(text))
        for match in label_first:
            number, suffix = (
                (match.group(2), match.group(3))
                if match.group(2)
                else (match.group(4), match.group(5))
            )
            _store(found, _field_of(match.group(1)), number, suffix)
        if len(label_first) == len(labels):
            continue  # every label was read: the rest holds none
        rest = _LABEL_FIRST.sub(" ", text)
        for match in _NUMBER_FIRST.finditer(rest):
            _store(found, _field_of(match.group(3)), match.group(1), match.group(2))
    return found


def _field_of(label: str) -> str:
    """The item field of a label the patterns matched.

    They match case-insensitively in Unicode, where "lıkes" (dotless i) or "LİKES" match
    "likes" but ``str.lower()`` does not give back the table's key.
    """
    field = COUNT_LABELS.get(label.lower())
    if field is not None:
        return field
    return next(
        field
        for name, field in COUNT_LABELS.items()
        if re.fullmatch(re.escape(name), label, re.IGNORECASE)
    )


def _store(found: dict[str, int], field: str, number: str, suffix: str) -> None:
    count = _to_int(number, suffix)
    if count is not None:
        found.setdefault(field, count)


def canonical_url(value: str | None) -> str | None:
    """The canonical form of an absolute URL (w3lib: sorted query, no fragment).

    None for text that cannot be a URL (``http://[``, a port out of range): the item is then
    dropped for having no url, instead of the page's other posts being lost to an exception.
    """
    if not value:
        return None
    value = value.strip()
    if PLAIN_URL.fullmatch(value):
        return value
    try:
        return canonicalize_url(value)
    except ValueError:
        return None


def post_id(url: str) -> str:
    """Stable id of a post: the first 16 hex digits of SHA-1 of its canonical URL."""
    return hashlib.sha1(url.encode("utf-8")).hexdigest()[:16]


def unique(values: Iterable[str | None]) -> list[str]:
    """Values in first-seen order, without repeats or empties (tags)."""
    return list(dict.fromkeys(v for v in values if v))


def merge_terms(page: Iterable[str] | None, listed: Iterable[str] | None) -> list[str]:
    """A post's tags (or categories) from its page and its list entry: the page's first (it
    shows them all, in its order), then any only the list shows, without repeats (a term
    the list spells in other case, "Personal" for the page's "personal", is the same)."""
    seen: set[str] = set()
    merged = []
    for term in unique([*(page or ()), *(listed or ())]):
        if term.casefold() not in seen:
            seen.add(term.casefold())
            merged.append(term)
    return merged
