"""CSV that spreadsheets open safely and data tools load cleanly.

Registered for the ``csv`` feed format (``FEED_EXPORTERS``), so ``-O posts.csv``, the per-run
exports and the consolidated ``output/posts.csv`` all follow the same rules:

- columns: ``FEED_EXPORT_FIELDS`` (the schema's order), never guessed from the first item;
- lists (``tags``) joined with ``CSV_LIST_SEPARATOR`` (default ``" | "``);
- a text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so a
  spreadsheet shows it as text instead of running it as a formula (numbers are not touched);
- UTF-8; ``CSV_BOM = True`` writes a byte-order mark first, which Excel needs to show Chinese
  (default off: pandas, DuckDB and the csv module read plain UTF-8 without a stray BOM);
- a file without rows still has its header row (a quiet run's ``changes.csv``): an empty file
  is an error for pandas (``EmptyDataError``) and has no columns for DuckDB.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from typing import IO, Any

from itemadapter import ItemAdapter
from scrapy import Item
from scrapy.crawler import Crawler
from scrapy.exporters import BaseItemExporter
from scrapy.utils.serialize import ScrapyJSONEncoder

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
DEFAULT_LIST_SEPARATOR = " | "
# The options BaseItemExporter documents; the exporters pass any others on (csv.writer's,
# json's), as Scrapy's own exporters do.
EXPORTER_OPTIONS = ("encoding", "fields_to_export", "export_empty_fields", "indent")

Serializer = Callable[[Any], Any]

# Excel holds at most this many characters in a cell and cuts the rest off silently; a
# longer CSV cell (a long post's content) is cut here, visibly, with CELL_CUT_MARK at its end.
EXCEL_CELL_LIMIT = 32_767
CELL_CUT_MARK = "[…]"


def neutralise_formula(value: str) -> str:
    """Prefix ``'`` to text a spreadsheet would take for a formula (OWASP CSV injection)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


class PostRowsExporter(BaseItemExporter):
    """The field values of an item, in the configured column order, through Scrapy's public
    exporter API only (the documented options, ``serialize_field``, ``export_item``).

    Every post is exported five times a run (``-O``, dataset and delta, JSON and CSV), so the
    serializer of each field is looked up once per item class, and a plain dict that holds
    exactly the columns in order (the dataset's rows) is taken as it is.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**{name: kwargs.pop(name) for name in EXPORTER_OPTIONS if name in kwargs})
        self.encoding = self.encoding or "utf-8"
        self.extra_options = kwargs  # for the format's writer
        # (field, column name, serializer or None) per item class, in column order.
        self._plans: dict[type, list[tuple[str, str, Serializer | None]]] = {}
        fields = self.fields_to_export
        self._row_keys = tuple(fields) if isinstance(fields, list | tuple) else None

    def columns(self, item: Any) -> list[str]:
        """The exported field names: ``fields_to_export``, else the item's own."""
        fields = self.fields_to_export
        if fields is None:
            return list(ItemAdapter(item).field_names())  # a dict's: its keys
        return list(fields)

    def value_serializer(self, meta: Mapping[str, Any]) -> Serializer | None:
        """The function that serialises a field with this metadata; None: the value as is."""
        if "serializer" not in meta:
            return None
        return lambda value: self.serialize_field(meta, "", value)

    def _plan(self, item: Any) -> list[tuple[str, str, Serializer | None]]:
        plan = self._plans.get(type(item)) if self.fields_to_export is not None else None
        if plan is None:
            meta = type(item).fields if isinstance(item, Item) else {}
            plan = [
                (name, self.output_name(name), self.value_serializer(meta.get(name, {})))
                for name in self.columns(item)
            ]
            self._plans[type(item)] = plan
        return plan

    def output_name(self, name: str) -> str:
        """The column a field is exported as (``fields_to_export`` may map names)."""
        fields = self.fields_to_export
        return fields.get(name, name) if isinstance(fields, Mapping) else name

    def is_row(self, item: Any) -> bool:
        """True for a plain dict holding exactly the exported fields, in their order."""
        return type(item) is dict and self._row_keys is not None and tuple(item) == self._row_keys

    def values(self, item: Any, default: Any) -> dict[str, Any]:
        """``{column: serialised value}`` in column order; a missing field is ``default``, or
        left out unless ``export_empty_fields``."""
        plan = self._plan(item)
        if isinstance(item, Item):
            item = dict(item)  # one pass over the Item's mapping API, then plain lookups
        elif not isinstance(item, dict):
            item = ItemAdapter(item).asdict()
        out = {}
        for name, column, serialize in plan:
            if name in item:
                value = item[name]
                out[column] = value if serialize is None else serialize(value)
            elif self.export_empty_fields:
                out[column] = default
        return out


class JsonLinesExporter(PostRowsExporter):
    """JSON Lines: one JSON object per item, UTF-8 unless ``encoding`` says otherwise."""

    def __init__(self, file: IO[bytes], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file
        options = dict(self.extra_options)
        options.setdefault("ensure_ascii", False)
        self.encoder = ScrapyJSONEncoder(**options)

    def export_item(self, item: Any) -> None:
        row = item if self.is_row(item) else self.values(item, None)
        self.file.write((self.encoder.encode(row) + "\n").encode(self.encoding or "utf-8"))


class SafeCsvItemExporter(PostRowsExporter):
    """CSV with list joining, formula neutralisation, a header even without rows, an
    optional BOM; written with the ``csv`` module, quoting as Scrapy's CSV exporter does."""

    def __init__(
        self,
        file: IO[bytes],
        *,
        bom: bool = False,
        include_headers_line: bool = True,
        join_multivalued: str = DEFAULT_LIST_SEPARATOR,
        errors: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.include_headers_line = include_headers_line
        self.join_multivalued = join_multivalued
        # newline="": the csv module writes its own line ends (\r\n), as Scrapy's does.
        self.stream = io.TextIOWrapper(
            file,
            encoding=self.encoding,
            errors=errors,
            newline="",
            line_buffering=False,
            write_through=True,
        )
        if bom:
            self.stream.write("\ufeff")
        self.writer = csv.writer(self.stream, **self.extra_options)
        self.header: list[str] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], **kwargs: Any) -> SafeCsvItemExporter:
        settings = crawler.settings
        kwargs.setdefault("join_multivalued", settings["CSV_LIST_SEPARATOR"])
        return cls(file, bom=settings.getbool("CSV_BOM"), **kwargs)

    def cell(self, value: Any) -> Any:
        """One CSV cell: None empty, lists joined, formulas neutralised, numbers as they are,
        text over :data:`EXCEL_CELL_LIMIT` characters cut to it, ending with the mark."""
        if type(value) is not str:  # most cells are text: one test for them
            if value is None or type(value) is int:
                return value
            if isinstance(value, list | tuple):
                value = self.join_multivalued.join(str(part) for part in value)
            if not isinstance(value, str):
                return value
        value = neutralise_formula(value)
        if len(value) > EXCEL_CELL_LIMIT:
            value = value[: EXCEL_CELL_LIMIT - len(CELL_CUT_MARK)] + CELL_CUT_MARK
        return value

    def value_serializer(self, meta: Mapping[str, Any]) -> Serializer:
        serialize = super().value_serializer(meta)
        if serialize is None:
            return self.cell
        return lambda value: self.cell(serialize(value))

    def _write_header(self, item: Any) -> None:
        columns = self.columns(item) if item is not None else list(self.fields_to_export or ())
        self.header = [self.output_name(name) for name in columns]
        if self.include_headers_line and self.header:
            self.writer.writerow(self.header)

    def export_item(self, item: Any) -> None:
        if self.header is None:
            self._write_header(item)
        if self.is_row(item):
            self.writer.writerow([self.cell(value) for value in item.values()])
            return
        values = self.values(item, "")
        self.writer.writerow([values.get(name, "") for name in self.header or ()])

    def finish_exporting(self) -> None:
        if self.header is None:
            self._write_header(None)  # no item came: the header alone (the columns are set)
        self.stream.flush()
        self.stream.detach()  # the file is the caller's to close
