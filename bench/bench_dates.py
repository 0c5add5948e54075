"""Micro-benchmark of :func:`crawler.parsing.dates.normalise_date` (a script, not a test).

Run ``python bench/bench_dates.py``. On a mix of date texts shaped like the four blogs
(cnblogs ``posted @ …``, Hux ``Posted by X on July 5, 2026``, cards ``YYYY年MM月DD日``,
RSS ``Mon, 07 Sep 2026 04:00:00 GMT``, plus ISO 8601 and relative texts) it prints µs per
call for ``normalise_date``, a reused ``dateparser.DateDataParser(languages=["zh", "en"])``,
``dateparser.parse(..., languages=["zh", "en"])`` and a ``datetime.strptime`` floor (one
format per input, chosen in advance), with the ratios per format and overall.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import dateparser

from crawler.parsing.dates import normalise_date

N_STRINGS = 200  # distinct texts per format, so no cache sees the same text every call
FAST_SECONDS = 0.1  # wall time per (format, fast method) measurement
REPEATS = 3  # best of: the minimum is the least disturbed by the rest of the machine

# (weight, name, text template, strptime format); {author} is the Hux author's name.
FORMATS: list[tuple[float, str, str, str]] = [
    (
        0.30,
        "cnblogs",
        "posted @ {d:%Y-%m-%d %H:%M} RobinDevNotes 阅读(8) 评论(0) 推荐(0) 编辑",
        "posted @ %Y-%m-%d %H:%M RobinDevNotes 阅读(8) 评论(0) 推荐(0) 编辑",
    ),
    (
        0.20,
        "hux",
        "Posted by {author} on {d:%B} {d.day}, {d:%Y}",
        "Posted by {author} on %B %d, %Y",
    ),
    (0.25, "cards", "{d:%Y}年{d:%m}月{d:%d}日", "%Y年%m月%d日"),
    (
        0.15,
        "rss",
        "{d:%a, %d %b %Y %H:%M:%S} GMT",
        "%a, %d %b %Y %H:%M:%S GMT",
    ),
    (0.05, "iso8601", "{d:%Y-%m-%dT%H:%M:%S}+08:00", "%Y-%m-%dT%H:%M:%S%z"),
    (0.05, "relative", "{d.day}天前", "%d天前"),
]
AUTHORS = ["X", "无限可能的想象力", "Hux"]


@dataclass
class Group:
    """The texts of one format and the strptime format chosen for each."""

    weight: float
    name: str
    texts: list[str]
    formats: list[str]


def make_groups(rng: random.Random) -> list[Group]:
    """N_STRINGS texts per format, dates spread over 2024-2026."""
    start = datetime(2024, 1, 1)
    groups = []
    for weight, name, template, fmt in FORMATS:
        texts, formats = [], []
        for _ in range(N_STRINGS):
            moment = start + timedelta(minutes=rng.randrange(3 * 365 * 24 * 60))
            if name == "relative":
                moment = moment.replace(day=rng.randrange(1, 28))
            author = rng.choice(AUTHORS)
            texts.append(template.format(d=moment, author=author))
            formats.append(fmt.replace("{author}", author))
        groups.append(Group(weight, name, texts, formats))
    return groups


def per_call_us(call: Callable[[str, str], object], group: Group, seconds: float) -> float:
    """µs per call of ``call(text, format)`` over the group's texts.

    ``seconds`` > 0: best of REPEATS runs of about that long each. 0: for the slow
    dateparser calls, a short warm-up and one timed pass over the texts.
    """
    pairs = list(zip(group.texts, group.formats, strict=True))
    for text, fmt in pairs if seconds else pairs[:10]:  # warm-up: caches, lazy imports
        call(text, fmt)
    start = time.perf_counter()
    for text, fmt in pairs:
        call(text, fmt)
    one_pass = time.perf_counter() - start
    if not seconds:
        return one_pass / len(pairs) * 1e6
    passes = max(1, int(seconds / max(one_pass, 1e-9)))
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(passes):
            for text, fmt in pairs:
                call(text, fmt)
        best = min(best, time.perf_counter() - start)
    return best / (passes * len(pairs)) * 1e6


def success_rate(call: Callable[[str, str], object], group: Group) -> float:
    """Share of the group's first 50 texts for which ``call`` returned something."""
    pairs = list(zip(group.texts, group.formats, strict=True))[:50]
    return sum(call(text, fmt) is not None for text, fmt in pairs) / len(pairs)


def main() -> None:
    """Measure every method on every format and print the table."""
    groups = make_groups(random.Random(20261130))
    ddp = dateparser.DateDataParser(languages=["zh", "en"])

    def ours(text: str, fmt: str) -> object:
        return normalise_date(text)

    def ddp_call(text: str, fmt: str) -> object:
        return ddp.get_date_data(text).date_obj

    def dp_parse(text: str, fmt: str) -> object:
        return dateparser.parse(text, languages=["zh", "en"])

    def strptime(text: str, fmt: str) -> object:
        return datetime.strptime(text, fmt)

    methods: list[tuple[str, Callable[[str, str], object], float]] = [
        ("normalise", ours, FAST_SECONDS),
        ("strptime", strptime, FAST_SECONDS),
        ("DDP.get_date_data", ddp_call, 0.0),  # ~1 ms a call: one timed pass is plenty
        ("dateparser.parse", dp_parse, 0.0),
    ]
    results: dict[str, dict[str, float]] = {}
    header = (
        f"{'format':<10}{'weight':>7}"
        + "".join(f"{name:>19}" for name, _, _ in methods)
        + f"{'DDP/norm':>10}{'parse/norm':>11}{'norm/strp':>10}"
    )
    print(f"µs per call ({N_STRINGS} distinct texts per format; fast methods best of {REPEATS})")
    print(header)
    for group in groups:
        row = {name: per_call_us(call, group, secs) for name, call, secs in methods}
        results[group.name] = row
        print(
            f"{group.name:<10}{group.weight:>7.2f}"
            + "".join(f"{row[name]:>19.2f}" for name, _, _ in methods)
            + f"{row['DDP.get_date_data'] / row['normalise']:>9.0f}x"
            + f"{row['dateparser.parse'] / row['normalise']:>10.0f}x"
            + f"{row['normalise'] / row['strptime']:>9.2f}x"
        )
    overall = {
        name: sum(g.weight * results[g.name][name] for g in groups) for name, _, _ in methods
    }
    print(
        f"{'overall':<10}{sum(g.weight for g in groups):>7.2f}"
        + "".join(f"{overall[name]:>19.2f}" for name, _, _ in methods)
        + f"{overall['DDP.get_date_data'] / overall['normalise']:>9.0f}x"
        + f"{overall['dateparser.parse'] / overall['normalise']:>10.0f}x"
        + f"{overall['normalise'] / overall['strptime']:>9.2f}x"
    )
    print("\nshare of texts parsed (None counts as a miss):")
    for group in groups:
        rates = "  ".join(
            f"{name}={success_rate(call, group):.0%}"
            for name, call, _ in methods
            if name != "strptime"
        )
        print(f"  {group.name:<10}{rates}")


if __name__ == "__main__":
    main()
