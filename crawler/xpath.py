"""Compiled XPath on a selector's lxml tree, for the fields of every post.

``node.css(...)``/``node.xpath(...)`` compile the query text and wrap every match in a new
Selector on each call (about 10 µs); a layout calls them a few times per post, more often
than Scrapy parses a page. These helpers run a query compiled once (per process) straight on
the lxml element and return plain strings: a third of the cost. Queries may use XPath
variables (``$depth``), passed as keyword arguments. Selectors on non-lxml documents (JSON)
fall back to parsel.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from lxml import etree
from parsel import Selector, SelectorList


def has_class(name: str) -> str:
    """An XPath test for "the element has class ``name``" (what CSS ``.name`` matches)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


@lru_cache(maxsize=512)
def _compiled(query: str) -> etree.XPath:
    return etree.XPath(query, smart_strings=False)


_STRING_VALUE = _compiled("string()")


def _evaluate(node: Selector | SelectorList, query: str, variables: dict[str, Any]) -> list[Any]:
    results: list[Any] = []
    for selector in [node] if isinstance(node, Selector) else node:
        if not isinstance(selector.root, etree._Element):
            results += selector.xpath(query, **variables).getall()
            continue
        found = _compiled(query)(selector.root, **variables)
        # A list of nodes or strings; a string, number or boolean for string(), count(), ...
        results += found if isinstance(found, list) else [found]
    return results


def node_texts(
    node: Selector | SelectorList, query: str = ".//text()", **variables: Any
) -> list[str]:
    """The strings a query selects under a selector (or each of a list): text nodes,
    attribute values, or the value of ``string(...)``."""
    return [str(found) for found in _evaluate(node, query, variables)]


def node_strings(node: Selector | SelectorList, query: str, **variables: Any) -> list[str]:
    """The string value (all its text, joined) of each element a query selects."""
    return [
        _STRING_VALUE(found) if isinstance(found, etree._Element) else str(found)
        for found in _evaluate(node, query, variables)
    ]


def node_number(node: Selector, query: str, **variables: Any) -> float:
    """The number an XPath expression such as ``count(...)`` gives on a selector."""
    found = _evaluate(node, query, variables)
    return float(found[0]) if found else 0.0
