"""The incremental decisions, as pure functions."""

from __future__ import annotations

from support.project import make_post

from crawler.incremental import rules
from crawler.store.base import PageState


def test_a_page_read_before_is_current_while_its_list_entry_stands() -> None:
    stored = make_post(1)
    assert rules.page_is_current(make_post(1), stored)
    assert rules.page_is_current(make_post(1, views=999), stored)  # counts move alone
    for changed in ({"title": "新"}, {"summary": "新摘要"}, {"published_raw": "2026-10-09"}):
        assert not rules.page_is_current(make_post(1, **changed), stored), changed
    for stale in ({"content": None}, {"gone": True}, {"post_page_failed": True}):
        assert not rules.page_is_current(make_post(1), {**stored, **stale}), stale
    assert not rules.page_is_current(make_post(1), None)  # a new post


def test_validators_of_a_page_become_conditional_headers() -> None:
    assert rules.validator_headers(None) == {}
    assert rules.validator_headers(PageState(None, None, ())) == {}
    state = PageState('"v1"', "Mon, 07 Sep 2026 04:00:00 GMT", ())
    assert rules.validator_headers(state) == {
        "If-None-Match": '"v1"',
        "If-Modified-Since": "Mon, 07 Sep 2026 04:00:00 GMT",
    }
    assert rules.validator_headers(PageState('"v1"', None, ())) == {"If-None-Match": '"v1"'}


def test_who_may_ask_conditionally() -> None:
    assert rules.ask_conditionally(list_page=True, incremental=True, stored=None)
    assert not rules.ask_conditionally(list_page=True, incremental=False, stored=None)
    # A post page only when the store holds its content (a 304 then keeps it).
    assert rules.ask_conditionally(list_page=False, incremental=False, stored=make_post(1))
    post = make_post(1, content=None)
    assert not rules.ask_conditionally(list_page=False, incremental=True, stored=post)
    assert not rules.ask_conditionally(list_page=False, incremental=True, stored=None)


def test_older_pages_are_left_only_behind_a_page_of_known_posts() -> None:
    known = {"incremental": True, "date_ordered": True}
    assert rules.stop_at_page(**known, posts_known=[True, True])
    assert not rules.stop_at_page(**known, posts_known=[True, False])
    assert not rules.stop_at_page(**known, posts_known=[])  # an empty page is no boundary
    assert not rules.stop_at_page(incremental=False, date_ordered=True, posts_known=[True])
    # A list sorted otherwise (by views) is read whole.
    assert not rules.stop_at_page(incremental=True, date_ordered=False, posts_known=[True])


def test_retries_skip_what_this_run_gave_out() -> None:
    stored = [make_post(1, post_page_failed=True), make_post(2, post_page_failed=True)]
    assert rules.posts_to_retry(stored, {stored[0]["id"]}) == [stored[1]]
    assert rules.posts_to_retry(stored, set()) == stored


def test_a_post_awaiting_its_page_is_not_replayed() -> None:
    post, waiting = make_post(1), make_post(2, post_page_failed=True)
    assert rules.replayable(post, set(), content=True)
    assert not rules.replayable(post, {post["id"]}, content=True)  # given out already
    assert not rules.replayable(waiting, set(), content=True)  # its retry gives it
    assert rules.replayable(waiting, set(), content=False)  # no retries on list-only runs
