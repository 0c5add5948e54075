"""The rules of recording a post, written once for every backend.

A backend reads the post's current row (:class:`StoredRow`, locked where the database can),
asks :func:`decide` what to write, and writes it: the SQL differs, the decision does not.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from crawler.items import TRACKED_FIELDS
from crawler.parsing.dates import iso_instant

NEW, CHANGED, UNCHANGED = "new", "changed", "unchanged"

# The counts a post's page shows: their history is kept (PostRecords.metrics).
COUNTS = ("views", "comments", "likes")
METRIC_FIELDS = ("id", "url", "site", "seen_at", *COUNTS)


@dataclass(frozen=True, slots=True)
class StoredRow:
    """What a backend keeps of a post besides its values (``data``, JSON)."""

    fingerprint: str
    first_run: str
    data: str
    change: str
    change_run: str
    changed_fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Record:
    """What to write for one post: the row's columns and the outcome of the recording."""

    id: str
    site: str
    published_utc: str | None
    fingerprint: str
    data: str
    page_failed: bool
    seen_at: str
    run_id: str
    status: str  # NEW, CHANGED or UNCHANGED since the stored row
    change: str  # the post's change in the run of change_run (NEW or CHANGED)
    change_run: str
    changed_fields: tuple[str, ...]
    # The counts to add to the history at seen_at (None: they did not change).
    counts: tuple[Any, ...] | None

    @property
    def insert(self) -> bool:
        """No row yet: insert one (else update the one read)."""
        return self.status == NEW


def fingerprint(item: Mapping[str, Any]) -> str:
    """A digest of the tracked fields: a third of the store's size if kept as JSON."""
    values = json.dumps([item.get(name) for name in TRACKED_FIELDS], ensure_ascii=False)
    return hashlib.blake2b(values.encode("utf-8"), digest_size=16).hexdigest()


def sort_instant(published_at: str | None) -> str | None:
    """The UTC instant of a post's time, so posts of sites in different offsets sort right."""
    instant = iso_instant(published_at)
    return instant.astimezone(UTC).isoformat() if instant is not None else None


def counts_of(item: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(item.get(name) for name in COUNTS)


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The tracked fields whose value differs between two versions of a post."""
    return [name for name in TRACKED_FIELDS if old.get(name) != new.get(name)]


def decide(row: StoredRow | None, item: Mapping[str, Any], run_id: str, seen_at: str) -> Record:
    """What recording ``item`` in run ``run_id`` writes, given the post's stored ``row``.

    - no row: the post is new (and ``new`` in this run's delta);
    - the tracked fields as stored: unchanged; the row is touched (last seen), the delta
      keeps what it said;
    - else changed: in this run's delta as ``changed`` with the fields that changed since
      the last run (a second change in the same run adds its fields), or still ``new`` when
      the post was first seen in this very run.
    The counts' history gets a row when the counts differ from the stored ones (for a new
    post: when it shows any count).
    """
    digest = fingerprint(item)
    common = {
        "id": item["id"],
        "site": item["site"],
        "published_utc": sort_instant(item.get("published_at")),
        "fingerprint": digest,
        "data": json.dumps(dict(item), ensure_ascii=False),
        "page_failed": bool(item.get("post_page_failed")),
        "seen_at": seen_at,
        "run_id": run_id,
    }
    counts = counts_of(item)
    if row is None:
        shown = counts if any(value is not None for value in counts) else None
        return Record(
            **common, status=NEW, change=NEW, change_run=run_id, changed_fields=(), counts=shown
        )
    if row.fingerprint == digest:
        return Record(
            **common,
            status=UNCHANGED,
            change=row.change,
            change_run=row.change_run,
            changed_fields=row.changed_fields,
            counts=None,
        )
    old = json.loads(row.data)
    if row.first_run == run_id:  # first seen in this run: new in its delta, whatever changed
        change, fields = NEW, row.changed_fields
    else:
        fields = tuple(changed_fields(old, item))
        if row.change_run == run_id and row.change == CHANGED:
            fields = tuple(
                name for name in TRACKED_FIELDS if name in fields or name in row.changed_fields
            )
        change = CHANGED
    moved = counts if counts != counts_of(old) else None
    return Record(
        **common,
        status=CHANGED,
        change=change,
        change_run=run_id,
        changed_fields=fields,
        counts=moved,
    )
