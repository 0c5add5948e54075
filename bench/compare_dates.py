"""Publication times on the saved real sites: htmldate against the generic reader's rules.

Run ``python bench/compare_dates.py``. For every post page saved in tests/sites/ (whole real
sites, each post's publication time read off its pages by eye in ``expected.json``) it
reads the publication time twice, from the same bytes:

- **htmldate**: ``htmldate.find_date(html, original_date=True,
  outputformat="%Y-%m-%dT%H:%M:%S%z")``, its most precise output;
- **ours**: ``GenericLayout.read_post(...).fields["published_raw"]`` (structured data,
  ``time`` elements, the meta line; a UTC time told in the page's own offset), before the
  site's timezone is applied to a time printed without an offset;

and counts, against the expected time, the pages where each gives the right day, and the
right time to the second with an offset. It prints both counts and the CPU per page.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "tests"))  # tests/support: the saved sites

from scrapy.http import HtmlResponse  # noqa: E402
from support.savedsites import SavedSite  # noqa: E402

from crawler.layouts.generic import GenericLayout  # noqa: E402


def scores(found: str | None, expected: str) -> tuple[bool, bool]:
    """(the right day, the right second with an offset)."""
    found = (found or "").replace("/", "-")
    offset = found[19:].lstrip(".0123456789")
    return found[:10] == expected[:10], found[:19] == expected[:19] and offset[:1] in (
        "+",
        "-",
        "Z",
    )


def main() -> None:
    import htmldate

    pages, totals, cpu = 0, [0, 0, 0, 0], [0.0, 0.0]
    for folder in sorted((PROJECT / "tests" / "sites").iterdir()):
        site = SavedSite.load(folder)
        for post in site.expected["posts"]:
            url = site.base_url.rstrip("/") + post["path"]
            saved = site.file(urlsplit(url).path)
            if saved is None or not post.get("published"):
                continue
            body, pages = saved.read_bytes(), pages + 1
            started = time.process_time()
            theirs = htmldate.find_date(
                body.decode("utf-8", "replace"),
                original_date=True,
                outputformat="%Y-%m-%dT%H:%M:%S%z",
            )
            cpu[0] += time.process_time() - started
            started = time.process_time()
            page = GenericLayout.read_post(HtmlResponse(url, body=body, encoding="utf-8"))
            cpu[1] += time.process_time() - started
            ours = page.fields.get("published_raw")
            for i, found in ((0, theirs), (2, ours)):
                day, second = scores(found, post["published"])
                totals[i] += day
                totals[i + 1] += second
    print(f"{pages} saved post pages, {time.strftime('%Y-%m-%d')}")
    print(f"{'reader':10} {'day right':>10} {'time+offset':>12} {'ms a page':>10}")
    print(f"{'htmldate':10} {totals[0]:>10} {totals[1]:>12} {cpu[0] / pages * 1e3:>10.1f}")
    ours_ms = cpu[1] / pages * 1e3
    print(f"{'ours':10} {totals[2]:>10} {totals[3]:>12} {ours_ms:>10.1f}  (the whole post)")


if __name__ == "__main__":
    main()
