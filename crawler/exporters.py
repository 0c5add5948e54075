"""CSV that spreadsheets open safely and data tools load cleanly.

Registered for the ``csv`` feed format (``FEED_EXPORTERS``), so ``-O posts.csv``, the per-run
exports and the consolidated ``output/posts.csv`` all follow the same rules:

- columns: ``FEED_EXPORT_FIELDS`` (the schema's order), never guessed from the first item;
- lists (``tags``) joined with ``CSV_LIST_SEPARATOR`` (default ``" | "``);
- a text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so a
  spreadsheet shows it as text instead of running it as a formula (numbers are not touched);
- UTF-8; ``CSV_BOM = True`` writes a byte-order mark first, which Excel needs to show Chinese
  (default off: pandas, DuckDB and the csv module read plain UTF-8 without a stray BOM).
"""

from __future__ import annotations

from typing import IO, Any

from scrapy.crawler import Crawler
from scrapy.exporters import CsvItemExporter

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
DEFAULT_LIST_SEPARATOR = " | "


def neutralise_formula(value: str) -> str:
    """Prefix ``'`` to text a spreadsheet would take for a formula (OWASP CSV injection)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


class SafeCsvItemExporter(CsvItemExporter):
    """Scrapy's CSV exporter with list joining, formula neutralisation and an optional BOM."""

    def __init__(self, file: IO[bytes], *, bom: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("join_multivalued", DEFAULT_LIST_SEPARATOR)
        if bom:
            file.write("\ufeff".encode())
        super().__init__(file, **kwargs)

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], **kwargs: Any) -> SafeCsvItemExporter:
        settings = crawler.settings
        kwargs.setdefault(
            "join_multivalued", settings.get("CSV_LIST_SEPARATOR", DEFAULT_LIST_SEPARATOR)
        )
        return cls(file, bom=settings.getbool("CSV_BOM"), **kwargs)

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        value = super().serialize_field(field, name, value)
        return neutralise_formula(value) if isinstance(value, str) else value
