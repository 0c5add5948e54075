"""Crawl benchmark: the project's spiders against bare Scrapy spiders on synthetic sites.

Run ``python bench/bench_crawl.py`` (from anywhere: the project is the folder above bench/).
For each layout it serves a synthetic site (``bench/synthetic.py``, ``--pages`` list pages of
ten posts) on 127.0.0.1 and runs, alternately and each in a fresh process, ``--runs`` times each:

- the project: ``python -m scrapy crawl LAYOUT -a url=URL -O out.jsonl -s OUTPUT_DIR=<tmp>``
  from the project folder (loaders, dates, dedupe, the SQLite store, exports: a normal run,
  into a fresh output folder each time);
- the bare spider (``bench/bare_spiders.py``) with ``scrapy runspider`` from a folder without
  ``scrapy.cfg``, with the project's throughput settings passed as ``-s`` (same concurrency,
  AutoThrottle off and no delay as the project sets for loopback sites, same robots.txt rule,
  same feed fields, LOG_LEVEL INFO) and no pipelines or extensions.

Each child's own CPU time (user + sys), wall time and peak RSS come from ``os.wait4``. Both
outputs must hold the same posts (same URLs); other field differences are counted. It prints,
per layout, the medians, the CPU ratio project/bare (target ≤ 1.4×), pages/s, posts/s and
peak RSS, and the size of the project's SQLite store.

Options: ``--posts`` serves every post's own page too and compares the project as it runs by
default (post pages followed) with the bare spider following them (``-a posts=1``): CPU ratio
(target ≤ 1.3×), pages/s and the CPU one post page adds (without ``--posts`` the project runs
with ``-a content=0``: list pages only); ``--extract`` times each way of reading a post page
(µs); ``--scale`` also crawls 1× and 4× the pages with the project's spider and prints the
peak RSS ratio (target ≤ 1.3×); ``--store`` times ``SQLiteStore.seen`` on a million posts;
``--profile`` runs the project's and the bare crawl of a layout under cProfile and prints
where the time goes, side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
sys.path.insert(0, str(PROJECT))  # run as a script from anywhere
sys.path.insert(0, str(BENCH))

from synthetic import LAYOUTS, build_site, list_pages, page_kind, post_pages  # noqa: E402

from crawler import settings as project_settings  # noqa: E402
from crawler.devtools.samples.server import SiteServer  # noqa: E402
from crawler.sites import DEFAULT_MAX_PAGES, name_from_url  # noqa: E402

PYTHON = sys.executable
# Settings that shape a crawl's throughput, read from the project so the two runs stay equal.
THROUGHPUT_SETTINGS = (
    "USER_AGENT",
    "ROBOTSTXT_OBEY",
    "CONCURRENT_REQUESTS",
    "CONCURRENT_REQUESTS_PER_DOMAIN",
    "DOWNLOAD_TIMEOUT",
    "DOWNLOAD_MAXSIZE",
    "DOWNLOAD_WARNSIZE",
    "RETRY_TIMES",
    "RETRY_HTTP_CODES",
    "FEED_EXPORT_ENCODING",
    "FEED_EXPORT_FIELDS",
    "LOG_LEVEL",
    "TELNETCONSOLE_ENABLED",
    "REQUEST_FINGERPRINTER_IMPLEMENTATION",
    "TWISTED_REACTOR",
)
# What BlogSpider.from_crawler sets for a loopback site; the bare spider gets it as -s.
LOOPBACK_SETTINGS = {"AUTOTHROTTLE_ENABLED": False, "DOWNLOAD_DELAY": 0}
# Fields compared between the two outputs (crawled_at differs by nature, site is given).
COMPARED_FIELDS = (
    "id",
    "title",
    "summary",
    "author",
    "published_at",
    "date_precision",
    "published_raw",
    "category",
    "tags",
    "views",
    "comments",
    "likes",
    "site",
    "layout",
)


class BenchServer(SiteServer):
    """The sample server with a connection backlog for crawls that fetch post pages."""

    # socketserver's default backlog (5) overflows when a crawl opens several connections at
    # once (post pages): a dropped connection is retried by TCP after a second, which would
    # count as the crawl's wall time.
    request_queue_size = 128


def _setting_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def bare_settings() -> dict[str, str]:
    """The ``-s`` settings of a bare run: the project's throughput settings, loopback rules."""
    values = {name: getattr(project_settings, name) for name in THROUGHPUT_SETTINGS}
    values.update(LOOPBACK_SETTINGS)
    values["LOG_LEVEL"] = "INFO"
    return {name: _setting_value(value) for name, value in values.items()}


# ---- one child process --------------------------------------------------------------------


@dataclass
class Run:
    """One crawl in its own process and what it cost."""

    kind: str  # "project", "bare", "project-lists" or "bare-lists"
    layout: str
    pages: int  # list pages fetched (server hits, robots.txt not counted)
    posts: list[dict[str, Any]]
    cpu: float  # user + sys seconds
    user: float
    sys: float
    wall: float
    rss_mb: float  # the child's own peak RSS
    store_bytes: int | None = None
    post_pages: int = 0  # post pages fetched
    extra_pages: int = 0  # further pages of posts fetched (cnblogs' category/tag endpoint)

    @property
    def documents(self) -> int:
        """Every page fetched: list, post and extra pages."""
        return self.pages + self.post_pages + self.extra_pages

    @property
    def pages_per_s(self) -> float:
        return self.documents / self.wall if self.wall else 0.0

    @property
    def posts_per_s(self) -> float:
        return len(self.posts) / self.wall if self.wall else 0.0


# A tiny launcher between the benchmark and each crawl. Linux keeps a process's peak RSS across
# exec, and a child forked from this (large) benchmark process starts with this process's RSS;
# the launcher is small, so the crawl it spawns gets an honest peak. It waits for the crawl with
# os.wait4 and writes the crawl's own rusage and wall time as JSON to argv[1].
_LAUNCHER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    json.dump({"status": os.waitstatus_to_exitcode(status), "wall": wall,
               "user": usage.ru_utime, "sys": usage.ru_stime, "maxrss_kb": usage.ru_maxrss}, out)
"""


def run_child(
    command: Sequence[str], cwd: Path, log: Path, env: dict[str, str] | None = None
) -> tuple[float, float, float, float]:
    """Run ``command``; return (user, sys, wall seconds, peak RSS MB) of that process alone.

    The rusage is the crawl process's own, from ``os.wait4`` on its pid (in the launcher):
    ``RUSAGE_CHILDREN`` would sum every child so far and report the largest peak of any.
    """
    usage_file = log.with_suffix(".rusage.json")
    launcher = [PYTHON, "-I", "-S", "-c", _LAUNCHER, str(usage_file), *command]
    with log.open("wb") as out:
        subprocess.run(launcher, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=True)
    usage = json.loads(usage_file.read_text())
    if usage["status"] != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise RuntimeError(f"{' '.join(command)} exited with {usage['status']}:\n{tail}")
    return usage["user"], usage["sys"], usage["wall"], usage["maxrss_kb"] / 1024


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def content_argument() -> bool:
    """Whether the project's spiders take ``-a content=0`` (stay on list pages)."""
    from crawler.arguments import SpiderArguments

    return "content" in SpiderArguments.model_fields


def crawl_project(
    layout: str,
    server: SiteServer,
    pages: int,
    work: Path,
    extra: Sequence[str] = (),
    settings: Sequence[str] = (),
    posts: bool = False,
) -> Run:
    """The project's spider, as a normal ``scrapy crawl`` with a fresh OUTPUT_DIR (and
    ``settings``, ``NAME=VALUE`` each, to measure what a component costs). With ``posts``, as
    it runs by default (post pages followed); without, with ``-a content=0``: list pages only
    (a project without that argument reads list pages only anyway)."""
    work.mkdir(parents=True, exist_ok=True)
    out, output_dir = work / "project.jsonl", work / "output"
    command = [
        PYTHON,
        *extra,
        "-m",
        "scrapy",
        "crawl",
        layout,
        "-a",
        f"url={server.url()}",
        "-O",
        str(out),
        "-s",
        f"OUTPUT_DIR={output_dir}",
    ]
    if not posts and content_argument():
        command[command.index("-O") : command.index("-O")] = ["-a", "content=0"]
    for setting in settings:
        command += ["-s", setting]
    if pages > DEFAULT_MAX_PAGES:
        command[command.index("-O") : command.index("-O")] = ["-a", f"max_pages={pages}"]
    server.hits.clear()
    user, system, wall, rss = run_child(command, PROJECT, work / "project.log")
    store = output_dir / "posts.sqlite"
    store_bytes = sum(p.stat().st_size for p in output_dir.glob("posts.sqlite*"))
    return Run(
        "project",
        layout,
        *_hits(server, "list"),
        read_jsonl(out),
        user + system,
        user,
        system,
        wall,
        rss,
        store_bytes if store.exists() else None,
        *_hits(server, "post", "extra"),
    )


def crawl_bare(
    layout: str, server: SiteServer, work: Path, extra: Sequence[str] = (), posts: bool = False
) -> Run:
    """The bare spider, with ``scrapy runspider`` outside the project (no scrapy.cfg); with
    ``posts``, following each post's page (``-a posts=1``)."""
    work.mkdir(parents=True, exist_ok=True)
    out = work / "bare.jsonl"
    command = [
        PYTHON,
        *extra,
        "-m",
        "scrapy",
        "runspider",
        str(BENCH / "bare_spiders.py"),
        "-a",
        f"layout={layout}",
        "-a",
        f"url={server.url()}",
        "-a",
        f"site={name_from_url(server.url())}",
        "-a",
        f"posts={int(posts)}",
        "-O",
        str(out),
    ]
    for name, value in bare_settings().items():
        command += ["-s", f"{name}={value}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}
    server.hits.clear()
    user, system, wall, rss = run_child(command, work, work / "bare.log", env)
    return Run(
        "bare",
        layout,
        *_hits(server, "list"),
        read_jsonl(out),
        user + system,
        user,
        system,
        wall,
        rss,
        None,
        *_hits(server, "post", "extra"),
    )


def _hits(server: SiteServer, *kinds: str) -> list[int]:
    """Requests the server answered, robots.txt left out, per kind of page (in ``kinds``
    order): ``list``, ``post``, ``extra`` (see ``synthetic.page_kind``)."""
    paths = [path for path in server.hits if not path.startswith("/robots.txt")]
    return [sum(1 for path in paths if page_kind(path) == kind) for kind in kinds]


# ---- comparing outputs --------------------------------------------------------------------


# With post pages the project adds the page's tags and categories; the bare spider does not.
POST_PAGE_FIELDS = ("tags", "category")


def compare(project: Run, bare: Run, posts: bool = False) -> tuple[bool, dict[str, int]]:
    """Same posts (same URLs, each once)? And per field, how many posts differ (with
    ``posts``, the fields post pages add are left out, and ``content`` is counted where one
    side has a body and the other none)."""
    mine = {p["url"]: p for p in project.posts}
    theirs = {p["url"]: p for p in bare.posts}
    same = (
        len(project.posts) == len(bare.posts) == len(mine) == len(theirs)
        and mine.keys() == theirs.keys()
    )
    differences: dict[str, int] = defaultdict(int)
    fields = [f for f in COMPARED_FIELDS if not (posts and f in POST_PAGE_FIELDS)]
    for url in mine.keys() & theirs.keys():
        for name in fields:
            if mine[url].get(name) != theirs[url].get(name):
                differences[name] += 1
        if posts and bool(mine[url].get("content")) != bool(theirs[url].get("content")):
            differences["content (one side empty)"] += 1
    return same, dict(differences)


# ---- reports ------------------------------------------------------------------------------


@dataclass
class LayoutResult:
    """All runs of one layout."""

    layout: str
    pages: int
    project: list[Run] = field(default_factory=list)
    bare: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    differences: dict[str, int] = field(default_factory=dict)
    post_pages: int = 0  # post pages the site serves (0: a list-only comparison)
    # With post pages: the same crawls list-only, for the CPU a post page adds.
    project_lists: list[Run] = field(default_factory=list)
    bare_lists: list[Run] = field(default_factory=list)


def median(runs: Iterable[Run], attribute: str) -> float:
    return statistics.median(getattr(run, attribute) for run in runs)


def print_table(results: list[LayoutResult]) -> None:
    header = (
        f"{'layout':8} {'pages':>5} {'posts':>5} | {'CPU s proj':>10} {'bare':>6} {'ratio':>6} |"
        f" {'wall s proj':>11} {'bare':>5} | {'pages/s proj':>12} {'bare':>5} |"
        f" {'posts/s proj':>12} {'bare':>6} | {'RSS MB proj':>11} {'bare':>5}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        p, b = r.project, r.bare
        ratio = median(p, "cpu") / median(b, "cpu")
        print(
            f"{r.layout:8} {r.pages:5d} {len(p[0].posts):5d} |"
            f" {median(p, 'cpu'):10.2f} {median(b, 'cpu'):6.2f} {ratio:5.2f}× |"
            f" {median(p, 'wall'):11.2f} {median(b, 'wall'):5.2f} |"
            f" {median(p, 'pages_per_s'):12.0f} {median(b, 'pages_per_s'):5.0f} |"
            f" {median(p, 'posts_per_s'):12.0f} {median(b, 'posts_per_s'):6.0f} |"
            f" {median(p, 'rss_mb'):11.0f} {median(b, 'rss_mb'):5.0f}"
        )
    print()
    for r in results:
        cpu_p = ", ".join(f"{run.cpu:.2f}" for run in r.project)
        cpu_b = ", ".join(f"{run.cpu:.2f}" for run in r.bare)
        user_sys = f"user {median(r.project, 'user'):.2f} sys {median(r.project, 'sys'):.2f}"
        best = min(run.cpu for run in r.project) / min(run.cpu for run in r.bare)
        store = statistics.median(run.store_bytes or 0 for run in r.project) / 1e6
        print(
            f"{r.layout}: CPU s per run: project [{cpu_p}] ({user_sys}); bare [{cpu_b}];"
            f" ratio of the fastest runs {best:.2f}×"
        )
        print(f"{r.layout}: SQLite store after the run: {store:.2f} MB (posts.sqlite + WAL)")
        if r.differences:
            print(f"{r.layout}: posts whose fields differ (project vs bare): {r.differences}")
        for problem in r.problems:
            print(f"{r.layout}: PROBLEM: {problem}")
    print()


def _per_post_page(runs: list[Run], lists: list[Run], post_pages: int) -> str:
    """ms of CPU a post page adds: the crawls' median CPU minus their list-only crawls', per
    post page; ``n/a`` when a list-only crawl read post pages (it did not stay on lists)."""
    if any(run.post_pages for run in lists):
        return "n/a"
    return f"{(median(runs, 'cpu') - median(lists, 'cpu')) / post_pages * 1e3:.2f}"


def print_posts_table(results: list[LayoutResult]) -> None:
    """The comparison with post pages: CPU ratio (target ≤ 1.3×), documents per second, and
    (with the list-only rounds) the CPU one post page adds to each crawl."""
    header = (
        f"{'layout':8} {'lists':>5} {'posts':>5} {'extra':>5} | {'CPU s proj':>10} {'bare':>6}"
        f" {'ratio':>6} | {'wall s proj':>11} {'bare':>5} | {'pages/s proj':>12} {'bare':>5} |"
        f" {'RSS MB proj':>11} {'bare':>5} | {'ms CPU/post page proj':>21} {'bare':>5}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        p, b = r.project, r.bare
        ratio = median(p, "cpu") / median(b, "cpu")
        per_page = ""
        if r.project_lists and r.post_pages:
            costs = [
                _per_post_page(p, r.project_lists, r.post_pages),
                _per_post_page(b, r.bare_lists, r.post_pages),
            ]
            per_page = f"{costs[0]:>21} {costs[1]:>5}"
        print(
            f"{r.layout:8} {r.pages:5d} {median(p, 'post_pages'):5.0f}"
            f" {median(p, 'extra_pages'):5.0f} |"
            f" {median(p, 'cpu'):10.2f} {median(b, 'cpu'):6.2f} {ratio:5.2f}× |"
            f" {median(p, 'wall'):11.2f} {median(b, 'wall'):5.2f} |"
            f" {median(p, 'pages_per_s'):12.0f} {median(b, 'pages_per_s'):5.0f} |"
            f" {median(p, 'rss_mb'):11.0f} {median(b, 'rss_mb'):5.0f} | {per_page}"
        )
    print(
        "\n(pages/s: list + post + extra pages per wall second; ms CPU/post page: the crawl's CPU"
        " minus its list-only crawl's, per post page, medians; target: ratio ≤ 1.3×)\n"
    )
    for r in results:
        cpu_p = ", ".join(f"{run.cpu:.2f}" for run in r.project)
        cpu_b = ", ".join(f"{run.cpu:.2f}" for run in r.bare)
        best = min(run.cpu for run in r.project) / min(run.cpu for run in r.bare)
        print(
            f"{r.layout}: CPU s per run: project [{cpu_p}]; bare [{cpu_b}]; ratio of the fastest"
            f" runs {best:.2f}×"
        )
        if r.project_lists:
            lists_p = ", ".join(f"{run.cpu:.2f}" for run in r.project_lists)
            lists_b = ", ".join(f"{run.cpu:.2f}" for run in r.bare_lists)
            print(
                f"{r.layout}: list pages only, CPU s per run: project [{lists_p}]; bare [{lists_b}]"
            )
        budget = median(r.bare, "cpu") * 0.3 / max(1, r.post_pages) * 1e3
        print(
            f"{r.layout}: at 1.3× the project may spend {budget:.2f} ms of CPU per post page"
            " more than the bare spider (list pages, start-up and exports included)"
        )
        with_content = [sum(1 for post in run.posts if post.get("content")) for run in r.project]
        print(
            f"{r.layout}: posts with content: project {min(with_content)}, bare"
            f" {min(sum(1 for post in run.posts if post.get('content')) for run in r.bare)}"
            f" (of {len(r.project[0].posts)})"
        )
        if r.differences:
            print(f"{r.layout}: posts whose fields differ (project vs bare): {r.differences}")
        for problem in r.problems:
            print(f"{r.layout}: PROBLEM: {problem}")
    print()


def bench_layout(
    layout: str,
    pages: int,
    runs: int,
    work: Path,
    feed_mode: str,
    settings: Sequence[str] = (),
    posts: bool = False,
    marginal: bool = True,
) -> LayoutResult:
    """``runs`` project and bare crawls of one synthetic site, alternating, fresh processes.

    With ``posts``: the site serves every post's page, the project runs as by default and the
    bare spider follows post pages too; with ``marginal``, each round also crawls the list
    pages only, both ways, for the CPU one post page adds."""
    site = build_site(layout, pages, feed_mode, posts=posts)
    result = LayoutResult(layout, list_pages(site), post_pages=post_pages(site))
    kinds = ["project", "bare"]
    if posts and marginal:
        kinds += ["project-lists", "bare-lists"]
    server = BenchServer(site).start()
    try:
        for i in range(runs):
            order = kinds if i % 2 == 0 else kinds[::-1]
            pair: dict[str, Run] = {}
            for kind in order:
                where = work / layout / f"{kind}-{i}"
                with_posts = posts and not kind.endswith("-lists")
                if kind.startswith("project"):
                    pair[kind] = crawl_project(
                        layout, server, pages, where, settings=settings, posts=with_posts
                    )
                else:
                    pair[kind] = crawl_bare(layout, server, where, posts=with_posts)
                run = pair[kind]
                fetched = f"{run.pages}"
                if run.post_pages or run.extra_pages:
                    fetched = f"{run.pages} list + {run.post_pages} post + {run.extra_pages} extra"
                print(
                    f"  {layout:8} {kind:13} run {i + 1}: {run.cpu:6.2f} s CPU, {run.wall:6.2f} s"
                    f" wall, {fetched} pages, {len(run.posts)} posts, {run.rss_mb:.0f} MB",
                    flush=True,
                )
            result.project.append(pair["project"])
            result.bare.append(pair["bare"])
            if "project-lists" in pair:
                result.project_lists.append(pair["project-lists"])
                result.bare_lists.append(pair["bare-lists"])
            same, differences = compare(pair["project"], pair["bare"], posts)
            if not same:
                result.problems.append(
                    f"run {i + 1}: project {len(pair['project'].posts)} posts, bare "
                    f"{len(pair['bare'].posts)} posts, or different URLs"
                )
            result.differences = differences
            for kind, run in pair.items():
                if run.pages != result.pages:
                    result.problems.append(f"run {i + 1}: {kind} fetched {run.pages} list pages")
                wanted = result.post_pages if posts and not kind.endswith("-lists") else 0
                if run.post_pages != wanted:
                    result.problems.append(
                        f"run {i + 1}: {kind} fetched {run.post_pages} post pages, not {wanted}"
                    )
    finally:
        server.stop()
    return result


def bench_scale(
    layouts: Sequence[str], pages: int, work: Path, feed_mode: str, posts: bool = False
) -> None:
    """Peak RSS of the project's crawl on 1× and 4× the pages (with ``posts``, post pages)."""
    print(f"Memory scaling of the project's spider ({pages} and {pages * 4} pages):")
    for layout in layouts:
        peaks = []
        for factor in (1, 4):
            site = build_site(layout, pages * factor, feed_mode, posts=posts)
            server = BenchServer(site).start()
            try:
                run = crawl_project(
                    layout,
                    server,
                    pages * factor,
                    work / "scale" / f"{layout}-{factor}",
                    posts=posts,
                )
            finally:
                server.stop()
            peaks.append(run)
        one, four = peaks
        print(
            f"  {layout:8} {one.rss_mb:6.0f} MB at {one.pages} pages, {four.rss_mb:6.0f} MB at"
            f" {four.pages} pages: ratio {four.rss_mb / one.rss_mb:.2f}× (target ≤ 1.3×);"
            f" CPU {one.cpu:.1f} s → {four.cpu:.1f} s; store {(four.store_bytes or 0) / 1e6:.1f} MB"
        )
    print()


# ---- store micro-benchmark ----------------------------------------------------------------


def bench_store(posts: int, lookups: int, work: Path) -> None:
    """Fill a SQLiteStore with ``posts`` posts; time ``seen()``, ``record()`` and an export scan.

    The first 20,000 posts go through ``record()``; the rest are rows of the same shape
    bulk-inserted through the store's own connection (``store.db``), which is much faster.
    Ids are real post ids (SHA-1 of the URL), so they land in the index in random order.
    """
    from itertools import islice

    from scrapy.settings import Settings

    from crawler.items import POST_FIELDS
    from crawler.outputs.dataset import export_rows
    from crawler.parsing.processors import post_id
    from crawler.store.records import NEW, fingerprint, sort_instant
    from crawler.store.sqlite import SQLiteStore

    path = work / "store" / "posts.sqlite"
    store = SQLiteStore(path)
    rng = random.Random(7)
    summary = "分布式训练的工程实践：从通信、显存到调度，一步步把吞吐量提上去。" * 5
    run = "20261130T101500Z-1"

    def item(n: int) -> dict[str, Any]:
        url = f"https://www.cnblogs.com/user{n % 5000}/p/{19_000_000 + n}"
        return {
            "id": post_id(url),
            "url": url,
            "title": f"第{n}篇：大模型训练性能调优笔记",
            "summary": summary,
            "author": f"user{n % 5000}",
            "published_at": f"2026-09-{1 + n % 28:02d}T20:12:00+08:00",
            "date_precision": "minute",
            "published_raw": f"2026-09-{1 + n % 28:02d} 20:12",
            "category": None,
            "tags": [],
            "views": n % 997,
            "comments": n % 7,
            "likes": n % 11,
            "site": f"site{n % 50}",
            "layout": "cnblogs",
            "crawled_at": "2026-11-30T02:15:00+00:00",
        }

    recorded = min(posts, 20_000)
    start = time.perf_counter()
    for n in range(recorded):
        store.record(item(n), run)
    store.flush()
    per_record = (time.perf_counter() - start) / recorded * 1e6
    start = time.perf_counter()
    insert = (
        "INSERT INTO posts (id, site, published_utc, fingerprint, data, first_seen, last_seen,"
        " first_run, last_run, change, change_run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    batch: list[tuple[Any, ...]] = []
    for n in range(recorded, posts):
        data = item(n)
        now = data["crawled_at"]
        batch.append(
            (
                data["id"],
                data["site"],
                sort_instant(data["published_at"]),
                fingerprint(data),
                json.dumps(data, ensure_ascii=False),
                now,
                now,
                run,
                run,
                NEW,
                run,
            )
        )
        if len(batch) == 50_000:
            store.db.executemany(insert, batch)
            batch.clear()
    if batch:
        store.db.executemany(insert, batch)
    store.flush()
    bulk = time.perf_counter() - start
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    print(
        f"Store micro-benchmark: {posts:,} posts ({recorded:,} through record() at "
        f"{per_record:.0f} µs each; {posts - recorded:,} bulk-inserted through store.db in "
        f"{bulk:.1f} s)"
    )

    store = SQLiteStore(path)  # a fresh connection, as a new crawl process has
    present = [item(rng.randrange(posts))["id"] for _ in range(lookups // 2)]
    absent = [item(posts + rng.randrange(posts))["id"] for _ in range(lookups - lookups // 2)]
    ids = present + absent
    rng.shuffle(ids)
    for which in ("new connection", "second pass"):
        start = time.perf_counter()
        found = sum(store.seen(post_id) for post_id in ids)
        per_lookup = (time.perf_counter() - start) / len(ids) * 1e6
        print(
            f"  seen(): {per_lookup:.1f} µs per lookup, {len(ids):,} random ids, {found:,} present"
            f" ({which}; target < 50 µs)"
        )
    cases = (
        ("new posts", range(posts, posts + 2_000)),
        ("known, unchanged", range(0, posts, max(1, posts // 2_000))),
    )
    for label, numbers in cases:
        batch_items = [item(n) for n in numbers]
        start = time.perf_counter()
        for data in batch_items:
            store.record(data, "20261201T101500Z-2")
        store.flush()
        per = (time.perf_counter() - start) / len(batch_items) * 1e6
        print(f"  record() on the full store, {label}: {per:.0f} µs per post")
    size = store.size_bytes()
    fingerprints = store.db.execute("SELECT SUM(LENGTH(CAST(fingerprint AS BLOB))) FROM posts")
    print(
        f"  store file: {size / 1e6:.0f} MB, {size / posts:.0f} B/post (of which the fingerprint"
        f" column {fingerprints.fetchone()[0] / posts:.0f} B/post)"
    )
    # The consolidated export rewrites every stored post on every run: time a sample of it.
    settings = Settings()
    settings.setmodule(project_settings)
    sample = 20_000
    start = time.perf_counter()
    rows = store.posts()
    first = next(rows)
    to_first = time.perf_counter() - start
    per_row = 0.0
    for fmt in ("jsonl", "csv"):
        start = time.perf_counter()
        export_rows(
            {work / "store" / f"sample.{fmt}": fmt},
            islice(store.posts(), sample),
            POST_FIELDS,
            settings,
        )
        per_row += (time.perf_counter() - start - to_first) / sample
    print(
        f"  store.posts(): {to_first:.1f} s to the first row (sort), then posts.jsonl + posts.csv"
        f" cost {per_row * 1e6:.0f} µs per post: a consolidated export of this store takes"
        f" ≈ {to_first * 2 + per_row * posts:.0f} s (+ the delta), after every crawl"
    )
    del first, rows
    store.close()
    print()


# ---- post extraction micro-benchmark ------------------------------------------------------


def _extract_ways(layout: str) -> list[tuple[str, Callable[[Any], Any]]]:
    """The ways of reading a post page of ``layout`` that ``bench_extract`` times."""
    from bare_spiders import BODY_CSS, body_text, squash

    from crawler.layouts import get_layout
    from crawler.layouts.base import body_selectors
    from crawler.parsing.markdown import body_markdown, main_text

    spec = get_layout(layout)
    selectors, body_css = body_selectors(), BODY_CSS[layout]
    ways: list[tuple[str, Callable[[Any], Any]]] = [("layout: read_post()", spec.read_post)]
    post_body = spec.post_body
    if post_body:
        chrome = spec.post_chrome
        ways.append(
            (
                f"layout: body_markdown({post_body!r})",
                lambda r: body_markdown(r.css(post_body)[0], r.url, chrome),
            )
        )
    ways += [
        ("fallback: main_text(every post_body)", lambda r: main_text(r.selector, r.url, selectors)),
        ("fallback: main_text(trafilatura only)", lambda r: main_text(r.selector, r.url, ())),
        (f"bare: {body_css!r} string() (the bare spider)", lambda r: body_text(r, layout)),
        (
            f"bare: '{body_css} ::text' joined",
            lambda r: squash(" ".join(r.css(f"{body_css} ::text").getall())),
        ),
    ]
    return ways


def bench_extract(layouts: Sequence[str], samples: int, repeats: int) -> None:
    """µs of CPU per synthetic post page for each way of reading its body (median of
    ``samples`` pages × ``repeats``), on a page already parsed (the parse is timed apart):
    the layout's path (``read_post`` when the layout has it, and ``body_markdown`` of its
    ``post_body``), the fallback (``main_text``: every layout's ``post_body``, then
    trafilatura), trafilatura alone, and the bare spider's one selector (its ``string()``, and
    ``::text`` nodes joined for comparison)."""
    import trafilatura  # noqa: F401 -- its import (about a second) is not an extraction's cost
    from parsel import Selector
    from scrapy.http import HtmlResponse

    print(
        f"Post extraction, µs of CPU per post page (median of {samples} pages × {repeats};"
        " the page parsed beforehand, parsing timed apart):"
    )
    for layout in layouts:
        site = build_site(layout, max(1, -(-samples // 10)), posts=True)
        pages = sorted(
            (site.origin + path, route.body)
            for path, route in site.routes.items()
            if page_kind(path) == "post"
        )[:samples]
        size = statistics.median(len(body) for _, body in pages) / 1e3
        print(f"  {layout} ({len(pages)} post pages, median {size:.1f} KB):")
        parse: list[float] = []
        for _ in range(repeats):
            for _url, body in pages:
                start = time.process_time_ns()
                Selector(text=body.decode("utf-8"), type="html").css("title")
                parse.append((time.process_time_ns() - start) / 1e3)
        label = "parse (lxml, once a page, any reader)"
        print(f"    {label:58} {statistics.median(parse):8.0f} µs")
        for label, read in _extract_ways(layout):
            times: list[float] = []
            result: Any = None
            for _ in range(repeats):
                for url, body in pages:
                    response = HtmlResponse(url, body=body, encoding="utf-8")
                    _ = response.selector.root  # parsed outside the timing
                    start = time.process_time_ns()
                    result = read(response)
                    times.append((time.process_time_ns() - start) / 1e3)
            print(f"    {label:58} {statistics.median(times):8.0f} µs   {_describe(result)}")
    print()


def _describe(result: Any) -> str:
    """What one reading gave, in a few words (the last page's)."""
    if isinstance(result, str):
        return f"{len(result)} characters of text"
    if isinstance(result, tuple):  # main_text: (PostBody | None, method)
        body, method = result
        return f"by {method}: {len(body.markdown)} characters of Markdown" if body else "nothing"
    fields = getattr(result, "fields", None)
    if isinstance(fields, dict):  # PostPage
        return (
            f"by {getattr(result, 'method', None)}: {len(fields.get('content') or '')}"
            f" characters of Markdown, {fields.get('word_count')} words"
        )
    markdown = getattr(result, "markdown", None)
    if markdown is not None:
        return f"{len(markdown)} characters of Markdown, {result.word_count} words"
    return type(result).__name__


# ---- profile ------------------------------------------------------------------------------

# Module path fragments -> group, first match wins.
PROFILE_GROUPS = (
    ("crawler/parsing/dates.py", "dates"),
    ("crawler/parsing/date_tables", "dates"),
    ("dateparser", "dates"),
    ("crawler/parsing/processors.py", "our processors + loader"),
    ("crawler/parsing/loaders.py", "our processors + loader"),
    ("crawler/spiders", "our spiders"),
    ("crawler/store/", "store (SQLite)"),
    ("crawler/pipelines/store.py", "store (SQLite)"),
    ("sqlite3", "store (SQLite)"),
    ("crawler/outputs/dataset.py", "exporters"),
    ("crawler/outputs/exporters.py", "exporters"),
    ("scrapy/exporters.py", "exporters"),
    ("scrapy/extensions/feedexport.py", "exporters"),
    ("json/", "exporters"),
    ("csv", "exporters"),
    ("crawler/outputs/atom.py", "Atom feeds"),
    ("feedgen", "Atom feeds"),
    ("markdown_it", "Atom feeds"),
    ("crawler/outputs/report.py", "report page"),
    ("crawler/parsing/markdown.py", "post content (Markdown)"),
    ("html_to_markdown", "post content (Markdown)"),
    ("trafilatura", "trafilatura (fallback)"),
    ("crawler/", "our pipelines, middlewares, extensions"),
    ("itemloaders", "itemloaders + itemadapter"),
    ("scrapy/loader", "itemloaders + itemadapter"),
    ("itemadapter", "itemloaders + itemadapter"),
    ("parsel", "parsel/lxml (+ Scrapy Selector)"),
    ("lxml", "parsel/lxml (+ Scrapy Selector)"),
    ("cssselect", "parsel/lxml (+ Scrapy Selector)"),
    ("scrapy/selector", "parsel/lxml (+ Scrapy Selector)"),
    ("w3lib", "w3lib (URLs, HTML, encodings)"),
    ("pydantic", "pydantic (arguments)"),
    ("scrapy/", "Scrapy/Twisted/asyncio core"),
    ("twisted", "Scrapy/Twisted/asyncio core"),
    ("asyncio", "Scrapy/Twisted/asyncio core"),
    ("selectors.py", "Scrapy/Twisted/asyncio core"),
    ("aiohttp", "Scrapy/Twisted/asyncio core"),
    ("<frozen importlib", "imports"),
    ("importlib", "imports"),
)
# C functions (file "~"), by a fragment of their name.
C_GROUPS = (
    ("lxml", "parsel/lxml (+ Scrapy Selector)"),
    ("sqlite3", "store (SQLite)"),
    ("re.Pattern", "regular expressions (C)"),
    ("json", "exporters"),
    ("_csv", "exporters"),
    ("posix", "imports"),
    ("marshal", "imports"),
    ("select.epoll", "Scrapy/Twisted/asyncio core"),
    ("_socket", "Scrapy/Twisted/asyncio core"),
)
# Phases by their entry point (file fragment, function): cumulative time, they may nest.
PROFILE_PHASES = (
    ("spider: parse() of list pages", "crawler/spiders/blogs.py", "parse"),
    ("  extract(): selectors + loader", "crawler/layouts/base.py", "extract"),
    ("    populate() (layout hook)", "crawler/layouts/", "populate"),
    ("    PostLoader.add_value", "crawler/parsing/loaders.py", "add_value"),
    ("    PostLoader.load_item", "crawler/parsing/loaders.py", "load_item"),
    ("  incremental middleware", "crawler/incremental/middleware.py", "_list_page"),
    ("    stored post (posts_by_id)", "crawler/store/sqlite.py", "posts_by_id"),
    ("    remember_page()", "crawler/store/sqlite.py", "remember_page"),
    ("spider: parse_post() of post pages", "crawler/spiders/blogs.py", "parse_post"),
    ("  read_post()", "crawler/layouts/base.py", "read_post"),
    ("    body_markdown()", "crawler/parsing/markdown.py", "body_markdown"),
    ("    main_text() (fallback)", "crawler/parsing/markdown.py", "main_text"),
    ("spider: parse_post_extra()", "crawler/spiders/blogs.py", "parse_post_extra"),
    ("HTML/XML parsing (create_root_node)", "parsel/selector.py", "create_root_node"),
    ("pipeline: validate", "crawler/pipelines/validate.py", "process_item"),
    ("pipeline: dates", "crawler/pipelines/dates.py", "process_item"),
    ("pipeline: dedupe", "crawler/pipelines/dedupe.py", "process_item"),
    ("pipeline: store (record)", "crawler/pipelines/store.py", "process_item"),
    ("-O feed export (item_scraped)", "scrapy/extensions/feedexport.py", "item_scraped"),
    ("outputs (publish_outputs)", "crawler/runs/publish.py", "publish_outputs"),
    ("  dataset (write_dataset)", "crawler/outputs/dataset.py", "write_dataset"),
    ("  Atom feeds (write_feeds)", "crawler/outputs/atom.py", "write_feeds"),
    ("  report page (write_report)", "crawler/outputs/report.py", "write_report"),
    ("run summary", "crawler/extensions/summary.py", "spider_closed"),
    (
        "downloader middlewares (response)",
        "scrapy/core/downloader/middleware.py",
        "_process_response",
    ),
    ("encoding middleware", "crawler/middlewares/encoding.py", "process_response"),
)


def _group(filename: str, function: str) -> str:
    if filename == "~":  # a C function, named like <method 'xpath' of 'lxml.etree...'>
        for fragment, group in C_GROUPS:
            if fragment in function:
                return group
        return "other builtins"
    for fragment, group in PROFILE_GROUPS:
        if fragment in filename:
            return group
    return "other Python"


def _short(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    if filename == "~":
        return function
    for marker in ("site-packages/", f"{PROJECT}/", "lib/python3.11/"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
    return f"{filename}:{line}({function})"


def _group_times(raw: dict[Any, Any]) -> dict[str, float]:
    groups: dict[str, float] = defaultdict(float)
    for (filename, _, function), (_, _, tottime, _, _) in raw.items():
        groups[_group(filename, function)] += tottime
    return groups


def summarise_profile(path: Path, bare_path: Path, top: int = 25) -> None:
    """Self time per group (next to the bare spider's), phases by cumulative time, the top
    functions by cumulative and self time."""
    raw: dict[Any, Any] = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    bare: dict[Any, Any] = pstats.Stats(str(bare_path)).stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    bare_total = sum(entry[2] for entry in bare.values())
    groups, bare_groups = _group_times(raw), _group_times(bare)
    print(
        f"Self time by group (total {total:.2f} s of profiled CPU; the bare spider's"
        f" {bare_total:.2f} s):"
    )
    print(f"  {'':40} {'project':>9} {'share':>7} {'bare':>8}")
    for group, seconds in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {group:40} {seconds:7.2f} s {seconds / total:6.1%} {bare_groups[group]:6.2f} s")

    print("\nPhases, by the cumulative time of their entry point (nested ones indented):")
    for label, fragment, function in PROFILE_PHASES:
        entries = [v for (f, _, fn), v in raw.items() if fragment in f and fn == function]
        if entries:
            seconds = sum(entry[3] for entry in entries)
            calls = sum(entry[1] for entry in entries)
            print(f"  {label:40} {seconds:6.2f} s  {seconds / total:6.1%}  {calls:8d} calls")

    for title, index in (("cumulative", 3), ("self", 2)):
        print(f"\nTop {top} functions by {title} time (event-loop wrappers left out):")
        ranked = sorted(raw.items(), key=lambda kv: -kv[1][index])
        shown = 0
        for key, (_, calls, tottime, cumtime, _) in ranked:
            if index == 3 and (cumtime > 0.6 * total or "scrapy/utils/" in key[0]):
                continue  # the reactor loop, runpy, deferred/async plumbing: all of it
            print(f"  {cumtime:6.2f} cum {tottime:6.2f} self {calls:8d} calls  {_short(key)[:100]}")
            shown += 1
            if shown == top:
                break
    print()


def _profiled(path: Path) -> list[str]:
    return ["-m", "cProfile", "-o", str(path)]


def bench_profile(
    pages: int,
    work: Path,
    output: Path | None,
    feed_mode: str,
    layout: str = "cnblogs",
    posts: bool = False,
) -> None:
    """The project's and the bare crawls of one layout under cProfile (with ``posts``, both
    reading post pages); prints the summary."""
    profile = output or work / f"{layout}.prof"
    bare_profile = profile.with_name(profile.stem + ".bare.prof")
    site = build_site(layout, pages, feed_mode, posts=posts)
    server = BenchServer(site).start()
    try:
        run = crawl_project(
            layout, server, pages, work / "profile", _profiled(profile), posts=posts
        )
        bare = crawl_bare(
            layout, server, work / "profile-bare", _profiled(bare_profile), posts=posts
        )
    finally:
        server.stop()
    print(
        f"Profile of `scrapy crawl {layout}` on {run.documents} pages, {len(run.posts)} posts:"
        f" {run.cpu:.2f} s CPU under cProfile ({profile}); the bare spider: {bare.cpu:.2f} s"
        f" ({bare_profile})"
    )
    summarise_profile(profile, bare_profile)


# ---- main ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300, help="list pages per site (300)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each spider (3)")
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated layouts")
    parser.add_argument(
        "--feed-mode",
        choices=("paged", "single"),
        default="paged",
        help="feed site: RFC 5005 paged feed (default) or one big feed",
    )
    parser.add_argument("--scale", action="store_true", help="also RSS at 1× and 4× the pages")
    parser.add_argument("--store", action="store_true", help="also the store micro-benchmark")
    parser.add_argument("--store-posts", type=int, default=1_000_000)
    parser.add_argument("--profile", action="store_true", help="also profile a crawl")
    parser.add_argument("--profile-layout", default="cnblogs", help="the layout to profile")
    parser.add_argument("--profile-out", type=Path, help="where to keep the .prof file")
    parser.add_argument(
        "--only",
        action="store_true",
        help="skip the project/bare comparison (with --scale/--store/--profile/--extract)",
    )
    parser.add_argument(
        "--posts",
        action="store_true",
        help="sites with post pages: the project as it runs by default against the bare spider"
        " following post pages (target ≤ 1.3×); without it, list pages only (content=0)",
    )
    parser.add_argument(
        "--no-marginal",
        dest="marginal",
        action="store_false",
        help="with --posts: skip the list-only crawls that price one post page",
    )
    parser.add_argument(
        "--extract", action="store_true", help="also the post extraction micro-benchmark"
    )
    parser.add_argument("--extract-pages", type=int, default=20, help="post pages (20)")
    parser.add_argument("--extract-repeats", type=int, default=5, help="passes over them (5)")
    parser.add_argument("--keep", type=Path, help="keep outputs and logs in this folder")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Scrapy setting for the project's crawls (repeatable), e.g. to measure what a"
        " component costs: --set POST_STORE_ENABLED=False",
    )
    args = parser.parse_args(argv)
    layouts = [name.strip() for name in args.layouts.split(",") if name.strip()]
    unknown = set(layouts) - set(LAYOUTS)
    if unknown:
        parser.error(f"unknown layouts: {', '.join(sorted(unknown))}")

    with tempfile.TemporaryDirectory(prefix="bench-crawl-") as tmp:
        work = args.keep or Path(tmp)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, work folder {work}\n")
        if not args.only:
            results = []
            what = "list pages and their post pages" if args.posts else "list pages"
            for layout in layouts:
                print(f"{layout}: {args.pages} {what}, {args.runs} runs each", flush=True)
                results.append(
                    bench_layout(
                        layout,
                        args.pages,
                        args.runs,
                        work,
                        args.feed_mode,
                        args.set,
                        args.posts,
                        args.marginal,
                    )
                )
            print()
            (print_posts_table if args.posts else print_table)(results)
        if args.extract:
            bench_extract(layouts, args.extract_pages, args.extract_repeats)
        if args.scale:
            bench_scale(layouts, args.pages, work, args.feed_mode, args.posts)
        if args.store:
            bench_store(args.store_posts, 10_000, work)
        if args.profile:
            bench_profile(
                args.pages,
                work,
                args.profile_out,
                args.feed_mode,
                args.profile_layout,
                args.posts,
            )


if __name__ == "__main__":
    main()
