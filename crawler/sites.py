"""The site registry (``sites.toml``) and validation of the arguments that pick a site.

A site of a known layout is one registry entry; ``-a site=NAME`` crawls it and ``-a url=URL``
crawls any site of the spider's layout, matched to a registry entry when its URL is there.
Everything is validated before a crawl starts, so a bad argument is one clear error.
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from collections.abc import Collection
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from scrapy.settings import BaseSettings

from crawler.layouts import layouts

# Names become file and folder names under output/: no "/", no "..", no leading dot.
SITE_NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,79}$"
DEFAULT_TIMEZONE = "Asia/Shanghai"
DEFAULT_MAX_PAGES = 500


class SiteError(ValueError):
    """A site argument or registry entry that cannot be crawled; the message says why."""


def check_http_url(value: str) -> str:
    """Accept only absolute http(s) URLs with a host."""
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"URL must start with http:// or https://, got {value!r}")
    if not parts.hostname:
        raise ValueError(f"URL has no host: {value!r}")
    try:
        parts.port  # noqa: B018 -- urllib checks the port only when it is read
    except ValueError as exc:
        raise ValueError(f"URL has a bad port: {value!r}") from exc
    return value


def known_timezone(value: str) -> str:
    """Accept only an IANA timezone name this machine knows (``Asia/Shanghai``)."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown timezone {value!r}") from exc
    return value


class SiteConfig(BaseModel):
    """One blog to crawl: its name, layout (spider name), start URL and timezone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(pattern=SITE_NAME_PATTERN)]
    # "auto" (or left out): the start page says which layout reads the site.
    layout: str = "auto"
    url: str
    timezone: str = DEFAULT_TIMEZONE
    max_pages: Annotated[int, Field(ge=1, le=100_000)] = DEFAULT_MAX_PAGES

    @field_validator("name")
    @classmethod
    def _no_parent_reference(cls, value: str) -> str:
        if ".." in value:
            raise ValueError("site name must not contain '..'")
        return value

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        return check_http_url(value)

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        return known_timezone(value)

    @property
    def host(self) -> str:
        """The host name the crawl stays on."""
        return url_host(self.url)

    @property
    def is_loopback(self) -> bool:
        """True for a site served on this machine (tests, samples, benchmarks)."""
        return is_loopback_host(self.host)


# Asked of every site several times a run (scope, politeness, speed), for registries of
# thousands of sites.
@lru_cache(maxsize=65_536)
def url_host(url: str) -> str:
    """The host name of ``url`` (empty when it has none)."""
    return urlsplit(url).hostname or ""


@lru_cache(maxsize=4_096)
def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and the loopback addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _format_errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}" for err in exc.errors()
    )


def packaged_registry() -> str:
    """Where the packaged ``sites.toml`` is (a path inside the egg when deployed as one)."""
    return str(resources.files("crawler").joinpath("sites.toml"))


def read_registry_file(path: str | None = None) -> tuple[str, str]:
    """``(file name, text)`` of the registry at ``path`` (``None``/empty: the packaged one)."""
    file: Path | Traversable
    if path:
        source, file = path, Path(path).expanduser()
    else:
        source, file = packaged_registry(), resources.files("crawler").joinpath("sites.toml")
    try:
        return source, file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SiteError(f"site registry {source}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise SiteError(f"site registry {source}: cannot read it ({exc.strerror or exc})") from exc


def load_registry(
    text: str | None = None,
    *,
    source: str = "sites.toml",
    layouts: Collection[str] | None = None,
) -> dict[str, SiteConfig]:
    """Parse and validate a registry (the packaged ``sites.toml`` unless text is given).

    ``source`` names the file in errors; with ``layouts``, every entry's layout must be one of
    them. Every problem is a :class:`SiteError` naming the file, and the entry or line.
    """
    if text is None:
        source, text = read_registry_file()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message ends with "(at line L, column C)"
        raise SiteError(f"site registry {source}: not valid TOML: {exc}") from exc
    entries = data.get("sites", {})
    if not isinstance(entries, dict):
        raise SiteError(f"site registry {source}: `sites` must be a table of [sites.NAME] entries")
    sites: dict[str, SiteConfig] = {}
    for name, entry in entries.items():
        invalid = f"{source}: registry entry [sites.{name}] is invalid"
        if not isinstance(entry, dict):
            raise SiteError(f"{invalid}: expected a table with url (and layout), got {entry!r}")
        try:
            sites[name] = SiteConfig(name=name, **entry)
        except ValidationError as exc:
            raise SiteError(f"{invalid}: {_format_errors(exc)}") from exc
        if layouts is not None and sites[name].layout not in layouts:
            raise SiteError(
                f"{invalid}: layout {sites[name].layout!r} is not a layout of this project"
                f" (known: {', '.join(sorted(layouts))})"
            )
    return sites


@lru_cache(maxsize=8)
def _registry(path: str) -> dict[str, SiteConfig]:
    source, text = read_registry_file(path)
    return load_registry(text, source=source, layouts=tuple(layouts()))


def registry(settings: BaseSettings | None = None) -> dict[str, SiteConfig]:
    """The sites of the registry file named by the ``SITE_REGISTRY`` setting, parsed once.

    Empty or without settings: the packaged ``sites.toml``. Each entry's layout must be one of
    the project's layouts (each is a ``scrapy crawl`` spider). A file that cannot be read or
    used, or an entry that is invalid, raises :class:`SiteError` naming the file (and the entry
    or line).
    """
    path = settings.get("SITE_REGISTRY") if settings is not None else None
    return _registry(path or "")


def name_from_url(url: str) -> str:
    """A site name for an unregistered URL: host and first path segment, e.g.
    ``www.cnblogs.com/RobinDevNotes/`` -> ``cnblogs.com-robindevnotes``."""
    parts = urlsplit(url)
    host = (parts.hostname or "site").removeprefix("www.")
    if parts.port:
        host = f"{host}-{parts.port}"
    first = next((seg for seg in parts.path.split("/") if seg), "")
    first = "" if "." in first else first  # "index.xml" names a file, not a blog
    slug = re.sub(r"[^a-z0-9_.-]+", "-", f"{host}-{first}".lower()).strip("-.")
    return re.sub(r"\.{2,}", ".", slug)[:80] or "site"


def resolve_site(
    layout: str,
    *,
    url: str | None = None,
    site: str | None = None,
    sites: dict[str, SiteConfig] | None = None,
) -> SiteConfig:
    """The site a spider of ``layout`` crawls, from ``-a site=NAME`` or ``-a url=URL``."""
    sites = registry() if sites is None else sites
    if site:
        if site not in sites:
            known = ", ".join(sorted(n for n, s in sites.items() if s.layout == layout))
            raise SiteError(
                f"unknown site {site!r} (sites of layout {layout!r}: {known or 'none'})"
            )
        config = sites[site]
        if config.layout != layout:
            raise SiteError(
                f"site {site!r} has layout {config.layout!r}; run `scrapy crawl {config.layout}`"
            )
        if url and url.strip() != config.url:
            config = config.model_copy(update={"url": _checked_url(url)})
        return config
    if not url:
        raise SiteError("give the start page with -a url=URL or a registry site with -a site=NAME")
    url = _checked_url(url)
    for config in sites.values():
        if config.layout == layout and config.url == url:
            return config
    return SiteConfig(name=name_from_url(url), layout=layout, url=url)


def _checked_url(url: str) -> str:
    try:
        return check_http_url(url)
    except ValueError as exc:
        raise SiteError(str(exc)) from exc
