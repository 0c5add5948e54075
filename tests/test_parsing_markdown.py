"""crawler.parsing.markdown: a post body as Markdown, its word count, and the chrome matcher."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from parsel import Selector
from parsel.csstranslator import css2xpath
from support.project import POST_CASES

from crawler.parsing.markdown import ChromeMatcher, body_markdown, html_markdown, word_count

BASE = "https://blog.example.cn/posts/1/"


def markdown(html: str, chrome: tuple[str, ...] = ()) -> str:
    body = Selector(text=f"<div id='b'>{html}</div>").css("#b")[0]
    return body_markdown(body, BASE, chrome).markdown


@pytest.mark.parametrize(
    ("block", "language"),
    [
        ('<pre><code class="language-python">x = 1</code></pre>', "python"),
        ('<pre><code class="hljs lang-go">x := 1</code></pre>', "go"),
        ('<pre class="brush: bash;">x=1</pre>', "bash"),
        ('<pre data-lang="rust"><code>let x = 1;</code></pre>', "rust"),
        (
            '<div class="highlight-sql notranslate"><div class="highlight"><pre>x</pre>'
            "</div></div>",
            "sql",
        ),
        (
            '<figure class="highlight c++"><table><tr><td class="gutter"><pre>'
            '<span class="line">1</span><br></pre></td><td class="code"><pre>'
            '<span class="line">int x;</span><br></pre></td></tr></table></figure>',
            "c++",
        ),
        (
            '<div class="language-yaml highlighter-rouge"><div class="highlight">'
            '<pre class="highlight"><code><table class="rouge-table"><tbody><tr>'
            '<td class="rouge-gutter gl"><pre class="lineno">1\n</pre></td>'
            '<td class="rouge-code"><pre>a: 1\n</pre></td></tr></tbody>'
            "</table></code></pre></div></div>",
            "yaml",
        ),
        ("<pre><code>plain</code></pre>", ""),
    ],
)
def test_code_blocks_are_fenced_with_the_language_the_page_marks(block: str, language: str):
    found = markdown(f"<p>前文</p>{block}<p>后文</p>")
    fence = found.split("\n")[2]
    assert fence == f"```{language}"
    assert "1\n1" not in found and "| " not in found  # no gutter, no table of code
    assert found.startswith("前文") and found.endswith("后文")


def test_code_lines_split_by_br_stay_lines() -> None:
    found = markdown('<pre><span class="line">a</span><br><span class="line">b</span><br></pre>')
    assert found == "```\na\nb\n```"


def test_chrome_scripts_hidden_copies_and_anchors_are_left_out_with_what_follows_kept() -> None:
    found = markdown(
        '<h2 id="t"><a class="headerlink" href="#t"></a>标题</h2>'
        "<p>正文<script>alert(1)</script>继续</p>"
        '<div style="display: none">隐藏的副本</div><div class="reward">打赏</div><p>结尾</p>',
        chrome=(".reward",),
    )
    assert found == "## 标题\n\n正文继续\n\n结尾"


@pytest.mark.parametrize(
    "heading",
    [
        '<h2 id="t"><a class="header-anchor" href="#t"><span>标题</span></a></h2>',  # VuePress 2
        '<h2 id="t"><a class="header-anchor" href="#t">#</a> 标题</h2>',  # VuePress 1
        '<h2 id="t">标题<a href="#t">#</a></h2>',  # Hugo Stack 3.25
        '<h2 id="t"><a href="#t"><i class="fas fa-hashtag"></i></a>标题</h2>',  # Chirpy
    ],
)
def test_a_headings_link_to_itself_leaves_its_text(heading: str) -> None:
    assert markdown(f'{heading}<p>见<a href="#t">上文</a></p>') == (
        "## 标题\n\n见[上文](https://blog.example.cn/posts/1/#t)"
    )


def test_links_and_lazy_images_are_made_absolute() -> None:
    found = markdown(
        '<p><a href="../2/">下一篇</a> <img src="/x.gif" data-src="img/a.png" alt="图"></p>'
    )
    assert found == (
        "[下一篇](https://blog.example.cn/posts/2/) ![图](https://blog.example.cn/posts/1/img/a.png)"
    )


def test_an_empty_body_is_an_empty_string_and_feed_html_is_read_alike() -> None:
    assert markdown("") == ""
    assert html_markdown("", BASE).markdown == ""
    assert html_markdown("<h3>小节</h3><ul><li>一</li><li>二</li></ul>", BASE).markdown == (
        "### 小节\n\n- 一\n- 二"
    )


def test_the_page_tree_is_not_changed() -> None:
    page = Selector(text="<div id='b'><script>x</script><pre class='language-go'>y</pre></div>")
    before = page.get()
    body_markdown(page.css("#b")[0], BASE, (".nothing",))
    assert page.get() == before


@pytest.mark.parametrize(
    ("texts", "count"),
    [
        (["分布式训练"], 5),
        (["We use NCCL, don't we?"], 5),
        (["用 PyTorch 训练 GPT-4 模型"], 8),  # 用 训 练 模 型, and PyTorch GPT 4
        (["日本語のテキスト"], 8),
        ([""], 0),
    ],
)
def test_word_count_counts_cjk_characters_and_other_words(texts: list[str], count: int) -> None:
    assert word_count(texts) == count


def test_word_count_leaves_code_out() -> None:
    page = Selector(text="<div><p>正文两句</p><pre>for i in range(10): pass</pre></div>")
    body = body_markdown(page.css("div")[0], BASE)
    assert body.word_count == 4


SAVED = sorted((POST_CASES).glob("*/*/page.html"))
COMPOUNDS = st.sampled_from(
    [
        "div",
        "p",
        "a",
        "span",
        "pre",
        "[hidden]",
        "[id]",
        "[class*='post']",
        "[rel='tag']",
        ".post-copyright",
        ".reward-container",
        "div.post-nav",
        "#MySignature",
        "a.headerlink",
        "td.gutter",
        "ul.pager",
        ".social-share",
        "li.previous",
        "[style*='display']",
        "hr[style]",
    ]
)


@settings(max_examples=60, deadline=None)
@given(page=st.sampled_from(SAVED), selectors=st.lists(COMPOUNDS, min_size=1, max_size=6))
def test_the_chrome_matcher_finds_what_the_css_selectors_select(page: Path, selectors) -> None:
    root = etree.fromstring(page.read_bytes(), etree.HTMLParser())
    expected = etree.XPath(" | ".join(css2xpath(s) for s in selectors))(root)
    found = ChromeMatcher(selectors).find(root)
    path = root.getroottree().getpath
    assert sorted(map(path, found)) == sorted(path(e) for e in expected if e is not root)
