"""Compiled XPath on a selector's lxml tree, for the fields of every post.

``node.css(...)``/``node.xpath(...)`` compile the query text and wrap every match in a new
Selector on each call; a layout calls them a few times per post, more often than Scrapy
parses a page. These helpers run a query compiled once (per process) straight on the lxml
element and return plain strings (bench/README.md has the costs). Queries may use XPath
variables (``$depth``), passed as keyword arguments. Selectors on non-lxml documents (JSON)
fall back to parsel. ``own_elements`` walks a node once for layouts that read many parts.
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


def node_elements(node: Selector, query: str, **variables: Any) -> list[etree._Element]:
    """The lxml elements a query selects under a selector (for element-level reading)."""
    found = _compiled(query)(node.root, **variables)
    if not isinstance(found, list):
        return []  # string(), count(): no elements
    return [element for element in found if isinstance(element, etree._Element)]


def string_value(element: etree._Element) -> str:
    """All the text in an element, as XPath ``string()`` (entity references left unresolved
    in XML are not text; ``itertext`` would give them)."""
    return str(_compiled("string()")(element))


def own_elements(node: Selector, boundary_class: str) -> list[tuple[etree._Element, list[str]]]:
    """The elements under a node, in page order, with their classes, leaving out any nested
    element of class ``boundary_class`` and what is inside it.

    One pass in Python, for a layout that reads several parts of a node: cheaper than an
    XPath per part once the node holds more than a few of them. A card inside a card is what
    the parser builds when a closing tag is missing; its parts are not this card's.
    """
    found: list[tuple[etree._Element, list[str]]] = []
    stack = list(node.root)[::-1]
    while stack:
        element = stack.pop()
        if not isinstance(element.tag, str):
            continue  # a comment or processing instruction
        classes = str(element.get("class", "")).split()
        if boundary_class in classes:
            continue
        found.append((element, classes))
        stack += list(element)[::-1]
    return found


def own_texts(element: etree._Element) -> list[str]:
    """The element's own text nodes (XPath ``text()``): its text and its children's tails."""
    return [text for text in (element.text, *(child.tail for child in element)) if text]


def all_texts(element: etree._Element) -> list[str]:
    """Every text node under the element (XPath ``.//text()``)."""
    return [str(text) for text in element.itertext()]
