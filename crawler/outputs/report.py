"""The report page: ``OUTPUT_DIR/report.html``, what the crawler found and how its runs went,
for people rather than tools.

One self-contained HTML file (inline CSS and script, the data as embedded JSON, a Content
Security Policy that allows nothing from outside), readable in Chinese, that opens from disk
offline. It shows the last run per site with its problems, a strip of the last runs' outcomes
per site, the newest posts across sites (filtered in the page), the posts whose views grew
most over the last days (from :meth:`PostStore.metrics`) and a chart of posts published per
week per site. Only what the page shows is embedded, so its size does not grow with the store.
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import json
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from itertools import count, groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from crawler.outputs.files import replace_file
from crawler.parsing.dates import iso_instant
from crawler.store.base import PostStore

logger = logging.getLogger(__name__)

REPORT_NAME = "report.html"
# Read through importlib.resources: also from inside a Scrapyd egg (a zip file).
PAGE_SCRIPT = "report_page.js"
RUNS_SHOWN = 10  # columns of the runs strip
TRENDING_SHOWN = 20
CHART_WEEKS = 26
SUMMARY_CHARS = 140  # a post's summary is cut to this in the list
PROBLEMS_SHOWN = 20  # per site; summary.json has them all
POST_FAILURES_SHOWN = 20


def write_report(
    out: Path,
    store: PostStore,
    run_id: str,
    *,
    newest: int,
    trending_days: int,
    now: datetime | None = None,
    listing: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``out/report.html`` from the store and the run summaries under ``out/runs/``
    (atomically: a reader never sees half a page); return its path.

    The last run is ``run_id``: its ``summary.json`` if written, else the per-site summaries
    the store recorded for it (the report can then be written before the run's summary).
    ``newest``: posts listed; ``trending_days``: the window of the views' gains; ``now``: the
    end of that window (default: the current time); ``listing``: what the page shows of the
    posts, when the dataset's export gathered it (:class:`PostListing`; else read from the
    store). An ``OSError`` while writing names the file (``ExportError``).
    """
    now = (now or datetime.now(UTC)).astimezone(UTC)
    data = report_data(
        out, store, run_id, newest=newest, trending_days=trending_days, now=now, listing=listing
    )
    path = out / REPORT_NAME
    replace_file(path, render(data).encode("utf-8"))
    return path


def report_data(
    out: Path,
    store: PostStore,
    run_id: str,
    *,
    newest: int,
    trending_days: int,
    now: datetime,
    listing: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the page shows, as the JSON embedded in it."""
    runs = _recent_runs(out / "runs", run_id, store)
    last = runs[-1] if runs and runs[-1]["run_id"] == run_id else None
    if listing is None:
        gathered = PostListing(newest)
        for post in store.posts():
            gathered.add(post)
        listing = gathered.result(now)
    trending = _trending(store, now - timedelta(days=trending_days), TRENDING_SHOWN)
    run_sites = [s["site"] for s in last["sites"]] if last else []
    every_site = list(dict.fromkeys([*run_sites, *listing["sites"]]))
    return {
        "generated_at": now.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "run": last,
        "run_id": run_id,
        "history": [_outcomes(run) for run in runs],
        "sites": every_site,
        "posts": listing["posts"],
        "post_total": listing["post_total"],
        "trending": trending,
        "trending_days": trending_days,
        "weeks": listing["weeks"],
    }


# -- runs ------------------------------------------------------------------------------------


def _status(site: Mapping[str, Any]) -> str:
    """ok / unhealthy / failed, as the run's table says it (``healthy``: no problems)."""
    if site.get("failed"):
        return "failed"
    healthy = site.get("healthy", not site.get("problems"))
    return "ok" if healthy else "unhealthy"


def _site_entry(site: Mapping[str, Any]) -> dict[str, Any]:
    problems = [str(p) for p in site.get("problems") or []]
    post_failures = [str(p) for p in site.get("post_failures") or []]
    return {
        "site": str(site.get("site", "?")),
        "layout": site.get("layout"),
        "url": site.get("url"),
        "status": _status(site),
        "new": site.get("new", 0),
        "changed": site.get("changed", 0),
        "posts_seen": site.get("posts_seen", 0),
        "pages_fetched": site.get("pages_fetched", 0),
        "pages_unchanged": site.get("pages_unchanged", 0),
        "http_errors": site.get("http_errors", 0),
        "post_failures_count": site.get("post_failures_count", len(post_failures)),
        "duration_s": site.get("duration_s"),
        "problems": problems[:PROBLEMS_SHOWN],
        "problems_more": max(len(problems) - PROBLEMS_SHOWN, 0),
        "post_failures": post_failures[:POST_FAILURES_SHOWN],
        "post_failures_more": max(len(post_failures) - POST_FAILURES_SHOWN, 0),
    }


def _read_summary(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        logger.warning("report: left out %s: %s", path, exc.__class__.__name__)
        logger.debug("report: %s unreadable", path, exc_info=True)
        return None
    if not isinstance(document, dict) or not isinstance(document.get("sites"), list):
        logger.warning("report: left out %s: not a run summary", path)
        return None
    return document


def _recent_runs(runs_dir: Path, run_id: str, store: PostStore) -> list[dict[str, Any]]:
    """The newest :data:`RUNS_SHOWN` runs, oldest first, ``run_id`` last: their summaries
    (``run_id``'s from the store when its summary.json is not written yet)."""
    ids: list[str] = []
    if runs_dir.is_dir():
        ids = sorted(
            entry.name
            for entry in runs_dir.iterdir()
            if entry.name != run_id and (entry / "summary.json").is_file()
        )
    documents: list[tuple[str, Mapping[str, Any]]] = []
    for run in reversed(ids):  # newest first, until enough readable summaries
        if len(documents) >= RUNS_SHOWN - 1:
            break
        document = _read_summary(runs_dir / run / "summary.json")
        if document is not None:
            documents.append((run, document))
    documents.reverse()
    path = runs_dir / run_id / "summary.json"
    current: Mapping[str, Any] | None = _read_summary(path) if path.is_file() else None
    if current is None:  # read a site at a time below
        current = {"sites": (summary for _, summary in store.site_runs(run_id))}
    documents.append((run_id, current))
    return [
        {
            "run_id": run,
            "exit_status": document.get("exit_status"),
            "partial": bool(document.get("partial")),
            "notes": [str(note) for note in document.get("notes") or []],
            "sites": [_site_entry(s) for s in document["sites"] if isinstance(s, dict)],
        }
        for run, document in documents
    ]


def _outcomes(run: Mapping[str, Any]) -> dict[str, Any]:
    """A column of the runs strip: each site's status and first problem."""
    return {
        "run_id": run["run_id"],
        "exit_status": run["exit_status"],
        "partial": run["partial"],
        "sites": {
            s["site"]: [s["status"], s["problems"][0] if s["problems"] else ""]
            for s in run["sites"]
        },
    }


# -- posts -----------------------------------------------------------------------------------


def _cut(text: str | None, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _listed(post: Mapping[str, Any]) -> dict[str, Any]:
    """A post as the list shows it: the date as the site printed it (its own offset)."""
    published = post.get("published_at") or ""
    shown = published[:10] if post.get("date_precision") == "day" else published[:16]
    return {
        "title": post.get("title") or "",
        "url": post.get("url") or "",
        "site": post.get("site") or "",
        "date": shown.replace("T", " "),
        "summary": _cut(post.get("summary"), SUMMARY_CHARS),
        "views": post.get("views"),
        "gone": bool(post.get("gone")),
    }


def _week(published_at: str) -> date | None:
    """The Monday of the week of the post's date, in the post's own offset."""
    try:
        day = date.fromisoformat(published_at[:10])
    except ValueError:
        return None
    return day - timedelta(days=day.weekday())


class PostListing:
    """What the page shows of the posts, gathered in one pass over them (the dataset's
    export makes that pass anyway): the ``newest`` dated posts across sites, the posts
    published per week per site, the number of posts and the sites."""

    def __init__(self, newest: int) -> None:
        self.newest = newest
        # The heap keeps only small dicts: the store's posts carry their whole content.
        self._heap: list[tuple[datetime, int, dict[str, Any]]] = []
        self._tiebreak = count()  # equal times: the order the store gave
        self._per_week: dict[str, dict[date, int]] = defaultdict(lambda: defaultdict(int))
        self._total = 0
        self._sites: set[str] = set()

    def add(self, post: Mapping[str, Any]) -> None:
        self._total += 1
        site = post.get("site") or ""
        self._sites.add(site)
        published = post.get("published_at")
        moment = iso_instant(published)
        if moment is None:
            return  # an undated post has no place in "newest" or in a week
        week = _week(published or "")
        if week is not None:
            self._per_week[site][week] += 1
        key = (moment, -next(self._tiebreak))
        heap = self._heap
        if len(heap) < self.newest:
            heapq.heappush(heap, (*key, _listed(post)))
        elif self.newest > 0 and key > heap[0][:2]:
            heapq.heapreplace(heap, (*key, _listed(post)))

    def result(self, now: datetime) -> dict[str, Any]:
        """``posts`` (newest first), ``weeks`` (the chart up to ``now``), ``post_total``,
        ``sites`` (sorted): JSON, so an export can keep it for the runs that follow."""
        listed = [entry[2] for entry in sorted(self._heap, key=itemgetter(0, 1), reverse=True)]
        return {
            "posts": listed,
            "weeks": _chart_weeks(self._per_week, now),
            "post_total": self._total,
            "sites": sorted(self._sites),
        }


def _chart_weeks(per_week: Mapping[str, Mapping[date, int]], now: datetime) -> dict[str, Any]:
    """The last :data:`CHART_WEEKS` weeks up to the newest post's week (never past this
    week): a week's Monday and each site's count that week."""
    mondays = [week for counts in per_week.values() for week in counts]
    if not mondays:
        return {"starts": [], "counts": {}}
    this_week = now.date() - timedelta(days=now.weekday())
    last = min(max(mondays), this_week)
    starts = [last - timedelta(weeks=n) for n in range(CHART_WEEKS - 1, -1, -1)]
    counts = {
        site: [weeks.get(start, 0) for start in starts] for site, weeks in sorted(per_week.items())
    }
    return {
        "starts": [start.isoformat() for start in starts],
        "counts": {site: row for site, row in counts.items() if any(row)},
    }


# -- trending --------------------------------------------------------------------------------


def view_gains(rows: Iterable[Mapping[str, Any]], start: datetime) -> Iterator[dict[str, Any]]:
    """Each post's views gained since ``start``, from the metrics history (rows by post id,
    then time): the last views seen after ``start`` minus the views at or before ``start``
    (or, for a post first counted after it, its first views after it)."""
    for post_id, history in groupby(rows, key=itemgetter("id")):
        before: int | None = None
        first = last = None
        row: Mapping[str, Any] = {}
        for row in history:
            views = row.get("views")
            if views is None:
                continue
            seen = iso_instant(row.get("seen_at"))
            if seen is None:
                continue
            if seen <= start:
                before = views
            else:
                first = views if first is None else first
                last = views
        if last is None:
            continue  # nothing seen in the window
        base = before if before is not None else first
        yield {
            "id": post_id,
            "url": row.get("url"),
            "site": row.get("site"),
            "gain": last - base,
            "from": base,
            "to": last,
        }


def _trending(store: PostStore, start: datetime, limit: int) -> list[dict[str, Any]]:
    """The ``limit`` posts whose views grew most since ``start``, with their titles."""
    # Only the posts counted again since ``start`` can have gained (a registry's posts
    # counted once stay out of memory); compared as the store writes times: UTC, seconds.
    history = store.metrics(changed_after=start.astimezone(UTC).replace(microsecond=0).isoformat())
    gains = (gain for gain in view_gains(history, start) if gain["gain"] > 0)
    top = heapq.nlargest(limit, gains, key=itemgetter("gain"))
    titles = {post["id"]: post for post in store.posts_by_id([gain["id"] for gain in top])}
    trending = []
    for gain in top:
        post = titles.get(gain["id"], {})
        trending.append(
            {
                "title": post.get("title") or gain["url"] or gain["id"],
                "url": gain["url"] or post.get("url") or "",
                "site": gain["site"] or post.get("site") or "",
                "gain": gain["gain"],
                "from": gain["from"],
                "to": gain["to"],
            }
        )
    return trending


# -- the page --------------------------------------------------------------------------------


def _embedded_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``</script>`` or ``<!--`` can end it early."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def page_script() -> str:
    """The page's own script (no library): it builds every section from the embedded data."""
    return resources.files("crawler.outputs").joinpath(PAGE_SCRIPT).read_text(encoding="utf-8")


STYLE = """
:root{--ink:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#f6f8fa;--ok:#1a7f37;--warn:#bf8700;
--bad:#cf222e;--link:#0969da}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.55 system-ui,-apple-system,
"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC","WenQuanYi Micro Hei",
sans-serif}
header{background:#24292f;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px;font-weight:600}
header p{margin:2px 0 0;color:#d0d7de;font-size:13px}
main{max-width:1200px;margin:0 auto;padding:16px 24px 40px;display:grid;gap:16px;
grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 16px}
section.wide{grid-column:1/-1}
h2{font-size:16px;margin:0 0 8px}
h2 small{font-weight:400;color:var(--muted);font-size:12px;margin-left:6px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}
th{color:var(--muted);font-weight:500;font-size:12px;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;color:#fff;
white-space:nowrap}
.badge small{opacity:.8;margin-left:3px}
.ok{background:var(--ok)}.unhealthy{background:var(--warn)}.failed{background:var(--bad)}
.absent{background:#eaeef2;color:var(--muted)}
.zero{color:#b1bac4}.hot{color:var(--bad);font-weight:600}
ul.problems{margin:8px 0 0;padding-left:18px;color:var(--ink)}
ul.problems li{margin:2px 0;word-break:break-all}
details{margin:4px 0}summary{cursor:pointer;color:var(--muted)}
.strip{width:auto;min-width:50%}.strip th[scope=row]{padding-right:32px}
.strip td.cell{padding:3px 2px;text-align:center}
.strip span.cell{display:inline-block;width:26px;height:20px;border-radius:3px;color:#fff;
font-size:12px;line-height:20px}
.strip tr.broke th{color:var(--bad)}
.note{color:var(--muted);font-size:12px;margin:6px 0 0}
.filters{display:flex;gap:8px;margin:0 0 8px;flex-wrap:wrap;align-items:center}
.filters input{flex:1;min-width:160px;padding:5px 8px;border:1px solid var(--line);
border-radius:6px;font:inherit}
.filters select{padding:5px 8px;border:1px solid var(--line);border-radius:6px;font:inherit}
ol.posts{list-style:none;margin:0;padding:0;max-height:900px;overflow:auto}
ol.posts li{padding:7px 0;border-bottom:1px solid #eaeef2}
ol.posts .meta{color:var(--muted);font-size:12px}
ol.posts .sum{color:#424a53;font-size:13px;margin-top:2px}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:4px}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:var(--muted);margin-top:6px}
svg text{font-size:11px;fill:#656d76}
.empty{color:var(--muted);padding:8px 0}
@media (max-width:860px){main{grid-template-columns:minmax(0,1fr)}}
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>博客抓取报告</title>
<style>{style}</style>
</head>
<body>
<header><h1>博客抓取报告</h1><p id="subtitle">运行 {run_id}</p></header>
<noscript><p>这个页面需要 JavaScript 才能显示内容。</p></noscript>
<main id="report"></main>
<script type="application/json" id="report-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(data: Mapping[str, Any]) -> str:
    """The whole page: the template, the style, the data and the page's script."""
    script = page_script()
    # Nothing from outside (offline by construction), and only this page's own script and
    # style run: a title or URL in the data can never become markup or code.
    csp = (
        f"default-src 'none'; script-src {_csp_hash(script)}; style-src {_csp_hash(STYLE)};"
        " img-src data:; base-uri 'none'; form-action 'none'"
    )
    return TEMPLATE.format(
        csp=csp,
        style=STYLE,
        run_id=_escape_text(str(data.get("run_id", ""))),
        data=_embedded_json(data),
        script=script,
    )
