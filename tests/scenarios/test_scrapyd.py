"""The project deploys to a real Scrapyd (on 127.0.0.1) and its spiders run there.

Builds the egg with ``scrapyd-deploy --build-egg`` (from a copy of the project, so no
``build/`` or ``*.egg-info`` appears in the checkout), checks the data files are inside and
readable from the egg alone, uploads it with ``addversion.json``, schedules ``cards`` against
the bundled sample site and checks the job's items, exports and log.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.project import read_jsonl
from support.scrapydnodes import PROJECT, ROOT, Scrapyd, call_api, clean_env, multipart

from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site

pytest.importorskip("scrapyd", reason="scrapyd is not installed (pip install -e '.[test]')")

JOB_TIMEOUT = 90.0


def test_egg_holds_the_data_files(egg: Path) -> None:
    names = set(zipfile.ZipFile(egg).namelist())
    assert {"crawler/sites.toml", "crawler/post.schema.json", "crawler/settings.py"} <= names
    for layout in LAYOUTS:
        sample = ROOT / "crawler" / "devtools" / "samples" / layout
        for file in sample.iterdir():
            if file.is_file():
                assert f"crawler/devtools/samples/{layout}/{file.name}" in names
    entry_points = zipfile.ZipFile(egg).read("EGG-INFO/entry_points.txt").decode()
    assert "[scrapy]" in entry_points and "settings = crawler.settings" in entry_points


def test_data_loads_from_the_egg_alone(egg: Path, tmp_path: Path) -> None:
    """With only the egg (and the dependencies' site-packages) on sys.path, the registry, the
    schema and every sample site load through importlib.resources."""
    code = """if True:
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import crawler
        from crawler.devtools.samples.server import LAYOUTS, sample_site
        from crawler.schema import validate_post
        from crawler.sites import registry
        print(json.dumps({
            "module": crawler.__file__,
            "sites": sorted(registry()),
            "routes": {layout: len(sample_site(layout).routes) for layout in LAYOUTS},
        }))
    """
    # -I: no PYTHONPATH, no user site-packages, and not the current folder on sys.path.
    result = subprocess.run(
        [sys.executable, "-I", "-c", code, str(egg)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = json.loads(result.stdout)
    assert loaded["module"].startswith(str(egg)), loaded["module"]
    assert loaded["sites"]
    assert all(loaded["routes"][layout] for layout in LAYOUTS)


def test_scrapyd_runner_imports_the_crawler_from_the_egg(egg: Path, tmp_path: Path) -> None:
    """Scrapyd's runner *appends* the egg to sys.path (pkg_resources' activate): a ``crawler``
    importable otherwise (this checkout, an installed copy) would win over the egg."""
    code = """if True:
        import json, os, sys
        from scrapyd.runner import activate_egg
        activate_egg(sys.argv[1])
        import crawler
        print(json.dumps([crawler.__file__, os.environ["SCRAPY_SETTINGS_MODULE"]]))
    """
    result = subprocess.run(
        [sys.executable, "-c", code, str(egg)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    module, settings_module = json.loads(result.stdout.splitlines()[-1])
    assert module.startswith(str(egg)), module
    assert settings_module == "crawler.settings"


# ---- a real Scrapyd ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scrapyd]:
    server = Scrapyd(tmp_path_factory.mktemp("scrapyd"))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture
def cards_site() -> Iterator[SiteServer]:
    server = SiteServer(sample_site("cards")).start()
    try:
        yield server
    finally:
        server.stop()


def expected_titles() -> set[str]:
    titles = set()
    for output in sorted((ROOT / "tests" / "cases" / "cards").glob("hot-*/output.json")):
        titles.update(post["title"] for post in json.loads(output.read_text(encoding="utf-8")))
    return titles


def wait_finished(scrapyd: Scrapyd, job: str) -> dict[str, Any]:
    deadline = time.monotonic() + JOB_TIMEOUT
    while time.monotonic() < deadline:
        jobs = scrapyd.get("listjobs.json", project=PROJECT)
        for finished in jobs["finished"]:
            if finished["id"] == job:
                return finished
        time.sleep(0.5)
    pytest.fail(f"job {job} not finished in {JOB_TIMEOUT} s: {jobs}\n{scrapyd.log_tail()}")


def test_deploy_and_crawl_on_scrapyd(
    scrapyd: Scrapyd, egg: Path, cards_site: SiteServer, tmp_path: Path
) -> None:
    body, content_type = multipart(
        {"project": PROJECT, "version": "1"}, {"egg": (egg.name, egg.read_bytes())}
    )
    added = call_api(
        f"{scrapyd.url}/addversion.json", data=body, headers={"Content-Type": content_type}
    )
    assert added["status"] == "ok", added
    spiders = scrapyd.get("listspiders.json", project=PROJECT)
    assert spiders["status"] == "ok", spiders
    assert set(LAYOUTS) <= set(spiders["spiders"]), spiders

    output = tmp_path / "output"
    scheduled = scrapyd.post(
        "schedule.json",
        [
            ("project", PROJECT),
            ("spider", "cards"),
            ("url", cards_site.url()),
            ("setting", f"OUTPUT_DIR={output}"),
        ],
    )
    assert scheduled["status"] == "ok", scheduled
    job = scheduled["jobid"]
    wait_finished(scrapyd, job)
    # Scrapyd logs "Process finished" for exit status 0, "Process died: exitstatus=N" otherwise
    # (the crawl command's status: 1 site failed, 2 usage error, 3 unhealthy, 75 locked, ...).
    assert scrapyd.wait_log(f"job={job!r}") == "Process finished", scrapyd.log_tail()

    log_file = scrapyd.logs_dir / PROJECT / "cards" / f"{job}.log"
    diagnosis = f"\n--- scrapyd ---\n{scrapyd.log_tail()}"
    assert log_file.exists(), f"no job log at {log_file}{diagnosis}"
    log = log_file.read_text(encoding="utf-8", errors="replace")
    diagnosis = f"\n--- job log ---\n{log[-4000:]}{diagnosis}"
    assert "Traceback" not in log, diagnosis
    assert "Spider closed (finished)" in log or "done (ok)" in log, diagnosis

    titles = expected_titles()
    assert len(titles) == 10
    items = read_jsonl(scrapyd.items_dir / PROJECT / "cards" / f"{job}.jl")
    assert len(items) == 10, diagnosis
    assert {item["title"] for item in items} == titles
    # The crawler's own exports went to OUTPUT_DIR (not into the checkout).
    posts = read_jsonl(output / "posts.jsonl")
    assert {post["title"] for post in posts} == titles
    assert all(post["url"].startswith(cards_site.base_url) for post in posts)
