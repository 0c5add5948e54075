"""Memory during a crawl: fewer garbage-collector passes, and freed heap handed back."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable
from functools import cache

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response


class GcTuningExtension:
    """Once the engine has started, moves everything loaded so far (Scrapy, lxml, our code)
    out of the collector's sight (``gc.freeze``) and collects young objects less often.

    A crawl makes many short-lived objects per page and few cycles; with CPython's default
    thresholds the collector re-scans the long-lived start-up objects again and again
    (bench/README.md has the cost). Off with ``GC_TUNING_ENABLED = False``.
    """

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> GcTuningExtension:
        if not crawler.settings.getbool("GC_TUNING_ENABLED"):
            raise NotConfigured("GC_TUNING_ENABLED is off")
        extension = cls(crawler.settings.getint("GC_GEN0_THRESHOLD"))
        crawler.signals.connect(extension.engine_started, signal=signals.engine_started)
        return extension

    def engine_started(self) -> None:
        gc.freeze()
        _, gen1, gen2 = gc.get_threshold()
        gc.set_threshold(max(self.threshold, 700), gen1, gen2)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def trim_heap() -> bool:
    """Hand the C heap's free pages back to the system; False where that cannot be done.

    Each page parsed is a tree in the C heap (lxml), freed when the page is read; the free
    space between what stays (items, a registry's per-site state) is kept by the allocator,
    so a long crawl's resident memory grows with the pages read, not with what it holds."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


class HeapTrimExtension:
    """Every ``HEAP_TRIM_BYTES`` of page bodies received, and when the crawl ends, collects
    the garbage and calls :func:`trim_heap`, so the peak memory of a registry of thousands of
    sites stays what the crawl holds. Off with ``HEAP_TRIM_BYTES = 0`` (or where the C library
    cannot trim).

    A page read is freed by the collector only: Scrapy's response and the selector it caches
    refer to each other. With the young generation collected less often
    (:class:`GcTuningExtension`) the pages read would pile up, their trees in the C heap, until
    an old generation is collected; the pages' bytes say how much is waiting, so a run of
    304 answers (no bodies) collects nothing.
    """

    def __init__(self, every: int) -> None:
        self.every = every
        self.received = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HeapTrimExtension:
        every = crawler.settings.getint("HEAP_TRIM_BYTES")
        if every <= 0 or _malloc_trim() is None:
            raise NotConfigured("HEAP_TRIM_BYTES is 0, or the C library cannot trim")
        extension = cls(every)
        crawler.signals.connect(extension.response_received, signal=signals.response_received)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def response_received(self, response: Response) -> None:
        self.received += len(response.body)
        if self.received >= self.every:
            self.received = 0
            self.release()

    def spider_closed(self) -> None:
        self.release()

    def release(self) -> None:
        gc.collect()
        trim_heap()
