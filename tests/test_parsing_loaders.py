"""PostLoader stands on public APIs only, and refuses what a layout gets wrong in one line.

Its cleaning equals an itemloaders ``ItemLoader`` declaring the same processors: that is
compared in ``tests/test_fast_paths.py``.
"""

from __future__ import annotations

import ast
import inspect

import pytest
from itemloaders import ItemLoader
from parsel import Selector

from crawler.parsing import loaders
from crawler.parsing.loaders import PostLoader


def test_post_loader_is_no_item_loader_and_imports_none_of_its_code() -> None:
    """Subclassing ItemLoader for speed meant overriding its private ``_values``, which
    itemloaders changes between versions; the loader depends on parsel and our code only."""
    assert not issubclass(PostLoader, ItemLoader)
    tree = ast.parse(inspect.getsource(loaders))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    roots = {name.split(".")[0] for name in imported if name}
    assert not roots & {"itemloaders", "scrapy"}


def test_a_field_the_item_lacks_is_refused_when_added() -> None:
    loader = PostLoader()
    with pytest.raises(ValueError, match=r"^a post has no field 'titel'$"):
        loader.add_value("titel", "A title")


def test_css_and_xpath_need_a_selector() -> None:
    with pytest.raises(RuntimeError, match="selector"):
        PostLoader(base_url="https://a.com/").add_css("title", "a::text")
    loader = PostLoader(selector=Selector(text="<a href='/p/1'>One</a>"), base_url="https://a.com/")
    item = loader.add_css("title", "a::text").add_xpath("url", "//a/@href").load_item()
    assert (item["title"], item["url"]) == ("One", "https://a.com/p/1")


def test_loading_twice_gives_the_same_item() -> None:
    loader = PostLoader(base_url="https://a.com/x/")
    loader.add_value("url", ["", "p/1"]).add_value("tags", ["a", "a", " b "])
    first = dict(loader.load_item())
    assert first == dict(loader.load_item())
    assert (first["url"], first["tags"], first["views"]) == (
        "https://a.com/x/p/1",
        ["a", "b"],
        None,
    )
