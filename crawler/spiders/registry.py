"""The spider of ``crawlall``: every site of a run, of any layout, in one crawler.

``crawlall`` hands it the sites from code; a Scrapyd node gets them as the job's ``sites``
argument (a JSON list of site entries) from ``crawlall --scrapyd``, which splits a run's sites
over its nodes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from crawler.arguments import parse_flag
from crawler.sites import SiteConfig
from crawler.spiders.blogs import BlogSpider


class RegistrySpider(BlogSpider):
    """Every site of a ``crawlall`` run, of any layout, in one crawler (so Scrapy's download
    slots hold the politeness limits per host across all of them).

    ``sites``: SiteConfig objects, or (a Scrapyd job's argument) their JSON list; ``full``
    and ``content`` are read as the layout spiders' flags are (``1``/``0``, …)."""

    name = "crawlall"

    def __init__(self, *args: Any, sites: Iterable[SiteConfig] | str = (), **kwargs: Any) -> None:
        if isinstance(sites, str):
            sites = [SiteConfig.model_validate(entry) for entry in json.loads(sites)]
        for flag in ("full", "content"):
            if flag in kwargs:
                kwargs[flag] = parse_flag(kwargs[flag])
        super().__init__(*args, sites=list(sites), **kwargs)


def sites_argument(sites: Iterable[SiteConfig]) -> str:
    """The ``sites`` argument of a Scrapyd job crawling ``sites``."""
    return json.dumps([site.model_dump(mode="json") for site in sites], ensure_ascii=False)
