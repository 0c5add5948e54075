"""The per-layout post readers against trafilatura, on the saved real post pages.

Run ``python bench/compare_extractors.py``. For every post-page case in tests/post_cases/
(real pages saved from public repositories, with what a reader sees written down by hand in
``expected.json``) it reads the body twice:

- **layout**: the layout's ``read_post`` (its ``post_body`` without its ``post_chrome``,
  through ``crawler.parsing.markdown.body_markdown``; the fallback where it has none): what a
  crawl does;
- **trafilatura**: ``trafilatura.extract`` of the whole page as HTML (links, images, tables,
  formatting kept), then the same Markdown conversion (what the fallback does on a page no
  layout knows);

and counts the checks of ``expected.json`` each passes: the start and end of the post, every
snippet that must be in it, every piece of chrome that must not, and the languages of its code
blocks. It prints one row per case and the CPU time of each reader per page (µs).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "tests"))  # tests/support: the cases' fence reading

from support.fences import fenced_languages  # noqa: E402

from crawler.devtools.cases import Case, find_cases  # noqa: E402
from crawler.layouts import get_layout  # noqa: E402
from crawler.parsing.markdown import PostBody, html_markdown  # noqa: E402


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def checks(markdown: str, expected: dict[str, Any]) -> tuple[int, int]:
    """(passed, total) of the case's checks on ``markdown``."""
    text = _squash(markdown)
    results = [
        text.startswith(_squash(expected["content_start"])),
        text.endswith(_squash(expected["content_end"])),
        *(_squash(snippet) in text for snippet in expected.get("content_contains", [])),
        *(_squash(chrome) not in text for chrome in expected.get("content_excludes", [])),
    ]
    if "code_languages" in expected:
        languages = [language for language in fenced_languages(markdown) if language]
        results.append(languages == expected["code_languages"])
    return sum(results), len(results)


def by_layout(case: Case) -> PostBody:
    """The body as a crawl reads it: the layout's ``read_post`` (its ``post_body`` without
    its chrome; a layout without one, or a page it does not match, by the fallback)."""
    fields = get_layout(case.layout).read_post(case.response()).fields
    return PostBody(fields.get("content") or "", fields.get("word_count") or 0)


def by_trafilatura(case: Case) -> PostBody:
    import trafilatura

    response = case.response()
    extracted = (
        trafilatura.extract(
            response.text,
            url=response.url,
            output_format="html",
            include_links=True,
            include_images=True,
            include_tables=True,
            include_formatting=True,
            favor_recall=True,
        )
        or ""
    )
    return html_markdown(extracted, response.url)


def timed(read: Any, case: Case, repeats: int = 5) -> tuple[PostBody, float]:
    """The reader's result and its median CPU µs over ``repeats`` (response made apart)."""
    times, result = [], None
    for _ in range(repeats):
        started = time.process_time()
        result = read(case)
        times.append(time.process_time() - started)
    return result, sorted(times)[len(times) // 2] * 1e6  # type: ignore[return-value]


def main() -> None:
    import trafilatura  # noqa: F401 -- loaded before timing: its import is not a page's cost

    cases = [
        case
        for case in find_cases(PROJECT / "tests" / "post_cases")
        if case.page.endswith(".html")
        and "content_start"
        in json.loads((case.folder / "expected.json").read_text("utf-8"))["posts"][
            0
        ]  # a page with a body to compare (not an empty post, nor a challenge)
    ]
    print(f"{'case':38} {'layout':>9} {'trafilatura':>12} {'µs layout':>10} {'µs trafil.':>11}")
    totals = [0, 0, 0]
    for case in cases:
        (expected,) = json.loads((case.folder / "expected.json").read_text("utf-8"))["posts"]
        (ours, ours_us), (theirs, theirs_us) = timed(by_layout, case), timed(by_trafilatura, case)
        (a, total), (b, _) = checks(ours.markdown, expected), checks(theirs.markdown, expected)
        totals = [totals[0] + a, totals[1] + b, totals[2] + total]
        counts = f"{a:>4}/{total:<4} {b:>7}/{total:<4}"
        print(f"{case.name:38} {counts} {ours_us:10.0f} {theirs_us:11.0f}")
    print(f"{'all':38} {totals[0]:>4}/{totals[2]:<4} {totals[1]:>7}/{totals[2]:<4}")


if __name__ == "__main__":
    main()
