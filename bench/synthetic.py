# ruff: noqa: E501, W291, W293 -- page markup copied verbatim from the platforms
"""Synthetic blog sites for the crawl benchmark, in each platform's real markup.

Each layout gets hundreds of list pages (``--pages``, default 300) of ten posts with Chinese
titles and summaries, built in memory from a fixed seed and served by
:class:`crawler.devtools.samples.server.SiteServer` on 127.0.0.1. The page chrome and the post markup
are copied from the bundled samples in ``crawler/samples/<layout>/``:

- ``cnblogs``: a home page ``/RobinDevNotes/`` then ``default.html?page=N``; ``div.day`` >
  ``div.postTitle`` / ``div.postCon`` / ``div.postDesc`` (about one day in five holds two
  posts), ``posted @ 2026-09-29 20:12``, counts in ``span.post-*-count``; page 1 pages on with
  ``#nav_next_page`` and starts with a pinned post (``[置顶]``) that appears again in its place
  on page 2, later pages with ``#homepage_top_pager`` / ``#homepage_bottom_pager``.
- ``hux``: ``/`` then ``/pageN/`` (linked directly: no GitHub Pages redirect); ``div.post-preview``
  with an occasional ``h3.post-subtitle``, ``Posted by … on July 5, 2026``, ``ul.pager li.next``.
- ``cards``: ``/hot`` then ``/hot?page=N``; ``article.post-card``, ``2026年10月04日``, stats
  ``108 浏览`` (now and then ``1.2k``), ``nav.pagination a.next`` and ``<link rel="next">``.
- ``feed``: RSS 2.0 as Hugo writes it (entity-escaped HTML descriptions, ``email (Name)``
  authors, ``Mon, 07 Sep 2026 04:00:00 GMT``). By default a *paged* feed (RFC 5005): ``pages``
  feed documents of ten items chained by ``<atom:link rel="next">``, which the feed spider
  follows; so every layout fetches the same number of documents, and ``--scale`` (4×) does not
  run into ``DOWNLOAD_MAXSIZE``. ``feed_mode="single"`` makes one feed of ``pages × 10`` items
  instead (about 1 KB per item: 300 pages make a 3 MB feed, over ``DOWNLOAD_WARNSIZE``).

Run ``python bench/synthetic.py --layout cnblogs --pages 300`` to serve one site until Ctrl-C
(it prints the start URL), or add ``--write DIR`` to save the pages as files.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from post_bodies import TAGS, PostContent, post_body

from crawler.devtools.samples.server import Route, Site, SiteServer

LAYOUTS = ("cnblogs", "hux", "cards", "feed")
POSTS_PER_PAGE = 10
HTML = "text/html; charset=utf-8"
RSS = "application/rss+xml; charset=utf-8"

# ---- Chinese text ---------------------------------------------------------------------------

TOPICS = (
    "大模型训练",
    "分布式推理",
    "KV 缓存",
    "NCCL 通信",
    "PyTorch FSDP",
    "DeepSpeed ZeRO-3",
    "vLLM",
    "TensorRT-LLM",
    "ONNX Runtime",
    "eBPF",
    "Kubernetes 调度",
    "Rust 异步运行时",
    "Go 并发模型",
    "Redis 集群",
    "MySQL 索引",
    "Kafka 消息队列",
    "Flink 实时计算",
    "Godot 引擎",
    "Bevy ECS",
    "CUDA 核函数",
    "Triton 算子",
    "MoE 专家并行",
    "RLHF 强化学习",
    "向量数据库",
    "Raft 共识算法",
    "LSM 树存储引擎",
    "JVM 垃圾回收",
    "Linux 内核调度",
    "零拷贝网络",
    "gRPC 服务治理",
    "Slurm 作业调度",
    "JAX/XLA 编译器",
    "梯度检查点",
    "混合精度训练",
)
TITLE_PATTERNS = (
    "{a}原理与实践",
    "一文看懂{a}",
    "从零实现{a}",
    "{a}和{b}，两种路线之争",
    "手把手跑通{a}",
    "{a}性能调优笔记",
    "深入理解{a}：从源码到生产",
    "用{a}优化{b}的工程实践",
    "{a}踩坑记录（第{n}篇）",
    "为什么工程师都要懂{a}",
    "{a}深度工程实战:从{b}到全链路解析",
)
SENTENCES = (
    "{a}是目前工程实践中最常被提到的方案之一，它把复杂的问题拆成了几个清晰的步骤。",
    "很多团队在落地{a}时都会遇到同一个问题：{b}的开销远远超出预期。",
    "这篇文章从最基础的概念讲起，边讲边对照{b}的实现，最后给出一份生产环境的检查清单。",
    "同样的硬件、同样的数据规模，{a}的吞吐量可能相差一倍以上，原因往往藏在细节里。",
    '我们会先看"{a}"到底解决了什么问题，再看它和{b}在设计上的取舍。',
    "文中的代码都在 GitHub 上开源，读者可以直接复现实验结果。",
    "如果你只想知道结论：先测量，再优化，不要凭感觉改代码。",
    "本文是系列文章的第{n}篇，前几篇介绍了{b}的基本用法。",
    "{a}的核心思想很朴素：把数据放在离计算最近的地方，让通信和计算尽量重叠。",
    "在 {n} 台机器、{m} 张 GPU 的集群上，我们把端到端延迟从 {m}0 ms 降到了 {n} ms。",
    "两者不是同一条赛道上的竞争对手，而是两种完全不同的思考方式——选哪个，取决于你更怕什么。",
    "训练一个大模型，从来不是一张卡的事情，真正决定效率上限的往往是{a}。",
    "读完本文，你会知道{a}在什么场景下值得用、在什么场景下只会增加复杂度 & 维护成本。",
)
AUTHORS = ("RobinDevNotes", "无限可能的想象力", "林小北", "Chen Wei", "老王的技术笔记")
CATEGORIES = ("分布式系统", "推理部署", "工程实践", "编译原理", "实时计算", "算法与数据结构")


class Writer:
    """Seeded generator of titles, summaries and counts (same seed, same site)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def _fill(self, pattern: str) -> str:
        a, b = self.rng.sample(TOPICS, 2)
        return pattern.format(a=a, b=b, n=self.rng.randint(2, 9), m=self.rng.randint(2, 64))

    def title(self) -> str:
        return self._fill(self.rng.choice(TITLE_PATTERNS))

    def text(self, chars: int) -> str:
        """Sentences until the text is at least ``chars`` characters long."""
        parts: list[str] = []
        while sum(map(len, parts)) < chars:
            parts.append(self._fill(self.rng.choice(SENTENCES)))
        return "".join(parts)

    def count(self, scale: float, top: int) -> int:
        """A long-tailed count: most posts have few, a few have many."""
        return min(top, int((self.rng.paretovariate(1.1) - 1) * scale))


@dataclass
class Post:
    """One synthetic post: what a list page shows of it."""

    number: int
    title: str
    summary: str
    published: datetime  # naive local time (cnblogs, Hux, cards) or UTC (RSS)
    views: int
    comments: int
    likes: int
    category: str
    author: str
    subtitle: str = ""


def make_posts(count: int, seed: int, start: datetime, step_hours: tuple[int, int]) -> list[Post]:
    """``count`` posts, newest first, published at varied times before ``start``."""
    writer = Writer(seed)
    posts: list[Post] = []
    when, number = start, 19_700_000
    for _ in range(count):
        number -= writer.rng.randint(1_000, 5_000)
        posts.append(
            Post(
                number=number,
                title=writer.title(),
                summary=writer.text(writer.rng.randint(160, 260)),
                published=when,
                views=writer.count(40, 50_000) + 1,
                comments=writer.count(1, 200),
                likes=writer.count(3, 500),
                category=writer.rng.choice(CATEGORIES),
                author=writer.rng.choice(AUTHORS),
                subtitle=f"「{writer.rng.choice(TOPICS)}」系列之{writer.rng.randint(1, 9)}"
                if writer.rng.random() < 0.3
                else "",
            )
        )
        # One post in five shares the day of the next-newer one (cnblogs: several per day).
        if writer.rng.random() < 0.2:
            when -= timedelta(minutes=writer.rng.randint(5, min(180, when.hour * 60 or 5)))
        else:
            when -= timedelta(
                hours=writer.rng.randint(*step_hours), minutes=writer.rng.randint(0, 59)
            )
    return posts


def pages_of(posts: list[Post]) -> list[list[Post]]:
    """The posts split into list pages of ``POSTS_PER_PAGE``."""
    return [posts[i : i + POSTS_PER_PAGE] for i in range(0, len(posts), POSTS_PER_PAGE)]


def esc(text: str) -> str:
    """HTML-escape text as the platforms do (quotes as ``&quot;``)."""
    return html.escape(text, quote=True)


# ---- cnblogs --------------------------------------------------------------------------------

CNBLOGS_ORIGIN = "https://www.cnblogs.com"
CNBLOGS_APP = "RobinDevNotes"
CNBLOGS_HEAD = """<!DOCTYPE html>
<html lang="zh-cn">
<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <meta name="referrer" content="origin-when-cross-origin" />
    <meta name="keywords" content="RobinDevNotes,博客园" />
    <meta name="description" content="RobinDevNotes 的博客：分布式训练、推理部署与游戏引擎笔记" />
    <meta http-equiv="Cache-Control" content="no-transform" />
    <meta http-equiv="Cache-Control" content="no-siteapp" />
    <meta http-equiv="X-UA-Compatible" content="IE=edge" />
    <title>RobinDevNotes - 博客园</title>
    <link rel="icon" id="favicon" href="https://assets.cnblogs.com/favicon_v3_2.ico" type="image/x-icon" />
    <link rel="canonical" href="@@CANONICAL@@" />
    <link rel="stylesheet" href="/css/blog-common.min.css?v=R5iu8Wh6Dn0CZ8Lfb-NaFOblTKZwsKwmCoB-EAvmQmk" />
    <link id="MainCss" rel="stylesheet" href="/skins/SimpleMemory/bundle-SimpleMemory.min.css?v=Cnh7uSpgDZ5GT1wAX4Be1ljpLhk1ZbmCWh2f8mYkxv8" />
    <link id="mobile-style" media="only screen and (max-width: 767px)" type="text/css" rel="stylesheet" href="/skins/SimpleMemory/bundle-SimpleMemory-mobile.min.css?v=a2RVy1wBr8Z5_dZ4Xqj_TqOWTr6PUEBULu8cyvTe8Ns" />
    <link type="application/rss+xml" rel="alternate" href="https://www.cnblogs.com/RobinDevNotes/rss" />
    <link type="application/rsd+xml" rel="EditURI" href="https://www.cnblogs.com/RobinDevNotes/rsd.xml" />
    <link type="application/wlwmanifest+xml" rel="wlwmanifest" href="https://www.cnblogs.com/RobinDevNotes/wlwmanifest.xml" />
    <script>
        var currentBlogId = 912345;
        var currentBlogApp = 'RobinDevNotes';
        var isLogined = false;
        var isBlogOwner = false;
        window.skinName = 'SimpleMemory';
        var visitorUserId = '';
        var hasCustomScript = false;
        window.cb_enable_mathjax = false;
        window.mathEngine = 0;
        window.codeHighlightEngine = 1;
        window.enableCodeLineNumber = false;
        window.codeHighlightTheme = 'cnblogs';
        window.darkModeCodeHighlightTheme = 'vs2015';
        window.isDarkCodeHighlightTheme = false;
        window.isDarkModeCodeHighlightThemeDark = true;
        window.isDisableCodeHighlighter = false;
        window.enableCodeThemeTypeFollowSystem = false;
        window.enableMacStyleCodeBlock = false;
    </script>
    <script src="https://assets.cnblogs.com/scripts/jquery-3.3.1.min.js"></script>
    <script src="/js/blog-common.min.js?v=Oi9Q1vpmjm7hPe7lsr9E2fMpW-ZL37PWnJDF5lI5Mys"></script>
</head>
<body class="skin-simplememory has-navbar">
    <a name="top"></a>
    <div id="top_nav" class="navbar forpc">
        <nav id="nav_main" class="navbar-main">
            <ul id="nav_left" class="navbar-list navbar-left">
                <li class="navbar-branding">
                    <a href="https://www.cnblogs.com/" title="开发者的网上家园" role="banner">
                        <img src="https://assets.cnblogs.com/logo.svg" alt="博客园Logo" />
                    </a>
                </li>
                <li><a href="https://cnblogs.vip/">会员</a></li>
                <li><a href="https://news.cnblogs.com/">新闻</a></li>
                <li><a href="https://q.cnblogs.com/">博问</a></li>
                <li><a href="https://ing.cnblogs.com/">闪存</a></li>
            </ul>
            <ul id="nav_right" class="navbar-list navbar-right">
                <li><a class="navbar-anonymous" href="https://account.cnblogs.com/signup">注册</a></li>
                <li><a class="navbar-anonymous" href="javascript:void(0);" onclick="account.login()">登录</a></li>
            </ul>
        </nav>
    </div>

<!--done-->
<div id="home">
<div id="header">
	<div id="blogTitle">
        <a id="lnkBlogLogo" href="https://www.cnblogs.com/RobinDevNotes/"><img id="blogLogo" src="/skins/custom/images/logo.gif" alt="返回主页" /></a>
<!--done-->
<h1><a id="Header1_HeaderTitle" class="headermaintitle HeaderMainTitle" href="https://www.cnblogs.com/RobinDevNotes/">RobinDevNotes</a>
</h1>
<h2>分布式训练、推理部署与游戏引擎笔记</h2>
	</div><!--end: blogTitle 博客的标题和副标题 -->
	<div id="navigator">
<ul id="navList">
<li><a id="blog_nav_sitehome" class="menu" href="https://www.cnblogs.com/">
博客园</a>
</li>
<li>
<a id="blog_nav_myhome" class="menu" href="https://www.cnblogs.com/RobinDevNotes/">
首页</a>
</li>
<li>
<a id="blog_nav_newpost" class="menu" href="https://i.cnblogs.com/EditPosts.aspx?opt=1">
新随笔</a>
</li>
<li>
<a id="blog_nav_contact" class="menu" href="https://msg.cnblogs.com/send/RobinDevNotes">
联系</a></li>
<li>
<a id="blog_nav_rss" class="menu" href="javascript:void(0)" data-rss="https://www.cnblogs.com/RobinDevNotes/rss/">
订阅</a>
<!--<partial name="./Shared/_XmlLink.cshtml" model="Model" /></li>--></li>
<li>
<a id="blog_nav_admin" class="menu" href="https://i.cnblogs.com/">
管理</a>
</li>
</ul>
		<div class="blogStats">
			<div id="blog_stats_place_holder"><script>loadBlogStats();</script></div>
		</div><!--end: blogStats -->
	</div><!--end: navigator 博客导航栏 -->
</div><!--end: header 头部 -->
<div id="main">
	<div id="mainContent">
	<div class="forFlow">
"""
CNBLOGS_FOOT = """
	</div><!--end: forFlow -->
	</div><!--end: mainContent 主体内容容器-->
	<div id="sideBar">
		<div id="sideBarMain">
			<div id="sidebar_news" class="newsItem">
            <script>loadBlogNews();</script>
</div>
<div id="sidebar_c3"></div>
			<div id="blog-calendar" style="display:none"></div><script>loadBlogDefaultCalendar();</script>
			<div id="leftcontentcontainer">
				<div id="blog-sidecolumn"></div>
                    <script>loadBlogSideColumn();</script>
			</div>
		</div><!--end: sideBarMain -->
	</div><!--end: sideBar 侧边栏容器 -->
	<div class="clear"></div>
	</div><!--end: main -->
	<div class="clear"></div>
	<div id="footer">
		<!--done-->
Copyright &copy; 2026 RobinDevNotes
<br /><span id="poweredby">Powered by .NET 9.0 on Kubernetes</span>
	</div><!--end: footer -->
</div><!--end: home 自定义的最大容器 -->
    <input type="hidden" id="antiforgery_token" value="CfDJ8ONv0caE5GtEh3YJ5j088kmV1JkQwXvb2JxXh9Xc4x_lpQ6mD2hH1dRf8wqNnrL3kZt0eYsWvBo7aGmC5uJzFpKq2rTiE9xVhN4sDlYwO8cRbAe6fU1gIj" />
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-M95P3TTWJZ"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag() { dataLayer.push(arguments); }
        gtag('js', new Date());
        gtag('config', 'G-M95P3TTWJZ');
    </script>
</body>
</html>
"""


def _cnblogs_post(post: Post, pinned: bool = False) -> str:
    base = f"{CNBLOGS_ORIGIN}/{CNBLOGS_APP}"
    url = f"{base}/p/{post.number}"
    mark = '\n        <span class="pinned-post-mark">[置顶]</span>' if pinned else ""
    # cnblogs cuts the summary at 150 characters, mid-sentence, with no ellipsis.
    summary = esc("摘要 " + post.summary[:146])
    return f"""
        <div class="postTitle" role="heading" aria-level="2">
            <a class="postTitle2 vertical-middle{" pinned-post" if pinned else ""}" href="{url}">
    <span>{mark}
        {esc(post.title)}
    </span>
    
</a>
        </div>
        <div class="postCon">

<div class="c_b_p_desc" id="postlist_description_{post.number}">
摘要：
{summary}        <a href="{url}" class="c_b_p_desc_readmore">阅读全文</a>
</div>
</div>
        <div class="clear"></div>
        <div class="postDesc">posted @ {post.published:%Y-%m-%d %H:%M}
{CNBLOGS_APP}
<span data-post-id="{post.number}" class="post-view-count">阅读({post.views})</span> 
<span data-post-id="{post.number}" class="post-comment-count">评论({post.comments})</span> 
<span data-post-id="{post.number}" class="post-digg-count">推荐({post.likes})</span> 
<a href="https://i.cnblogs.com/EditPosts.aspx?postid={post.number}" rel="nofollow">
    编辑
</a>
</div>
        <div class="clear"></div>"""


def _cnblogs_days(posts: list[tuple[Post, bool]]) -> str:
    """``div.day`` blocks: consecutive posts of the same date share one (pinned: its own)."""
    blocks: list[str] = []
    group: list[tuple[Post, bool]] = []

    def close() -> None:
        if not group:
            return
        first = group[0][0]
        day = first.published
        blocks.append(
            f"""		<div class="day" role="article" aria-describedby="postlist_description_{first.number}">
    <div class="dayTitle">
        <a href="{CNBLOGS_ORIGIN}/{CNBLOGS_APP}/archive/{day:%Y/%m/%d}">{day.year}年{day.month}月{day.day}日</a>
    </div>
{"".join(_cnblogs_post(p, pinned) for p, pinned in group)}
    </div>
"""
        )
        group.clear()

    for post, pinned in posts:
        if group and (
            pinned or group[0][1] or group[0][0].published.date() != post.published.date()
        ):
            close()
        group.append((post, pinned))
    close()
    return "".join(blocks)


def _cnblogs_pager(page: int, last: int, element_id: str) -> str:
    def link(n: int, text: str) -> str:
        return f'<a href="{_cnblogs_url(n)}">{text}</a>'

    parts = [f"共{last}页: "]
    if page > 1:
        parts.append(link(page - 1, "上一页") + " ")
    window = [n for n in (1, *range(page - 2, page + 3), last) if 1 <= n <= last]
    previous = 0
    for n in dict.fromkeys(window):
        if n > previous + 1:
            parts.append("··· ")
        parts.append(f'<span class="current">{n}</span> ' if n == page else link(n, str(n)) + " ")
        previous = n
    if page < last:
        parts.append(link(page + 1, "下一页"))
    return f'<div id="{element_id}" class="topicListFooter"><div class="pager">{"".join(parts)}</div></div>'


def _cnblogs_url(page: int) -> str:
    base = f"{CNBLOGS_ORIGIN}/{CNBLOGS_APP}/"
    return base if page == 1 else f"{base}default.html?page={page}"


CNBLOGS_BLOG_ID = 912345
# The post page between the blog's header and sidebar (a markdown post; its code blocks as
# highlight.js leaves them), from a real page of the SimpleMemory skin.
CNBLOGS_POST = """		<div id="post_detail">
    <!--done-->
    <div id="topics">
        <div class="post">
            <h1 class = "postTitle">
<a id="cb_post_title_url" class="postTitle2 vertical-middle" href="@@URL@@">
    <span role="heading" aria-level="2">@@TITLE@@</span>
</a>
            </h1>
            <div class="clear"></div>
            <div class="postBody">
<div id="cnblogs_post_body" class="blogpost-body cnblogs-markdown">
@@BODY@@
</div>
<div id="MySignature" role="contentinfo">
    <p>作者：RobinDevNotes，转载请注明出处。</p>
</div>
<div class="clear"></div>
<div id="blog_post_info_block" role="contentinfo">
    <div id="blog_post_info"></div>
    <div class="clear"></div>
    <div id="post_next_prev"></div>
</div>
            </div>
            <div class="postDesc">posted @ 
<span id="post-date" data-last-update-days="0.5" data-date-updated="@@UPDATED@@">@@DATE@@</span>&nbsp;
<a href="https://www.cnblogs.com/RobinDevNotes/">RobinDevNotes</a>&nbsp;
阅读(<span id="post_view_count">@@VIEWS@@</span>)&nbsp;
评论(<span id="post_comment_count">@@COMMENTS@@</span>)&nbsp;
<a href="https://www.cnblogs.com/RobinDevNotes/p/@@ID@@.md" target="_blank">MD</a>&nbsp;
<a href="https://i.cnblogs.com/EditPosts.aspx?postid=@@ID@@" rel="nofollow">编辑</a>&nbsp;
<a href="javascript:void(0)" onclick="AddToWz(@@ID@@);return false;">收藏</a>&nbsp;
<a href="javascript:void(0)" onclick="reportManager.report({ currentUserId: '', targetType: 'blogPost', targetId: '@@ID@@', targetLink: '@@URL@@', title: '' })">举报</a>
</div>
        </div>
    </div><!--end: topics 文章、评论容器-->
</div>
<script src="https://assets.cnblogs.com/scripts/highlight/11.9.0/highlight.min.js"></script>
<script>markdown_highlight();</script>
<script>
    var allowComments = true, cb_blogId = 912345, cb_blogApp = 'RobinDevNotes', cb_blogUserGuid = '5b1d3e2a-8c7f-4e6b-9a1d-2f3c4b5a6d7e';
    var cb_entryId = @@ID@@, cb_entryCreatedDate = '@@DATE@@', cb_postType = 1, cb_postTitle = '';
    updatePostStats([cb_entryId], function(id, count) { $("#post_view_count").text(count.viewCount) }, function(id, count) { $("#post_comment_count").text(count.feedbackCount) });
    zoomManager.apply("#cnblogs_post_body img:not(.code_img_closed):not(.code_img_opened)");
</script>
<a id="!comments"></a>
<div id="blog-comments-placeholder"></div>
<div id="comment_form" class="commentform">
    <a name="commentform"></a>
    <div id="divCommentShow"></div>
    <div id="comment_nav">
        <div class="comment-nav-right">
            <span id="span_refresh_tips"></span><a href="#" onclick="return RefreshPage();">刷新页面</a><a href="#top">返回顶部</a>
        </div>
    </div>
    <div id="comment_form_container"></div>
    <div class="ad_text_commentbox" id="ad_text_under_commentbox"></div>
    <div id="cnblogs_ch"></div>
    <div id="opt_under_post"></div>
    <div id="cnblogs_c1" class="under-post-card">
        <div id='div-gpt-ad-1592365906576-0' style='width: 300px; height: 250px;'></div>
    </div>
    <div id="under_post_card1"></div>
    <div id="under_post_card2"></div>
    <div id="HistoryToday" class="under-post-card"></div>
    <script type="text/javascript">
        var commentManager = new blogCommentManager();
        commentManager.renderComments(0);
        fixPostBody();
        window.footnoteTipManager.generateFootnoteTips();
        window.tocManager.displayDisableTocTips = false;
        window.tocManager.generateToc();
        setTimeout(function() { countViews(cb_blogId, cb_entryId); }, 50);
        deliverT2();
        deliverC1C2();
        loadNewsAndKb();
        LoadPostCategoriesTags(cb_blogId, cb_entryId);
        LoadPostInfoBlock(cb_blogId, cb_entryId, cb_blogApp, cb_blogUserGuid);
        GetPrevNextPost(cb_entryId, cb_blogId, cb_entryCreatedDate, cb_postType);
        loadOptUnderPost();
        GetHistoryToday(cb_blogId, cb_blogApp, cb_entryCreatedDate);
    </script>
</div>
"""


def _cnblogs_post_page(post: Post) -> str:
    """A post's own page: the blog's chrome around ``#cnblogs_post_body``."""
    url = f"{CNBLOGS_ORIGIN}/{CNBLOGS_APP}/p/{post.number}"
    updated = post.published + timedelta(hours=13, minutes=3)
    image = (
        f"https://img2024.cnblogs.com/blog/{CNBLOGS_BLOG_ID}/{post.published:%Y%m}/"
        f"{CNBLOGS_BLOG_ID}-{post.published:%Y%m%d%H%M}00{post.number % 1000:03d}-{post.number}.png"
    )
    head = (
        CNBLOGS_HEAD.replace("@@CANONICAL@@", url)
        .replace(
            "<title>RobinDevNotes - 博客园</title>",
            f"<title>{esc(post.title)} - RobinDevNotes - 博客园</title>",
        )
        .replace(
            'content="RobinDevNotes 的博客：分布式训练、推理部署与游戏引擎笔记"',
            f'content="{esc(post.summary[:120])}"',
        )
    )
    fields = {
        "@@URL@@": url,
        "@@TITLE@@": esc(post.title),
        "@@ID@@": str(post.number),
        "@@DATE@@": f"{post.published:%Y-%m-%d %H:%M}",
        "@@UPDATED@@": f"{updated:%Y-%m-%d %H:%M}",
        "@@VIEWS@@": str(post.views),
        "@@COMMENTS@@": str(post.comments),
    }
    middle = CNBLOGS_POST
    for key, value in fields.items():
        middle = middle.replace(key, value)
    before, after = middle.split("@@BODY@@")

    def render(content: PostContent) -> bytes:
        return (head + before + content.html + after + CNBLOGS_FOOT).encode()

    _, page = post_body(Writer(post.number), post.number, "hljs", "python", image, render)
    return page.decode()


def _cnblogs_categories_tags(post: Post) -> str:
    """What ``/<app>/ajax/CategoriesTags.aspx`` answers for a post: two small divs."""
    rng = random.Random(post.number)
    tags = "".join(
        f'<a href="https://www.cnblogs.com/RobinDevNotes/tag/{quote(tag)}/">{esc(tag)}</a>'
        for tag in rng.sample(TAGS, rng.randint(1, 3))
    )
    return (
        '<div id="BlogPostCategory">\n    分类: \n            <a href="https://www.cnblogs.com/'
        f'RobinDevNotes/category/{post.number % 97}.html" target="_blank">{esc(post.category)}</a>'
        f'</div>\n\n<div id="EntryTag">\n    标签: \n            {tags}</div>\n'
    )


def _cnblogs_post_routes(posts: list[Post]) -> dict[str, Route]:
    routes: dict[str, Route] = {}
    for post in posts:
        base = f"/{CNBLOGS_APP}"
        routes[f"{base}/p/{post.number}"] = Route(_cnblogs_post_page(post).encode(), HTML)
        ajax = f"{base}/ajax/CategoriesTags.aspx?blogId={CNBLOGS_BLOG_ID}&postId={post.number}"
        routes[ajax] = Route(_cnblogs_categories_tags(post).encode(), HTML)
    return routes


def cnblogs_site(pages: int, seed: int = 1, posts_pages: bool = False) -> Site:
    """A cnblogs blog: ``pages`` home pages of ten posts, plus a pinned post on page 1; with
    ``posts_pages``, every post's page and its category/tag endpoint too."""
    posts = make_posts(pages * POSTS_PER_PAGE, seed, datetime(2026, 9, 29, 20, 12), (6, 40))
    routes: dict[str, Route] = _cnblogs_post_routes(posts) if posts_pages else {}
    chunks = pages_of(posts)
    # The pinned post is a post of page 2 (page 1 if there is only one), shown first on page 1.
    pinned = (chunks[1] if len(chunks) > 1 else chunks[0])[0]
    for page, chunk in enumerate(chunks, start=1):
        entries = [(p, False) for p in chunk]
        if page == 1:
            entries.insert(0, (pinned, True))
        body = CNBLOGS_HEAD.replace("@@CANONICAL@@", _cnblogs_url(page))
        if page == 1:
            body += _cnblogs_days(entries)
            if pages > 1:
                body += (
                    '		<div class="topicListFooter"><div id="nav_next_page">'
                    f'<a href="{_cnblogs_url(2)}">下一页</a></div></div>\n'
                )
        else:
            body += "		" + _cnblogs_pager(page, pages, "homepage_top_pager") + "\n"
            body += _cnblogs_days(entries)
            body += "		" + _cnblogs_pager(page, pages, "homepage_bottom_pager") + "\n"
        body += CNBLOGS_FOOT
        path = _cnblogs_url(page).removeprefix(CNBLOGS_ORIGIN)
        routes[path] = Route(body=body.encode("utf-8"), content_type=HTML)
    return Site(start=f"/{CNBLOGS_APP}/", routes=routes, origin=CNBLOGS_ORIGIN)


# ---- Hux Blog -------------------------------------------------------------------------------

HUX_ORIGIN = "https://wuxian.github.io"
HUX_HEAD = """<!DOCTYPE html>
<html lang="en">

<head>
    <meta charset="utf-8">
    <meta http-equiv="X-UA-Compatible" content="IE=edge">
    <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
    <meta name="description" content="认真做事，用心写代码">
    <meta name="keywords"  content="无限可能的想象力, 强化学习, 分布式训练, PyTorch, 大模型推理">
    <meta name="theme-color" content="#000000">
    <meta property="og:title" content="无限可能的想象力">
    <meta property="og:type" content="website">
    <meta property="og:description" content="认真做事，用心写代码">
    <meta property="og:image" content="https://wuxian.github.io/img/avatar.jpg">
    <meta property="og:url" content="@@CANONICAL@@">
    <meta property="og:site_name" content="无限可能的想象力">
    <title>无限可能的想象力</title>
    <link rel="manifest" href="/pwa/manifest.json">
    <link rel="shortcut icon" href="/img/favicon.ico">
    <link rel="canonical" href="@@CANONICAL@@">
    <link rel="stylesheet" href="/css/bootstrap.min.css">
    <link rel="stylesheet" href="/css/hux-blog.min.css">
    <link href="//cdnjs.cloudflare.com/ajax/libs/font-awesome/4.6.3/css/font-awesome.min.css" rel="stylesheet" type="text/css">
    <!--[if lt IE 9]>
        <script src="https://oss.maxcdn.com/libs/html5shiv/3.7.0/html5shiv.js"></script>
        <script src="https://oss.maxcdn.com/libs/respond.js/1.4.2/respond.min.js"></script>
    <![endif]-->
    <script></script>
</head>

<!-- hack iOS CSS :active style -->
<body ontouchstart="">
    <nav class="navbar navbar-default navbar-custom navbar-fixed-top">
        <div class="container-fluid">
            <div class="navbar-header page-scroll">
                <button type="button" class="navbar-toggle">
                    <span class="sr-only">Toggle navigation</span>
                    <span class="icon-bar"></span>
                    <span class="icon-bar"></span>
                    <span class="icon-bar"></span>
                </button>
                <a class="navbar-brand" href="/">无限可能的想象力</a>
            </div>
            <div id="huxblog_navbar">
                <div class="navbar-collapse">
                    <ul class="nav navbar-nav navbar-right">
                        <li>
                            <a href="/">Home</a>
                        </li>
                        <li>
                            <a href="/about/">About</a>
                        </li>
                        <li>
                            <a href="/archive/">Archive</a>
                        </li>
                        <li class="search-icon">
                            <a href="javascript:void(0)">
                                <i class="fa fa-search"></i>
                            </a>
                        </li>
                    </ul>
                </div>
            </div>
        </div>
    </nav>
    <script>
        var $body = document.body;
        var $toggle = document.querySelector('.navbar-toggle');
        var $navbar = document.querySelector('#huxblog_navbar');
        var $collapse = document.querySelector('.navbar-collapse');
        var __HuxNav__ = {
            close: function () {
                $navbar.className = " ";
                setTimeout(function () {
                    if ($navbar.className.indexOf('in') < 0) {
                        $collapse.style.height = "0px"
                    }
                }, 400)
            },
            open: function () {
                $collapse.style.height = "auto"
                $navbar.className += " in";
            }
        }
        $toggle.addEventListener('click', function (e) {
            if ($navbar.className.indexOf('in') > 0) {
                __HuxNav__.close()
            } else {
                __HuxNav__.open()
            }
        })
    </script>
<div class="search-page">
  <div class="search-icon-close-container">
    <span class="search-icon-close">
      <i class="fa fa-chevron-down"></i>
    </span>
  </div>
  <div class="search-main container">
    <div class="row">
      <div class="col-lg-8 col-lg-offset-2 col-md-10 col-md-offset-1">
        <form></form>
        <input type="text" id="search-input" placeholder="$ grep...">
        </form>
        <div id="search-results" class="mini-post-list"></div>
      </div>
    </div>
  </div>
</div>
<header class="intro-header" style="background-image: url('/img/home-bg.jpg')">
  <div class="container">
    <div class="row">
      <div class="col-lg-8 col-lg-offset-2 col-md-10 col-md-offset-1">
        <div class="site-heading">
          <h1>无限可能的想象力</h1>
          <span class="subheading">认真做事，用心写代码</span>
        </div>
      </div>
    </div>
  </div>
</header>
<!-- Main Content -->
<div class="container">
	<div class="row">
<!-- NO SIDEBAR -->
    <!-- PostList Container -->
            <div class="col-lg-8 col-lg-offset-2 col-md-10 col-md-offset-1 postlist-container">
"""
HUX_FOOT = """
            </div>
    <!-- Sidebar Container -->
            <div class="
                col-lg-8 col-lg-offset-2
                col-md-10 col-md-offset-1
                sidebar-container">
<hr>
<h5>FRIENDS</h5>
<ul class="list-inline">
</ul>
            </div>
	</div>
</div>
<footer>
    <div class="container">
        <div class="row">
            <div class="col-lg-8 col-lg-offset-2 col-md-10 col-md-offset-1">
                <ul class="list-inline text-center">
                    <li>
                        <a href="/feed.xml">
                            <span class="fa-stack fa-lg">
                                <i class="fa fa-circle fa-stack-2x"></i>
                                <i class="fa fa-rss fa-stack-1x fa-inverse"></i>
                            </span>
                        </a>
                    </li>
                </ul>
                <p class="copyright text-muted">
                    Copyright &copy; 无限可能的想象力 2026
                    <br>
                    Powered by <a href="http://huangxuan.me">Hux Blog</a> |
                    <iframe
                        style="margin-left: 2px; margin-bottom:-5px;"
                        frameborder="0" scrolling="0" width="100px" height="20px"
                        src="https://ghbtns.com/github-btn.html?user=huxpro&repo=huxpro.github.io&type=star&count=true" >
                    </iframe>
                </p>
            </div>
        </div>
    </div>
</footer>
<script src="/js/jquery.min.js "></script>
<script src="/js/bootstrap.min.js "></script>
<script src="/js/hux-blog.min.js "></script>
<script>
    function async(u, c) {
      var d = document, t = 'script',
          o = d.createElement(t),
          s = d.getElementsByTagName(t)[0];
      o.src = u;
      if (c) { o.addEventListener('load', function (e) { c(null, e); }, false); }
      s.parentNode.insertBefore(o, s);
    }
</script>
<img src="/img/icon_wechat.png" width="0" height="0" />
</body>

</html>
"""


def _hux_post(post: Post) -> str:
    slug = f"/{post.published:%Y/%m/%d}/post-{post.number}/"
    subtitle = (
        f'\n        <h3 class="post-subtitle">\n            {esc(post.subtitle)}\n        </h3>\n'
        if post.subtitle
        else "\n        \n"
    )
    # The theme strips the post's HTML and cuts it at 200 characters with "...".
    preview = esc(post.summary[:100] + "\n\n" + post.summary[100:200]) + "..."
    return f"""
<div class="post-preview">
    <a href="{slug}">
        <h2 class="post-title">
            {esc(post.title)}
        </h2>{subtitle}        
        <div class="post-content-preview">
            
                {preview}
            
        </div>
    </a>
    <p class="post-meta">
        Posted by 无限可能的想象力 on {post.published:%B} {post.published.day}, {post.published.year}
    </p>
</div>
<hr>
"""


def _hux_pager(page: int, last: int) -> str:
    items = []
    if page > 1:
        newer = "/" if page == 2 else f"/page{page - 1}/"
        items.append(
            f'    <li class="previous">\n        <a href="{newer}">&larr; Newer Posts</a>\n    </li>'
        )
    if page < last:
        items.append(
            f'    <li class="next">\n        <a href="/page{page + 1}/">Older Posts &rarr;</a>\n    </li>'
        )
    return '\n<!-- Pager -->\n\n<ul class="pager">\n' + "\n".join(items) + "\n</ul>\n"


# A post page of Hux Blog (_layouts/post.html): the header with the tags, then the article;
# the body is rendered into div.post-container, with the pager and the comment box after it.
HUX_POST = """<!-- Post Header -->
<style type="text/css">
    header.intro-header{
        position: relative;
        background-image: url('/img/post-bg-infra.jpg');
        background: ;
    }
</style>
<header class="intro-header" >
    <div class="header-mask"></div>
    <div class="container">
        <div class="row">
            <div class="col-lg-8 col-lg-offset-2 col-md-10 col-md-offset-1">
                <div class="post-heading">
                    <div class="tags">
@@TAGS@@
                    </div>
                    <h1>@@TITLE@@</h1>
                    <h2 class="subheading">@@SUBTITLE@@</h2>
                    <span class="meta">Posted by 无限可能的想象力 on @@DATE@@</span>
                </div>
            </div>
        </div>
    </div>
</header>

<!-- Post Content -->
<article>
    <div class="container">
        <div class="row">

    <!-- Post Container -->
            <div class="
                col-lg-8 col-lg-offset-2
                col-md-10 col-md-offset-1
                post-container">

                <!-- Multi-Lingual -->
@@BODY@@

                <hr style="visibility: hidden;">
                <ul class="pager">
                    <li class="previous">
                        <a href="/2026/06/28/post-19690001/" data-toggle="tooltip" data-placement="top" title="上一篇">
                        Previous<br>
                        <span>上一篇</span>
                        </a>
                    </li>
                    <li class="next">
                        <a href="/2026/07/09/post-19710001/" data-toggle="tooltip" data-placement="top" title="下一篇">
                        Next<br>
                        <span>下一篇</span>
                        </a>
                    </li>
                </ul>
                <hr style="visibility: hidden;">

                <!-- disqus 评论框 start -->
                <div class="comment">
                    <div id="disqus_thread" class="disqus-thread"></div>
                </div>
                <!-- disqus 评论框 end -->
            </div>

    <!-- Side Catalog Container -->
            <div class="
                col-lg-2 col-lg-offset-0
                visible-lg-block
                sidebar-container
                catalog-container">
                <div class="side-catalog">
                    <hr class="hidden-sm hidden-xs">
                    <h5>
                        <a class="catalog-toggle" href="#">CATALOG</a>
                    </h5>
                    <ul class="catalog-body"></ul>
                </div>
            </div>

    <!-- Sidebar Container -->
            <div class="
                col-lg-8 col-lg-offset-2
                col-md-10 col-md-offset-1
                sidebar-container">
                <!-- Featured Tags -->
                <section>
                    <hr class="hidden-sm hidden-xs">
                    <h5><a href="/archive/">FEATURED TAGS</a></h5>
                    <div class="tags">
                        <a data-sort="0007" href="/archive/?tag=PyTorch" title="PyTorch" rel="7">PyTorch</a>
                        <a data-sort="0005" href="/archive/?tag=%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83" title="分布式训练" rel="5">分布式训练</a>
                        <a data-sort="0003" href="/archive/?tag=CUDA" title="CUDA" rel="3">CUDA</a>
                    </div>
                </section>
            </div>
        </div>
    </div>
</article>
"""


def _hux_post_page(post: Post) -> str:
    """A post's own page: ``header .post-heading .tags a.tag`` and ``div.post-container``."""
    path = f"/{post.published:%Y/%m/%d}/post-{post.number}/"
    chrome = HUX_HEAD[: HUX_HEAD.index('<header class="intro-header"')]
    head = (
        chrome.replace("@@CANONICAL@@", HUX_ORIGIN + path)
        .replace('content="website"', 'content="article"')
        .replace(
            "<title>无限可能的想象力</title>",
            f"<title>{esc(post.title)} - 无限可能的想象力</title>",
        )
    )
    foot = HUX_FOOT[HUX_FOOT.index("<footer>") :]
    date = f"{post.published:%B} {post.published.day}, {post.published.year}"
    image = f"/img/in-post/{post.published:%Y-%m}/{post.number}-arch.png"

    def render(content: PostContent) -> bytes:
        tags = "\n".join(
            f'                        <a class="tag" href="/archive/?tag={quote(tag)}" title="{esc(tag)}">{esc(tag)}</a>'
            for tag in content.tags
        )
        middle = (
            HUX_POST.replace("@@TAGS@@", tags)
            .replace("@@TITLE@@", esc(post.title))
            .replace("@@SUBTITLE@@", esc(post.subtitle))
            .replace("@@DATE@@", date)
            .replace("@@BODY@@", content.html)
        )
        return (head + middle + foot).encode()

    _, page = post_body(Writer(post.number), post.number, "rouge", "python", image, render)
    return page.decode()


def hux_site(pages: int, seed: int = 2, posts_pages: bool = False) -> Site:
    """A Hux Blog index: ``/`` then ``/page2/`` … (linked directly, no redirects); with
    ``posts_pages``, every post's page too."""
    posts = make_posts(pages * POSTS_PER_PAGE, seed, datetime(2026, 7, 5, 10, 0), (20, 90))
    routes: dict[str, Route] = {}
    if posts_pages:
        for post in posts:
            path = f"/{post.published:%Y/%m/%d}/post-{post.number}/"
            routes[path] = Route(_hux_post_page(post).encode(), HTML)
    for page, chunk in enumerate(pages_of(posts), start=1):
        path = "/" if page == 1 else f"/page{page}/"
        body = (
            HUX_HEAD.replace("@@CANONICAL@@", HUX_ORIGIN + path)
            + "".join(map(_hux_post, chunk))
            + _hux_pager(page, pages)
            + HUX_FOOT
        )
        routes[path] = Route(body=body.encode("utf-8"), content_type=HTML)
    return Site(start="/", routes=routes, origin=HUX_ORIGIN)


# ---- cards ----------------------------------------------------------------------------------

CARDS_ORIGIN = "https://aiinfra.example.cn"
CARDS_HEAD = """<!DOCTYPE html>
<html lang="zh-CN">
<head>
  <meta charset="utf-8">
  <meta http-equiv="X-UA-Compatible" content="IE=edge">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>热门文章 - 第@@PAGE@@页 - AI Infra 技术笔记</title>
  <meta name="description" content="AI 基础设施、分布式训练与推理部署的工程实践笔记。按浏览量排序的热门文章。">
  <meta name="keywords" content="AI Infra,分布式训练,推理部署,GPU,eBPF">
  <link rel="canonical" href="@@CANONICAL@@">
@@LINKS@@  <link rel="icon" href="/favicon.ico">
  <link rel="alternate" type="application/rss+xml" title="AI Infra 技术笔记" href="https://aiinfra.example.cn/rss.xml">
  <link rel="stylesheet" href="/static/css/main.css?v=3.2.1">
</head>
<body class="page-hot">
  <header class="site-header">
    <div class="container">
      <a class="site-logo" href="https://aiinfra.example.cn/">AI Infra 技术笔记</a>
      <nav class="site-nav">
        <a href="/">首页</a>
        <a class="active" href="/hot">热门</a>
        <a href="/categories">分类</a>
        <a href="/archives">归档</a>
        <a href="/about">关于</a>
      </nav>
      <form class="site-search" action="/search" method="get">
        <input type="search" name="q" placeholder="搜索文章" aria-label="搜索文章">
      </form>
    </div>
  </header>

  <div class="container layout">
    <section class="content">
      <div class="page-heading">
        <h1>热门文章</h1>
        <p class="page-desc">按浏览量排序</p>
      </div>
      <main class="post-list">
"""
CARDS_FOOT = """      </main>
    </section>

    <aside class="sidebar">
      <div class="widget widget-categories">
        <h3 class="widget-title">分类</h3>
        <ul>
          <li><a href="/category/分布式系统">分布式系统</a></li>
          <li><a href="/category/推理部署">推理部署</a></li>
          <li><a href="/category/工程实践">工程实践</a></li>
          <li><a href="/category/编译原理">编译原理</a></li>
          <li><a href="/category/实时计算">实时计算</a></li>
          <li><a href="/category/算法与数据结构">算法与数据结构</a></li>
          <li><a href="/category/eBPF入门">eBPF入门</a></li>
        </ul>
      </div>
    </aside>
  </div>

  <footer class="site-footer">
    <div class="container">
      <p>&copy; 2026 AI Infra 技术笔记 · <a href="https://aiinfra.example.cn/rss.xml">RSS</a> · <a href="/sitemap.xml">站点地图</a></p>
      <p><a href="https://beian.miit.gov.cn/" target="_blank" rel="noopener noreferrer">京ICP备00000000号-1</a></p>
    </div>
  </footer>
  <script src="/static/js/main.js?v=3.2.1" defer></script>
</body>
</html>
"""


def _cards_count(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _cards_post(post: Post) -> str:
    return f"""        <article class="post-card">
          <h2 class="post-title"><a href="/posts/{post.number}">{esc(post.title)}</a></h2>
          <p class="post-summary">{esc(post.summary)}</p>
          <div class="post-meta">
            <a class="post-category" href="/category/{post.category}">{post.category}</a>
            <time class="post-date">{post.published.year}年{post.published:%m}月{post.published:%d}日</time>
            <span class="post-stat">{post.likes} 点赞</span>
            <span class="post-stat">{post.comments} 评论</span>
            <span class="post-stat">{_cards_count(post.views)} 浏览</span>
          </div>
        </article>
"""


def _cards_url(page: int) -> str:
    return "/hot" if page == 1 else f"/hot?page={page}"


# A plain post page: article > .post-content, tags as .post-tags links, comments after it.
CARDS_POST = """      <article class="post">
        <header class="post-header">
          <h1 class="post-title">@@TITLE@@</h1>
          <div class="post-meta">
            <a class="post-category" href="/category/@@CATEGORY@@">@@CATEGORY@@</a>
            <time class="post-date" datetime="@@ISO@@">@@DATE@@</time>
            <span class="post-stat">@@LIKES@@ 点赞</span>
            <span class="post-stat">@@COMMENTS@@ 评论</span>
            <span class="post-stat">@@VIEWS@@ 浏览</span>
          </div>
        </header>
        <div class="post-content">
@@BODY@@
        </div>
        <footer class="post-footer">
          <div class="post-tags">
@@TAGS@@
          </div>
          <div class="post-copyright">本文采用 CC BY-NC-SA 4.0 许可协议，转载请注明出处。</div>
          <nav class="post-nav">
            <a class="prev" href="/posts/@@PREV@@">上一篇</a>
            <a class="next" href="/posts/@@NEXT@@">下一篇</a>
          </nav>
        </footer>
      </article>
      <section class="comments" id="comments">
        <h3>评论</h3>
        <div id="comment-list" data-post="@@ID@@"></div>
        <form class="comment-form" action="/comments" method="post">
          <textarea name="body" placeholder="写下你的评论"></textarea>
          <button type="submit">发表</button>
        </form>
      </section>
"""


def _cards_post_page(post: Post) -> str:
    """A post's own page: the site's chrome around ``article.post``."""
    chrome = CARDS_HEAD[: CARDS_HEAD.index('      <div class="page-heading">')]
    head = (
        chrome.replace("@@CANONICAL@@", f"{CARDS_ORIGIN}/posts/{post.number}")
        .replace("@@LINKS@@", "")
        .replace(
            "热门文章 - 第@@PAGE@@页 - AI Infra 技术笔记", f"{esc(post.title)} - AI Infra 技术笔记"
        )
        .replace('class="page-hot"', 'class="page-post"')
    )
    foot = CARDS_FOOT[CARDS_FOOT.index("    </section>") :]
    fields = {
        "@@TITLE@@": esc(post.title),
        "@@CATEGORY@@": post.category,
        "@@ISO@@": f"{post.published:%Y-%m-%dT%H:%M:%S}+08:00",
        "@@DATE@@": f"{post.published.year}年{post.published:%m}月{post.published:%d}日",
        "@@LIKES@@": str(post.likes),
        "@@COMMENTS@@": str(post.comments),
        "@@VIEWS@@": _cards_count(post.views),
        "@@ID@@": str(post.number),
        "@@PREV@@": str(post.number - 1),
        "@@NEXT@@": str(post.number + 1),
    }
    middle = CARDS_POST
    for key, value in fields.items():
        middle = middle.replace(key, value)
    image = f"{CARDS_ORIGIN}/static/uploads/{post.published:%Y/%m}/{post.number}.png"

    def render(content: PostContent) -> bytes:
        tags = "\n".join(
            f'            <a href="/tag/{quote(tag)}" rel="tag">{esc(tag)}</a>'
            for tag in content.tags
        )
        page = middle.replace("@@BODY@@", content.html).replace("@@TAGS@@", tags)
        return (head + page + foot).encode()

    _, page = post_body(Writer(post.number), post.number, "plain", "python", image, render)
    return page.decode()


def cards_site(pages: int, seed: int = 3, posts_pages: bool = False) -> Site:
    """A card-list "hot" blog: ``/hot`` then ``/hot?page=N``; with ``posts_pages``, every
    post's page (``/posts/N``) too."""
    posts = make_posts(pages * POSTS_PER_PAGE, seed, datetime(2026, 10, 4, 9, 0), (4, 30))
    routes: dict[str, Route] = {}
    if posts_pages:
        for post in posts:
            routes[f"/posts/{post.number}"] = Route(_cards_post_page(post).encode(), HTML)
    for page, chunk in enumerate(pages_of(posts), start=1):
        links = ""
        if page > 1:
            links += f'  <link rel="prev" href="{CARDS_ORIGIN}{_cards_url(page - 1)}">\n'
        if page < pages:
            links += f'  <link rel="next" href="{CARDS_ORIGIN}{_cards_url(page + 1)}">\n'
        nav = ['        <nav class="pagination">']
        if page > 1:
            nav.append(f'          <a class="prev" href="{_cards_url(page - 1)}">上一页</a>')
        for n in range(max(1, page - 2), min(pages, page + 2) + 1):
            nav.append(
                f'          <span class="current">{n}</span>'
                if n == page
                else f'          <a class="page-number" href="{_cards_url(n)}">{n}</a>'
            )
        if page < pages:
            nav.append(f'          <a class="next" href="{_cards_url(page + 1)}">下一页</a>')
        nav.append("        </nav>\n")
        body = (
            CARDS_HEAD.replace("@@PAGE@@", str(page))
            .replace("@@CANONICAL@@", CARDS_ORIGIN + _cards_url(page))
            .replace("@@LINKS@@", links)
            + "".join(map(_cards_post, chunk))
            + "\n".join(nav)
            + CARDS_FOOT
        )
        routes[_cards_url(page)] = Route(body=body.encode("utf-8"), content_type=HTML)
    return Site(start="/hot", routes=routes, origin=CARDS_ORIGIN)


# ---- RSS 2.0 feed ---------------------------------------------------------------------------

FEED_ORIGIN = "https://david.example.cn"


def _rss_item(post: Post) -> str:
    url = _feed_url(post)
    paragraphs = f"<p>{esc(post.summary[:120])}</p>\n<p>{esc(post.summary[120:])}</p>"
    when = post.published.replace(tzinfo=UTC)
    return f"""    <item>
      <title>{esc(post.title)}</title>
      <link>{url}</link>
      <pubDate>{format_datetime(when, usegmt=True)}</pubDate>
      <author>david@example.cn ({post.author})</author>
      <guid>{url}</guid>
      <category>{post.category}</category>
      <description>{esc(paragraphs)}</description>
    </item>
"""


def _rss(items: list[Post], self_path: str, next_path: str | None) -> bytes:
    links = (
        f'    <atom:link href="{FEED_ORIGIN}{self_path}" rel="self" type="application/rss+xml" />\n'
    )
    if next_path:
        links += f'    <atom:link href="{FEED_ORIGIN}{next_path}" rel="next" type="application/rss+xml" />\n'
    newest = items[0].published.replace(tzinfo=UTC) if items else datetime(2026, 9, 7, tzinfo=UTC)
    return (
        f"""<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>David 的技术思考</title>
    <link>{FEED_ORIGIN}/</link>
    <description>Recent content on David 的技术思考</description>
    <generator>Hugo</generator>
    <language>zh-cn</language>
    <lastBuildDate>{format_datetime(newest, usegmt=True)}</lastBuildDate>
{links}{"".join(map(_rss_item, items))}  </channel>
</rss>
"""
    ).encode()


# The feed's post pages: Hugo with the PaperMod theme (baseof.html, single.html): metadata
# with article:modified_time and a JSON-LD BlogPosting that repeats the whole text
# (articleBody), article.post-single > div.post-content, tags in footer ul.post-tags.
PAPERMOD_HEAD = """<!DOCTYPE html>
<html lang="zh" dir="auto">

<head><meta charset="utf-8">
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1, shrink-to-fit=no">
<meta name="robots" content="index, follow">
<title>@@TITLE@@ | David 的技术思考</title>
<meta name="keywords" content="@@KEYWORDS@@">
<meta name="description" content="@@DESCRIPTION@@">
<meta name="author" content="David">
<link rel="canonical" href="@@URL@@">
<link crossorigin="anonymous" href="/assets/css/stylesheet.fc220c15db4aef0318bbf30adc45d33d4d7c88deff3238b23eb255afdc472ca6.css" integrity="sha256-/CIMFdtK7wMYu/MK3EXTPU18iN7/MjiyPrJVr9xHLKY=" rel="preload stylesheet" as="style">
<link rel="icon" href="https://david.example.cn/favicon.ico">
<link rel="icon" type="image/png" sizes="16x16" href="https://david.example.cn/favicon-16x16.png">
<link rel="icon" type="image/png" sizes="32x32" href="https://david.example.cn/favicon-32x32.png">
<link rel="apple-touch-icon" href="https://david.example.cn/apple-touch-icon.png">
<link rel="mask-icon" href="https://david.example.cn/safari-pinned-tab.svg">
<meta name="theme-color" content="#2e2e33">
<meta name="msapplication-TileColor" content="#2e2e33">
<link rel="alternate" hreflang="zh" href="@@URL@@">
<noscript>
    <style>
        #theme-toggle,
        .top-link {
            display: none;
        }

    </style>
</noscript><meta property="og:url" content="@@URL@@">
  <meta property="og:site_name" content="David 的技术思考">
  <meta property="og:title" content="@@TITLE@@">
  <meta property="og:description" content="@@DESCRIPTION@@">
  <meta property="og:locale" content="zh-cn">
  <meta property="og:type" content="article">
    <meta property="article:section" content="posts">
    <meta property="article:published_time" content="@@PUBLISHED@@">
    <meta property="article:modified_time" content="@@MODIFIED@@">
@@META_TAGS@@
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="@@TITLE@@">
<meta name="twitter:description" content="@@DESCRIPTION@@">
<script type="application/ld+json">
{
  "@context": "https://schema.org",
  "@type": "BreadcrumbList",
  "itemListElement": [
    {
      "@type": "ListItem",
      "position":  1 ,
      "name": "Posts",
      "item": "https://david.example.cn/posts/"
    }, 
    {
      "@type": "ListItem",
      "position":  2 ,
      "name": @@TITLE_JSON@@,
      "item": "@@URL@@"
    }
  ]
}
</script>
<script type="application/ld+json">
@@JSON_LD@@
</script>
</head>

<body class="" id="top">
<script>
    if (localStorage.getItem("pref-theme") === "dark") {
        document.body.classList.add('dark');
    } else if (localStorage.getItem("pref-theme") === "light") {
        document.body.classList.remove('dark')
    } else if (window.matchMedia('(prefers-color-scheme: dark)').matches) {
        document.body.classList.add('dark');
    }

</script>

<header class="header">
    <nav class="nav">
        <div class="logo">
            <a href="https://david.example.cn/" accesskey="h" title="David 的技术思考 (Alt + H)">David 的技术思考</a>
            <div class="logo-switches">
                <button id="theme-toggle" accesskey="t" title="(Alt + T)" aria-label="Toggle theme">
                    <svg id="moon" xmlns="http://www.w3.org/2000/svg" width="24" height="18" viewBox="0 0 24 24"
                        fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"
                        stroke-linejoin="round">
                        <path d="M21 12.79A9 9 0 1 1 11.21 3 7 7 0 0 0 21 12.79z"></path>
                    </svg>
                </button>
            </div>
        </div>
        <ul id="menu">
            <li>
                <a href="https://david.example.cn/archives/" title="归档">
                    <span>归档</span>
                </a>
            </li>
            <li>
                <a href="https://david.example.cn/tags/" title="标签">
                    <span>标签</span>
                </a>
            </li>
            <li>
                <a href="https://david.example.cn/search/" title="搜索 (Alt &#43; /)" accesskey=/>
                    <span>搜索</span>
                </a>
            </li>
        </ul>
    </nav>
</header>
<main class="main">

<article class="post-single">
  <header class="post-header">
    <div class="breadcrumbs"><a href="https://david.example.cn/">主页</a>&nbsp;»&nbsp;<a href="https://david.example.cn/posts/">Posts</a></div>
    <h1 class="post-title entry-hint-parent">
      @@TITLE@@
    </h1>
    <div class="post-meta"><span title='@@META_DATE@@'>@@DATE@@</span>&nbsp;·&nbsp;@@MINUTES@@ 分钟&nbsp;·&nbsp;David

</div>
  </header> <div class="toc">
    <details >
        <summary accesskey="c" title="(Alt + C)">
            <span class="details">目录</span>
        </summary>

        <div class="inner"><ul>
@@TOC@@
                </ul>
        </div>
    </details>
</div>

  <div class="post-content">"""
PAPERMOD_FOOT = """</div>

  <footer class="post-footer">
    <ul class="post-tags">
@@TAGS@@
    </ul>
<nav class="paginav">
  <a class="prev" href="https://david.example.cn/posts/@@PREV@@/">
    <span class="title">« 上一页</span>
    <br>
    <span>上一篇</span>
  </a>
  <a class="next" href="https://david.example.cn/posts/@@NEXT@@/">
    <span class="title">下一页 »</span>
    <br>
    <span>下一篇</span>
  </a>
</nav>

  </footer>
</article>
    </main>
    
<footer class="footer">
        <span>&copy; 2026 <a href="https://david.example.cn/">David 的技术思考</a></span> · 

    <span>
        Powered by
        <a href="https://gohugo.io/" rel="noopener noreferrer" target="_blank">Hugo</a> &
        <a href="https://github.com/adityatelange/hugo-PaperMod/" rel="noopener" target="_blank">PaperMod</a>
    </span>
</footer>
<a href="#top" aria-label="go to top" title="Go to Top (Alt + G)" class="top-link" id="top-link" accesskey="g">
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 12 6" fill="currentColor">
        <path d="M12 6H0l6-6z" />
    </svg>
</a>

<script>
    let menu = document.getElementById('menu')
    if (menu) {
        menu.scrollLeft = localStorage.getItem("menu-scroll-position");
        menu.onscroll = function () {
            localStorage.setItem("menu-scroll-position", menu.scrollLeft);
        }
    }

    document.querySelectorAll('a[href^="#"]').forEach(anchor => {
        anchor.addEventListener("click", function (e) {
            e.preventDefault();
            var id = this.getAttribute("href").substr(1);
            if (!window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
                document.querySelector(`[id='${decodeURIComponent(id)}']`).scrollIntoView({
                    behavior: "smooth"
                });
            } else {
                document.querySelector(`[id='${decodeURIComponent(id)}']`).scrollIntoView();
            }
            if (id === "top") {
                history.replaceState(null, null, " ");
            } else {
                history.pushState(null, null, `#${id}`);
            }
        });
    });

</script>
<script>
    document.querySelectorAll('pre > code').forEach((codeblock) => {
        const container = codeblock.parentNode.parentNode;

        const copybutton = document.createElement('button');
        copybutton.classList.add('copy-code');
        copybutton.innerHTML = '复制';

        function copyingDone() {
            copybutton.innerHTML = '已复制！';
            setTimeout(() => {
                copybutton.innerHTML = '复制';
            }, 2000);
        }

        copybutton.addEventListener('click', (cb) => {
            if ('clipboard' in navigator) {
                navigator.clipboard.writeText(codeblock.textContent);
                copyingDone();
                return;
            }
        });

        if (container.classList.contains("highlight")) {
            container.appendChild(copybutton);
        } else {
            codeblock.parentNode.appendChild(copybutton);
        }
    });
</script>
</body>

</html>
"""


def _feed_url(post: Post) -> str:
    return f"{FEED_ORIGIN}/posts/{post.published:%Y%m%d}-{post.number}/"


def _feed_post_page(post: Post) -> str:
    """A feed item's page: Hugo PaperMod, ``div.post-content`` with chroma code blocks."""
    url = _feed_url(post)
    published = post.published.replace(tzinfo=UTC)
    modified = published + timedelta(days=1, hours=6, minutes=30)
    image = f"{FEED_ORIGIN}/images/{post.number}/overview.png"

    def render(content: PostContent) -> bytes:
        ld = {
            "@context": "https://schema.org",
            "@type": "BlogPosting",
            "headline": post.title,
            "name": post.title,
            "description": post.summary[:120],
            "keywords": content.tags,
            "articleBody": content.text,
            "wordCount": str(len(content.text)),
            "inLanguage": "zh",
            "datePublished": published.isoformat(),
            "dateModified": modified.isoformat(),
            "author": [{"@type": "Person", "name": "David"}],
            "mainEntityOfPage": {"@type": "WebPage", "@id": url},
            "publisher": {
                "@type": "Organization",
                "name": "David 的技术思考",
                "logo": {"@type": "ImageObject", "url": f"{FEED_ORIGIN}/favicon.ico"},
            },
        }
        toc = "\n".join(
            f'                    <li>\n                        <a href="#{anchor}" aria-label="{esc(text)}">'
            f"{esc(text)}</a>\n                    </li>"
            for anchor, text in content.headings
        )
        fields = {
            "@@TITLE_JSON@@": json.dumps(post.title, ensure_ascii=False),
            "@@JSON_LD@@": json.dumps(ld, ensure_ascii=False, indent=2).replace("<", "\\u003c"),
            "@@TITLE@@": esc(post.title),
            "@@KEYWORDS@@": esc(", ".join(content.tags)),
            "@@DESCRIPTION@@": esc(post.summary[:120]),
            "@@URL@@": url,
            "@@PUBLISHED@@": published.isoformat(),
            "@@MODIFIED@@": modified.isoformat(),
            "@@META_TAGS@@": "\n".join(
                f'    <meta property="article:tag" content="{esc(tag)}">' for tag in content.tags
            ),
            "@@META_DATE@@": f"{published:%Y-%m-%d %H:%M:%S} +0000 UTC",
            "@@DATE@@": f"{published:%Y-%m-%d}",
            "@@MINUTES@@": str(len(content.text) // 400 + 1),
            "@@TOC@@": toc,
        }
        head = PAPERMOD_HEAD
        for key, value in fields.items():
            head = head.replace(key, value)
        tags = "\n".join(
            f'      <li><a href="{FEED_ORIGIN}/tags/{quote(tag.lower())}/">{esc(tag)}</a></li>'
            for tag in content.tags
        )
        foot = (
            PAPERMOD_FOOT.replace("@@TAGS@@", tags)
            .replace("@@PREV@@", str(post.number - 1))
            .replace("@@NEXT@@", str(post.number + 1))
        )
        return (head + content.html + foot).encode()

    _, page = post_body(Writer(post.number), post.number, "chroma", "go", image, render)
    return page.decode()


def feed_site(pages: int, seed: int = 4, mode: str = "paged", posts_pages: bool = False) -> Site:
    """An RSS 2.0 feed of ``pages × 10`` items: paged (RFC 5005) or one document; with
    ``posts_pages``, every item's page too (the items carry summaries, not the post)."""
    posts = make_posts(pages * POSTS_PER_PAGE, seed, datetime(2026, 9, 7, 4, 0), (8, 60))
    routes: dict[str, Route] = {}
    if posts_pages:
        for post in posts:
            path = _feed_url(post).removeprefix(FEED_ORIGIN)
            routes[path] = Route(_feed_post_page(post).encode(), HTML)
    if mode == "single":
        routes["/index.xml"] = Route(body=_rss(posts, "/index.xml", None), content_type=RSS)
    elif mode == "paged":
        for page, chunk in enumerate(pages_of(posts), start=1):
            path = "/index.xml" if page == 1 else f"/index.xml?page={page}"
            nxt = f"/index.xml?page={page + 1}" if page < pages else None
            routes[path] = Route(body=_rss(chunk, path, nxt), content_type=RSS)
    else:
        raise ValueError(f"feed mode must be 'paged' or 'single', not {mode!r}")
    return Site(start="/index.xml", routes=routes, origin=FEED_ORIGIN)


# ---- entry points ---------------------------------------------------------------------------

BUILDERS: dict[str, Callable[..., Site]] = {
    "cnblogs": cnblogs_site,
    "hux": hux_site,
    "cards": cards_site,
    "feed": feed_site,
}
# A path of a post page, and of a further page a post needs (cnblogs' category/tag endpoint).
_POST_PATH = re.compile(r"/p/\d+$|^/\d{4}/\d{2}/\d{2}/post-\d+/$|^/posts/[\d-]+/?$")
_EXTRA_PATH = re.compile(r"/ajax/CategoriesTags\.aspx\?")


def build_site(
    layout: str, pages: int = 300, feed_mode: str = "paged", posts: bool = False
) -> Site:
    """The synthetic site of ``layout`` with ``pages`` list pages (feed documents); with
    ``posts``, every post's own page (about 20 KB) at the URL its list entry links."""
    if pages < 1:
        raise ValueError("pages must be at least 1")
    if layout == "feed":
        return feed_site(pages, mode=feed_mode, posts_pages=posts)
    return BUILDERS[layout](pages, posts_pages=posts)


def page_kind(path: str) -> str:
    """What a path of a synthetic site is: ``"list"``, ``"post"`` or ``"extra"``."""
    path = path.split("#", 1)[0]
    if _EXTRA_PATH.search(path):
        return "extra"
    return "post" if _POST_PATH.search(path.split("?", 1)[0]) else "list"


def list_pages(site: Site) -> int:
    """Number of list pages (documents) the site serves."""
    return sum(
        1
        for path, route in site.routes.items()
        if route.redirect is None and page_kind(path) == "list"
    )


def post_pages(site: Site) -> int:
    """Number of post pages the site serves."""
    return sum(1 for path in site.routes if page_kind(path) == "post")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", choices=LAYOUTS, default="cnblogs")
    parser.add_argument("--pages", type=int, default=300, help="list pages (default 300)")
    parser.add_argument("--feed-mode", choices=("paged", "single"), default="paged")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: free)")
    parser.add_argument("--write", type=Path, help="save the pages under this folder and exit")
    parser.add_argument(
        "--posts",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="serve every post's own page too (default: list pages only)",
    )
    args = parser.parse_args(argv)
    site = build_site(args.layout, args.pages, args.feed_mode, args.posts)
    size = sum(len(r.body) for r in site.routes.values())
    print(
        f"{args.layout}: {list_pages(site)} list pages, {post_pages(site)} post pages,"
        f" {size / 1e6:.1f} MB",
        file=sys.stderr,
    )
    if args.write:
        for number, (path, route) in enumerate(sorted(site.routes.items())):
            name = args.write / f"{number:05d}{'.xml' if 'xml' in route.content_type else '.html'}"
            name.parent.mkdir(parents=True, exist_ok=True)
            name.write_bytes(route.body)
            print(f"{name}\t{path}")
        return
    server = SiteServer(site, port=args.port).start()
    print(server.url(), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
