"""The reads of stored posts both backends share: the same SQL but for each database's
parameter mark and its order of posts (SQLite has no ``NULLS LAST``)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar


class PostQueries:
    """Posts read back as the exports and the crawl ask for them, in the store's order
    (site, newest first, undated last). A backend gives its parameter mark, its ``ORDER BY``
    and :meth:`_rows`."""

    MARK: ClassVar[str]  # the driver's parameter placeholder: "?" or "%s"
    ORDER: ClassVar[str]

    @abstractmethod
    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, streamed."""

    def posts(self) -> Iterator[dict[str, Any]]:
        for (data,) in self._rows(f"SELECT data FROM posts {self.ORDER}"):
            yield json.loads(data)

    def changes(self, run_id: str) -> Iterator[dict[str, Any]]:
        query = (
            "SELECT data, change, changed_fields FROM posts"
            f" WHERE change_run = {self.MARK} {self.ORDER}"
        )
        for data, change, fields in self._rows(query, (run_id,)):
            yield {**json.loads(data), "change": change, "changed_fields": json.loads(fields)}

    def dataset(self, run_id: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
        query = (
            f"SELECT data, CASE WHEN change_run = {self.MARK} THEN change END, changed_fields"
            f" FROM posts {self.ORDER}"
        )
        for data, change, fields in self._rows(query, (run_id,)):
            delta = {"change": change, "changed_fields": json.loads(fields)} if change else None
            yield json.loads(data), delta

    def site_posts(self, site: str) -> Iterator[dict[str, Any]]:
        query = f"SELECT data FROM posts WHERE site = {self.MARK} {self.ORDER}"
        for (data,) in self._rows(query, (site,)):
            yield json.loads(data)

    def posts_to_retry(self, site: str) -> Iterator[dict[str, Any]]:
        query = f"SELECT data FROM posts WHERE site = {self.MARK} AND page_failed {self.ORDER}"
        for (data,) in self._rows(query, (site,)):
            yield json.loads(data)
