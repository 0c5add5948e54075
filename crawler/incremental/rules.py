"""The incremental decisions, as pure functions of what a page shows and what the store holds.

The manager (:mod:`crawler.incremental.manager`) looks the stored values up and the
middleware applies the answers; nothing here touches a store, a request or the clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from crawler.parsing.dates import iso_instant
from crawler.store.base import PageState

# A change of these on the list makes a post's page worth reading again (not its counts).
LIST_ENTRY_FIELDS = ("title", "summary", "published_raw")


def page_is_current(entry: Mapping[str, Any], stored: Mapping[str, Any] | None) -> bool:
    """True if the store holds what the post's page says as its list entry stands now: the
    page was read, is not gone and did not fail, and the entry's title, summary and date
    are as stored (counts may move without the page changing). A candidate found by its
    address alone (the generic reader) has no entry to compare: its page is current unless
    a sitemap or feed says it changed after it was read (``lastmod``)."""
    if (
        stored is None
        or stored.get("content") is None
        or stored.get("gone")
        or stored.get("post_page_failed")
    ):
        return False
    if entry.get("discovered"):
        changed, read = iso_instant(entry.get("lastmod")), iso_instant(stored.get("crawled_at"))
        return changed is None or (read is not None and changed <= read)
    return all(stored.get(name) == entry.get(name) for name in LIST_ENTRY_FIELDS)


def validator_headers(state: PageState | None) -> dict[str, str]:
    """The conditional request headers for a page last seen as ``state`` (none if it gave no
    validators)."""
    if state is None:
        return {}
    headers = {}
    if state.etag:
        headers["If-None-Match"] = state.etag
    if state.last_modified:
        headers["If-Modified-Since"] = state.last_modified
    return headers


def ask_conditionally(
    *, list_page: bool, incremental: bool, stored: Mapping[str, Any] | None
) -> bool:
    """Whether a request may carry the validators of the page's last answer: a list page of
    a site read incrementally, or a post page whose content the store holds (a 304 then
    keeps it)."""
    if list_page:
        return incremental
    return stored is not None and stored.get("content") is not None


def stop_at_page(*, incremental: bool, date_ordered: bool, posts_known: Iterable[bool]) -> bool:
    """Whether older list pages may be left unread: on a list sorted newest first, read
    incrementally, a page that lists posts and only posts the store knows (and whose pages
    need no reading) holds the boundary of the news."""
    if not (incremental and date_ordered):
        return False
    known = list(posts_known)
    return bool(known) and all(known)


def posts_to_retry(stored: Iterable[Mapping[str, Any]], given: set[str]) -> list[Mapping[str, Any]]:
    """The stored posts awaiting a retry of their page that this run has not given out: a
    post a list showed went on with the list's values (and its page was asked for if need
    be); asked for again, its stored values would stand in for them."""
    return [post for post in stored if post["id"] not in given]


def replayable(post: Mapping[str, Any], given: set[str], *, content: bool) -> bool:
    """Whether a stored post goes into a feed export as stored: not given out this run, and
    not about to be (a post awaiting its page is asked for once the lists are read)."""
    return post["id"] not in given and not (content and post.get("post_page_failed"))
