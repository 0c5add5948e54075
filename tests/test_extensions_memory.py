"""The memory extensions: fewer collector passes, freed heap handed back."""

from __future__ import annotations

import gc

import pytest
from scrapy.exceptions import NotConfigured
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


def test_the_heap_is_trimmed_every_so_many_responses_and_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert memory.trim_heap()  # glibc, as on the machines the crawler runs on
    trims: list[int] = []
    extension = HeapTrimExtension.from_crawler(project_crawler(HEAP_TRIM_RESPONSES=3))
    monkeypatch.setattr(memory, "trim_heap", lambda: trims.append(extension.responses) or True)
    for _ in range(7):
        extension.response_received()
    extension.spider_closed()
    assert trims == [3, 6, 7]
    with pytest.raises(NotConfigured):
        HeapTrimExtension.from_crawler(project_crawler(HEAP_TRIM_RESPONSES=0))
