"""Registry benchmark: how ``scrapy crawlall`` behaves with many blogs in the registry.

Run ``python bench/bench_registry.py`` (from anywhere; both scenarios unless one is picked).
Every blog is a synthetic cnblogs blog (``bench/synthetic.py``) renamed to ``/blogN/``, all of
them served by one server on 127.0.0.1, with a robots.txt that allows everything. Each crawl is
``python -m scrapy crawlall -s SITE_REGISTRY=<generated TOML> -s OUTPUT_DIR=<folder>`` in its
own process, from the project folder.

- ``--politeness``: ``--blogs`` blogs (40) of ``--pages`` list pages (1) on one host, with
  ``-s THROTTLE_LOOPBACK=1`` (politeness as for a real site). The server answers each request
  after ``--delay`` seconds and records when each arrived and finished. Reported: the peak
  number of requests in flight on the host, the number of requests, the mean interval between
  request starts ((last − first) / (n − 1)), and the posts in ``posts.jsonl``. Targets (issue
  11): at most 2 requests at once, on average no faster than one request per 0.25 s, every
  post exported.
- ``--scale``: ``--scale-blogs`` blogs (400) of ``--scale-pages`` list pages (3), politeness off
  (the default on loopback); the server sends ETag and Last-Modified and answers
  ``If-None-Match`` / ``If-Modified-Since`` with 304. Two crawls into the same output folder;
  per crawl: CPU (user + sys), peak RSS, wall time, exit status, requests, 304s and posts in
  ``posts.jsonl``, and the second crawl's CPU as a share of the first's. Targets (issue 11):
  first crawl ≤ 200 MB peak RSS, unchanged second crawl ≤ 25 % of the first's CPU, every post
  in the dataset both times, exit 0 both times.

``--runs N`` repeats each scenario and reports medians; ``--out FILE`` writes the results as
JSON; ``--project DIR`` runs the crawls in another checkout (an older commit, for a baseline)
with this checkout's pages and server. A checkout whose ``crawlall`` reads ``SITE_REGISTRY``
crawls the whole generated registry; an older one is given every blog with ``--site`` (and
stops with "unknown site" instead of crawling its packaged registry).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
sys.path.insert(0, str(PROJECT))  # run as a script from anywhere
sys.path.insert(0, str(BENCH))

from bench_crawl import _LAUNCHER, PYTHON, read_jsonl  # noqa: E402
from synthetic import CNBLOGS_APP, CNBLOGS_ORIGIN, POSTS_PER_PAGE, cnblogs_site  # noqa: E402

from crawler.devtools.samples.server import _SAMPLE_MTIME, Route, Site, SiteServer, _Handler  # noqa: E402

ROBOTS = Route(body=b"User-agent: *\nAllow: /\n", content_type="text/plain; charset=utf-8")
# Issue 11's targets.
MAX_IN_FLIGHT = 2
MIN_MEAN_INTERVAL = 0.25  # seconds between request starts, on average
MAX_FIRST_RSS_MB = 200.0
MAX_SECOND_CPU_SHARE = 0.25
# Issue 19's, one step up: from this many blogs an unchanged second crawl is mostly its 304s.
MANY_BLOGS = 10_000
MAX_SECOND_CPU_SHARE_MANY = 0.15


# ---- the blogs and their server -------------------------------------------------------------


def blog_name(number: int) -> str:
    return f"blog{number}"


def blogs_site(blogs: int, pages: int) -> Site:
    """``blogs`` cnblogs blogs on one host, ``/blog1/`` …, each ``pages`` list pages of ten
    posts (its own seed, so its own posts), plus ``/robots.txt``."""
    routes: dict[str, Route] = {"/robots.txt": ROBOTS}
    app = CNBLOGS_APP.encode()
    for number in range(1, blogs + 1):
        name = blog_name(number)
        # The synthetic blog is named after CNBLOGS_APP in its paths, links and chrome.
        for path, route in cnblogs_site(pages, seed=number).routes.items():
            key = path.replace(f"/{CNBLOGS_APP}/", f"/{name}/", 1)
            routes[key] = Route(
                body=route.body.replace(app, name.encode()), content_type=route.content_type
            )
    return Site(start=f"/{blog_name(1)}/", routes=routes, origin=CNBLOGS_ORIGIN)


@dataclass
class Hit:
    """One request as the server saw it: when it arrived and was answered (perf_counter)."""

    path: str
    arrived: float
    done: float
    status: int


class _TimedHandler(_Handler):
    """The sample server's handler, answering after the server's delay, also answering
    ``If-Modified-Since`` (the sample handler answers only ``If-None-Match``), and recording
    each request's times and status."""

    server: BenchServer  # type: ignore[assignment]
    status = 0

    def send_response(self, code: int, message: str | None = None) -> None:
        self.status = code
        super().send_response(code, message)

    def do_GET(self) -> None:
        server = self.server
        arrived = time.perf_counter()
        with server.lock:
            server.in_flight += 1
            server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
        try:
            if server.delay:
                time.sleep(server.delay)
            if not self._not_modified_since():
                super().do_GET()
        finally:
            done = time.perf_counter()
            with server.lock:
                server.in_flight -= 1
                server.timed.append(Hit(self.path, arrived, done, self.status))

    def _not_modified_since(self) -> bool:
        """Answer 304 to an If-Modified-Since not older than the page (only when there is no
        If-None-Match, which takes precedence: RFC 9110)."""
        since = self.headers.get("If-Modified-Since")
        if not since or self.headers.get("If-None-Match") is not None:
            return False
        route = self.server.route(self.path)
        if route is None or route.redirect is not None:
            return False
        try:
            if parsedate_to_datetime(since).timestamp() < _SAMPLE_MTIME:
                return False
        except (TypeError, ValueError):
            return False
        self.server.hits.append(self.path)
        self.server.not_modified.append(self.path)
        self.send_response(304)
        self.send_header("Last-Modified", formatdate(_SAMPLE_MTIME, usegmt=True))
        self.end_headers()
        return True


class BenchServer(SiteServer):
    """A :class:`SiteServer` whose requests are delayed by ``delay`` seconds and timed."""

    # socketserver's default backlog (5) would drop connections of a burst and so hide it.
    request_queue_size = 128

    def __init__(self, site: Site, delay: float = 0.0) -> None:
        super().__init__(site)
        self.RequestHandlerClass = _TimedHandler
        self.delay = delay
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.timed: list[Hit] = []

    def reset(self) -> None:
        with self.lock:
            self.hits.clear()
            self.not_modified.clear()
            self.timed.clear()
            self.in_flight = self.peak_in_flight = 0


def write_registry(path: Path, server: SiteServer, blogs: int) -> list[str]:
    """The registry TOML of the blogs as served; returns their names."""
    names = [blog_name(n) for n in range(1, blogs + 1)]
    lines = ["# Generated by bench/bench_registry.py: synthetic cnblogs blogs on 127.0.0.1.\n"]
    for name in names:
        lines.append(f'[sites.{name}]\nlayout = "cnblogs"\nurl = "{server.url(f"/{name}/")}"\n')
    path.write_text("\n".join(lines), encoding="utf-8")
    return names


# ---- one crawlall in its own process --------------------------------------------------------


@dataclass
class Crawl:
    """One ``scrapy crawlall`` process: what it cost and what it exported."""

    status: int
    wall: float
    user: float
    sys: float
    rss_mb: float
    posts: int  # distinct post URLs in posts.jsonl
    expected: int
    blogs_incomplete: int  # blogs with fewer posts than they have
    requests: int = 0
    robots: int = 0
    not_modified: int = 0
    peak_in_flight: int = 0
    mean_interval: float | None = None  # seconds between request starts, first to last

    @property
    def cpu(self) -> float:
        return self.user + self.sys


class RegistryNotRead(RuntimeError):
    """``crawlall`` did not take its sites from ``SITE_REGISTRY``."""


def crawlall(
    registry: Path,
    names: Sequence[str],
    output: Path,
    log: Path,
    settings: Sequence[str],
    timeout: float,
    project: Path,
    profile: Path | None = None,
) -> tuple[int, float, float, float, float]:
    """Run ``scrapy crawlall`` in ``project``; (exit status, wall, user, sys, peak RSS MB) of
    that process.

    The rusage is the crawl's own, from ``os.wait4`` in bench_crawl's small launcher, so this
    benchmark's memory (the pages it serves) does not count in the crawl's peak.
    """
    command = [PYTHON, "-m", "scrapy", "crawlall"]
    if profile is not None:  # cProfile around the whole crawl process
        command = [PYTHON, "-m", "cProfile", "-o", str(profile), "-m", "scrapy", "crawlall"]
    # The synthetic blogs have list pages only: a crawlall that follows post pages by default
    # is kept on them (numbers comparable with older checkouts, which have no such option).
    crawlall_source = project / "crawler" / "commands" / "crawlall.py"
    if crawlall_source.exists() and "--no-content" in crawlall_source.read_text("utf-8"):
        command.append("--no-content")
    # A checkout that reads SITE_REGISTRY crawls all of it; an older one is given every blog
    # by name (and stops with "unknown site" if it cannot read the registry at all).
    sites_source = project / "crawler" / "sites.py"
    if not (sites_source.exists() and "SITE_REGISTRY" in sites_source.read_text("utf-8")):
        for name in names:
            command += ["--site", name]
    for setting in (f"SITE_REGISTRY={registry}", f"OUTPUT_DIR={output}", *settings):
        command += ["-s", setting]
    usage_file = log.with_suffix(".rusage.json")
    usage_file.unlink(missing_ok=True)
    launcher = [PYTHON, "-I", "-S", "-c", _LAUNCHER, str(usage_file), *command]
    with log.open("wb") as out:
        # A session of its own, so a crawl past the timeout is stopped with its launcher.
        process = subprocess.Popen(
            launcher, cwd=project, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise RuntimeError(f"crawlall ran over {timeout:.0f} s; stopped (log: {log})") from None
    usage = json.loads(usage_file.read_text())
    text = log.read_text(encoding="utf-8", errors="replace")
    if usage["status"] == 2 and "unknown site" in text:
        raise RegistryNotRead(
            f"scrapy crawlall does not read -s SITE_REGISTRY={registry} (yet): {log}"
        )
    if usage["status"] != 0:
        print(f"  crawlall exited with {usage['status']}; end of its log ({log}):")
        print("    " + "\n    ".join(text.rstrip().splitlines()[-15:]))
    return (usage["status"], usage["wall"], usage["user"], usage["sys"], usage["maxrss_kb"] / 1024)


def count_posts(output: Path, blogs: int, per_blog: int) -> tuple[int, int]:
    """(distinct post URLs in posts.jsonl, blogs with fewer than ``per_blog`` of them)."""
    path = output / "posts.jsonl"
    if not path.exists():
        return 0, blogs
    urls = {post["url"] for post in read_jsonl(path)}
    per = Counter(url.split("/")[3] for url in urls if url.count("/") > 3)
    incomplete = sum(1 for n in range(1, blogs + 1) if per[blog_name(n)] < per_blog)
    return len(urls), incomplete


def measure(
    server: BenchServer,
    registry: Path,
    names: Sequence[str],
    output: Path,
    log: Path,
    settings: Sequence[str],
    per_blog: int,
    args: argparse.Namespace,
) -> Crawl:
    """One crawl against ``server``, with what the server saw of it."""
    server.reset()
    profile = args.profile / f"{log.stem}.prof" if args.profile else None
    status, wall, user, system, rss = crawlall(
        registry, names, output, log, settings, args.timeout, args.project, profile
    )
    if profile is not None:
        print_profile(profile)
    with server.lock:
        hits = sorted(server.timed, key=lambda hit: hit.arrived)
        peak = server.peak_in_flight
    posts, incomplete = count_posts(output, len(names), per_blog)
    starts = [hit.arrived for hit in hits]
    interval = (starts[-1] - starts[0]) / (len(starts) - 1) if len(starts) > 1 else None
    return Crawl(
        status,
        wall,
        user,
        system,
        rss,
        posts,
        len(names) * per_blog,
        incomplete,
        requests=len(hits),
        robots=sum(hit.path == "/robots.txt" for hit in hits),
        not_modified=sum(hit.status == 304 for hit in hits),
        peak_in_flight=peak,
        mean_interval=interval,
    )


# ---- reports --------------------------------------------------------------------------------


def print_profile(path: Path, rows: int = 25) -> None:
    """The functions a profiled crawl spent its time in, by their own time and cumulative."""
    import pstats

    stats = pstats.Stats(str(path))
    for order in ("tottime", "cumulative"):
        print(f"  profile {path.name}, top {rows} by {order}:")
        stats.sort_stats(order).print_stats(rows)


def mark(ok: bool) -> str:
    return "MET" if ok else "FAIL"


def med(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


@dataclass
class Scenario:
    """A scenario's parameters, runs, medians and targets, as written by ``--out``."""

    parameters: dict[str, Any]
    runs: list[dict[str, Any]] = field(default_factory=list)
    median: dict[str, Any] = field(default_factory=dict)
    targets: dict[str, bool] = field(default_factory=dict)


def politeness(args: argparse.Namespace, work: Path) -> Scenario:
    """Scenario A: many blogs on one host, politeness on."""
    per_blog = args.pages * POSTS_PER_PAGE
    print(
        f"A. politeness: {args.blogs} cnblogs blogs × {args.pages} list page(s) × "
        f"{POSTS_PER_PAGE} posts on one host, server delay {args.delay * 1000:.0f} ms, "
        f"-s THROTTLE_LOOPBACK=1, {args.runs} run(s)",
        flush=True,
    )
    server = BenchServer(blogs_site(args.blogs, args.pages), delay=args.delay).start()
    scenario = Scenario({"blogs": args.blogs, "pages": args.pages, "delay_s": args.delay})
    crawls: list[Crawl] = []
    try:
        registry = work / "politeness-sites.toml"
        names = write_registry(registry, server, args.blogs)
        for i in range(args.runs):
            where = work / f"politeness-{i + 1}"
            where.mkdir(parents=True, exist_ok=True)
            crawl = measure(
                server,
                registry,
                names,
                where / "output",
                where / "crawlall.log",
                ["THROTTLE_LOOPBACK=1"],
                per_blog,
                args,
            )
            crawls.append(crawl)
            scenario.runs.append(asdict(crawl))
    finally:
        server.stop()

    header = (
        f"{'run':>4} {'exit':>4} {'wall s':>7} {'requests':>8} {'robots':>6} {'peak':>4}"
        f" {'mean interval s':>15} {'posts':>6} {'expected':>8}"
    )
    print(header)
    print("-" * len(header))
    for i, c in enumerate(crawls, start=1):
        interval = f"{c.mean_interval:.3f}" if c.mean_interval is not None else "-"
        print(
            f"{i:4d} {c.status:4d} {c.wall:7.1f} {c.requests:8d} {c.robots:6d}"
            f" {c.peak_in_flight:4d} {interval:>15} {c.posts:6d} {c.expected:8d}"
        )
    peak = med([c.peak_in_flight for c in crawls])
    interval = med([c.mean_interval for c in crawls])
    scenario.median = {
        "peak_in_flight": peak,
        "mean_interval_s": interval,
        "requests": med([c.requests for c in crawls]),
        "wall_s": med([c.wall for c in crawls]),
        "posts": med([c.posts for c in crawls]),
        "expected": crawls[0].expected,
    }
    all_posts = all(c.posts == c.expected and not c.blogs_incomplete for c in crawls)
    scenario.targets = {
        "at_most_2_in_flight": peak is not None and peak <= MAX_IN_FLIGHT,
        "mean_interval_at_least_0.25s": interval is not None and interval >= MIN_MEAN_INTERVAL,
        "every_post_exported": all_posts,
        "exit_0": all(c.status == 0 for c in crawls),
    }
    t = scenario.targets
    print(
        f"\nmedians: peak {peak:g} request(s) in flight on the host, one request every "
        f"{interval or 0:.3f} s on average, {scenario.median['requests']:g} requests"
    )
    print(f"  target ≤ {MAX_IN_FLIGHT} requests in flight: {mark(t['at_most_2_in_flight'])}")
    print(
        f"  target mean interval ≥ {MIN_MEAN_INTERVAL} s: {mark(t['mean_interval_at_least_0.25s'])}"
    )
    print(
        f"  target every post exported ({crawls[0].expected}): {mark(all_posts)}"
        f" (exit 0 every run: {mark(t['exit_0'])})\n"
    )
    return scenario


def scale(args: argparse.Namespace, work: Path) -> Scenario:
    """Scenario B: many blogs on loopback, an unchanged second run."""
    per_blog = args.scale_pages * POSTS_PER_PAGE
    print(
        f"B. scale: {args.scale_blogs} cnblogs blogs × {args.scale_pages} list pages × "
        f"{POSTS_PER_PAGE} posts on loopback (ETag, Last-Modified, 304), politeness off; two "
        f"crawlall runs into one output folder, {args.runs} time(s)",
        flush=True,
    )
    started = time.perf_counter()
    server = BenchServer(blogs_site(args.scale_blogs, args.scale_pages)).start()
    print(f"  {len(server.site.routes)} pages built in {time.perf_counter() - started:.1f} s")
    scenario = Scenario({"blogs": args.scale_blogs, "pages": args.scale_pages})
    pairs: list[tuple[Crawl, Crawl]] = []
    try:
        registry = work / "scale-sites.toml"
        names = write_registry(registry, server, args.scale_blogs)
        for i in range(args.runs):
            where = work / f"scale-{i + 1}"
            where.mkdir(parents=True, exist_ok=True)
            pair = []
            for kind in ("first", "second"):
                crawl = measure(
                    server,
                    registry,
                    names,
                    where / "output",
                    where / f"{kind}.log",
                    (),
                    per_blog,
                    args,
                )
                print(
                    f"  run {i + 1} {kind}: exit {crawl.status}, {crawl.cpu:.1f} s CPU,"
                    f" {crawl.wall:.1f} s wall, {crawl.rss_mb:.0f} MB",
                    flush=True,
                )
                pair.append(crawl)
            first, second = pair
            pairs.append((first, second))
            scenario.runs.append(
                {
                    "first": asdict(first),
                    "second": asdict(second),
                    "second_cpu_share": second.cpu / first.cpu if first.cpu else None,
                }
            )
    finally:
        server.stop()

    header = (
        f"{'run':>4} {'crawl':6} {'exit':>4} {'CPU s':>6} {'user':>6} {'sys':>5}"
        f" {'RSS MB':>6} {'wall s':>6} {'requests':>8} {'304s':>5} {'posts':>6} {'expected':>8}"
    )
    print(header)
    print("-" * len(header))
    for i, pair in enumerate(pairs, start=1):
        for kind, c in zip(("first", "second"), pair, strict=True):
            print(
                f"{i:4d} {kind:6} {c.status:4d} {c.cpu:6.2f} {c.user:6.2f} {c.sys:5.2f}"
                f" {c.rss_mb:6.0f} {c.wall:6.1f} {c.requests:8d} {c.not_modified:5d}"
                f" {c.posts:6d} {c.expected:8d}"
            )
    shares = [second.cpu / first.cpu for first, second in pairs if first.cpu]
    median: dict[str, Any] = {"second_cpu_share": med(shares)}
    for index, kind in enumerate(("first", "second")):
        crawls = [pair[index] for pair in pairs]
        median[kind] = {
            "cpu_s": med([c.cpu for c in crawls]),
            "rss_mb": med([c.rss_mb for c in crawls]),
            "wall_s": med([c.wall for c in crawls]),
            "posts": med([c.posts for c in crawls]),
            "requests": med([c.requests for c in crawls]),
            "not_modified": med([c.not_modified for c in crawls]),
        }
    scenario.median = median
    first_rss, share = median["first"]["rss_mb"], median["second_cpu_share"]
    every = [c for pair in pairs for c in pair]
    all_posts = all(c.posts == c.expected and not c.blogs_incomplete for c in every)
    blogs = args.scale_blogs
    max_share = MAX_SECOND_CPU_SHARE_MANY if blogs >= MANY_BLOGS else MAX_SECOND_CPU_SHARE
    scenario.targets = {
        "first_rss_at_most_200mb": first_rss <= MAX_FIRST_RSS_MB,
        f"second_cpu_at_most_{max_share:.0%}": share is not None and share <= max_share,
        "every_post_both_times": all_posts,
        "exit_0_both_times": all(c.status == 0 for c in every),
    }
    t = scenario.targets
    print(
        f"\nmedians: first crawl {median['first']['cpu_s']:.2f} s CPU, {first_rss:.0f} MB peak"
        f" RSS, {median['first']['wall_s']:.1f} s wall; second {median['second']['cpu_s']:.2f} s"
        f" CPU, {median['second']['rss_mb']:.0f} MB, {median['second']['wall_s']:.1f} s wall;"
        f" second / first CPU {share or 0:.0%}"
    )
    print(
        f"  target first crawl ≤ {MAX_FIRST_RSS_MB:.0f} MB peak RSS: "
        f"{mark(t['first_rss_at_most_200mb'])}"
    )
    print(
        f"  target second crawl ≤ {max_share:.0%} of the first's CPU: "
        f"{mark(t[f'second_cpu_at_most_{max_share:.0%}'])}"
    )
    print(
        f"  target every post in the dataset both times ({every[0].expected}): "
        f"{mark(t['every_post_both_times'])}"
    )
    print(f"  target exit 0 both times: {mark(t['exit_0_both_times'])}\n")
    return scenario


# ---- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--politeness",
        action="store_true",
        help="scenario A only (with B if --scale is given too); neither flag runs both",
    )
    parser.add_argument("--scale", action="store_true", help="scenario B")
    parser.add_argument("--blogs", type=int, default=40, help="A: blogs on one host (40)")
    parser.add_argument("--pages", type=int, default=1, help="A: list pages per blog (1)")
    parser.add_argument(
        "--delay",
        type=float,
        default=0.05,
        help="A: seconds the server waits before answering (0.05)",
    )
    parser.add_argument("--scale-blogs", type=int, default=400, help="B: blogs (400)")
    parser.add_argument("--scale-pages", type=int, default=3, help="B: list pages per blog (3)")
    parser.add_argument("--runs", type=int, default=1, help="repeat each scenario; medians (1)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=600,
        help="seconds a crawl may take before it is stopped (600)",
    )
    parser.add_argument(
        "--project",
        type=Path,
        default=PROJECT,
        help="run crawlall in this checkout of the project (default: this"
        " one), e.g. an older commit's for a baseline",
    )
    parser.add_argument("--out", type=Path, help="write the results as JSON to this file")
    parser.add_argument(
        "--profile", type=Path, help="profile each crawl (cProfile) into this folder, and print"
    )
    parser.add_argument("--keep", type=Path, help="keep outputs, registries and logs here")
    args = parser.parse_args(argv)
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    for name in ("blogs", "pages", "scale_blogs", "scale_pages", "runs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    both = not (args.politeness or args.scale)

    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "runs": args.runs,
        "project": str(args.project.resolve()),
    }
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(
            f"python {results['python']}, {results['cpus']} CPUs, crawling from"
            f" {results['project']}, work folder {work}\n"
        )
        try:
            if args.politeness or both:
                results["politeness"] = asdict(politeness(args, work))
            if args.scale or both:
                results["scale"] = asdict(scale(args, work))
        except (RegistryNotRead, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.out:
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        print(f"results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
