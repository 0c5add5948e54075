"""The store's contract, on both backends: the embedded SQLite store and the PostgreSQL store
(``POST_STORE_URL``). Each test runs on each backend, with a fresh store (for PostgreSQL, a
fresh database of a throwaway server: see ``pgserver.py``); then what only PostgreSQL has:
the same outputs as SQLite for one long history, its schema upgrades, and many writers.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.project import make_post

from crawler.store.base import PageState, PostStore, StoreUnavailable
from crawler.store.records import CHANGED, NEW, UNCHANGED
from crawler.store.sqlite import SQLiteStore

OpenStore = Callable[[], PostStore]


@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens the test's store (again, to see what survives ``close``); closes what is left."""
    opened: list[PostStore] = []
    if request.param == "sqlite":
        path = tmp_path / "posts.sqlite"

        def factory() -> PostStore:
            return SQLiteStore(path)
    else:
        from crawler.store.postgres import PostgresStore

        url = request.getfixturevalue("postgres_url")

        def factory() -> PostStore:
            return PostgresStore(url)

    def open_() -> PostStore:
        opened.append(factory())
        return opened[-1]

    yield open_
    for store in opened:
        with contextlib.suppress(sqlite3.ProgrammingError):  # SQLite's, closed by the test
            store.close()


def seen_times(store: PostStore, post_id: str) -> tuple[str, str]:
    """First and last time seen (not part of the interface, kept by both backends)."""
    query = "SELECT first_seen, last_seen FROM posts WHERE id = {}"
    if isinstance(store, SQLiteStore):
        return store.db.execute(query.format("?"), (post_id,)).fetchone()
    return store.db.execute(query.format("%s"), (post_id,)).fetchone()  # type: ignore[attr-defined]


def test_record_says_new_unchanged_changed(open_store: OpenStore) -> None:
    store = open_store()
    assert store.record(make_post(1), "run1") == NEW
    assert store.record(make_post(1), "run2") == UNCHANGED
    assert store.record(make_post(1, views=99), "run3") == CHANGED
    # crawled_at (not tracked) alone is not a change, nor is post_page_failed.
    later = make_post(1, views=99, crawled_at="2027-01-01T00:00:00+00:00", post_page_failed=True)
    assert store.record(later, "run4") == UNCHANGED
    assert store.count() == 1 and store.seen(later["id"]) and not store.seen("0" * 16)
    # The latest values are kept, untracked ones included.
    assert next(store.posts()) == later


def test_first_seen_is_kept_and_last_seen_follows(open_store: OpenStore) -> None:
    store = open_store()
    post = make_post(1, crawled_at="2026-11-01T00:00:00+00:00")
    store.record(post, "run1")
    store.record(make_post(1, crawled_at="2026-11-02T00:00:00+00:00"), "run2")
    store.record(make_post(1, title="新", crawled_at="2026-11-03T00:00:00+00:00"), "run3")
    assert seen_times(store, post["id"]) == (
        "2026-11-01T00:00:00+00:00",
        "2026-11-03T00:00:00+00:00",
    )


def test_changes_and_changed_fields_of_a_run(open_store: OpenStore) -> None:
    store = open_store()
    store.record(make_post(1), "run1")
    store.record(make_post(2), "run1")
    store.record(make_post(1, title="新标题", tags=["训练"]), "run2")
    store.record(make_post(2), "run2")
    store.record(make_post(3), "run2")
    store.record(make_post(3, views=1), "run2")  # new in run2, then changed in run2: still new
    changes = {p["url"][-1]: (p["change"], p["changed_fields"]) for p in store.changes("run2")}
    assert changes == {"1": (CHANGED, ["title", "tags"]), "3": (NEW, [])}
    assert [p["url"][-1] for p in store.changes("run1")] == ["2"]  # 1 moved to run2
    # A second change in one run: what changed since the last run is both changes' fields.
    store.record(make_post(1, title="新标题", tags=["训练"], views=5), "run2")
    assert {p["url"][-1]: p["changed_fields"] for p in store.changes("run2")} == {
        "1": ["title", "tags", "views"],
        "3": [],
    }
    # Unchanged in a later run: the post stays in run2's delta with its fields.
    store.record(make_post(1, title="新标题", tags=["训练"], views=5), "run3")
    assert list(store.changes("run3")) == []
    fields = [p["changed_fields"] for p in store.changes("run2") if p["url"][-1] == "1"]
    assert fields == [["title", "tags", "views"]]


def test_order_by_site_then_newest_instant(open_store: OpenStore) -> None:
    store = open_store()
    store.record(make_post(1, site="b"), "run1")
    store.record(make_post(3, site="b"), "run1")
    store.record(make_post(2, site="a"), "run1")
    store.record(make_post(4, site="a", published_at=None), "run1")
    store.record(make_post(6, site="a", published_at=None), "run1")
    # An earlier instant written in another offset still sorts by instant.
    store.record(make_post(5, site="a", published_at="2026-10-02T01:00:00+00:00"), "run1")
    store.record(make_post(7, site="B"), "run1")  # bytes order: "B" before "a"
    order = [("B", "7"), ("a", "5"), ("a", "2"), ("a", "4"), ("a", "6"), ("b", "3"), ("b", "1")]
    assert [(p["site"], p["url"][-1]) for p in store.posts()] == order
    assert [(p["site"], p["url"][-1]) for p in store.changes("run1")] == order
    assert [p["url"][-1] for p in store.site_posts("a")] == ["5", "2", "4", "6"]
    assert store.count("a") == 4 and store.count("nowhere") == 0 and store.count() == 7


def test_dataset_pairs_every_post_with_its_change(open_store: OpenStore) -> None:
    store = open_store()
    store.record(make_post(1), "run1")
    store.record(make_post(2), "run1")
    store.record(make_post(3), "run1")
    store.record(make_post(2, summary="新摘要"), "run2")
    store.record(make_post(4), "run2")
    dataset = [(post["url"][-1], delta) for post, delta in store.dataset("run2")]
    assert dataset == [
        ("4", {"change": NEW, "changed_fields": []}),
        ("3", None),
        ("2", {"change": CHANGED, "changed_fields": ["summary"]}),
        ("1", None),
    ]
    assert [post for post, _ in store.dataset("run2")] == list(store.posts())


def test_posts_by_id_in_the_order_asked(open_store: OpenStore) -> None:
    store = open_store()
    for n in (1, 2, 3):
        store.record(make_post(n), "run1")
    ids = [make_post(n)["id"] for n in (3, 1, 9, 2)]
    assert [p["url"][-1] for p in store.posts_by_id(ids)] == ["3", "1", "2"]
    assert list(store.posts_by_id([])) == []


def test_posts_to_retry_are_those_whose_page_failed(open_store: OpenStore) -> None:
    store = open_store()
    store.record(make_post(1, post_page_failed=True), "run1")
    store.record(make_post(2, post_page_failed=False), "run1")
    store.record(make_post(3), "run1")
    store.record(make_post(4, site="other", post_page_failed=True), "run1")
    assert [p["url"][-1] for p in store.posts_to_retry("example")] == ["1"]
    store.record(make_post(1, post_page_failed=False), "run2")  # read this time
    store.record(make_post(3, post_page_failed=True), "run2")
    assert [p["url"][-1] for p in store.posts_to_retry("example")] == ["3"]


def test_page_state(open_store: OpenStore) -> None:
    store = open_store()
    url = "https://blog.example.org/page/2/"
    assert store.page_state(url) is None
    store.remember_page(url, PageState('W/"1"', None, ("https://blog.example.org/page/3/",)))
    assert store.page_state(url) == PageState('W/"1"', None, ("https://blog.example.org/page/3/",))
    state = PageState(None, "Mon, 30 Nov 2026 02:00:00 GMT", (), ("a" * 16, "b" * 16))
    store.remember_page(url, state)
    assert store.page_state(url) == state


def test_crawl_complete(open_store: OpenStore) -> None:
    store = open_store()
    assert not store.crawl_complete("example")
    store.set_crawl_complete("example", True)
    assert store.crawl_complete("example") and not store.crawl_complete("other")
    store.set_crawl_complete("example", False)
    assert not store.crawl_complete("example")


def test_exports_mark_is_reset_by_a_recorded_post(open_store: OpenStore) -> None:
    store = open_store()
    assert store.exports_mark() is None
    store.set_exports_mark("run1")
    assert store.exports_mark() == "run1"
    store.record(make_post(1), "run2")
    assert store.exports_mark() is None
    store.set_exports_mark("run2")
    store.record(make_post(1), "run3")  # even unchanged: the files' crawled_at is out of date
    assert store.exports_mark() is None
    store.set_exports_mark("run3")
    store.close()
    assert open_store().exports_mark() == "run3"


def test_a_sites_layout_is_kept_apart_from_its_mark(open_store: OpenStore) -> None:
    store = open_store()
    assert store.site_layout("example") is None
    store.set_crawl_complete("example", True)
    store.set_site_layout("example", "butterfly")
    store.set_crawl_complete("example", False)  # the mark changes, the layout stays
    store.set_site_layout("other", "generic")  # a site with no mark yet
    store.close()
    again = open_store()
    assert again.site_layout("example") == "butterfly" and not again.crawl_complete("example")
    assert again.site_layout("other") == "generic" and not again.crawl_complete("other")


def test_exports_listing_is_kept_across_opens(open_store: OpenStore) -> None:
    store = open_store()
    assert store.exports_listing() is None
    store.set_exports_listing('{"post_total": 1}')
    store.set_exports_listing('{"post_total": 2, "sites": ["博客"]}')  # replaced, not added
    store.close()
    assert open_store().exports_listing() == '{"post_total": 2, "sites": ["博客"]}'


def test_site_runs(open_store: OpenStore) -> None:
    store = open_store()
    assert dict(store.site_runs("run1")) == {}
    store.record_site_run("run1", "a", {"posts": 3, "problems": ["标题缺失"], "failed": False})
    store.record_site_run("run1", "b", {"posts": 0})
    store.record_site_run("run2", "a", {"posts": 1})
    store.record_site_run("run1", "b", {"posts": 2})  # the latest summary wins
    assert dict(store.site_runs("run1")) == {
        "a": {"posts": 3, "problems": ["标题缺失"], "failed": False},
        "b": {"posts": 2},
    }
    assert dict(store.site_runs("run2")) == {"a": {"posts": 1}}


def test_reopening_keeps_everything(open_store: OpenStore) -> None:
    store = open_store()
    store.record(make_post(1), "run1")
    store.record(make_post(2, post_page_failed=True), "run1")
    store.record(make_post(1, views=3), "run2")
    store.remember_page("https://blog.example.org/", PageState('"e"', None, ("x",), ("y",)))
    store.set_crawl_complete("example", True)
    store.record_site_run("run2", "example", {"posts": 2})
    store.set_exports_mark("run2")
    before = (list(store.posts()), list(store.changes("run2")), list(store.dataset("run2")))
    store.close()
    again = open_store()
    assert (list(again.posts()), list(again.changes("run2")), list(again.dataset("run2"))) == before
    assert [p["url"][-1] for p in again.posts_to_retry("example")] == ["2"]
    assert again.page_state("https://blog.example.org/") == PageState('"e"', None, ("x",), ("y",))
    assert again.crawl_complete("example") and again.exports_mark() == "run2"
    assert dict(again.site_runs("run2")) == {"example": {"posts": 2}}
    # And it goes on from there: post 1 is known, so not new.
    assert again.record(make_post(1, views=3), "run3") == UNCHANGED


def test_reading_while_writing(open_store: OpenStore) -> None:
    """An export streams the posts while the store goes on recording."""
    store = open_store()
    for n in range(1, 8):
        store.record(make_post(n), "run1")
    posts = store.posts()
    first = [next(posts), next(posts)]
    assert store.record(make_post(20, site="zz"), "run2") == NEW
    store.flush()
    rest = list(posts)
    assert [p["url"][-1] for p in [*first, *rest]][:7] == ["7", "6", "5", "4", "3", "2", "1"]
    assert store.count() == 8


# ---- PostgreSQL only ---------------------------------------------------------------------


def _history(seed: int) -> list[tuple[dict[str, Any], str]]:
    """A long, varied history of records: new posts, edits of tracked and untracked fields,
    several in one run, dates in several offsets or none, failed pages, several sites."""
    rng = random.Random(seed)
    history = []
    latest: dict[int, dict[str, Any]] = {}
    for run in range(1, 9):
        for _ in range(60):
            n = rng.randrange(1, 40)
            post = dict(
                latest.get(n)
                or make_post(
                    n,
                    site=rng.choice(["a", "b", "Zed", "站点"]),
                    published_at=rng.choice(
                        [
                            None,
                            f"2026-10-{n % 28 + 1:02d}T08:00:00+08:00",
                            f"2026-10-{n % 28 + 1:02d}T00:30:00+00:00",
                        ]
                    ),
                )
            )
            field = rng.choice(["views", "title", "tags", "crawled_at", "content", None])
            if field == "views":
                post["views"] = rng.randrange(5)
            elif field == "title":
                post["title"] = rng.choice(["甲", "乙", "Title ✓"])
            elif field == "tags":
                post["tags"] = rng.sample(["x", "y", "训练"], rng.randrange(3))
            elif field == "crawled_at":
                post["crawled_at"] = f"2026-11-{run:02d}T0{rng.randrange(9)}:00:00+00:00"
            elif field == "content":
                post["content"] = rng.choice([None, "", "## 正文\n\n```python\nx = 1\n```"])
            post["post_page_failed"] = rng.random() < 0.1
            latest[n] = post
            history.append((dict(post), f"run{run}"))
    return history


def test_postgres_gives_what_sqlite_gives(tmp_path: Path, postgres_url: str) -> None:
    from crawler.store.postgres import PostgresStore

    sqlite, postgres = SQLiteStore(tmp_path / "posts.sqlite"), PostgresStore(postgres_url)
    try:
        history = _history(seed=14)
        statuses = {NEW: 0, CHANGED: 0, UNCHANGED: 0}
        for item, run in history:
            status = sqlite.record(item, run)
            assert postgres.record(item, run) == status, (item["url"], run)
            statuses[status] += 1
        assert min(statuses.values()) > 20  # the history exercised every outcome
        assert list(postgres.posts()) == list(sqlite.posts())
        for run in sorted({run for _, run in history}):
            assert list(postgres.changes(run)) == list(sqlite.changes(run))
            assert list(postgres.dataset(run)) == list(sqlite.dataset(run))
        for site in ("a", "b", "Zed", "站点"):
            assert list(postgres.site_posts(site)) == list(sqlite.site_posts(site))
            retry = sorted(p["id"] for p in sqlite.posts_to_retry(site))
            assert sorted(p["id"] for p in postgres.posts_to_retry(site)) == retry
    finally:
        sqlite.close()
        postgres.close()


def test_schema_version_and_upgrade(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg

    from crawler.store import postgres as pg_store

    latest = pg_store.MIGRATIONS
    assert len(latest) == 3  # 1: the tables; 2: the counts' history; 3: a site's layout
    # A store made by the crawler before the counts' history (version 1)...
    monkeypatch.setattr(pg_store, "MIGRATIONS", latest[:1])
    store = pg_store.PostgresStore(postgres_url)
    assert store.schema_version() == 1
    store.record_site_run("run1", "example", {"new": 3})
    store.close()
    # ...is upgraded once, on the next open by this one, keeping its data.
    monkeypatch.setattr(pg_store, "MIGRATIONS", latest[:2])
    store = pg_store.PostgresStore(postgres_url)
    assert store.schema_version() == 2
    assert dict(store.site_runs("run1")) == {"example": {"new": 3}}
    assert store.record(make_post(1, views=12), "run2") == NEW
    assert [row["views"] for row in store.metrics()] == [12]
    store.close()
    pg_store.PostgresStore(postgres_url).close()  # at that version: nothing applied
    # ...and to version 3 with the sites' marks kept.
    store = pg_store.PostgresStore(postgres_url)
    store.set_crawl_complete("example", True)
    store.close()
    monkeypatch.setattr(pg_store, "MIGRATIONS", latest)
    store = pg_store.PostgresStore(postgres_url)
    assert store.schema_version() == 3 and store.crawl_complete("example")
    assert store.site_layout("example") is None
    store.close()
    with psycopg.connect(postgres_url) as connection:
        versions = connection.execute("SELECT version FROM schema_version").fetchall()
        assert max(version for (version,) in versions) == 3
    # A store upgraded by a newer crawler is refused by an older one, in words.
    monkeypatch.setattr(pg_store, "MIGRATIONS", latest[:1])
    with pytest.raises(StoreUnavailable, match="schema version 3, newer than this"):
        pg_store.PostgresStore(postgres_url)


def test_metrics_grow_exactly_when_a_count_changes(open_store: OpenStore) -> None:
    store = open_store()
    at = "2026-11-{:02d}T00:00:00+00:00".format
    store.record(make_post(1, views=10, comments=0, crawled_at=at(1)), "run1")
    store.record(make_post(2, views=None, comments=None, likes=None, crawled_at=at(1)), "run1")
    store.record(make_post(1, views=10, comments=0, crawled_at=at(2)), "run2")  # same counts
    store.record(make_post(1, views=15, comments=0, crawled_at=at(3)), "run3")
    store.record(make_post(1, views=15, comments=1, crawled_at=at(4)), "run4")
    store.record(make_post(1, views=15, comments=1, crawled_at=at(5), title="新标题"), "run5")
    rows = list(store.metrics())
    post = make_post(1)
    assert rows == [
        {
            "id": post["id"],
            "url": post["url"],
            "site": "example",
            "seen_at": at(day),
            "views": views,
            "comments": comments,
            "likes": None,
        }
        for day, views, comments in ((1, 10, 0), (3, 15, 0), (4, 15, 1))
    ]
    assert [row["seen_at"] for row in store.metrics(since=at(3))] == [at(3), at(4)]
    # The posts whose counts changed after a time: every row of each (what it was before
    # is what it gained from); a post counted once, or not since, is not one of them.
    store.record(make_post(3, views=7, crawled_at=at(4)), "run4")
    assert [row["seen_at"] for row in store.metrics(changed_after=at(3))] == [at(1), at(3), at(4)]
    assert [row["seen_at"] for row in store.metrics(changed_after=at(2))] == [at(1), at(3), at(4)]
    assert list(store.metrics(changed_after=at(4))) == []


def test_unreachable_store_is_one_line_without_the_password() -> None:
    from support.project import free_port_base

    from crawler.store.base import StoreUnavailable
    from crawler.store.postgres import PostgresStore

    url = f"postgresql://crawler:s3cret@127.0.0.1:{free_port_base(1)}/blogs"
    with pytest.raises(StoreUnavailable) as error:
        PostgresStore(url)
    message = str(error.value)
    assert message.startswith("cannot connect to the store postgresql://crawler@127.0.0.1:")
    assert "/blogs (POST_STORE_URL)" in message
    assert "s3cret" not in message and "\n" not in message


def _write_all(
    url: str, writer: int, rounds: list[tuple[str, dict[str, Any]]], barrier: Any, out: Any
) -> None:
    """One writer (a job on its own machine): records the same 500 posts as the other, in an
    order of its own, once per round; puts its statuses by post id."""
    from crawler.store.postgres import PostgresStore

    barrier.wait()  # open together: a new store's tables are created once
    store = PostgresStore(url)
    results = []
    for run, fields in rounds:
        posts = [
            make_post(n, **fields, crawled_at=f"2026-11-30T0{writer}:00:00+00:00")
            for n in range(1, 501)
        ]
        random.Random(writer).shuffle(posts)
        barrier.wait()
        results.append({post["id"]: store.record(post, run) for post in posts})
    store.close()
    out.put((writer, results))


def test_two_writers_record_each_post_once(postgres_url: str) -> None:
    from crawler.store.postgres import PostgresStore

    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(2), context.Queue()
    rounds = [("run1", {}), ("run2", {"views": 7})]
    writers = [
        context.Process(target=_write_all, args=(postgres_url, n, rounds, barrier, out))
        for n in (1, 2)
    ]
    for process in writers:
        process.start()
    results = dict(out.get(timeout=120) for _ in writers)
    for process in writers:
        process.join(30)
        assert process.exitcode == 0
    ids = {make_post(n)["id"] for n in range(1, 501)}
    won = {1: 0, 2: 0}
    for round_, status in enumerate([NEW, CHANGED]):
        first, second = results[1][round_], results[2][round_]
        assert set(first) == set(second) == ids
        # Each post is reported new (then changed) by exactly one of the two writers.
        for post_id in ids:
            assert sorted([first[post_id], second[post_id]]) == sorted([status, UNCHANGED])
        won[1] += sum(s == status for s in first.values())
        won[2] += sum(s == status for s in second.values())
    assert won[1] and won[2]  # the two did write at the same time
    store = PostgresStore(postgres_url)
    try:
        assert store.count() == 500 and len(list(store.posts())) == 500
        # first_seen is the time of the writer that inserted the post, whatever came after.
        for post_id in ids:
            inserter = 1 if results[1][0][post_id] == NEW else 2
            assert seen_times(store, post_id)[0] == f"2026-11-30T0{inserter}:00:00+00:00"
        assert [(p["change"], p["changed_fields"]) for p in store.changes("run2")] == [
            (CHANGED, ["views"])
        ] * 500
    finally:
        store.close()
