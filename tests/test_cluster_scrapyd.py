"""The ``crawlall --scrapyd`` controller's parts that need no node: placement and the API client."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest

from crawler.cluster.scrapyd import NodeError, ScrapydNode, assign
from crawler.sites import SiteConfig

NODES = ["http://n1:6800", "http://n2:6800", "http://n3:6800"]


def sites(hosts: int, per_host: int) -> list[SiteConfig]:
    return [
        SiteConfig(name=f"h{h}b{b}", layout="cards", url=f"https://host{h}.example:8{h}/b{b}/")
        for h in range(hosts)
        for b in range(per_host)
    ]


def placement(plan: dict[str, list[SiteConfig]]) -> dict[str, str]:
    return {site.name: node for node, group in plan.items() for site in group}


def test_blogs_of_a_host_stay_together_and_hosts_spread() -> None:
    placed = placement(assign(sites(30, 3), NODES))
    for h in range(30):
        assert len({placed[f"h{h}b{b}"] for b in range(3)}) == 1
    assert set(placed.values()) == set(NODES)


def test_a_node_leaving_moves_only_its_own_sites() -> None:
    before = placement(assign(sites(30, 2), NODES))
    after = placement(assign(sites(30, 2), NODES[:2]))
    moved = {name for name in before if before[name] != after[name]}
    assert moved == {name for name, node in before.items() if node == NODES[2]}


class _Answers(BaseHTTPRequestHandler):
    """A fake node: the JSON of ``answers`` by path (else ok); each request kept in ``seen``.
    The fixture makes a subclass with its own ``answers`` and ``seen`` for each test."""

    answers: ClassVar[dict[str, Any]]
    seen: ClassVar[list[tuple[str, str | None]]]

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        body = json.dumps(self.answers.get(self.path.split("?")[0], {"status": "ok"})).encode()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def node() -> Iterator[tuple[HTTPServer, type[_Answers]]]:
    handler = type("Answers", (_Answers,), {"answers": {}, "seen": []})
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server, handler
    server.shutdown()


def test_credentials_in_the_url_go_as_basic_auth(node) -> None:
    server, handler = node
    handler.answers["/listprojects.json"] = {"status": "ok", "projects": ["blogcrawler"]}
    ScrapydNode(f"http://crawler:s%40cret@127.0.0.1:{server.server_address[1]}").check()
    assert handler.seen == [
        ("/daemonstatus.json", "Basic Y3Jhd2xlcjpzQGNyZXQ="),  # crawler:s@cret
        ("/listprojects.json", "Basic Y3Jhd2xlcjpzQGNyZXQ="),
    ]


def test_a_node_without_the_project_says_how_to_deploy_it(node) -> None:
    server, handler = node
    handler.answers["/listprojects.json"] = {"status": "ok", "projects": ["other"]}
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with pytest.raises(NodeError, match=r"project 'blogcrawler' is not deployed .*scrapyd-deploy"):
        ScrapydNode(url).check()


def test_a_node_that_does_not_answer_is_one_line() -> None:
    with pytest.raises(NodeError, match=r"^http://127.0.0.1:9: "):
        ScrapydNode("http://127.0.0.1:9", timeout=2).check()
