"""The fenced code blocks of Markdown, as the saved post cases check them (the tests and
bench/compare_extractors.py alike)."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(`{3,})([^\s`]*)\s*$")


def fenced_languages(markdown: str) -> list[str]:
    """The language of each fenced code block, in order ("" for none): an opening fence of
    three or more backticks (indented inside a list item too) up to the closing fence of at
    least as many."""
    languages, closing = [], ""
    for line in markdown.splitlines():
        found = _FENCE.match(line)
        if found is None:
            continue
        ticks, language = found.groups()
        if not closing:
            languages.append(language)
            closing = ticks
        elif len(ticks) >= len(closing) and not language:
            closing = ""
    return languages
