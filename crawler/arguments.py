"""The ``-a`` arguments of the layout spiders, validated before a crawl starts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from crawler.sites import SiteConfig, SiteError, resolve_site

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


class SpiderArguments(BaseModel):
    """The ``-a`` arguments every layout spider takes, validated before the crawl starts."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    site: str | None = None
    full: bool = False
    max_pages: int | None = None

    @field_validator("full", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
        raise ValueError(f"expected 1/0, true/false, yes/no; got {value!r}")


def validate_arguments(
    layout: str, arguments: dict[str, Any]
) -> tuple[SpiderArguments, SiteConfig]:
    """Check ``-a`` arguments and resolve the site; raise :class:`SiteError` saying what is wrong.

    Arguments whose names start with ``_`` (Scrapyd's ``_job``) are not ours and pass through.
    """
    arguments = {k: v for k, v in arguments.items() if not k.startswith("_")}
    try:
        args = SpiderArguments.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"-a {'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise SiteError(f"bad spider argument: {problems}") from exc
    site = resolve_site(layout, url=args.url, site=args.site)
    if args.max_pages is not None:
        site = site.model_copy(update={"max_pages": max(1, args.max_pages)})
    return args, site
