"""``crawlall --scrapyd``: a run's sites over two real Scrapyd nodes sharing a real PostgreSQL.

The nodes run on 127.0.0.1 with the project's egg deployed (``.ci/run`` starts two and names
them in ``TEST_SCRAPYD_NODES``; elsewhere the tests start their own), the store is a fresh
database of a throwaway PostgreSQL server (see ``pgserver.py``), and the sites are served here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.faultserver import Fault, FaultServer, html_route, latest_summary, list_page
from support.project import ROOT, free_port_base, read_jsonl, run_scrapy
from support.scrapydnodes import Scrapyd, deploy

from crawler.cluster.scrapyd import assign
from crawler.devtools.samples.server import Site
from crawler.runs.summary import EXIT_LOCKED, EXIT_OK
from crawler.sites import SiteConfig

pytest.importorskip("scrapyd", reason="scrapyd is not installed (pip install -e '.[test]')")

SCHEDULED = re.compile(r"scheduled \d+ site\(s\) on (\S+) \(job \S+\): (.*)")


@pytest.fixture(scope="module")
def nodes(egg: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two Scrapyd nodes with the project deployed: .ci/run's, or two started here."""
    given = [url for url in os.environ.get("TEST_SCRAPYD_NODES", "").split() if url]
    started = [] if given else [Scrapyd(tmp_path_factory.mktemp(f"node{n}")) for n in (1, 2)]
    try:
        for node in started:
            node.wait_ready()
        urls = given or [node.url for node in started]
        for url in urls:
            deploy(url, egg)
        yield urls
    finally:
        for node in started:
            node.stop()


def crawlall(*args: str, output: Path, store: str) -> subprocess.CompletedProcess:
    """``scrapy crawlall ARGS`` on the store ``store`` (a PostgreSQL URL)."""
    return run_scrapy(
        "crawlall", *args, "-s", f"POST_STORE_URL={store}", output=output, timeout=240
    )


def scheduled(stdout: str) -> dict[str, str]:
    """The node each site was first scheduled on, from the controller's lines."""
    found: dict[str, str] = {}
    for node, names in SCHEDULED.findall(stdout):
        for name in names.split(", "):
            found.setdefault(name, node)
    return found


def comparable(posts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({k: v for k, v in p.items() if k != "crawled_at"} for p in posts), key=lambda p: p["url"]
    )


def test_sample_on_two_nodes_writes_what_one_machine_writes(
    nodes: list[str], postgres_url: str, tmp_path: Path
) -> None:
    port = ("-s", f"SAMPLE_PORT_BASE={free_port_base(4)}")
    cluster = crawlall(
        "--sample",
        *port,
        *(a for n in nodes for a in ("--scrapyd", n)),
        output=tmp_path / "cluster",
        store=postgres_url,
    )
    assert cluster.returncode == EXIT_OK, cluster.stdout[-3000:] + cluster.stderr[-3000:]
    local = run_scrapy("crawlall", "--sample", *port, output=tmp_path / "local")
    assert local.returncode == EXIT_OK
    posts = read_jsonl(tmp_path / "cluster" / "sample" / "posts.jsonl")
    alone = read_jsonl(tmp_path / "local" / "sample" / "posts.jsonl")
    assert comparable(posts) == comparable(alone)
    assert all(post["content"] for post in posts)
    assert not list((tmp_path / "cluster").rglob("*.sqlite"))  # the store is PostgreSQL only
    names = {f"sample-{layout}" for layout in ("cnblogs", "hux", "cards", "feed")}
    assert set(scheduled(cluster.stdout)) == names

    again = crawlall(
        "--sample",
        *port,
        *(a for n in nodes for a in ("--scrapyd", n)),
        output=tmp_path / "cluster",
        store=postgres_url,
    )
    assert again.returncode == EXIT_OK
    summary = latest_summary(tmp_path / "cluster" / "sample")
    assert [(s["new"], s["changed"]) for s in summary["sites"]] == [(0, 0)] * 4


def blogs(per_host: int) -> Site:
    """``per_host`` card blogs under ``/blogN/hot``, each with two posts and their pages."""
    post = html_route(
        '<html><body><article><div class="post-content"><p>正文</p></div></article></body></html>'
    )
    routes = {}
    for n in range(per_host):
        routes[f"/blog{n}/hot"] = html_route(
            list_page([(f"/blog{n}/p/{i}", f"文章{n}-{i}") for i in (1, 2)])
        )
        routes.update({f"/blog{n}/p/{i}": post for i in (1, 2)})
    return Site(start="/blog0/hot", routes=routes)


def spread_hosts(
    serve: Callable[..., FaultServer], nodes: list[str], hosts: int, per_host: int
) -> list[FaultServer]:
    """At least ``hosts`` servers (hosts) of ``per_host`` blogs, as many more as it takes for
    every node to get some under rendezvous hashing (ports are random: otherwise all could
    land on one node, one time in 2^hosts with two nodes)."""
    servers: list[FaultServer] = []
    while len(servers) < hosts or len(assign(configs(servers, per_host), nodes)) < len(nodes):
        servers.append(serve(blogs(per_host)))
    return servers


def configs(servers: list[FaultServer], per_host: int) -> list[SiteConfig]:
    """The registry entries of ``registry``, as the controller reads them."""
    return [
        SiteConfig(name=f"h{h}b{n}", layout="cards", url=server.url(f"/blog{n}/hot"))
        for h, server in enumerate(servers)
        for n in range(per_host)
    ]


def registry(path: Path, servers: list[FaultServer], per_host: int) -> Path:
    path.write_text(
        "".join(
            f'[sites.h{h}b{n}]\nlayout = "cards"\nurl = "{server.url(f"/blog{n}/hot")}"\n'
            for h, server in enumerate(servers)
            for n in range(per_host)
        ),
        encoding="utf-8",
    )
    return path


def test_blogs_spread_over_the_nodes_by_host_and_a_node_down_leaves_them_to_the_other(
    nodes: list[str], postgres_url: str, serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    servers = spread_hosts(serve, nodes, 6, 2)  # 6 hosts (ports) or more, 2 blogs each
    sites = registry(tmp_path / "sites.toml", servers, 2)
    run = crawlall(
        "-s",
        f"SITE_REGISTRY={sites}",
        *(a for n in nodes for a in ("--scrapyd", n)),
        output=tmp_path / "out",
        store=postgres_url,
    )
    assert run.returncode == EXIT_OK, run.stdout[-3000:] + run.stderr[-3000:]
    placed = scheduled(run.stdout)
    assert set(placed.values()) == set(nodes)  # different hosts spread over both
    for h in range(len(servers)):
        assert placed[f"h{h}b0"] == placed[f"h{h}b1"]  # the blogs of one host stay together
    posts = 2 * 2 * len(servers)
    assert len(read_jsonl(tmp_path / "out" / "posts.jsonl")) == posts
    # The same placement as the controller's own rule, for the same node set.
    assert {
        site.name: node
        for node, group in assign(configs(servers, 2), nodes).items()
        for site in group
    } == placed

    # One node down before the run: every site still crawled, by the other; the run says so.
    down = f"http://127.0.0.1:{free_port_base(1)}"
    run = crawlall(
        "-s",
        f"SITE_REGISTRY={sites}",
        "--scrapyd",
        nodes[0],
        "--scrapyd",
        down,
        output=tmp_path / "out2",
        store=postgres_url,
    )
    assert run.returncode == EXIT_OK, run.stdout[-3000:]
    assert set(scheduled(run.stdout).values()) == {nodes[0]}
    assert f"node {down} left out" in run.stdout
    assert any(down in note for note in latest_summary(tmp_path / "out2")["notes"])
    assert len(read_jsonl(tmp_path / "out2" / "posts.jsonl")) == posts


def test_a_node_killed_mid_run_leaves_its_sites_to_the_other(
    nodes: list[str],
    egg: Path,
    postgres_url: str,
    serve: Callable[..., FaultServer],
    tmp_path: Path,
) -> None:
    (tmp_path / "doomed").mkdir()
    doomed = Scrapyd(tmp_path / "doomed")
    try:
        doomed.wait_ready()
        deploy(doomed.url, egg)
        servers = spread_hosts(serve, [doomed.url, nodes[0]], 4, 3)
        for server in servers:
            server.latency = 1.0  # slow pages: the jobs are still running when the node dies
        sites = registry(tmp_path / "sites.toml", servers, 3)
        command = [
            sys.executable,
            "-m",
            "scrapy",
            "crawlall",
            "-s",
            f"SITE_REGISTRY={sites}",
            "--scrapyd",
            doomed.url,
            "--scrapyd",
            nodes[0],
            "-s",
            f"POST_STORE_URL={postgres_url}",
            "-s",
            f"OUTPUT_DIR={tmp_path / 'out'}",
        ]
        controller = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not doomed.get("listjobs.json", project="blogcrawler")["running"]:
            assert time.monotonic() < deadline, "the doomed node never ran its job"
            time.sleep(0.2)
        doomed.kill()
        stdout, _ = controller.communicate(timeout=240)
    finally:
        doomed.stop()
    assert controller.returncode == EXIT_OK, stdout[-3000:]
    assert f"node {doomed.url} stopped answering" in stdout, stdout[-3000:]
    posts = 3 * 2 * len(servers)
    assert len(read_jsonl(tmp_path / "out" / "posts.jsonl")) == posts  # nothing lost


def test_two_controllers_on_one_store_one_runs_the_other_exits_75(
    nodes: list[str], postgres_url: str, serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(blogs(2))
    server.latency = 0.5
    sites = registry(tmp_path / "sites.toml", [server], 2)
    commands = [
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawlall",
            "-s",
            f"SITE_REGISTRY={sites}",
            "--scrapyd",
            nodes[0],
            "-s",
            f"POST_STORE_URL={postgres_url}",
            "-s",
            f"OUTPUT_DIR={tmp_path / f'out{n}'}",
        ]
        for n in (1, 2)
    ]
    runs = [subprocess.Popen(c, cwd=ROOT, stdout=subprocess.PIPE, text=True) for c in commands]
    statuses = sorted(run.wait(timeout=240) for run in runs)
    assert statuses == [EXIT_OK, EXIT_LOCKED]


def test_failing_post_pages_keep_the_lists_news_on_the_nodes(
    nodes: list[str], postgres_url: str, serve: Callable[..., FaultServer], tmp_path: Path
) -> None:
    server = serve(blogs(2))
    for i in (1, 2):  # blog 0's post pages answer 503 on every retry, blog 1's 404
        server.program(f"/blog0/p/{i}", Fault(status=503, times=None))
        server.program(f"/blog1/p/{i}", Fault(status=404, times=None))
    sites = registry(tmp_path / "sites.toml", [server], 2)
    args = (
        "-s",
        f"SITE_REGISTRY={sites}",
        "-s",
        "RETRY_TIMES=1",
        *(a for n in nodes for a in ("--scrapyd", n)),
    )
    first = crawlall(*args, output=tmp_path / "out", store=postgres_url)
    assert first.returncode == 3, first.stdout[-3000:]  # every post page failed: unhealthy
    for n in (0, 1):  # five more views on each blog's list
        server.site.routes[f"/blog{n}/hot"] = html_route(
            list_page([(f"/blog{n}/p/{i}", f"文章{n}-{i}") for i in (1, 2)], views=6)
        )
    second = crawlall(*args, output=tmp_path / "out", store=postgres_url)
    assert second.returncode == 3, second.stdout[-3000:]
    posts = read_jsonl(tmp_path / "out" / "posts.jsonl")
    assert sorted((p["site"], p["views"], p["gone"]) for p in posts) == [
        ("h0b0", 6, False),
        ("h0b0", 6, False),
        ("h0b1", 6, True),
        ("h0b1", 6, True),
    ]
    summary = latest_summary(tmp_path / "out")
    assert [(s["site"], s["changed"]) for s in summary["sites"]] == [("h0b0", 2), ("h0b1", 2)]
    changes = read_jsonl(tmp_path / "out" / "runs" / summary["run_id"] / "changes.jsonl")
    assert [c["changed_fields"] for c in changes] == [["views"]] * 4
    metrics = read_jsonl(tmp_path / "out" / "metrics.jsonl")
    assert sorted(row["views"] for row in metrics) == [1, 1, 1, 1, 6, 6, 6, 6]
