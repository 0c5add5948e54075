"""``scrapy genspider -t layout``: the project's template, and Scrapy's own ones still working.

Every spider is generated into a package in a temporary folder (``-s NEWSPIDER_MODULE``), so
nothing is left in the repository.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import scrapy
from scrapy.http import HtmlResponse
from scrapy.utils.project import get_project_settings
from support.project import ROOT

from crawler.layouts.base import Layout

TEMPLATES = ROOT / "crawler" / "devtools" / "templates"
SCRAPY_TEMPLATES = Path(scrapy.__file__).parent / "templates" / "spiders"


def genspider(*args: str, package: str, tmp_path: Path, templates: bool = True):
    """Run ``scrapy genspider ARGS`` writing into ``tmp_path/package``."""
    (tmp_path / package).mkdir(exist_ok=True)
    (tmp_path / package / "__init__.py").touch()
    settings = ["-s", f"NEWSPIDER_MODULE={package}"]
    if templates:
        settings += ["-s", f"TEMPLATES_DIR={TEMPLATES}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "genspider", *args, *settings],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def load(tmp_path: Path, module: str):
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(tmp_path))


def test_layout_template_makes_a_layout(tmp_path: Path) -> None:
    before = sorted(p.name for p in (ROOT / "crawler" / "layouts").iterdir())
    result = genspider(
        "-t", "layout", "zola-blog", "blog.example.cn", package="gen_layout", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    path = tmp_path / "gen_layout" / "zola_blog.py"
    assert path.exists(), result.stdout
    module = load(tmp_path, "gen_layout.zola_blog")
    spider = module.ZolaBlogSpider
    assert issubclass(spider, Layout)
    assert spider.name == "zola-blog" and spider.signature
    assert "https://blog.example.cn" in path.read_text(encoding="utf-8")
    # The skeleton's hooks run: a page in the placeholder markup gives a post.
    page = HtmlResponse(
        url="https://blog.example.cn/",
        body='<article><h2><a href="/p/1/">标题</a></h2><p>摘要</p>'
        '<time datetime="2026-10-01T08:00:00+08:00">10月1日</time></article>'
        '<a rel="next" href="/page/2/">下一页</a>'.encode(),
        encoding="utf-8",
    )
    [item] = spider.extract(page)
    assert item["url"] == "https://blog.example.cn/p/1/" and item["title"] == "标题"
    assert item["published_raw"] == "2026-10-01T08:00:00+08:00"
    assert list(spider.next_page_urls(page)) == ["/page/2/"]
    # Lint-clean as generated (the project's ruff rules), and nothing written into the repo.
    ruff = subprocess.run(
        [
            str(Path(sys.executable).parent / "ruff"),
            "check",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ruff.returncode == 0, ruff.stdout
    assert sorted(p.name for p in (ROOT / "crawler" / "layouts").iterdir()) == before


@pytest.mark.parametrize("template", ["basic", "crawl", "csvfeed", "xmlfeed"])
def test_scrapys_templates_still_work(template: str, tmp_path: Path) -> None:
    package = f"gen_scrapy_{template}"  # one package per test: imports are cached by name
    result = genspider(
        "-t", template, f"s_{template}", "example.org", package=package, tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    module = load(tmp_path, f"{package}.s_{template}")
    spider = getattr(module, f"S{template.capitalize()}Spider")  # genspider's $classname
    assert issubclass(spider, scrapy.Spider) and spider.name == f"s_{template}"


def test_project_templates_copy_scrapys_unchanged() -> None:
    """TEMPLATES_DIR replaces Scrapy's folder: ours must hold every Scrapy template, as is.

    After a Scrapy upgrade this fails if Scrapy's templates changed: copy them again from
    ``scrapy/templates/spiders/``.
    """
    ours = {p.name: p.read_text(encoding="utf-8") for p in (TEMPLATES / "spiders").glob("*.tmpl")}
    for template in SCRAPY_TEMPLATES.glob("*.tmpl"):
        assert ours.get(template.name) == template.read_text(encoding="utf-8"), template.name
    assert "layout.tmpl" in ours


def test_list_shows_layout_and_scrapys_templates(tmp_path: Path) -> None:
    result = genspider("--list", package="gen_list", tmp_path=tmp_path)
    names = set(result.stdout.split())
    assert {"basic", "crawl", "csvfeed", "xmlfeed", "layout"} <= names


@pytest.mark.skipif(
    Path(get_project_settings().get("TEMPLATES_DIR", "")).resolve() != TEMPLATES.resolve(),
    reason="crawler/settings.py does not set TEMPLATES_DIR to crawler/templates yet",
)
def test_project_settings_point_genspider_at_the_templates(tmp_path: Path) -> None:
    result = genspider(
        "-t",
        "layout",
        "plain_layout",
        "example.cn",
        package="gen_settings",
        tmp_path=tmp_path,
        templates=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "gen_settings" / "plain_layout.py").exists()
