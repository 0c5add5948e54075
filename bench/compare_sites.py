"""Posts found and fields right per saved site: the project's auto crawl (the theme's layout
where one reads the site) vs the generic reader alone vs trafilatura alone.

Run ``python bench/compare_sites.py`` (``--site NAME``, repeatable, for some of them;
``--details`` lists what each reader missed, exported beyond the posts and got wrong). Every
saved site of tests/sites/ (whole real sites saved byte-exact, every post's values read off
the pages by eye in ``expected.json``) is served on 127.0.0.1 (``tests/support/savedsites.py``)
and read three ways, one after another, site after site (sized for 2 cores):

- **auto**: ``python -m scrapy crawl auto -a url=HOME -a timezone=TZ -O out.jsonl -s
  OUTPUT_DIR=<tmp>`` from the project folder, as ``tests/scenarios/test_saved_sites.py`` runs
  it: the home page says which layout reads the site (a theme's, or the generic reader);
- **generic**: the same with ``scrapy crawl generic``: the generic reader forced on every site;
- **trafilatura**: trafilatura alone, as its user would run it: its focused crawler
  (``trafilatura.spider.focused_crawler`` from the home page, up to 1,000 pages seen and
  100,000 known, its own downloader), then for every address it knows on the site
  ``trafilatura.fetch_url`` and ``trafilatura.bare_extraction(html, url=url,
  with_metadata=True, include_links=True, include_images=True, include_formatting=True,
  output_format="python")``; every page that yields a document is an exported post.

For each reader: **found**, the expected posts exported / the expected posts; **not posts**,
exported addresses that are no expected post (a post whose page was not saved, listed in
``unsaved_posts``, is neither); **twice**, pages exported more than once;
**fields right**, the checks of ``checks_of`` (title, published, date_precision, tags,
categories, the body's first and last text, what it must hold, the theme chrome it must not)
passed / made, over the expected posts exported (the first export of a post exported twice).
An address is the page it names: the saved file the server answers it with (``/a``,
``/a/`` and ``/a/index.html`` are one page, so two of them exported is a post exported
twice), else the address without its fragment, its path percent-decoded; the server writes
its own origin for the site's ``base_url``, so expected and exported addresses are mapped
with ``server.local()`` first. Below the table: the sites some of whose posts have no saved
page (only their list entry: a reader that needs the post's page cannot find them), and
every crawl that did not exit 0 (exit 3: some post pages not read, here those not saved).

trafilatura's document as one of our posts: ``title``; ``published_at``: it gives a day
only, so it counts as right when that day is the day of the expected time in that time's own
offset (the day the page prints; lenient for trafilatura: the time of day is not checked),
and ``date_precision`` is ``day``; ``tags`` and ``categories``: its lists, each entry split
at commas (it joins a keywords meta tag into one ``"a, b"`` entry), blanks and repeats out;
``content``: its ``text`` (Markdown-like with include_formatting); ``url``: the address
fetched (its own ``url`` field takes og:url first, which on icarus-5-chenprime names the
home page for every post). What a trafilatura user must do on this machine, none of it
about reading: ``SSRF_PROTECTION = off`` (its downloader refuses loopback addresses
otherwise) and ``SLEEP_TIME = 0`` (5 s between pages otherwise) in its config; a host name
with a dot, since courlan drops every link to ``127.0.0.1:PORT`` (and to ``localhost``) as
an invalid domain: its site is served as ``blog.localhost:PORT`` (a ``.localhost`` name is
loopback, RFC 6761; this process resolves it, the machine's resolver does not); and the
addresses it knows that differ only by fragment (``#searchModal``, heading anchors: one
HTTP request) are fetched once.
"""

from __future__ import annotations

import argparse
import json
import logging
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
SITES = PROJECT / "tests" / "sites"
sys.path.insert(0, str(PROJECT / "tests"))  # tests/support: the saved sites' server and checks

from support.savedsites import SavedSite, SavedSiteServer, checks_of  # noqa: E402

PYTHON = sys.executable
ALIAS = "blog.localhost"  # trafilatura's name for 127.0.0.1 (see the docstring)
READERS = ("auto", "generic", "trafilatura")


@dataclass
class Result:
    """One reader on one site."""

    site: str
    reader: str
    expected: int = 0
    found: int = 0
    not_posts: int = 0
    twice: int = 0
    passed: int = 0
    checks: int = 0
    seconds: float = 0.0
    layouts: str = ""  # the layouts the exported posts name (the project's crawls)
    note: str = ""  # a crawl that failed, a reader that crashed
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    wrong: dict[str, list[str]] = field(default_factory=dict)


def key(url: str) -> str:
    """An address as compared: no fragment, the path percent-decoded."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, unquote(parts.path), parts.query, ""))


def page_of(server: SavedSiteServer, url: str) -> str:
    """The page an address names: the saved file the server answers it with (``/a``,
    ``/a/`` and ``/a/index.html`` are one page), else the address as compared."""
    url = server.local(url)
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}" == server.origin:
        found = server.site.file(parts.path)
        if found is not None:
            return "file:" + found.relative_to(server.site.folder / "files").as_posix()
    return key(url)


def expected_posts(
    server: SavedSiteServer, kind: str = "posts"
) -> dict[str, tuple[str, dict[str, Any]]]:
    """The site's expected posts (``unsaved_posts``: its posts whose page was not saved) by
    page: (their address as served, their values)."""
    site = server.site
    found = {}
    for post in site.expected.get(kind, []):
        url = server.local(site.base_url.rstrip("/") + post["path"])
        found[page_of(server, url)] = (key(url), post)
    return found


def score(
    server: SavedSiteServer, reader: str, posts: list[dict[str, Any]], seconds: float
) -> Result:
    """The counts of one reader's exported ``posts`` against the site's expected posts."""
    expected = expected_posts(server)
    result = Result(server.site.name, reader, expected=len(expected), seconds=seconds)
    pages = [page_of(server, str(post.get("url") or "")) for post in posts]
    counts = Counter(pages)
    result.twice = sum(1 for n in counts.values() if n > 1)
    shown: dict[str, str] = {}  # a page as its first export names it
    for page, post in zip(pages, posts, strict=True):
        shown.setdefault(page, key(server.local(str(post.get("url") or ""))))
    # A post whose page was not saved, exported from a list that shows it, is no error.
    unsaved = expected_posts(server, "unsaved_posts")
    result.extra = sorted(
        shown[page] for page in counts if page not in expected and page not in unsaved
    )
    result.not_posts = len(result.extra)
    result.missing = sorted(url for page, (url, _) in expected.items() if page not in counts)
    result.found = len(expected) - len(result.missing)
    scored: set[str] = set()
    for page, post in zip(pages, posts, strict=True):
        if page not in expected or page in scored:
            continue
        scored.add(page)
        url, values = expected[page]
        checks = checks_of(values, post)
        result.passed += sum(holds for _, holds in checks)
        result.checks += len(checks)
        failed = [what for what, holds in checks if not holds]
        if failed:
            result.wrong[url] = failed
    return result


def crawl(server: SavedSiteServer, spider: str, timeout: float) -> Result:
    """``scrapy crawl SPIDER -a url=HOME -a timezone=TZ`` of the project, in a fresh output."""
    site = server.site
    with tempfile.TemporaryDirectory(prefix=f"compare-{spider}-") as folder:
        output = Path(folder)
        command = [
            PYTHON, "-m", "scrapy", "crawl", spider, "-a", f"url={server.url()}",
            "-a", f"timezone={site.spec['timezone']}", "-O", str(output / "out.jsonl"),
            "-s", f"OUTPUT_DIR={output / 'output'}",
        ]  # fmt: skip
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command, cwd=PROJECT, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            result = score(server, spider, [], time.perf_counter() - started)
            result.note = f"crawl {spider} stopped after {timeout:.0f} s"
            return result
        seconds = time.perf_counter() - started
        out = output / "out.jsonl"
        lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
        posts = [json.loads(line) for line in lines if line.strip()]
    result = score(server, spider, posts, seconds)
    result.layouts = ",".join(sorted({str(post.get("layout")) for post in posts}))
    if done.returncode != 0:
        log = done.stderr.splitlines()
        unread = [line for line in log if "] WARNING: " in line and " not read (" in line]
        errors = [line.split("] ", 1)[-1] for line in log if "] ERROR: " in line]
        said = f"{len(unread)} post pages not read" if unread else ""
        said = "; ".join(filter(None, [said, *errors[:2]])) or (log[-1:] or ["no output"])[0]
        result.note = f"`crawl {spider}` exit {done.returncode}: {said[:300]}"
    return result


class AliasServer(SavedSiteServer):
    """The saved site served (and its own addresses rewritten) as ``ALIAS:PORT``."""

    @property
    def origin(self) -> str:
        return f"http://{ALIAS}:{self.server_address[1]}"


def resolve_alias() -> None:
    """Make this process resolve ``ALIAS`` (and any ``*.localhost``) to 127.0.0.1."""
    if getattr(socket.getaddrinfo, "_alias", False):
        return
    original = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and (host == "localhost" or host.endswith(".localhost")):
            host = "127.0.0.1"
        return original(host, *args, **kwargs)

    getaddrinfo._alias = True  # type: ignore[attr-defined]
    socket.getaddrinfo = getaddrinfo


def _terms(values: Any) -> list[str]:
    """trafilatura's tags or categories as a list: entries split at commas, blanks and
    repeats out."""
    found: list[str] = []
    for value in values or []:
        found += [part.strip() for part in str(value).replace("，", ",").split(",")]
    return list(dict.fromkeys(part for part in found if part))


def as_post(
    document: Any, fetched: str, expected_at: Callable[[str], str | None]
) -> dict[str, Any]:
    """A trafilatura document as a post of our field names (see the docstring);
    ``expected_at``: the expected time of the post at an address, None for no post."""
    day, expected = document.date or None, expected_at(fetched)
    return {
        "url": fetched,  # the page read (its `url`, og:url first, can name another)
        "title": document.title,
        # A day only: right when it is the expected time's own day (lenient).
        "published_at": expected if day and expected and _day(expected) == day else day,
        "date_precision": "day" if day else None,
        "tags": _terms(document.tags),
        "categories": _terms(document.categories),
        "content": document.text or "",
    }


def _day(published: str) -> str | None:
    """The day of an ISO time in its own offset."""
    try:
        return datetime.fromisoformat(published).date().isoformat()
    except ValueError:
        return None


def by_trafilatura(site: SavedSite, timeout: float) -> Result:
    """trafilatura's focused crawl of the site, then its extraction of every page it knows."""
    import trafilatura
    from trafilatura import spider as trafilatura_spider
    from trafilatura.settings import use_config

    resolve_alias()
    config = use_config()
    config.set("DEFAULT", "SLEEP_TIME", "0")
    config.set("DEFAULT", "SSRF_PROTECTION", "off")
    server = AliasServer(site).start()
    try:
        expected = expected_posts(server)

        def expected_at(url: str) -> str | None:
            found = expected.get(page_of(server, url))
            return found[1].get("published") if found else None

        started = time.perf_counter()
        posts: list[dict[str, Any]] = []
        note = ""
        trafilatura_spider.URL_STORE.reset()  # a module-level store: each site its own crawl
        try:
            todo, known = trafilatura_spider.focused_crawler(
                server.url(), max_seen_urls=1000, max_known_urls=100_000, config=config
            )
            pages = list(dict.fromkeys(url.split("#")[0] for url in [*known, *todo]))
            for url in pages:
                if time.perf_counter() - started > timeout:
                    note = f"trafilatura stopped after {timeout:.0f} s"
                    break
                html = trafilatura.fetch_url(url, config=config)
                if not html:
                    continue
                try:
                    document = trafilatura.bare_extraction(
                        html,
                        url=url,
                        with_metadata=True,
                        include_links=True,
                        include_images=True,
                        include_formatting=True,
                        output_format="python",
                        config=config,
                    )
                except Exception as exc:  # one page it cannot read: noted, the others go on
                    note = f"bare_extraction raised {type(exc).__name__} on {url}"
                    continue
                if document is not None:
                    posts.append(as_post(document, url, expected_at))
        except Exception as exc:
            note = f"trafilatura raised {type(exc).__name__}: {exc}"
        result = score(server, "trafilatura", posts, time.perf_counter() - started)
        result.note = note
        return result
    finally:
        server.stop()


def by_project(site: SavedSite, spider: str, timeout: float) -> Result:
    server = SavedSiteServer(site).start()
    try:
        return crawl(server, spider, timeout)
    finally:
        server.stop()


def table(results: list[Result]) -> list[str]:
    """The Markdown table: a row per site and reader, then a total row per reader."""
    lines = [
        "| site | reader | layouts | posts found | not posts | twice | fields right | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        lines.append(
            f"| {result.site} | {result.reader} | {result.layouts or '–'} "
            f"| {result.found}/{result.expected} | {result.not_posts} | {result.twice} "
            f"| {result.passed}/{result.checks} | {result.seconds:.1f} |"
        )
    for reader in READERS:
        mine = [r for r in results if r.reader == reader]
        if not mine:
            continue
        found, expected = sum(r.found for r in mine), sum(r.expected for r in mine)
        passed, checks = sum(r.passed for r in mine), sum(r.checks for r in mine)
        share = f" ({passed / checks:.0%})" if checks else ""
        lines.append(
            f"| **all {len(mine)} sites** | **{reader}** | | **{found}/{expected}** "
            f"| **{sum(r.not_posts for r in mine)}** | **{sum(r.twice for r in mine)}** "
            f"| **{passed}/{checks}**{share} | {sum(r.seconds for r in mine):.1f} |"
        )
    return lines


def details(result: Result) -> list[str]:
    lines = [f"{result.site} / {result.reader}:"]
    lines += [f"  missing  {url}" for url in result.missing]
    lines += [f"  not post {url}" for url in result.extra]
    for url, failed in result.wrong.items():
        lines += [f"  wrong    {url}: {what}" for what in failed]
    return lines if len(lines) > 1 else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", action="append", help="a site of tests/sites/ (repeatable)")
    parser.add_argument("--details", action="store_true", help="list misses and wrong fields")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a reader a site")
    args = parser.parse_args()
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    logging.getLogger("htmldate").setLevel(logging.CRITICAL)
    logging.getLogger("courlan").setLevel(logging.CRITICAL)

    folders = sorted(path for path in SITES.iterdir() if (path / "site.json").exists())
    if args.site:
        unknown = set(args.site) - {path.name for path in folders}
        if unknown:
            parser.error(f"no such saved site: {', '.join(sorted(unknown))}")
        folders = [path for path in folders if path.name in args.site]

    import trafilatura

    started = datetime.now().astimezone()
    results: list[Result] = []
    for folder in folders:
        site = SavedSite.load(folder.resolve())
        for spider in ("auto", "generic"):
            results.append(by_project(site, spider, args.timeout))
        results.append(by_trafilatura(site, args.timeout))
        for result in results[-3:]:
            print(
                f"{result.site:28} {result.reader:12} {result.found}/{result.expected} posts, "
                f"{result.passed}/{result.checks} checks, {result.seconds:.1f} s",
                file=sys.stderr,
            )

    print(
        f"Run {started:%Y-%m-%d %H:%M %Z}, {len(folders)} saved sites, "
        f"trafilatura {trafilatura.__version__}\n"
    )
    print("\n".join(table(results)))
    notes = []
    for folder in folders:
        expected = SavedSite.load(folder.resolve()).expected
        posts = expected["posts"] + expected.get("unsaved_posts", [])
        unsaved = sum(1 for post in expected["posts"] if post.get("saved") is False)
        unsaved += len(expected.get("unsaved_posts", []))
        if unsaved:
            notes.append(f"- {folder.name}: {unsaved} of {len(posts)} posts have no saved page")
    notes += [f"- {r.site} / {r.reader}: {r.note}" for r in results if r.note]
    if notes:
        print("\n" + "\n".join(notes))
    if args.details:
        listed = [line for result in results for line in details(result)]
        if listed:
            print("\n" + "\n".join(listed))


if __name__ == "__main__":
    main()
