"""Whole real sites saved from public repositories, served on 127.0.0.1 as their host served
them (tests/sites/<theme>-<version>-<owner>/).

A site folder holds ``files/`` (the pages byte-exact, at their paths under the site's root),
``site.json`` (the repository and commit they came from, ``base_url``: the address the pages
were rendered for, ``timezone``) and ``expected.json`` (every post of the site with its
values, read off the pages by eye; the pages that are not posts; ``unsaved_posts``, those a
reader can only know from their page, which was not saved). The server answers a path as
GitHub Pages does (``/a/`` is ``a/index.html``, ``/a`` redirects to ``/a/`` when that is a
folder, else is ``a.html``), rewrites the pages' own addresses (``base_url``, and the
``origins`` a site.json adds) to its own, answers conditional requests with 304 and records
what was asked.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from w3lib.url import safe_url_string

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".css": "text/css",
    ".js": "application/javascript",
}
# The pages' modification time (fixed: Last-Modified is the same every run).
_MTIME = 1_780_000_000


@dataclass
class SavedSite:
    """A saved site: where its files are, the address they were rendered for, what it has."""

    folder: Path
    spec: dict[str, Any]
    expected: dict[str, Any]

    @classmethod
    def load(cls, folder: Path) -> SavedSite:
        spec = json.loads((folder / "site.json").read_text(encoding="utf-8"))
        expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
        return cls(folder, spec, expected)

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def base_url(self) -> str:
        """The address the pages were rendered for, with its path (``/blog/``)."""
        return str(self.spec["base_url"]).split()[0].rstrip("/") + "/"

    @property
    def root_path(self) -> str:
        return urlsplit(self.base_url).path or "/"

    @property
    def origins(self) -> list[str]:
        """The scheme and host of the pages' own links, longest first (rewritten when served)."""
        parts = urlsplit(self.base_url)
        found = {f"{parts.scheme}://{parts.netloc}", *self.spec.get("origins", [])}
        return sorted(found, key=len, reverse=True)

    @property
    def partial(self) -> bool:
        """True when some post's page was not saved (the page answers 404, which a crawl
        counts as a failure): a post of ``posts`` (expected from the lists) or of
        ``unsaved_posts`` (known from its page only: not expected)."""
        return bool(self.expected.get("unsaved_posts")) or any(
            self.file(urlsplit(self.base_url.rstrip("/") + post["path"]).path) is None
            for post in self.expected["posts"]
        )

    def file(self, path: str) -> Path | None:
        """The saved file a request path answers with, None if there is none."""
        path = unquote(urlsplit(path).path)
        if not path.startswith(self.root_path):
            return None
        relative = path[len(self.root_path) :]
        for candidate in (
            relative,
            f"{relative.rstrip('/')}/index.html" if relative else "index.html",
            f"{relative}.html" if relative and not relative.endswith("/") else "",
        ):
            found = self.folder / "files" / candidate
            if candidate and found.is_file() and found.resolve().is_relative_to(self.folder):
                return found
        return None


class SavedSiteServer(ThreadingHTTPServer):
    """Serves a :class:`SavedSite` on a free port of 127.0.0.1 (see the module docstring)."""

    daemon_threads = True

    def __init__(self, site: SavedSite) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site = site
        self.hits: list[tuple[str, int]] = []  # (path, status) of every request
        self.conditional: list[str] = []  # the paths asked for with a validator

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def url(self, path: str = "") -> str:
        """A path of the site (relative to its root) as served here."""
        return self.origin + self.site.root_path + path.lstrip("/")

    def local(self, url: str) -> str:
        """An address of the real site as served here."""
        for origin in self.site.origins:
            if url.startswith(origin):
                return self.origin + url[len(origin) :]
        return url

    def posts(self, key: str = "posts") -> dict[str, dict[str, Any]]:
        """The site's expected posts (``unsaved_posts``: those whose page was not saved) by
        their address as served here, percent-encoded as a crawl exports it."""
        base = self.site.base_url.rstrip("/")
        return {
            safe_url_string(self.local(base + post["path"])): post
            for post in self.site.expected.get(key, [])
        }

    def body(self, path: Path) -> bytes:
        data = path.read_bytes()
        for origin in self.site.origins:
            data = data.replace(origin.encode(), self.origin.encode())
        return data

    def start(self) -> SavedSiteServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: SavedSiteServer

    def do_GET(self) -> None:
        server, site = self.server, self.server.site
        found = site.file(self.path)
        if found is None:
            folder = site.file(self.path.split("?")[0].rstrip("/") + "/")
            if folder is not None and not urlsplit(self.path).path.endswith("/"):
                self._answer(301, b"", headers={"Location": urlsplit(self.path).path + "/"})
                return
            self._answer(404, b"not found", "text/plain")
            return
        body = server.body(found)
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        validators = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
        if any(validators):
            server.conditional.append(self.path)
        if validators[0] == etag or (validators[0] is None and _not_modified(validators[1])):
            self._answer(304, b"", headers={"ETag": etag})
            return
        kind = _TYPES.get(found.suffix, "application/octet-stream")
        modified = formatdate(_MTIME, usegmt=True)
        self._answer(200, body, kind, {"ETag": etag, "Last-Modified": modified})

    def _answer(
        self, status: int, body: bytes, kind: str = "", headers: dict[str, str] | None = None
    ) -> None:
        self.server.hits.append((self.path, status))
        self.send_response(status)
        if kind:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _not_modified(since: str | None) -> bool:
    if not since:
        return False
    try:
        return parsedate_to_datetime(since).timestamp() >= _MTIME
    except (TypeError, ValueError):
        return False


# Compared field by field: what the page shows of each post (categories only where the
# expected values give them: None where the saved pages cannot say).
FIELDS = (
    ("title", "title"),
    ("published", "published_at"),
    ("date_precision", "date_precision"),
    ("tags", "tags"),
    ("categories", "categories"),
)


def plain(markdown: str) -> str:
    """The text of Markdown as a reader sees it: link and image targets, emphasis, heading
    and list marks, code ticks out; runs of whitespace as one space."""
    # A link's text may hold brackets of its own ("[「MIKU」 [pixiv]](…)").
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(?m)^\s*(?:#{1,6}|[-*+]|\d+\.|>)\s+", "", text)
    text = re.sub(r"[*_`]+", "", text)
    return re.sub(r"\s+", " ", text).strip()


_ESCAPED = re.compile(r"\\([\\\[\](){}#+\-.!|<>*_`])")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def _unescaped(markdown: str) -> str:
    """The Markdown with its escapes out, except in code spans and blocks."""
    parts, last = [], 0
    for code in _CODE.finditer(markdown):
        parts += [_ESCAPED.sub(r"\1", markdown[last : code.start()]), code.group(0)]
        last = code.end()
    return "".join([*parts, _ESCAPED.sub(r"\1", markdown[last:])])


def checks_of(expected: dict[str, Any], post: dict[str, Any]) -> list[tuple[str, bool]]:
    """Each check of a post as exported against the post as read off its page, as (what
    differs when it fails, whether it holds): the fields of :data:`FIELDS`, the body's
    first and last text, what the body must hold and the theme's chrome it must not. A
    field the saved pages cannot give, named in ``misses`` with why, is not checked."""
    misses = expected.get("misses", {})
    found: list[tuple[str, bool]] = []
    for name, field in FIELDS:
        if name in misses or name not in expected:
            continue
        value = expected[name]
        if name == "categories" and value is None:
            continue
        found.append((f"{name}: {post.get(field)!r}, expected {value!r}", post.get(field) == value))
    # Markdown's escapes out (outside code, where a backslash is the page's own): the body
    # is Markdown, the expected texts the page's own.
    content = post.get("content") or ""
    body = plain(_unescaped(content))
    for key in ("first_text", "last_text"):
        if expected.get(key):
            found.append(
                (f"body lacks its {key} {expected[key][:60]!r}", plain(expected[key]) in body)
            )
    found += [
        (f"body lacks {part[:60]!r}", plain(part) in body) for part in expected.get("contains", [])
    ]
    found += [
        (f"body holds the theme's {part[:60]!r}", part not in content)
        for part in expected.get("chrome", [])
    ]
    return found


def problems_of(expected: dict[str, Any], post: dict[str, Any]) -> list[str]:
    """What differs between a post as exported and as read off its page."""
    return [check for check, holds in checks_of(expected, post) if not holds]
