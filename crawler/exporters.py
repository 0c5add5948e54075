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

from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

from scrapy import Item
from scrapy.crawler import Crawler
from scrapy.exporters import CsvItemExporter, JsonLinesItemExporter
from scrapy.utils.python import to_bytes

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
DEFAULT_LIST_SEPARATOR = " | "


def neutralise_formula(value: str) -> str:
    """Prefix ``'`` to text a spreadsheet would take for a formula (OWASP CSV injection)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


class PlainFieldsMixin:
    """``get_serialized_fields`` for dicts and Scrapy items, without an ItemAdapter per item.

    Same result as Scrapy's for those item types (declared order from ``fields_to_export``,
    missing fields as ``default_value`` when empty fields are exported, a field's
    ``serializer`` honoured), with each field's serializer looked up once per item class, not
    once per value: every post is exported five times a run (``-O``, dataset and delta, JSON
    and CSV).
    """

    fields_to_export: Any
    export_empty_fields: bool

    def field_serializer(self, meta: Mapping[str, Any]) -> Callable[[Any], Any] | None:
        """The function that serialises a field with this metadata; None: the value as is."""
        return meta.get("serializer")

    def get_serialized_fields(
        self, item: Any, default_value: Any = None, include_empty: bool | None = None
    ) -> Iterable[tuple[str, Any]]:
        fields = self.fields_to_export
        if not isinstance(item, dict | Item) or not isinstance(fields, list | tuple):
            return super().get_serialized_fields(item, default_value, include_empty)  # type: ignore[misc]
        if include_empty is None:
            include_empty = self.export_empty_fields
        plan = self._plan(type(item), fields)
        if isinstance(item, Item):
            item = dict(item)  # one pass over the Item's mapping API, then plain lookups
        serialized = []
        for name, serialize in plan:
            if name in item:
                value = item[name]
                serialized.append((name, value if serialize is None else serialize(value)))
            elif include_empty:
                serialized.append((name, default_value))
        return serialized

    def _plan(
        self, item_class: type, fields: list[str] | tuple[str, ...]
    ) -> list[tuple[str, Callable[[Any], Any] | None]]:
        plans = self.__dict__.setdefault("_plans", {})
        key = (item_class, tuple(fields))
        if key not in plans:
            meta = getattr(item_class, "fields", {})
            plans[key] = [(name, self.field_serializer(meta.get(name, {}))) for name in fields]
        return plans[key]


    def exports_as_is(self, item: Any) -> bool:
        """True for a plain dict holding exactly the exported fields, in their order, none
        with a serializer: its values are exported as they are (the dataset's rows)."""
        fields = self.fields_to_export
        return (
            type(item) is dict
            and isinstance(fields, list | tuple)
            and len(item) == len(fields)
            and all(a == b for a, b in zip(item, fields, strict=False))
        )


class JsonLinesExporter(PlainFieldsMixin, JsonLinesItemExporter):
    """Scrapy's JSON Lines exporter with the cheaper field serialisation."""

    def export_item(self, item: Any) -> None:
        if not self.exports_as_is(item):
            return super().export_item(item)
        # The dict is what get_serialized_fields would build: encode it directly.
        self.file.write(to_bytes(self.encoder.encode(item) + "\n", self.encoding))
        return None


class SafeCsvItemExporter(PlainFieldsMixin, CsvItemExporter):
    """Scrapy's CSV exporter with list joining, formula neutralisation and an optional BOM."""

    def __init__(self, file: IO[bytes], *, bom: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("join_multivalued", DEFAULT_LIST_SEPARATOR)
        if bom:
            file.write("\ufeff".encode())
        super().__init__(file, **kwargs)
        self.items_exported = 0

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

    def field_serializer(self, meta: Mapping[str, Any]) -> Callable[[Any], Any]:
        if "serializer" not in meta:
            return self._cell  # the frequent case, in one call
        return lambda value: self.serialize_field(meta, "", value)

    def _cell(self, value: Any) -> Any:
        if value is None or type(value) is int:
            return value
        if isinstance(value, list | tuple):
            value = self._join_if_needed(value)
        return neutralise_formula(value) if isinstance(value, str) else value

    def export_item(self, item: Any) -> None:
        self.items_exported += 1
        # The first item goes through Scrapy's export_item, which writes the header row.
        if self.items_exported == 1 or not self.exports_as_is(item):
            return super().export_item(item)
        self.csv_writer.writerow(list(self._build_row(map(self._cell, item.values()))))
        return None

    def finish_exporting(self) -> None:
        if not self.items_exported and self.include_headers_line and self.fields_to_export:
            # No item came to write the header: write it now (the columns are configured).
            fields = self.fields_to_export
            header = fields.values() if isinstance(fields, Mapping) else fields
            self.csv_writer.writerow(list(self._build_row(header)))
        super().finish_exporting()

    def _build_row(self, values: Iterable[Any]) -> Iterable[Any]:
        # Scrapy's converts each value with to_unicode and catches the TypeError every number
        # and None raise; the result is the same.
        for value in values:
            yield value.decode(self.encoding) if isinstance(value, bytes) else value
