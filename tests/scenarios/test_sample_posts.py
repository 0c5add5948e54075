"""The bundled sample sites serve a post page for every post their list pages link to.

Post pages are few files answered by pattern routes (``"/RobinDevNotes/p/*[0-3]"``), so the
offline demo and the crawl tests can follow each post's own page; cnblogs' category/tag
endpoint answers whatever ``blogId``/``postId`` the page's script asks for.
"""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

import pytest
from lxml import etree
from parsel import Selector
from scrapy.responsetypes import responsetypes
from support.project import free_port_base

from crawler.devtools.samples.server import LAYOUTS, SiteServer, sample_site
from crawler.layouts import get_layout

# Where each platform's post page keeps the post body.
POST_BODY = {
    "cnblogs": "#cnblogs_post_body",
    "hux": "article .post-container",
    "cards": "article.post .post-content",
    "feed": "article.post-single .post-content",
}


@dataclass
class Answer:
    """One HTTP answer of the sample server."""

    status: int
    headers: dict[str, str]
    body: bytes


def get(url: str, headers: dict[str, str] | None = None) -> Answer:
    """GET ``url``; an error status is an answer too."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Answer(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, dict(error.headers), error.read())


def status_unfollowed(server: SiteServer, path: str) -> tuple[int, str | None]:
    """The status and Location of ``path``, a redirect not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Location")
    finally:
        connection.close()


def sample_file(layout: str, name: str) -> bytes:
    return resources.files("crawler.devtools.samples").joinpath(layout, name).read_bytes()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, SiteServer]]:
    """The four sample sites, each on a free port of 127.0.0.1."""
    base = free_port_base(len(LAYOUTS))
    started = {
        layout: SiteServer(sample_site(layout), port=base + offset).start()
        for offset, layout in enumerate(LAYOUTS)
    }
    yield started
    for server in started.values():
        server.stop()


def post_links(layout: str, server: SiteServer) -> dict[str, list[str]]:
    """The post URLs of each list page of the site, as the layout reads them off the page
    the server sends (so as a crawl finds them, on this server)."""
    links = {}
    for path, route in server.site.routes.items():
        if route.redirect is not None:
            continue
        answer = get(server.url(path))
        assert answer.status == 200, path
        response = responsetypes.from_args(
            headers=answer.headers, url=server.url(path), body=answer.body
        )(url=server.url(path), body=answer.body, headers=answer.headers)
        links[path] = [item["url"] for item in get_layout(layout).extract(response)]
    return links


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_post_link_of_every_list_page_answers_a_post_page(
    layout: str, servers: dict[str, SiteServer]
) -> None:
    server = servers[layout]
    links = post_links(layout, server)
    assert all(links.values()), links  # every list page links to posts
    bodies = set()
    for page, urls in links.items():
        for url in urls:
            assert url.startswith(server.base_url), (page, url)
            answer = get(url)
            assert answer.status == 200, (page, url)
            post = Selector(text=answer.body.decode("utf-8")).css(POST_BODY[layout])
            assert post and len(post.xpath("string()").get("").strip()) > 500, url
            bodies.add(answer.body)
    # Different posts get different pages, not one page for all.
    assert len(bodies) >= 3


# (layout, request path, the post page it answers): one per pattern of each site.json.
MAPPING = [
    ("cnblogs", "/RobinDevNotes/p/19622950", "post-19622950.html"),
    ("cnblogs", "/RobinDevNotes/p/19618773", "post-19622950.html"),
    ("cnblogs", "/RobinDevNotes/p/19660974", "post-19660974.html"),
    ("cnblogs", "/RobinDevNotes/p/19632186", "post-19660974.html"),
    ("cnblogs", "/RobinDevNotes/p/19629317", "post-19629317.html"),
    ("cnblogs", "/RobinDevNotes/p/19612408.html", "post-19629317.html"),
    ("hux", "/2026/07/05/replay-buffer/", "post-replay-buffer.html"),
    ("hux", "/2026/07/02/rl-inference-tail-latency-part3/", "post-rl-tail-latency.html"),
    ("hux", "/2024/08/27/kubeflow-training-operator/", "post-pytorch-ddp.html"),
    ("cards", "/posts/103", "post-101.html"),
    ("cards", "/posts/110", "post-102.html"),
    ("cards", "/posts/107?from=hot", "post-105.html"),  # patterns ignore the query
    ("feed", "/posts/2026-09-07-reward-model-three-rewrites/", "post-reward-model.html"),
    (
        "feed",
        "/posts/2026-08-30-training-infra-02-memory-accounting/",
        "post-memory-accounting.html",
    ),
    ("feed", "/posts/2026-08-29-training-infra-course-index/", "post-parallelism.html"),
    ("feed", "/posts/2026-08-13-pi-hermes-self-evolving-agents/", "post-memory-accounting.html"),
    ("feed", "/posts/2026-07-14-why-this-blog/", "post-reward-model.html"),
]


@pytest.mark.parametrize(("layout", "path", "name"), MAPPING)
def test_pattern_routes_answer_their_post_page(
    layout: str, path: str, name: str, servers: dict[str, SiteServer]
) -> None:
    server = servers[layout]
    answer = get(server.url(path))
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    # The page as the real site prints it, its absolute links turned to this server.
    want = sample_file(layout, name).replace(server.site.origin.encode(), server.base_url.encode())
    assert answer.body == want


def test_exact_routes_keep_their_query_and_patterns_stay_out_of_them(
    servers: dict[str, SiteServer],
) -> None:
    cards, hux = servers["cards"], servers["hux"]
    assert get(cards.url("/hot?page=3")).body == sample_file("cards", "hot-3.html").replace(
        cards.site.origin.encode(), cards.base_url.encode()
    )
    assert get(cards.url("/hot?page=9")).status == 404  # an exact route needs its query
    assert get(cards.url("/tags/moe")).status == 404  # no pattern matches it
    assert status_unfollowed(hux, "/page2") == (301, "/page2/")  # redirects as before
    for layout in LAYOUTS:
        site = servers[layout].site
        assert site.patterns
        assert not any("*" in path for path in site.routes), layout


def test_a_pattern_route_answers_a_conditional_request_with_304(
    servers: dict[str, SiteServer],
) -> None:
    server = servers["cnblogs"]
    url = server.url("/RobinDevNotes/p/19656530")
    first = get(url)
    assert first.status == 200 and first.headers["Last-Modified"]
    again = get(url, {"If-None-Match": first.headers["ETag"]})
    assert again.status == 304 and again.body == b""
    assert "/RobinDevNotes/p/19656530" in server.not_modified
    # The ETag is the page's: a post answered by the same file is unchanged too, a post
    # answered by another file is not.
    tag = {"If-None-Match": first.headers["ETag"]}
    assert get(server.url("/RobinDevNotes/p/19622950"), tag).status == 304
    assert get(server.url("/RobinDevNotes/p/19640125"), tag).status == 200


def test_cnblogs_post_page_leaves_categories_and_tags_to_the_endpoint(
    servers: dict[str, SiteServer],
) -> None:
    server = servers["cnblogs"]
    page = get(server.url("/RobinDevNotes/p/19667345")).body.decode("utf-8")
    selector = Selector(text=page)
    # As the server sends the page: the boxes are there, filled later by JavaScript.
    assert selector.css("#BlogPostCategory").get() == '<div id="BlogPostCategory"></div>'
    assert selector.css("#EntryTag").get() == '<div id="EntryTag"></div>'
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", selector.css("#post-date::text").get())
    scripts = " ".join(selector.xpath("//script[not(@src)]/text()").getall())
    app = re.search(r"currentBlogApp = '([\w-]+)'", scripts)
    blog = re.search(r"currentBlogId = (\d+)", scripts)
    entry = re.search(r"cb_entryId = (\d+)", scripts)
    assert app and blog and entry
    # The endpoint the page's script calls, and any other ids: the same answer.
    endpoint = f"/{app[1]}/ajax/CategoriesTags.aspx"
    for query in (f"?blogId={blog[1]}&postId={entry[1]}", "?blogId=1&postId=2", ""):
        answer = get(server.url(endpoint + query))
        assert answer.status == 200, query
        found = Selector(text=answer.body.decode("utf-8"))
        assert found.css("#BlogPostCategory a::text").getall() == ["AI Infra", "分布式训练"]
        assert found.css("#EntryTag a::text").getall() == ["分布式训练", "PyTorch", "大模型"]
        # Its links point at this server, as every page of the sample does.
        assert all(href.startswith(server.base_url) for href in found.css("a::attr(href)").getall())


def test_feed_items_with_the_whole_post_match_their_post_pages(
    servers: dict[str, SiteServer],
) -> None:
    server = servers["feed"]
    feed = etree.fromstring(get(server.url()).body)
    encoded = "{http://purl.org/rss/1.0/modules/content/}encoded"
    items = [item for item in feed.iter("item") if item.find(encoded) is not None]
    assert len(items) == 2
    for item in items:
        content = Selector(text=item.findtext(encoded))
        page = Selector(text=get(item.findtext("link")).body.decode("utf-8"))
        post = page.css(POST_BODY["feed"])
        assert content.xpath("string()").get().strip() == post.xpath("string()").get().strip()
