"""``RUNS_KEEP``: output/runs/ keeps the newest N run folders, pruned after a run's exports."""

from __future__ import annotations

from pathlib import Path

from scrapy.settings import Settings
from support.project import ROOT, make_post, run_scrapy

from crawler.devtools.samples.server import SiteServer, sample_site
from crawler.runs.folders import prune_runs
from crawler.runs.ids import new_run_id
from crawler.runs.publish import publish_outputs
from crawler.store import open_store

OLD = [f"202611{day:02d}T080000Z-{100 + day}" for day in range(1, 8)]  # oldest first


def make_runs(out: Path, names: list[str]) -> None:
    for name in names:
        (out / "runs" / name).mkdir(parents=True)
        (out / "runs" / name / "summary.json").write_text("{}")


def remaining(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "runs").iterdir())


def test_keeps_the_newest_and_never_the_current_or_foreign_folders(settings: Settings) -> None:
    out = Path(settings["OUTPUT_DIR"])
    make_runs(out, [*OLD, "mine", "manual-run"])
    (out / "runs" / "20261101T000000Z-7.txt").write_text("a file, not a run folder")
    settings.set("RUNS_KEEP", 3)
    current = OLD[0]  # the oldest name (a clock set back): still never deleted
    removed = prune_runs(settings, current)
    assert [p.name for p in removed] == OLD[1:4]
    assert remaining(out) == sorted(
        [OLD[0], *OLD[4:], "mine", "manual-run", "20261101T000000Z-7.txt"]
    )


def test_zero_keeps_everything(settings: Settings) -> None:
    out = Path(settings["OUTPUT_DIR"])
    make_runs(out, OLD)
    settings.set("RUNS_KEEP", 0)
    assert prune_runs(settings, OLD[-1]) == []
    assert remaining(out) == OLD


def test_the_default_is_documented_and_30(settings: Settings) -> None:
    assert settings.getint("RUNS_KEEP") == 30
    out = Path(settings["OUTPUT_DIR"])
    names = [f"202610{day:02d}T000000Z-1" for day in range(1, 32)] + [
        f"20261101T00000{i}Z-1" for i in range(4)
    ]
    make_runs(out, names)
    prune_runs(settings, names[-1])
    assert remaining(out) == names[-30:]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "RUNS_KEEP" in readme


def test_publishing_the_outputs_prunes_after_writing(settings: Settings) -> None:
    out = Path(settings["OUTPUT_DIR"])
    make_runs(out, OLD)
    settings.set("RUNS_KEEP", 2)
    run = new_run_id()
    store = open_store(settings)
    try:
        store.record(make_post(1), run)
        assert publish_outputs(settings, store, run) is not None
    finally:
        store.close()
    assert remaining(out) == [OLD[-1], run]
    assert (out / "runs" / run / "changes.jsonl").read_text().count("\n") == 1


def test_repeated_crawls_keep_runs_keep_folders(tmp_path: Path) -> None:
    keep = 2
    server = SiteServer(sample_site("feed")).start()
    try:
        for _ in range(keep + 1):
            args = ("crawl", "feed", "-a", f"url={server.url()}", "-s", f"RUNS_KEEP={keep}")
            result = run_scrapy(*args, output=tmp_path)
            assert result.returncode == 0, result.stderr[-3000:]
    finally:
        server.stop()
    runs = remaining(tmp_path)
    assert len(runs) == keep
    # The newest kept: the last run's folder has its summary (written after the exports).
    assert all((tmp_path / "runs" / run / "summary.json").exists() for run in runs)
