"""A fault-injecting HTTP server on 127.0.0.1, built on the samples' ``SiteServer``
(:mod:`crawler.devtools.samples.server`).

Each path can be given a program of :class:`Fault` steps, consumed one request at a time
before the path answers normally::

    server = FaultServer(cards_site()).start()
    server.program("/hot", Fault(status=503), Fault(status=502))  # 503, 502, then the page
    server.program("/hot?page=2", Fault(status=429, headers={"Retry-After": "1"}))
    server.program("/slow", Fault(delay=3, times=None))            # every request sleeps 3 s

A fault can answer a status (with headers such as ``Retry-After``), sleep before answering,
reset the connection mid-response (``SO_LINGER`` 0: the peer sees an RST), or send a body
shorter than its ``Content-Length``. Routes may also be generated per path (``pages=``: a
never-ending chain of list pages), and helpers build pages in a given encoding with the charset
declared in the header, in ``<meta>``, or nowhere, and pages of any size.

The server records every request with its arrival time and outcome (:attr:`FaultServer.log`)
and counts TCP connections (:attr:`FaultServer.connections`), so a test can prove from the
server's side that a request was retried, waited for, or never made. The ``serve`` fixture
starts servers for a test, and :func:`crawl` / :func:`start_crawl` run ``scrapy crawl``
against them in a subprocess, as ``conftest.run_scrapy`` does.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from crawler.devtools.samples.server import Route, Site, SiteServer, _Handler, sample_site
from support.project import ROOT, SAMPLES, read_jsonl, run_scrapy

CARDS_SAMPLE = SAMPLES / "cards"
# A route header that is not sent: the body goes without Content-Length, ended by closing.
NO_CONTENT_LENGTH = "X-Fault-No-Content-Length"


@dataclass
class Fault:
    """One misbehaviour of a path, for its next ``times`` requests (``None``: every request).

    Without ``status``, ``reset`` or ``short``, the path answers normally after ``delay``.
    """

    status: int | None = None  # answer this status with an empty body
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"Retry-After": "1"}
    delay: float = 0.0  # seconds to sleep before answering
    reset: str = ""  # TCP reset: "before" any byte of the response, or "mid-body"
    short: bool = False  # Content-Length larger than the body sent, then a normal close
    times: int | None = 1


@dataclass
class Hit:
    """One request as the server saw it: when it arrived and how it was answered."""

    path: str
    at: float  # time.monotonic() on arrival
    outcome: str = "pending"  # the status ("200", "503", ...), "reset", "short", "stopped"


class _FaultHandler(_Handler):
    server: FaultServer  # type: ignore[assignment]

    def do_GET(self) -> None:
        # Logged on arrival, so a request the client gave up on (timeout) is seen too.
        self._hit = Hit(self.path, time.monotonic())
        self.server.log.append(self._hit)
        fault = self.server.take_fault(self.path)
        delay = self.server.latency + (fault.delay if fault is not None else 0.0)
        # An Event, not time.sleep: stop() wakes sleeping handlers at once.
        if delay and self.server.stopping.wait(delay):
            self._hit.outcome = "stopped"
            return
        if fault is not None and fault.status is not None:
            self._send(fault.status, b"", "text/plain; charset=utf-8", fault.headers)
        elif fault is not None and (fault.reset or fault.short):
            self._broken(fault)
        else:
            super().do_GET()

    def _broken(self, fault: Fault) -> None:
        if fault.reset == "before":
            self._reset()
            return
        route = self.server.route(self.path) or Route(body=b"x" * 4096)
        body = route.body
        self.send_response(200)
        self.send_header("Content-Type", route.content_type)
        self.send_header("Content-Length", str(len(body) + (0 if fault.reset else 1000)))
        self.end_headers()
        if fault.reset:
            self.wfile.write(body[: len(body) // 2])
            self._reset()
        else:
            self.wfile.write(body)
            self._hit.outcome = "short"
            self.close_connection = True

    def _reset(self) -> None:
        # Linger on with a zero timeout: close() sends an RST instead of a FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self._hit.outcome = "reset"
        self.close_connection = True

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None):
        route_headers = dict(headers or {})
        if route_headers.pop(NO_CONTENT_LENGTH, None) is not None:
            # Length delimited by the end of the connection (HTTP/1.0): no size known upfront.
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            for name, value in route_headers.items():
                self.send_header(name, value)
            self.end_headers()
            for start in range(0, len(body), 1 << 20):
                self.wfile.write(body[start : start + (1 << 20)])
            self.close_connection = True
            return
        super()._send(status, body, ctype, route_headers)

    def send_response(self, code: int, message: str | None = None) -> None:
        self._hit.outcome = str(code)
        super().send_response(code, message)


class FaultServer(SiteServer):
    """A :class:`SiteServer` whose paths can be programmed to fail (see the module docstring).

    ``pages`` generates a route for a path the site does not hold (``None``: 404); ``start``
    is the start path of a site made of generated pages only. ``latency`` (seconds) delays
    every answer: a slow site.
    """

    def __init__(
        self,
        site: Site | None = None,
        *,
        pages: Callable[[str], Route | None] | None = None,
        start: str = "/hot",
        port: int = 0,
    ) -> None:
        super().__init__(site or Site(start=start, routes={}), port=port)
        self.RequestHandlerClass = _FaultHandler
        self.pages = pages
        self.faults: dict[str, list[Fault]] = {}
        self.log: list[Hit] = []
        self.connections = 0
        self.latency = 0.0
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    def program(self, path: str, *faults: Fault) -> FaultServer:
        """Append faults to ``path``'s program; each is used for its ``times`` requests."""
        with self._lock:
            self.faults.setdefault(path, []).extend(replace(f) for f in faults)
        return self

    def take_fault(self, path: str) -> Fault | None:
        """The fault for this request of ``path`` (consuming one of its ``times``), if any."""
        with self._lock:
            program = self.faults.get(path, [])
            while program:
                fault = program[0]
                if fault.times is None:
                    return fault
                if fault.times > 0:
                    fault.times -= 1
                    return fault
                program.pop(0)
            return None

    def route(self, raw_path: str) -> Route | None:
        found = super().route(raw_path)
        if found is None and self.pages is not None:
            return self.pages(raw_path)
        return found

    def requests(self, path: str) -> list[Hit]:
        """The requests made for ``path``, in order."""
        return [hit for hit in self.log if hit.path == path]

    def paths(self) -> list[str]:
        """Every path asked for, in order, without robots.txt."""
        return [hit.path for hit in self.log if hit.path != "/robots.txt"]

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout) or a reset we made: expected here

    def start(self) -> FaultServer:
        # A short poll interval: stop() returns within 50 ms, not the default half second.
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        super().stop()


@pytest.fixture
def serve() -> Iterator[Callable[..., FaultServer]]:
    """Fixture: start fault servers for a test (``serve(site, pages=...)``); all stop after it."""
    servers: list[FaultServer] = []

    def start(*args: Any, **kwargs: Any) -> FaultServer:
        servers.append(FaultServer(*args, **kwargs).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


# ---- pages -----------------------------------------------------------------------------------
def cards_html(number: int = 1) -> str:
    """The sample cards list page ``hot-<number>.html`` as text (absolute links to its origin)."""
    return (CARDS_SAMPLE / f"hot-{number}.html").read_text(encoding="utf-8")


def cards_site(**routes: Route) -> Site:
    """The sample cards site (``/hot``, ``/hot?page=2``, ``/hot?page=3``), routes replaced."""
    site = sample_site("cards")
    site.routes.update(routes)
    return site


def html_route(html: str) -> Route:
    """A UTF-8 HTML page."""
    return Route(body=html.encode("utf-8"))


_META_CHARSET = re.compile(r'<meta charset="utf-8">\s*', re.IGNORECASE)


def encoded_page(html: str, encoding: str, charset_in: str, label: str | None = None) -> Route:
    """``html`` encoded in ``encoding``, its charset (``label``, default the encoding) declared
    in ``"header"``, ``"meta"``, or ``"none"`` (the HTML's own ``<meta charset>`` removed)."""
    label = label or encoding
    meta = f'<meta charset="{label}">\n  ' if charset_in == "meta" else ""
    html = _META_CHARSET.sub(meta, html, count=1)
    ctype = f"text/html; charset={label}" if charset_in == "header" else "text/html"
    return Route(body=html.encode(encoding), content_type=ctype)


def padded_page(html: str, size: int, *, content_length: bool = True) -> Route:
    """``html`` padded with an HTML comment to ``size`` bytes (a page over a size limit);
    without ``content_length`` the size is known only as the bytes arrive."""
    body = html.encode("utf-8")
    end = body.rindex(b"</body>")
    filler = size - len(body) - len(b"<!--  -->")
    body = body[:end] + b"<!-- " + b"x" * max(0, filler) + b" -->" + body[end:]
    return Route(body=body, headers={} if content_length else {NO_CONTENT_LENGTH: "1"})


def list_page(
    posts: list[tuple[str, str]],
    next_href: str | None = None,
    layout: str = "cards",
    views: int = 1,
) -> str:
    """A minimal list page of ``layout`` ("cards" or "hux"): ``(href, title)`` posts and an
    optional link to the next page; a cards post shows ``views`` (浏览)."""
    if layout == "hux":
        items = "".join(
            f'<div class="post-preview"><a href="{href}"><h2 class="post-title">{title}</h2>'
            f'<div class="post-content-preview">摘要：{title}</div></a>'
            '<p class="post-meta">Posted by 作者 on July 5, 2026</p></div>'
            for href, title in posts
        )
        pager = f'<ul class="pager"><li class="next"><a href="{next_href}">Older</a></li></ul>'
    else:
        items = "".join(
            f'<article class="post-card"><h2 class="post-title"><a href="{href}">{title}</a>'
            f'</h2><p class="post-summary">摘要：{title}</p><div class="post-meta">'
            f'<time class="post-date">2026年10月04日</time><span class="post-stat">{views} 浏览'
            "</span></div></article>"
            for href, title in posts
        )
        pager = f'<nav class="pagination"><a class="next" href="{next_href}">下一页</a></nav>'
    return (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>列表</title>'
        f'</head><body><main class="post-list">{items}{pager if next_href else ""}</main>'
        "</body></html>"
    )


def linked_site(links: dict[str, list[str]]) -> Site:
    """A site of list pages, one post each, linking on as given: ``{path: [next hrefs]}``.

    Every link is a cards next-page link (the pager's ``a.next``, then ``a[rel=next]``
    anchors), so a page may lead to several pages at once. The first path is the start.
    """
    routes = {}
    for n, (path, targets) in enumerate(links.items()):
        html = list_page([(f"/posts/{n}", f"文章 {n}")], targets[0] if targets else None)
        more = "".join(f'<a rel="next" href="{href}">更多</a>' for href in targets[1:])
        routes[path] = html_route(html.replace("</main>", f"{more}</main>"))
    return Site(start=next(iter(links)), routes=routes)


def chain_pages(
    length: int | None = None, *, per_page: int = 2, layout: str = "cards"
) -> Callable[[str], Route | None]:
    """Generated list pages ``/hot?page=N`` (``/hot`` is page 1), each with ``per_page`` posts
    and a link to page N+1, up to page ``length`` (``None``: a chain that never ends)."""

    def page(raw_path: str) -> Route | None:
        parts = urlsplit(raw_path)
        match = re.fullmatch(r"page=([1-9]\d{0,8})", parts.query)
        if parts.path != "/hot" or (parts.query and not match):
            return None
        number = int(match.group(1)) if match else 1
        if length is not None and number > length:
            return None
        posts = [(f"/posts/{number}-{i}", f"第 {number} 页的文章 {i}") for i in range(per_page)]
        more = length is None or number < length
        return html_route(list_page(posts, f"/hot?page={number + 1}" if more else None, layout))

    return page


# ---- running crawls against it -----------------------------------------------------------
@dataclass
class Crawl:
    """A finished ``scrapy crawl`` subprocess and the files it left under its output folder."""

    result: subprocess.CompletedProcess
    output: Path
    seconds: float

    @property
    def status(self) -> int:
        return self.result.returncode

    @property
    def summary(self) -> dict[str, Any]:
        """The latest run's ``summary.json``."""
        return latest_summary(self.output)

    @property
    def site(self) -> dict[str, Any]:
        """The one site's entry of the summary."""
        (site,) = self.summary["sites"]
        return site

    @property
    def posts(self) -> list[dict[str, Any]]:
        return read_jsonl(self.output / "posts.jsonl")

    def problems_naming(self, url: str) -> list[str]:
        return [problem for problem in self.site["problems"] if url in problem]


def latest_summary(output: Path) -> dict[str, Any]:
    """The ``summary.json`` written last under ``output/runs/``."""
    latest = max(output.glob("runs/*/summary.json"), key=lambda p: p.stat().st_mtime_ns)
    return json.loads(latest.read_text(encoding="utf-8"))


def crawl(
    layout: str, url: str, *args: str, output: Path, timeout: float = 60, content: bool = False
) -> Crawl:
    """``scrapy crawl LAYOUT -a url=URL ARGS`` in a subprocess (see ``conftest.run_scrapy``).

    The fault tests are about list pages, whose generated posts have no pages: the crawl
    stays on list pages (``-a content=0``) unless ``content``."""
    started = time.monotonic()
    args = args if content else ("-a", "content=0", *args)
    result = run_scrapy("crawl", layout, "-a", f"url={url}", *args, output=output, timeout=timeout)
    return Crawl(result, output, time.monotonic() - started)


def start_crawl(layout: str, url: str, *args: str, output: Path, log: Path) -> subprocess.Popen:
    """The same crawl (list pages only) started in the background, its log written to
    ``log`` as it goes."""
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        layout,
        "-a",
        f"url={url}",
        "-a",
        "content=0",
        *args,
        "-s",
        f"OUTPUT_DIR={output}",
    ]
    with log.open("wb") as stderr:
        return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)


def wait_for(condition: Callable[[], bool], timeout: float = 30, what: str = "condition") -> None:
    """Poll ``condition`` every 10 ms until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
