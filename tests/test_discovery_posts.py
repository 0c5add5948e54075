"""Whether a page is a post, and why: its structured data (JSON-LD with or without @graph,
microdata, Open Graph, <meta name>), the posts its headings list, and the verdict on posts of
real themes and on pages that are no posts (home, tag, archive, about pages)."""

from __future__ import annotations

import pytest
from parsel import Selector

from crawler.discovery.posts import (
    Metadata,
    PostEvidence,
    listed_posts,
    page_metadata,
    post_evidence,
)

ROOT = "https://blog.example.cn/"
PUBLISHED = "2023-01-19T10:00:00+08:00"


def metadata_of(html: str, url: str = ROOT) -> Metadata:
    return page_metadata(Selector(text=html), url)


def ld(json: str) -> str:
    return f'<script type="application/ld+json">{json}</script>'


# ---- page_metadata -------------------------------------------------------------------------

YOAST = ld(
    '{"@context": "https://schema.org", "@graph": ['
    '{"@type": "WebSite", "@id": "https://blog.example.cn/#website", "name": "博客"},'
    '{"@type": "WebPage", "@id": "https://blog.example.cn/2020/05/slug/"},'
    '{"@type": "Person", "name": "某人"},'
    '{"@type": "Article", "headline": "分布式训练", "datePublished": "2020-05-03T08:00:00+00:00",'
    ' "dateModified": "2020-06-01T08:00:00+00:00", "articleSection": ["AI"]}]}'
)


def test_the_article_of_a_json_ld_graph() -> None:
    article = metadata_of(f"<html><head>{YOAST}</head><body></body></html>").article
    assert article["@type"] == "Article"
    assert article["headline"] == "分布式训练"
    assert article["datePublished"] == "2020-05-03T08:00:00+00:00"
    assert article["articleSection"] == ["AI"]


@pytest.mark.parametrize(
    "kind", ['"BlogPosting"', '"https://schema.org/TechArticle"', '["CreativeWork", "NewsArticle"]']
)
def test_the_article_of_json_ld_of_any_article_type(kind: str) -> None:
    html = ld(
        '[{"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": []},'
        f'{{"@context": "https://schema.org", "@type": {kind}, "headline": "Go 调度器"}}]'
    )
    assert metadata_of(html).article["headline"] == "Go 调度器"


def test_json_ld_of_a_site_is_no_article() -> None:
    html = ld('{"@context": "https://schema.org", "@type": "WebSite", "name": "博客"}')
    assert metadata_of(html).article == {}


def test_the_article_of_microdata() -> None:
    html = (
        '<article itemscope itemtype="http://schema.org/BlogPosting">'
        '<h1 itemprop="headline">Rust 所有权</h1>'
        '<time itemprop="datePublished" datetime="2019-05-01T12:00:00+08:00">2019-05-01</time>'
        '<span itemprop="author" itemscope itemtype="http://schema.org/Person">'
        '<span itemprop="name">某人</span></span>'
        '<div itemprop="articleBody"><p>正文</p></div></article>'
    )
    article = metadata_of(html, "https://blog.example.cn/2019/05/01/rust.html").article
    assert article["@type"] == "http://schema.org/BlogPosting"
    assert article["headline"] == "Rust 所有权"
    assert article["datePublished"] == "2019-05-01T12:00:00+08:00"
    assert article["author"]["properties"]["name"] == "某人"


def test_microdata_of_no_article_is_no_article() -> None:
    html = (
        '<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">x</span></div>'
    )
    assert metadata_of(html).article == {}


OPEN_GRAPH = """<html><head>
<meta property="og:type" content="article">
<meta property="og:title" content=" 分布式训练 ">
<meta property="og:url" content="https://blog.example.cn/2023/01/19/slug/">
<meta property="article:published_time" content="2023-01-19T02:00:00.000Z">
<meta property="article:tag" content="NCCL">
<meta property="article:tag" content="GPU">
<meta name="Author" content="某人">
<meta name="author" content="另一人">
<meta name="keywords" content=" 博客,训练 ">
<meta name="description">
</head><body></body></html>"""


def test_open_graph_properties_and_meta_names() -> None:
    metadata = metadata_of(OPEN_GRAPH, "https://blog.example.cn/2023/01/19/slug/")
    assert metadata.og("og:type") == "article"
    assert metadata.og("og:title") == "分布式训练"
    assert metadata.og("article:published_time") == "2023-01-19T02:00:00.000Z"
    assert metadata.opengraph["article:tag"] == ["NCCL", "GPU"]
    assert metadata.og("og:image") is None
    # <meta name>: lower-cased, the first of a name, a meta without content is none.
    assert metadata.meta == {"author": "某人", "keywords": "博客,训练"}
    assert metadata.article == {}


def test_a_page_of_no_structured_data() -> None:
    metadata = metadata_of("<html><body><p>hello</p></body></html>")
    assert metadata == Metadata()
    assert metadata.og("og:type") is None


def test_broken_json_ld_leaves_the_rest_of_the_page() -> None:
    html = (
        '<html><head><meta property="og:type" content="article">'
        + ld('{"@type": "BlogPosting", "headline": "x",}}')
        + '</head><body><div itemscope itemtype="http://schema.org/BlogPosting">'
        '<span itemprop="headline">微数据</span></div></body></html>'
    )
    metadata = metadata_of(html)
    assert metadata.og("og:type") == "article"
    assert metadata.article["headline"] == "微数据"


def test_one_broken_json_ld_block_leaves_the_others() -> None:
    html = (
        "<html><head>"
        + ld('{"@type": "WebSite", "name": "博客", "description": "a "quoted" word"}')
        + ld('{"@context": "https://schema.org", "@type": "BlogPosting", "headline": "有效"}')
        + "</head><body></body></html>"
    )
    assert metadata_of(html).article.get("headline") == "有效"


# ---- listed_posts --------------------------------------------------------------------------


def test_listed_posts_counts_the_other_candidates_headings_link() -> None:
    url = "https://blog.example.cn/posts/go/"
    html = (
        '<h1><a href="/posts/go/">Go</a></h1>'  # the page itself
        '<h2><a href="/posts/go-1/">1</a></h2>'
        '<h2><a href="/posts/go-1/#more">1 again</a></h2>'
        '<h3><a href="https://blog.example.cn/2023/01/19/go-2/index.html">2</a></h3>'
        '<h2><span><a href="../go-3/">3</a></span></h2>'
        '<h2><a href="/tags/go/">a tag page</a></h2>'
        '<h2><a href="https://other.example.cn/posts/x/">elsewhere</a></h2>'
        '<h2><a href="#section">a fragment</a></h2>'
        '<h4><a href="/posts/go-4/">not a listing heading</a></h4>'
        '<p><a href="/posts/go-5/">not in a heading</a></p>'
    )
    assert listed_posts(Selector(text=html), url, ROOT) == 3


# ---- post_evidence -------------------------------------------------------------------------


def evidence(html: str, url: str, published: str | None = PUBLISHED) -> PostEvidence:
    page = Selector(text=html)
    return post_evidence(page, url, ROOT, page_metadata(page, url), published)


HEXO_NEXT_POST = """<html><head>
<meta property="og:type" content="article">
<meta property="og:title" content="分布式训练">
<meta property="article:published_time" content="2023-01-19T02:00:00.000Z">
</head><body><main><article class="post-block">
<h1 class="post-title">分布式训练</h1>
<time itemprop="dateCreated datePublished" datetime="2023-01-19T10:00:00+08:00">2023-01-19</time>
<div class="post-body"><p>正文……</p></div>
</article></main></body></html>"""


def test_a_hexo_post_is_a_post_for_every_reason_it_gives() -> None:
    found = evidence(HEXO_NEXT_POST, "https://blog.example.cn/2023/01/19/slug/")
    assert found.is_post
    assert found.reasons == (
        "og:type article",
        "an <article>",
        "a dated address",
        "a publication time",
    )


def test_a_hugo_post_with_json_ld_blog_posting() -> None:
    html = (
        "<html><head>"
        + ld(
            '{"@context": "https://schema.org", "@type": "BlogPosting", "headline": "调度器",'
            ' "datePublished": "2023-01-19T10:00:00+08:00"}'
        )
        + "</head><body><main><h1>调度器</h1><div class='post-content'>正文</div></main>"
        "</body></html>"
    )
    found = evidence(html, "https://blog.example.cn/posts/scheduler/")
    assert found.is_post
    assert found.reasons == ("JSON-LD/microdata blogposting", "a publication time")


def test_a_jekyll_post_with_microdata() -> None:
    html = (
        '<div itemscope itemtype="http://schema.org/BlogPosting"><h1 itemprop="headline">x</h1>'
        '<time itemprop="datePublished" datetime="2019-05-01">2019-05-01</time></div>'
    )
    found = evidence(html, "https://blog.example.cn/2019/05/01/slug.html")
    assert found.is_post
    assert "JSON-LD/microdata blogposting" in found.reasons
    assert "a dated address" in found.reasons


def test_a_wordpress_post_of_a_yoast_graph() -> None:
    url = "https://blog.example.cn/2020/05/slug/"
    found = evidence(f"<html><head>{YOAST}</head><body><article>x</article></body></html>", url)
    assert found.is_post
    assert found.reasons[0] == "JSON-LD/microdata article"


def test_a_vuepress_post_of_an_article_element_and_a_time() -> None:
    html = '<main><article><h1>Vue</h1><div class="theme-hope-content">正文</div></article></main>'
    found = evidence(html, "https://blog.example.cn/blogs/frontend/2021/vue.html")
    assert found.is_post
    assert found.reasons == ("an <article>", "a dated address", "a publication time")


def test_a_theme_that_says_nothing_is_recognised_by_a_dated_address() -> None:
    html = '<div class="keep-markdown-body"><p>正文……</p></div>'  # Hexo Keep
    found = evidence(html, "https://blog.example.cn/2023/01/19/slug/")
    assert found.is_post
    assert found.reasons == ("a dated address", "a publication time")


@pytest.mark.parametrize(
    ("url", "dated"),
    [
        ("https://blog.example.cn/2023/44339.html", True),  # Hexo :year/:abbrlink.html
        ("https://blog.example.cn/2023/01/slug/", True),
        ("https://blog.example.cn/2023/index.html", False),  # a year's archive
        ("https://blog.example.cn/2023/", False),
        ("https://blog.example.cn/2023/slug/", False),
        ("https://blog.example.cn/posts/44339.html", False),
    ],
)
def test_a_dated_address(url: str, dated: bool) -> None:
    html = '<div class="post-content keep-markdown-body"><p>正文……</p></div>'  # Hexo Keep 4
    found = evidence(html, url)
    assert ("a dated address" in found.reasons) is dated
    assert found.is_post is dated


def test_a_page_that_claims_nothing_is_no_post_even_with_a_time() -> None:
    found = evidence("<div><h1>x</h1><p>text</p></div>", "https://blog.example.cn/posts/slug/")
    assert not found.is_post
    assert found.reasons == ("a publication time",)


def test_a_post_without_a_publication_time_is_no_post() -> None:
    found = evidence(HEXO_NEXT_POST, "https://blog.example.cn/2023/01/19/slug/", published=None)
    assert not found.is_post
    assert found.reasons[-1] == "no publication time"
    assert "og:type article" in found.reasons


@pytest.mark.parametrize(
    "url",
    [
        "https://blog.example.cn/",  # home
        "https://blog.example.cn/index.html",
        "https://blog.example.cn/page/2/",
        "https://blog.example.cn/tags/go/",
        "https://blog.example.cn/categories/a/b/",
        "https://blog.example.cn/archives/",  # Chirpy's carries og:type article and a BlogPosting
        "https://blog.example.cn/about/",
        "https://blog.example.cn/2023/01/",
        "https://other.example.cn/2023/01/19/slug/",
    ],
)
def test_lists_and_other_pages_are_no_posts_whatever_their_metadata(url: str) -> None:
    html = (
        '<html><head><meta property="og:type" content="article">'
        + ld('{"@context": "https://schema.org", "@type": "BlogPosting", "headline": "归档"}')
        + "</head><body><article><h1>归档</h1></article></body></html>"
    )
    found = evidence(html, url)
    assert not found.is_post
    assert found.reasons == ("its address is a list or another page",)


LIST_OF_POSTS = """<html><body><main>
<section><h2><a href="/posts/go-1/">Go 1</a></h2><time datetime="2023-01-01">x</time></section>
<section><h2><a href="/posts/go-2/">Go 2</a></h2></section>
<section><h2><a href="/posts/go-3/">Go 3</a></h2></section>
</main></body></html>"""


def test_a_page_listing_posts_under_headings_is_no_post() -> None:
    # A Hugo sub-section's list: its address may be a post's, its shape is a list's.
    found = evidence(LIST_OF_POSTS, "https://blog.example.cn/posts/golang/")
    assert not found.is_post
    assert found.reasons == ("it lists 3 other pages under headings",)


def test_a_post_that_links_related_posts_under_headings_stays_a_post() -> None:
    html = HEXO_NEXT_POST.replace(
        "</article>",
        '</article><div class="related-posts"><h3><a href="/posts/a/">a</a></h3>'
        '<h3><a href="/posts/b/">b</a></h3><h3><a href="/posts/c/">c</a></h3></div>',
    )
    found = evidence(html, "https://blog.example.cn/2023/01/19/slug/")
    assert found.is_post
    assert "og:type article" in found.reasons
