"""Fewer garbage-collector passes during a crawl."""

from __future__ import annotations

import gc

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured


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
