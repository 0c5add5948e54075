"""The memory extensions: fewer collector passes, freed heap handed back."""

from __future__ import annotations

import gc
import weakref

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from support.project import project_crawler

from crawler.extensions import memory
from crawler.extensions.memory import GcTuningExtension, HeapTrimExtension


def test_gc_tuning_moves_start_up_objects_out_of_sight() -> None:
    crawler = project_crawler(GC_GEN0_THRESHOLD=50_000)
    extension = GcTuningExtension.from_crawler(crawler)
    before = gc.get_threshold()
    try:
        extension.engine_started()
        assert gc.get_threshold()[0] == 50_000 and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    with pytest.raises(NotConfigured):
        GcTuningExtension.from_crawler(project_crawler(GC_TUNING_ENABLED=False))


def test_pages_read_are_collected_and_the_heap_trimmed_every_so_many_bytes_and_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert memory.trim_heap()  # glibc, as on the machines the crawler runs on
    trims: list[int] = []
    extension = HeapTrimExtension.from_crawler(project_crawler(HEAP_TRIM_BYTES=1000))
    monkeypatch.setattr(memory, "trim_heap", lambda: trims.append(extension.received) or True)
    page = HtmlResponse("http://127.0.0.1/a/", body=b"<p>post</p>" * 50)  # 550 bytes
    not_modified = HtmlResponse("http://127.0.0.1/b/", status=304)
    read = weakref.ref(page)
    collecting = gc.isenabled()
    gc.disable()  # the collector on its own could free the page at any time
    try:
        assert page.css("p")  # the response and the selector it caches refer to each other
        extension.response_received(page)
        del page
        assert read() is not None and trims == []  # kept by the cycle, under 1000 bytes
        for _ in range(5):
            extension.response_received(not_modified)  # no body: nothing waits
        assert trims == []
        extension.response_received(HtmlResponse("http://127.0.0.1/c/", body=b"x" * 450))
        assert read() is None and trims == [0]  # collected, then the heap trimmed
    finally:
        if collecting:
            gc.enable()
    extension.spider_closed()
    assert trims == [0, 0]
    with pytest.raises(NotConfigured):
        HeapTrimExtension.from_crawler(project_crawler(HEAP_TRIM_BYTES=0))
