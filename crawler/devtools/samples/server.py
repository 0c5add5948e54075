"""A small HTTP server for the bundled sample sites (and test sites) on 127.0.0.1.

Each site is a folder with ``site.json``::

    {"start": "/RobinDevNotes/", "origin": "https://www.cnblogs.com",
     "entries": ["/RobinDevNotes/archive/2026/09"],
     "routes": {"/RobinDevNotes/": {"file": "home-1.html"},
                "/RobinDevNotes/page2": {"redirect": "/RobinDevNotes/page2/"},
                "/feed.xml": {"file": "feed.xml", "content_type": "application/rss+xml"},
                "/RobinDevNotes/p/*[0-4]": {"file": "post-1.html"},
                "/RobinDevNotes/p/*": {"file": "post-2.html"},
                "/RobinDevNotes/ajax/CategoriesTags.aspx": {"file": "tags.html",
                                                           "any_query": true}}}

A route serves a file (``content_type`` defaults from the file name, UTF-8), or redirects
(301). A route's path is matched with its query (``/hot?page=2``), exactly. A path holding
``*`` is a pattern instead (:func:`fnmatch.fnmatchcase`, so ``[0-4]`` works too), and a route
with ``"any_query": true`` answers its path whatever the query: both are matched against the
request's path without its query, in ``site.json`` order, once the exact routes missed. They
let a handful of post pages answer every post link of the list pages. Files are read with
:mod:`importlib.resources`, so the samples work from an installed package or a Scrapyd egg as
well as from a checkout. Every file response carries an ETag and Last-Modified and answers
conditional requests with 304.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field, replace
from email.utils import formatdate
from fnmatch import fnmatchcase
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

LAYOUTS = ("cnblogs", "hux", "cards", "feed")
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
# A fixed modification time keeps Last-Modified stable across runs of the demo.
_SAMPLE_MTIME = 1_790_000_000


@dataclass
class Route:
    """What one path answers: a body with a content type, or a redirect."""

    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    redirect: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Site:
    """A sample site: its routes keyed by path (with query), its start path, and the routes
    matched on the path alone (patterns), tried in order when no exact route matches."""

    start: str
    routes: dict[str, Route]
    origin: str = ""
    # Further entry pages that nothing links to (cnblogs' monthly archives are linked by JS).
    entries: tuple[str, ...] = ()
    # (pattern, route): fnmatch patterns, and paths answered whatever their query.
    patterns: tuple[tuple[str, Route], ...] = ()

    def find(self, path: str, query: str = "") -> Route | None:
        """The route of a request: the exact one (path and query), else the first pattern
        the path (without query) matches."""
        route = self.routes.get(path + (f"?{query}" if query else ""))
        if route is not None:
            return route
        return next((found for pattern, found in self.patterns if fnmatchcase(path, pattern)), None)


def load_site(folder: Traversable | Path) -> Site:
    """Read a site folder (``site.json`` and the files it names)."""
    spec: dict[str, Any] = json.loads(folder.joinpath("site.json").read_text(encoding="utf-8"))
    routes: dict[str, Route] = {}
    patterns: list[tuple[str, Route]] = []
    for path, entry in spec["routes"].items():
        route = _route(folder, entry)
        if "*" in path or entry.get("any_query"):
            patterns.append((path, route))
        else:
            routes[path] = route
    return Site(
        start=spec["start"],
        routes=routes,
        origin=spec.get("origin", ""),
        entries=tuple(spec.get("entries", ())),
        patterns=tuple(patterns),
    )


def _route(folder: Traversable | Path, entry: dict[str, Any]) -> Route:
    """The route a ``site.json`` entry describes (its file read now)."""
    if "redirect" in entry:
        return Route(redirect=entry["redirect"], status=entry.get("status", 301))
    name = entry["file"]
    suffix = name[name.rfind(".") :]
    return Route(
        body=folder.joinpath(name).read_bytes(),
        content_type=entry.get("content_type", _TYPES.get(suffix, "application/octet-stream")),
        status=entry.get("status", 200),
        headers=entry.get("headers", {}),
    )


def sample_site(layout: str) -> Site:
    """The bundled sample site of a layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"no sample site for layout {layout!r}")
    return load_site(resources.files("crawler.devtools.samples").joinpath(layout))


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        route = self.server.route(self.path)
        if route is None:
            self._send(404, b"not found", "text/plain; charset=utf-8")
            return
        if route.redirect is not None:
            self.send_response(route.status)
            self.send_header("Location", route.redirect)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        etag = '"' + hashlib.sha1(route.body).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag:
            self.server.not_modified.append(self.path)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        headers = {"ETag": etag, "Last-Modified": formatdate(_SAMPLE_MTIME, usegmt=True)}
        self._send(route.status, route.body, route.content_type, {**headers, **route.headers})

    def _send(
        self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the crawler logs what it fetched


class SiteServer(ThreadingHTTPServer):
    """Serves one site on a free 127.0.0.1 port (``port=0``) in a background thread.

    Pages keep the absolute links the real platform prints: the site's ``origin`` (for
    example ``https://www.cnblogs.com``) is rewritten to this server's address as pages are
    served. ``hits`` and ``not_modified`` record the paths asked for, for tests.
    """

    daemon_threads = True

    def __init__(self, site: Site, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.site = site
        self.hits: list[str] = []
        self.not_modified: list[str] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def route(self, raw_path: str) -> Route | None:
        parts = urlsplit(raw_path)
        route = self.site.find(parts.path, parts.query)
        if route is None or not self.site.origin:
            return route
        origin, base = self.site.origin.encode(), self.base_url.encode()
        return replace(
            route,
            body=route.body.replace(origin, base),
            redirect=route.redirect.replace(self.site.origin, self.base_url)
            if route.redirect
            else None,
        )

    def url(self, path: str | None = None) -> str:
        """Absolute URL of ``path`` on this server (default: the site's start page)."""
        return self.base_url + (self.site.start if path is None else path)

    def local(self, url: str) -> str:
        """A URL of the real site (``origin``) as served here."""
        return url.replace(self.site.origin, self.base_url, 1) if self.site.origin else url

    def start(self) -> SiteServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
