"""The ``-a`` arguments of the layout spiders, validated before a crawl starts.

:class:`SpiderArguments` is the one description of them: validation, ``scrapy crawl -h``
(:func:`arguments_help`) and the README's table all come from its fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from crawler.sites import (
    DEFAULT_MAX_PAGES,
    DEFAULT_TIMEZONE,
    SiteConfig,
    SiteError,
    known_timezone,
    resolve_site,
)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def parse_flag(value: Any) -> bool:
    """A yes/no argument: ``1``/``0``, ``true``/``false``, ``yes``/``no``, ``on``/``off``
    (any case; empty is no); ``ValueError`` for anything else. The one reading of flags, for
    ``-a`` arguments and a Scrapyd job's."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in _TRUE | _FALSE:
        raise ValueError(f"expected 1/0, true/false, yes/no; got {value!r}")
    return text in _TRUE


class SpiderArguments(BaseModel):
    """The ``-a`` arguments every layout spider takes, validated before the crawl starts."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(
        None,
        description="start page (`http`/`https` only); the crawl stays on that site "
        "(for cnblogs, that blog)",
    )
    site: str | None = Field(None, description="a registry entry's name instead of `url`")
    full: bool = Field(
        False,
        description="`1` to read every list page, not only up to the first already-known page",
    )
    content: bool = Field(
        True,
        description="`0` to stay on list pages: no post page is fetched, so no `content`,"
        " post-page tags and categories or `updated_at` for new posts (about one request"
        " more per new or changed post otherwise)",
    )
    # The same bounds as a registry entry's max_pages (SiteConfig).
    max_pages: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description=f"bound on list pages followed (default {DEFAULT_MAX_PAGES} per site)",
    )

    timezone: str | None = Field(
        None,
        description=f"the timezone of dates the site prints without an offset (default"
        f" {DEFAULT_TIMEZONE}, or the registry entry's)",
    )

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str | None) -> str | None:
        return None if value is None else known_timezone(value)

    @field_validator("full", "content", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        return parse_flag(value)


def arguments_help() -> list[tuple[str, str]]:
    """``(name, meaning)`` of every spider argument, from the model's field descriptions."""
    return [(name, field.description or "") for name, field in SpiderArguments.model_fields.items()]


def _problem(error: Any) -> str:
    """One pydantic error as ``-a NAME=VALUE: what is wrong``."""
    name = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        known = ", ".join(SpiderArguments.model_fields)
        return f"-a {name}: unknown argument (known: {known})"
    return f"-a {name}={error['input']}: {error['msg']}"


def validate_arguments(
    layout: str,
    arguments: dict[str, Any],
    *,
    site: SiteConfig | None = None,
    sites: dict[str, SiteConfig] | None = None,
) -> tuple[SpiderArguments, SiteConfig]:
    """Check ``-a`` arguments and resolve the site; raise :class:`SiteError` saying what is wrong.

    ``site``: the site already resolved (``crawlall``, or ``scrapy crawl`` with the registry of
    its settings); the registry is then not read at all. ``sites``: the registry to resolve
    ``-a site=``/``-a url=`` in (default: the packaged one). Arguments whose names start with
    ``_`` (Scrapyd's ``_job``) are not ours and pass through.
    """
    arguments = {k: v for k, v in arguments.items() if not k.startswith("_")}
    try:
        args = SpiderArguments.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(_problem(err) for err in exc.errors())
        raise SiteError(f"bad spider argument: {problems}") from exc
    if site is None:
        site = resolve_site(layout, url=args.url, site=args.site, sites=sites)
    if args.max_pages is not None:
        site = site.model_copy(update={"max_pages": args.max_pages})
    if args.timezone is not None:
        site = site.model_copy(update={"timezone": args.timezone})
    return args, site
