"""``scrapy savecase LAYOUT URL``: save a page as a test case with what the layout reads now.

Writes ``tests/cases/<layout>/<case>/`` (``--cases-dir`` for another root): the page as
fetched (``page.html``, or ``page.xml`` for an XML response; bytes untouched, so its encoding
is kept), ``case.json`` (url after redirects, layout, site, timezone, now, next_pages, and the
response's Content-Type, plus the charset the crawl decoded with if the page declares none)
and ``output.json``: the items :func:`crawler.devtools.cases.run_case` extracts, i.e.
exactly what ``tests/test_layouts_saved_lists.py`` will compare against. Those are what the
layout reads NOW, not what is right: the contributor checks them against the page by hand.
An existing case folder is never overwritten.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from scrapy.commands import ScrapyCommand
from scrapy.http import Response, TextResponse, XmlResponse
from scrapy.utils.conf import closest_scrapy_cfg

from crawler.commands import FetchError, fetch, quiet, refuse
from crawler.devtools.cases import EXPECTED_FIELDS, load_case, next_pages, run_case
from crawler.layouts import layouts
from crawler.parsing.encodings import declared_encoding
from crawler.sites import (
    DEFAULT_TIMEZONE,
    SITE_NAME_PATTERN,
    SiteError,
    check_http_url,
    registry,
    resolve_site,
)

REMINDER = """\
CHECK output.json AGAINST THE PAGE BY HAND before you commit it. It holds what the layout
extracts today, not what is right: read each item's title, url, summary, author, date
(published_raw as printed; published_at/date_precision in the site's timezone), category,
tags and counts on the page itself, correct output.json where it is wrong, then make the
layout pass: .venv/bin/python -m pytest tests/test_layouts_saved_lists.py -q -k {layout}"""


def case_name(text: str) -> str:
    """A folder name from ``--name`` or the URL path: a-z, 0-9, ``-``, ``_``; never ``..``."""
    name = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")
    return re.sub(r"-{2,}", "-", name)[:80].strip("-_")


def default_case_name(url: str) -> str:
    """``https://blog.example.cn/page/2/`` -> ``page-2``; a site root -> ``index``."""
    parts = urlsplit(url)
    return case_name(f"{parts.path} {parts.query}") or "index"


def page_file(response: Response) -> str:
    """``page.xml`` for XML (feeds), else ``page.html``."""
    xml = isinstance(response, XmlResponse) or response.body.lstrip()[:5] == b"<?xml"
    return "page.xml" if xml and "html" not in _served_type(response) else "page.html"


def content_type(response: Response, page: str) -> str:
    """The Content-Type to replay the page with: as served, plus the charset the crawl decoded
    it with when neither the header nor the page declares one (e.g. an undeclared GBK page),
    so that the case decodes exactly as the crawl did."""
    value = _served_type(response) or ("application/xml" if page.endswith(".xml") else "text/html")
    if isinstance(response, TextResponse) and not declared_encoding(response.body, value):
        value = f"{value}; charset={response.encoding}"
    return value


def _served_type(response: Response) -> str:
    value = response.headers.get("Content-Type")
    return value.decode("latin-1").strip() if value else ""


class Command(ScrapyCommand):
    """Fetch a page and save it as a test case of a layout."""

    requires_project = True

    def syntax(self) -> str:
        return "[options] <layout> <url>"

    def short_desc(self) -> str:
        return "Save a page as a test case (page, case.json, output.json) of a layout"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--name", help="case folder name (default: from the URL path)")
        parser.add_argument(
            "--now", help="the frozen clock, ISO 8601 with offset (default: the fetch time)"
        )
        parser.add_argument(
            "--site", help="site name (default: the registry entry of the URL, else derived)"
        )
        parser.add_argument(
            "--timezone", help="site timezone (default: the registry entry's, else Asia/Shanghai)"
        )
        parser.add_argument(
            "--cases-dir",
            help="root of the cases (default: tests/cases beside scrapy.cfg)",
        )

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        quiet(self.settings)
        super().process_options(args, opts)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 2:
            refuse("give a layout and a URL")
        layout, url = args[0], args[1]
        try:
            url = check_http_url(url)
        except ValueError as exc:
            refuse(str(exc))
        self._check_layout(layout)
        site, timezone = self._site(layout, url, opts)
        now = self._now(opts.now, timezone)
        name = self._name(opts.name, url)
        folder = self._cases_dir(opts.cases_dir) / layout / name
        if folder.exists():
            refuse(f"{folder} exists: not overwriting it")
        assert self.crawler_process is not None
        try:
            response = fetch(self.crawler_process, url)
        except FetchError as exc:
            print(exc, file=sys.stderr)
            self.exitcode = 1
            return
        now = now or datetime.now(ZoneInfo(timezone)).replace(microsecond=0)
        count, pages = self._write(folder, response, layout, site, timezone, now)
        if response.url != url:
            print(f"redirected: the case is of {response.url}")
        print(f"wrote {folder}/: {count} item(s); next pages: {pages or 'none'}")
        if not count:
            print(f"warning: the {layout} layout read no post from this page", file=sys.stderr)
        print(REMINDER.format(layout=layout))

    def _check_layout(self, layout: str) -> None:
        if layout not in layouts():
            known = ", ".join(layouts())
            refuse(f"unknown layout {layout!r} (known: {known})")

    def _site(self, layout: str, url: str, opts: argparse.Namespace) -> tuple[str, str]:
        """The site name and timezone: from the options, the registry, or the URL."""
        try:
            config = resolve_site(layout, url=url)
        except SiteError as exc:
            refuse(str(exc))
        name = opts.site or config.name
        if not re.match(SITE_NAME_PATTERN, name) or ".." in name:
            refuse(f"bad site name {name!r}: a-z 0-9 _ - . only")
        known = registry().get(name)
        timezone = opts.timezone or (known.timezone if known else config.timezone)
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            refuse(f"unknown timezone {timezone!r}")
        return name, timezone or DEFAULT_TIMEZONE

    def _now(self, text: str | None, timezone: str) -> datetime | None:
        if text is None:
            return None
        try:
            now = datetime.fromisoformat(text)
        except ValueError:
            refuse(f"--now: not an ISO 8601 time: {text!r}")
        if now.tzinfo is None:
            refuse("--now needs a UTC offset, e.g. +08:00")
        return now

    def _name(self, given: str | None, url: str) -> str:
        if given is None:
            return default_case_name(url)
        if "/" in given or "\\" in given or ".." in given:
            refuse(f"--name {given!r}: a folder name, not a path")
        name = case_name(given)
        if not name:
            refuse(f"--name {given!r}: no usable characters")
        return name

    def _cases_dir(self, given: str | None) -> Path:
        if given:
            return Path(given)
        cfg = closest_scrapy_cfg()
        return (Path(cfg).parent if cfg else Path.cwd()) / "tests" / "cases"

    def _write(
        self,
        folder: Path,
        response: Response,
        layout: str,
        site: str,
        timezone: str,
        now: datetime,
    ) -> tuple[int, list[str]]:
        """Write the case in a hidden sibling folder, then move it in place (never half)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        draft = folder.with_name(f".{folder.name}.draft")
        shutil.rmtree(draft, ignore_errors=True)
        draft.mkdir()
        try:
            page = page_file(response)
            (draft / page).write_bytes(response.body)
            spec: dict[str, Any] = {
                "url": response.url,
                "layout": layout,
                "site": site,
                "timezone": timezone,
                "now": now.isoformat(),
                "page": page,
            }
            spec["headers"] = {"Content-Type": content_type(response, page)}
            _write_json(draft / "case.json", spec)
            spec["next_pages"] = next_pages(load_case(draft))
            _write_json(draft / "case.json", spec)
            rows = [
                {key: row[key] for key in EXPECTED_FIELDS} for row in run_case(load_case(draft))
            ]
            _write_json(draft / "output.json", rows)
            if folder.exists():
                refuse(f"{folder} appeared meanwhile: not overwriting it")
            draft.rename(folder)
        finally:
            shutil.rmtree(draft, ignore_errors=True)
        return len(rows), spec["next_pages"]


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
