"""The cross-run store: every post ever seen, the pages' validators, each site's completeness,
each run's outcome, and whether the dataset files are current.

``POST_STORE_URL`` (``postgresql://…``) puts it in PostgreSQL, shared by several machines
(:mod:`crawler.store.postgres`, psycopg imported only then); otherwise it is one SQLite file,
``POST_STORE_PATH`` (empty: ``OUTPUT_DIR/posts.sqlite``). A crawler opens it once
(:func:`crawler_store`) for all its components, and closes it when its engine stops.
"""

from __future__ import annotations

import logging
from pathlib import Path
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings
from scrapy.utils.defer import deferred_from_coro

from crawler.store.base import STORE_UNAVAILABLE, PostStore, StoreUnavailable
from crawler.store.sqlite import SQLiteStore

logger = logging.getLogger(__name__)

_CRAWLER_STORES: WeakKeyDictionary[Crawler, PostStore] = WeakKeyDictionary()


def store_path(settings: BaseSettings) -> Path:
    """The SQLite store's file: ``POST_STORE_PATH``, else ``OUTPUT_DIR/posts.sqlite``."""
    return Path(settings["POST_STORE_PATH"] or Path(settings["OUTPUT_DIR"]) / "posts.sqlite")


def open_store(settings: BaseSettings) -> PostStore:
    """A new connection to the configured store (the caller closes it); raises
    :class:`StoreUnavailable` (one line naming it) when it cannot be opened."""
    url = settings["POST_STORE_URL"]
    if url:
        from crawler.store.postgres import PostgresStore

        return PostgresStore(url, settings.getfloat("POST_STORE_RECONNECT_SECONDS"))
    return SQLiteStore(store_path(settings))


def check_store(settings: BaseSettings) -> None:
    """Open and close the store once, before a run: one that cannot be opened (unreachable,
    newer schema, disk full) is :class:`StoreUnavailable` here, not in the crawl."""
    open_store(settings).close()


_FAILED: WeakKeyDictionary[Crawler, StoreUnavailable] = WeakKeyDictionary()


def store_failed(crawler: Crawler, error: StoreUnavailable) -> None:
    """The crawl's store failed for good (a lost connection not made again in time, a full
    disk): said once, in one line naming the store; the crawl stops (finish reason
    ``store_unavailable``). What was recorded stays; the sites not marked complete are read
    whole next run, so nothing is lost. Later failures are only counted."""
    if crawler.stats is not None:
        crawler.stats.inc_value("store/unavailable")
    if crawler in _FAILED:
        return
    _FAILED[crawler] = error
    logger.error(
        "%s; stopping the crawl (what was recorded is kept; the next run reads the rest again)",
        error,
    )
    logger.debug("the store failed", exc_info=error)
    engine = crawler.engine
    if engine is not None and engine.spider is not None:
        deferred_from_coro(engine.close_spider_async(reason=STORE_UNAVAILABLE))


def store_has_failed(crawler: Crawler) -> bool:
    """True once :func:`store_failed` was called for ``crawler``."""
    return crawler in _FAILED


def crawler_store(crawler: Crawler) -> PostStore:
    """The store of ``crawler``'s run, opened on the first call and closed when its engine
    stops: every component of the crawl shares it."""
    store = _CRAWLER_STORES.get(crawler)
    if store is None:
        store = _CRAWLER_STORES[crawler] = open_store(crawler.settings)

        def close() -> None:
            _CRAWLER_STORES.pop(crawler, None)
            try:
                store.close()
            except StoreUnavailable as exc:  # said when it was lost; the next run redoes it
                logger.debug("closing the store: %s", exc)

        crawler.signals.connect(close, signal=signals.engine_stopped, weak=False)
    return store
