"""The per-layout post readers against trafilatura, on the saved real post pages.

Run ``python bench/compare_extractors.py``. For every post-page case in tests/post_cases/
(real pages saved from public repositories, with what a reader sees written down by hand in
``expected.json``) it reads the body twice:

- **layout**: the layout's ``post_body`` without its ``post_chrome``, through
  ``crawler.parsing.markdown.body_markdown`` (what a crawl does);
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

from crawler.devtools.cases import Case, find_cases  # noqa: E402
from crawler.layouts import get_layout  # noqa: E402
from crawler.parsing.markdown import PostBody, body_markdown, html_markdown  # noqa: E402

_FENCE = re.compile(r"^```([^\s`]*)", re.MULTILINE)


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
        fences = _FENCE.findall(markdown)
        languages = [lang for i, lang in enumerate(fences) if i % 2 == 0 and lang]
        results.append(languages == expected["code_languages"])
    return sum(results), len(results)


def by_layout(case: Case) -> PostBody:
    layout, response = get_layout(case.layout), case.response()
    return body_markdown(response.css(layout.post_body)[0], response.url, layout.post_chrome)


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

    cases = [c for c in find_cases(PROJECT / "tests" / "post_cases") if c.page.endswith(".html")]
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
