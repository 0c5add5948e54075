"""The reads of stored posts both backends share: the same SQL but for each database's
parameter mark, its order of posts (SQLite has no ``NULLS LAST``) and how it reads a field
of a post's JSON."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar

from crawler.store.records import METRIC_FIELDS


class PostQueries:
    """Posts read back as the exports and the crawl ask for them, in the store's order
    (site, newest first, undated last). A backend gives its parameter mark, its ``ORDER BY``,
    its expression of a post's URL and :meth:`_rows`."""

    MARK: ClassVar[str]  # the driver's parameter placeholder: "?" or "%s"
    ORDER: ClassVar[str]
    POST_URL: ClassVar[str]  # the URL in the JSON column ``p.data``

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

    def metrics(
        self, since: str | None = None, changed_after: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """The history of the posts' counts (see :meth:`PostStore.metrics`); with
        ``changed_after`` (ISO time), only the posts whose counts changed after then: a row
        seen after it, and one before that to differ from."""
        query = (
            f"SELECT m.post_id, {self.POST_URL}, p.site, m.seen_at, m.views, m.comments,"
            f" m.likes FROM metrics m JOIN posts p ON p.id = m.post_id"
            f" WHERE m.seen_at >= {self.MARK}"
        )
        params: tuple[Any, ...] = (since or "",)
        if changed_after is not None:
            query += (
                " AND m.post_id IN (SELECT post_id FROM metrics GROUP BY post_id"
                f" HAVING count(*) > 1 AND max(seen_at) > {self.MARK})"
            )
            params += (changed_after,)
        for row in self._rows(query + " ORDER BY m.post_id, m.seen_at", params):
            yield dict(zip(METRIC_FIELDS, row, strict=True))
