"""A small HTTP server for the bundled sample sites (and test sites) on 127.0.0.1.

Each site is a folder with ``site.json``::

    {"start": "/RobinDevNotes/",
     "routes": {"/RobinDevNotes/": {"file": "home-1.html"},
                "/RobinDevNotes/page2": {"redirect": "/RobinDevNotes/page2/"},
                "/feed.xml": {"file": "feed.xml", "content_type": "application/rss+xml"}}}

A route serves a file (``content_type`` defaults from the file name, UTF-8), or redirects
(301). Files are read with :mod:`importlib.resources`, so the samples work from an installed
package or a Scrapyd egg as well as from a checkout. Every file response carries an ETag and
Last-Modified and answers conditional requests with 304.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from email.utils import formatdate
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
    """A sample site: its routes keyed by path (with query), and its start path."""

    start: str
    routes: dict[str, Route]


def load_site(folder: Traversable | Path) -> Site:
    """Read a site folder (``site.json`` and the files it names)."""
    spec: dict[str, Any] = json.loads(folder.joinpath("site.json").read_text(encoding="utf-8"))
    routes: dict[str, Route] = {}
    for path, entry in spec["routes"].items():
        if "redirect" in entry:
            routes[path] = Route(redirect=entry["redirect"], status=entry.get("status", 301))
            continue
        name = entry["file"]
        suffix = name[name.rfind(".") :]
        routes[path] = Route(
            body=folder.joinpath(name).read_bytes(),
            content_type=entry.get("content_type", _TYPES.get(suffix, "application/octet-stream")),
            status=entry.get("status", 200),
            headers=entry.get("headers", {}),
        )
    return Site(start=spec["start"], routes=routes)


def sample_site(layout: str) -> Site:
    """The bundled sample site of a layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"no sample site for layout {layout!r}")
    return load_site(resources.files("crawler.samples").joinpath(layout))


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer  # type: ignore[assignment]

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

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None):
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
    """Serves several sites on one 127.0.0.1 port, each under its own path prefix.

    ``server.url(prefix, path)`` gives the absolute URL of a path of a mounted site.
    """

    daemon_threads = True

    def __init__(self, sites: dict[str, Site], port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.sites = sites
        self.hits: list[str] = []
        self.not_modified: list[str] = []
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def route(self, raw_path: str) -> Route | None:
        path = urlsplit(raw_path)
        key = path.path + (f"?{path.query}" if path.query else "")
        for prefix, site in self.sites.items():
            mount = f"/{prefix}" if prefix else ""
            if key.startswith(mount + "/") or (not mount):
                route = site.routes.get(key[len(mount) :])
                if route is not None:
                    if route.redirect and route.redirect.startswith("/"):
                        return Route(redirect=mount + route.redirect, status=route.status)
                    return route
        return None

    def url(self, prefix: str, path: str | None = None) -> str:
        """Absolute URL of ``path`` (default: the start page) of the site mounted at prefix."""
        site = self.sites[prefix]
        mount = f"/{prefix}" if prefix else ""
        return self.base_url + mount + (site.start if path is None else path)

    def start(self) -> SiteServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
