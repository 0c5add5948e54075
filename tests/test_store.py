"""The cross-run store: new / changed / unchanged, order, persistence across runs."""

from __future__ import annotations

from pathlib import Path

from conftest import make_post

from crawler.store.sqlite import CHANGED, NEW, UNCHANGED, SQLiteStore


def test_new_then_unchanged_then_changed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    assert store.record(make_post(1), "run1") == NEW
    assert store.record(make_post(1), "run2") == UNCHANGED
    assert store.record(make_post(1, views=99), "run3") == CHANGED
    # crawled_at alone is not a change
    assert store.record(make_post(1, views=99, crawled_at="2027-01-01T00:00:00+00:00"), "r4") == (
        UNCHANGED
    )
    store.close()


def test_changes_of_a_run_mark_new_and_changed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    store.record(make_post(1), "run1")
    store.record(make_post(2), "run1")
    store.record(make_post(1, title="新标题"), "run2")
    store.record(make_post(2), "run2")
    store.record(make_post(3), "run2")
    changes = {post["url"][-1]: post["change"] for post in store.changes("run2")}
    assert changes == {"1": "changed", "3": "new"}
    assert [p["url"][-1] for p in store.changes("run1")] == ["2"]  # 1 moved to run2
    store.close()


def test_survives_reopening_and_orders_by_site_then_newest(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = SQLiteStore(path)
    store.record(make_post(1, site="b"), "run1")
    store.record(make_post(3, site="b"), "run1")
    store.record(make_post(2, site="a"), "run1")
    store.record(make_post(4, site="a", published_at=None), "run1")
    # An earlier instant written in another offset still sorts by instant.
    store.record(make_post(5, site="a", published_at="2026-10-02T01:00:00+00:00"), "run1")
    store.close()
    reopened = SQLiteStore(path)
    assert [(p["site"], p["url"][-1]) for p in reopened.posts()] == [
        ("a", "5"), ("a", "2"), ("a", "4"), ("b", "3"), ("b", "1"),
    ]  # fmt: skip
    assert reopened.count() == 5 and reopened.count("a") == 3
    assert reopened.seen(make_post(1)["id"]) and not reopened.seen("0" * 16)
    assert reopened.size_bytes() > 0
    reopened.close()
