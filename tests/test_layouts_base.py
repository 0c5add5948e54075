"""What every layout must have, checked by machine (docs/adding-a-site.md, "The contract").

- every module under crawler/layouts/ imports;
- a layout's ``name`` is its file's: ``crawler/layouts/<name>.py``, a ``-`` written ``_``;
- names are unique, the spider loader (``scrapy crawl NAME``) finds a spider for each layout,
  and ``scrapy list`` lists exactly the layouts (no abstract base);
- each layout has a docstring, a non-empty ``signature`` of valid selectors, and at least one
  saved case under ``tests/cases/<name>/``;
- every case folder sits under its layout's name; every registry entry in
  ``crawler/sites.toml`` names an existing layout and a valid http(s) URL.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from pathlib import Path

import pytest
from cssselect import GenericTranslator, SelectorError
from lxml import etree
from scrapy.spiderloader import SpiderLoader
from scrapy.utils.project import get_project_settings
from support.project import CASES, POST_CASES, ROOT, TESTS

import crawler.layouts
from crawler.devtools.cases import find_cases
from crawler.discovery.detect import READERS_OF_ANY
from crawler.layouts.base import Layout
from crawler.sites import check_http_url, load_registry

CASES_ROOT = CASES
POST_CASES_ROOT = POST_CASES
SITES_ROOT = TESTS / "sites"
MODULES = sorted(
    info.name for info in pkgutil.iter_modules(crawler.layouts.__path__, "crawler.layouts.")
)


def _layouts() -> list[tuple[str, type[Layout]]]:
    """(module name, class) of every Layout subclass defined under crawler/layouts/."""
    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            ours = cls.__module__ == module_name
            if ours and issubclass(cls, Layout) and cls is not Layout:
                found.append((module_name, cls))
    return found


LAYOUTS = _layouts()
LAYOUT_IDS = [cls.name for _, cls in LAYOUTS]


def test_there_are_layouts() -> None:
    assert {"cnblogs", "hux", "cards", "feed", "hexo", "wordpress"} <= set(LAYOUT_IDS)


@pytest.mark.parametrize("module_name", MODULES)
def test_every_layout_module_imports(module_name: str) -> None:
    importlib.import_module(module_name)


def file_matches_name(stem: str, name: str) -> bool:
    """The naming rule: ``<name>.py`` (``-`` written ``_``)."""
    return stem == name.replace("-", "_")


@pytest.mark.parametrize(("module_name", "cls"), LAYOUTS, ids=LAYOUT_IDS)
def test_name_matches_file(module_name: str, cls: type[Layout]) -> None:
    stem = module_name.rpartition(".")[2]
    assert file_matches_name(stem, cls.name), (
        f"layout {cls.name!r} lives in {stem}.py: name the file {cls.name}.py"
    )


def test_naming_rule() -> None:
    assert file_matches_name("hexo", "hexo")
    assert not file_matches_name("hexo_next", "hexo")
    assert file_matches_name("wordpress", "wordpress")
    assert file_matches_name("my_blog", "my-blog")
    assert not file_matches_name("hexonext", "hexo")
    assert not file_matches_name("next", "hexo")


def test_names_are_unique_and_the_spider_loader_finds_each() -> None:
    assert len(LAYOUT_IDS) == len(set(LAYOUT_IDS))
    loader = SpiderLoader.from_settings(get_project_settings())
    for _, cls in LAYOUTS:
        assert loader.load(cls.name).layout_name == cls.name
    # `scrapy list`: the layouts' spiders and nothing else (no abstract base to crawl).
    # and crawlall's spider, which Scrapyd nodes run for `crawlall --scrapyd`
    assert sorted(loader.list()) == sorted([*LAYOUT_IDS, "crawlall"])


@pytest.mark.parametrize(("module_name", "cls"), LAYOUTS, ids=LAYOUT_IDS)
def test_layout_says_what_it_reads(module_name: str, cls: type[Layout]) -> None:
    assert (cls.__doc__ or "").strip(), f"{cls.__name__}: say what markup it reads, where checked"


@pytest.mark.parametrize(("module_name", "cls"), LAYOUTS, ids=LAYOUT_IDS)
def test_layout_has_a_saved_case(module_name: str, cls: type[Layout]) -> None:
    if cls.name in READERS_OF_ANY:
        # Read from a home page, not a list: whole saved sites (every one is crawled by auto;
        # some are of no theme a layout reads) and, for the generic reader, post pages.
        sites = [json.loads(p.read_text("utf-8")) for p in SITES_ROOT.glob("*/site.json")]
        assert sites and any(site["layout"] == "generic" for site in sites)
        assert cls.name == "auto" or sorted((POST_CASES_ROOT / cls.name).glob("*/case.json"))
        return
    cases = sorted((CASES_ROOT / cls.name).glob("*/case.json"))
    assert cases, f"no case under tests/cases/{cls.name}/: run `scrapy savecase {cls.name} URL`"


def _valid_selector(selector: str) -> bool:
    try:
        if selector.startswith(("/", "(")):
            etree.XPath(selector)
        else:
            GenericTranslator().css_to_xpath(selector)
    except (etree.XPathSyntaxError, SelectorError):
        return False
    return True


@pytest.mark.parametrize(("module_name", "cls"), LAYOUTS, ids=LAYOUT_IDS)
def test_layout_has_a_signature(module_name: str, cls: type[Layout]) -> None:
    if cls.name in READERS_OF_ANY:  # never a detection's answer: no page is theirs alone
        assert cls.signature == ()
        return
    assert isinstance(cls.signature, tuple) and cls.signature, (
        f"{cls.name}: set signature = (selectors that mark a page of this layout)"
    )
    for selector in cls.signature:
        assert isinstance(selector, str) and _valid_selector(selector), selector


def test_case_folders_sit_under_their_layout() -> None:
    for case in find_cases(CASES_ROOT):
        assert case.folder.parent.name == case.layout, case.folder
        assert case.layout in LAYOUT_IDS, f"{case.folder}: unknown layout {case.layout!r}"


def test_registry_entries_name_a_layout_and_a_valid_url() -> None:
    for name, site in load_registry().items():
        assert site.layout in LAYOUT_IDS, f"[sites.{name}] layout {site.layout!r} does not exist"
        assert check_http_url(site.url) == site.url


def test_the_guide_shows_the_hexo_layout_as_it_is() -> None:
    """docs/adding-a-site.md shows a complete layout; it must not drift from the real one."""
    guide = (ROOT / "docs" / "adding-a-site.md").read_text("utf-8")
    spider = (Path(crawler.layouts.__path__[0]) / "hexo.py").read_text("utf-8")
    assert f"```python\n{spider}```" in guide


def test_the_registry_header_names_every_layout() -> None:
    """The comment at the top of crawler/sites.toml is where users look the layouts up."""
    header = (Path(crawler.layouts.__path__[0]).parent / "sites.toml").read_text("utf-8")
    line = next(row for row in header.splitlines() if row.startswith("#   layout "))
    assert line.split(": ", 1)[1].split(", ") == sorted(LAYOUT_IDS)
