"""The rules of recording a post, the same for every backend: what :func:`decide` writes."""

from __future__ import annotations

import json

from support.project import make_post

from crawler.store.records import (
    CHANGED,
    NEW,
    UNCHANGED,
    StoredRow,
    decide,
    fingerprint,
    sort_instant,
)

SEEN = "2026-11-30T02:00:00+00:00"


def row_of(
    item: dict,
    *,
    first_run: str,
    change: str = NEW,
    change_run: str | None = None,
    fields: tuple[str, ...] = (),
) -> StoredRow:
    return StoredRow(
        fingerprint(item),
        first_run,
        json.dumps(item, ensure_ascii=False),
        change,
        change_run or first_run,
        fields,
    )


def test_a_new_post_is_new_and_its_counts_start_the_history() -> None:
    record = decide(None, make_post(1, views=3), "run1", SEEN)
    assert (record.status, record.change, record.change_run, record.insert) == (
        NEW,
        NEW,
        "run1",
        True,
    )
    assert record.counts == (3, 0, None) and record.changed_fields == ()
    bare = decide(None, make_post(1, views=None, comments=None, likes=None), "run1", SEEN)
    assert bare.counts is None  # a post that shows no count starts no history


def test_the_same_tracked_values_are_unchanged_and_keep_the_delta() -> None:
    post = make_post(1)
    row = row_of(post, first_run="run1", change=CHANGED, change_run="run2", fields=("title",))
    # Neither the crawl time nor the raw date text is tracked.
    again = make_post(1, crawled_at="2027-01-01T00:00:00+00:00", published_raw="10月1日")
    record = decide(row, again, "run3", SEEN)
    assert (record.status, record.change, record.change_run, record.changed_fields) == (
        UNCHANGED,
        CHANGED,
        "run2",
        ("title",),
    )
    assert record.counts is None and not record.insert


def test_a_change_names_its_fields_and_moves_the_post_to_the_run() -> None:
    row = row_of(make_post(1), first_run="run1")
    record = decide(row, make_post(1, title="新标题", views=99), "run2", SEEN)
    assert (record.status, record.change, record.change_run) == (CHANGED, CHANGED, "run2")
    assert record.changed_fields == ("title", "views")
    assert record.counts == (99, 0, None)
    # A change that leaves the counts as they were adds no history row.
    assert decide(row, make_post(1, title="新标题"), "run2", SEEN).counts is None


def test_changes_within_one_run() -> None:
    # First seen in this run, then changed: still new in its delta.
    first = make_post(1)
    record = decide(row_of(first, first_run="run1"), make_post(1, views=5), "run1", SEEN)
    assert (record.status, record.change, record.changed_fields) == (CHANGED, NEW, ())
    # Changed twice in one run: both changes' fields.
    once = make_post(1, title="新标题")
    row = row_of(once, first_run="run0", change=CHANGED, change_run="run1", fields=("title",))
    record = decide(row, make_post(1, title="新标题", views=5), "run1", SEEN)
    assert record.changed_fields == ("title", "views")


def test_posts_sort_by_their_instant_whatever_the_offset() -> None:
    assert sort_instant("2026-10-02T09:00:00+08:00") == "2026-10-02T01:00:00+00:00"
    assert sort_instant("2026-10-02T01:00:00+00:00") == "2026-10-02T01:00:00+00:00"
    assert sort_instant(None) is None and sort_instant("not a time") is None
