# ruff: noqa: E501 -- code snippets and markup kept as the platforms print them
"""Synthetic post bodies for the benchmark's post pages: Chinese prose, headings, a list, a
link, an image and 2–4 code blocks, highlighted as each platform's highlighter renders them.

:func:`post_body` builds the body's HTML block by block until the whole page (the caller's
``render``) reaches a target size, so every post page is about the same size whatever its
chrome. The code is highlighted by a small tokenizer into the span classes of highlight.js
(cnblogs, after its ``markdown_highlight()``), rouge (Jekyll: Hux Blog) and chroma (Hugo:
PaperMod); ``plain`` leaves it to a client-side highlighter (the cards blog).
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class Writer(Protocol):
    """What the body needs of ``synthetic.Writer``: its random source, titles and text."""

    rng: random.Random

    def title(self) -> str: ...

    def text(self, chars: int) -> str: ...


PYTHON_SNIPPETS = (
    """import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def setup(rank: int, world_size: int) -> None:
    # NCCL 后端：每个进程绑定一张 GPU
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)


def train(model, loader, epochs=3):
    model = FSDP(model, device_id=torch.cuda.current_device())
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if step % 100 == 0 and dist.get_rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")""",
    '''class KVCache:
    """按层缓存注意力的 key/value，推理时逐 token 追加。"""

    def __init__(self, layers, heads, dim, max_len=4096):
        self.k = [torch.empty(max_len, heads, dim) for _ in range(layers)]
        self.v = [torch.empty(max_len, heads, dim) for _ in range(layers)]
        self.length = 0

    def append(self, layer, k, v):
        n = k.shape[0]
        self.k[layer][self.length : self.length + n] = k
        self.v[layer][self.length : self.length + n] = v
        return self.k[layer][: self.length + n], self.v[layer][: self.length + n]''',
    """import time
from contextlib import contextmanager


@contextmanager
def timer(name, stats):
    start = time.perf_counter()
    try:
        yield
    finally:
        stats.setdefault(name, []).append(time.perf_counter() - start)


stats = {}
for _ in range(10):
    with timer("allreduce", stats):
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
print({k: sum(v) / len(v) for k, v in stats.items()})""",
    """def checkpointed_forward(blocks, hidden, chunks=4):
    # 梯度检查点：只保存每段的输入，反向时重算
    from torch.utils.checkpoint import checkpoint

    size = max(1, len(blocks) // chunks)
    for i in range(0, len(blocks), size):
        segment = blocks[i : i + size]
        hidden = checkpoint(lambda h: run(segment, h), hidden, use_reentrant=False)
    return hidden


def run(segment, hidden):
    for block in segment:
        hidden = block(hidden)
    return hidden""",
    """import asyncio
import aiohttp

URLS = [f"http://127.0.0.1:8000/v1/completions?id={i}" for i in range(64)]


async def fetch(session, url):
    async with session.get(url, timeout=10) as response:
        return response.status, await response.text()


async def main():
    async with aiohttp.ClientSession() as session:
        results = await asyncio.gather(*(fetch(session, u) for u in URLS))
    ok = sum(1 for status, _ in results if status == 200)
    print(f"{ok}/{len(URLS)} requests succeeded")


asyncio.run(main())""",
    """from dataclasses import dataclass


@dataclass
class Expert:
    index: int
    capacity: int = 128


def route(tokens, gate, experts, top_k=2):
    # MoE 路由：每个 token 选 top_k 个专家，超出容量的丢弃
    scores = gate(tokens).softmax(dim=-1)
    weights, chosen = scores.topk(top_k, dim=-1)
    load = [0] * len(experts)
    for token, picks in enumerate(chosen.tolist()):
        for expert in picks:
            if load[expert] < experts[expert].capacity:
                load[expert] += 1
    return weights, chosen, load""",
)

GO_SNIPPETS = (
    """package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// worker 从 jobs 读任务，结果写入 results
func worker(ctx context.Context, id int, jobs <-chan int, results chan<- string, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case job, ok := <-jobs:
			if !ok {
				return
			}
			time.Sleep(10 * time.Millisecond)
			results <- fmt.Sprintf("worker %d finished job %d", id, job)
		}
	}
}""",
    """type Cache struct {
	mu    sync.RWMutex
	items map[string][]byte
	limit int
}

func NewCache(limit int) *Cache {
	return &Cache{items: make(map[string][]byte), limit: limit}
}

func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	value, ok := c.items[key]
	return value, ok
}

func (c *Cache) Set(key string, value []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.items) >= c.limit {
		return fmt.Errorf("cache full: %d items", c.limit)
	}
	c.items[key] = value
	return nil
}""",
    """func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	jobs := make(chan int, 100)
	results := make(chan string, 100)
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ {
		wg.Add(1)
		go worker(ctx, i, jobs, results, &wg)
	}
	for j := 0; j < 64; j++ {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	close(results)
	fmt.Println("done:", len(results))
}""",
    """// 令牌桶限流：每秒补充 rate 个令牌
type Limiter struct {
	rate     float64
	capacity float64
	tokens   float64
	last     time.Time
}

func (l *Limiter) Allow(now time.Time) bool {
	elapsed := now.Sub(l.last).Seconds()
	l.tokens = math.Min(l.capacity, l.tokens+elapsed*l.rate)
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}""",
)

_TOKEN = re.compile(
    r"(?P<comment>#[^\n]*|//[^\n]*)|(?P<doc>\"\"\"[^\"]*\"\"\")"
    r"|(?P<string>f?\"[^\"\n]*\"|'[^'\n]*'|`[^`]*`)|(?P<number>\b\d+(?:\.\d+)?(?:e-?\d+)?\b)"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<op>[-+*/%=<>!&|^~@:]+)|(?P<punct>[()\[\]{},.;])"
    r"|(?P<space>\s+)|(?P<other>.)",
    re.DOTALL,
)
_KEYWORDS = {
    "python": {
        "def",
        "class",
        "return",
        "if",
        "else",
        "elif",
        "for",
        "in",
        "while",
        "with",
        "try",
        "except",
        "finally",
        "raise",
        "yield",
        "async",
        "await",
        "lambda",
        "not",
        "and",
        "or",
        "is",
        "pass",
        "break",
        "continue",
        "import",
        "from",
        "as",
    },
    "go": {
        "package",
        "import",
        "func",
        "return",
        "if",
        "else",
        "for",
        "range",
        "var",
        "const",
        "type",
        "struct",
        "interface",
        "map",
        "chan",
        "go",
        "defer",
        "select",
        "case",
        "switch",
        "default",
        "break",
        "continue",
    },
}
_CONSTANTS = {"None", "True", "False", "nil", "true", "false"}
_BUILTINS = {
    "print",
    "len",
    "range",
    "int",
    "str",
    "float",
    "list",
    "dict",
    "set",
    "sum",
    "max",
    "min",
    "enumerate",
    "super",
    "make",
    "close",
    "string",
    "error",
    "bool",
    "byte",
    "float64",
    "int64",
}

# Token kind -> span class, per highlighter ("" leaves the token unwrapped).
_HLJS = {
    "keyword": "hljs-keyword",
    "constant": "hljs-literal",
    "builtin": "hljs-built_in",
    "string": "hljs-string",
    "doc": "hljs-string",
    "comment": "hljs-comment",
    "number": "hljs-number",
    "function": "hljs-title function_",
    "class": "hljs-title class_",
}
_ROUGE = {
    "keyword": "k",
    "namespace": "kn",
    "constant": "kc",
    "builtin": "nb",
    "string": "s2",
    "doc": "sh",
    "comment": "c1",
    "number": "mi",
    "function": "nf",
    "class": "nc",
    "name": "n",
    "op": "o",
    "punct": "p",
}
_CHROMA = {
    "keyword": "k",
    "namespace": "kn",
    "declaration": "kd",
    "constant": "kc",
    "builtin": "kt",
    "string": "s",
    "comment": "c1",
    "number": "mi",
    "function": "nx",
    "name": "nx",
    "op": "o",
    "punct": "p",
}


def tokens(code: str, language: str) -> list[tuple[str, str]]:
    """(kind, text) pairs of ``code``: a highlighter's view, good enough for markup."""
    keywords = _KEYWORDS[language]
    found: list[tuple[str, str]] = []
    after_def = ""
    for match in _TOKEN.finditer(code):
        kind, text = match.lastgroup or "other", match.group()
        if kind == "name":
            if after_def:
                kind, after_def = after_def, ""
            elif text in ("import", "from", "package"):
                kind = "namespace"
            elif language == "go" and text in ("func", "var", "const", "type"):
                kind, after_def = "declaration", "function" if text == "func" else ""
            elif text in keywords:
                kind = "keyword"
                after_def = {"def": "function", "class": "class"}.get(text, "")
            elif text in _CONSTANTS:
                kind = "constant"
            elif text in _BUILTINS:
                kind = "builtin"
        elif kind == "punct" and text == "(" and after_def == "function":
            after_def = ""  # a Go method's receiver comes before its name
        found.append((kind, text))
    return found


def _spans(pairs: list[tuple[str, str]], classes: dict[str, str]) -> str:
    out = []
    for kind, text in pairs:
        name = classes.get(kind, "")
        out.append(
            f'<span class="{name}">{html.escape(text, quote=False)}</span>'
            if name
            else html.escape(text, quote=False)
        )
    return "".join(out)


def hljs_block(code: str, language: str) -> str:
    """cnblogs' markdown code block after highlight.js ran (as a saved page shows it)."""
    return f'<pre><code class="language-{language} hljs">{_spans(tokens(code, language), _HLJS)}</code></pre>'


def rouge_block(code: str, language: str) -> str:
    """Jekyll's kramdown + rouge code block (Hux Blog)."""
    body = _spans(tokens(code, language), _ROUGE)
    return (
        f'<div class="language-{language} highlighter-rouge"><div class="highlight">'
        f'<pre class="highlight"><code>{body}\n</code></pre></div></div>'
    )


def chroma_block(code: str, language: str) -> str:
    """Hugo's chroma code block with CSS classes, one ``span.line`` a line (PaperMod)."""
    lines = []
    for line in code.split("\n"):
        lines.append(
            f'<span class="line"><span class="cl">{_spans(tokens(line, language), _CHROMA)}\n'
            "</span></span>"
        )
    return (
        f'<div class="highlight"><pre tabindex="0" class="chroma"><code class="language-{language}"'
        f' data-lang="{language}">{"".join(lines)}</code></pre></div>'
    )


def plain_block(code: str, language: str) -> str:
    """A code block left to a client-side highlighter (Prism): escaped text only."""
    return f'<pre><code class="language-{language}">{html.escape(code, quote=False)}</code></pre>'


HIGHLIGHTERS: dict[str, Callable[[str, str], str]] = {
    "hljs": hljs_block,
    "rouge": rouge_block,
    "chroma": chroma_block,
    "plain": plain_block,
}
TERMS = ("world_size", "max_len", "top_k", "GOMAXPROCS", "chunk_size", "num_workers")
TAGS = (
    "PyTorch",
    "分布式训练",
    "CUDA",
    "Go",
    "Kubernetes",
    "性能优化",
    "大模型",
    "推理",
    "Rust",
    "eBPF",
    "NCCL",
    "调度",
    "存储",
    "网络",
)


@dataclass
class PostContent:
    """A post page's body HTML, its plain text, and the tags the page shows."""

    html: str
    text: str
    tags: list[str]
    headings: list[tuple[str, str]]  # (id, text), for a table of contents


def _inline(writer: Writer, text: str) -> str:
    """A paragraph's text with a term in ``<code>`` and one in ``<strong>`` now and then."""
    escaped = html.escape(text, quote=False)
    if writer.rng.random() < 0.5:
        escaped += f" 关键参数是 <code>{writer.rng.choice(TERMS)}</code>。"
    if writer.rng.random() < 0.3:
        escaped = f"<strong>{html.escape(writer.rng.choice(TAGS))}</strong>：" + escaped
    return escaped


def post_body(
    writer: Writer,
    number: int,
    highlighter: str,
    language: str,
    image: str,
    render: Callable[[PostContent], bytes],
    target: int = 20_000,
) -> tuple[PostContent, bytes]:
    """The body of post ``number`` (text from ``writer``, seeded by the post) and its page,
    ``render(content)``: sections are added until the page is at least ``target`` bytes and
    every code block is placed."""
    rng = writer.rng
    snippets = PYTHON_SNIPPETS if language == "python" else GO_SNIPPETS
    block = HIGHLIGHTERS[highlighter]
    codes = [block(code, language) for code in rng.sample(snippets, rng.randint(2, 4))]
    tags = rng.sample(TAGS, rng.randint(2, 4))
    # Highlighted code is large (rouge and chroma wrap every token): keep at least 2 blocks,
    # and drop the largest while the code alone leaves less than 4 KB of the page to prose.
    chrome = len(render(PostContent("", "", tags, [])))
    while len(codes) > 2 and chrome + sum(len(c.encode()) for c in codes) + 4_000 > target:
        codes.remove(max(codes, key=len))
    parts = [
        f"<p>{_inline(writer, writer.text(rng.randint(120, 220)))}</p>",
        f'<p><img src="{image}" alt="{html.escape(rng.choice(TAGS))} 架构图" loading="lazy"></p>',
    ]
    texts = [parts[0]]
    headings: list[tuple[str, str]] = []
    section = 0
    page = b""
    while True:
        content = PostContent("\n".join(parts), _plain("\n".join(texts)), tags, headings)
        page = render(content)
        if section and len(page) >= target and not codes:
            return content, page
        section += 1
        heading = f"{section}. {writer.title()}"
        anchor = f"section-{section}"
        headings.append((anchor, heading))
        new = [
            f'<h2 id="{anchor}">{html.escape(heading, quote=False)}</h2>',
            f"<p>{_inline(writer, writer.text(rng.randint(150, 320)))}</p>",
        ]
        if section == 1:
            new.append(
                f'<p>完整代码见 <a href="https://github.com/robindevnotes/infra-notes/tree/main/'
                f'{number}">GitHub 仓库</a>，{html.escape(writer.text(60), quote=False)}</p>'
            )
        if section == 2:
            items = "".join(
                f"<li>{html.escape(writer.text(30), quote=False)}</li>"
                for _ in range(rng.randint(3, 5))
            )
            new.append(f"<ul>{items}</ul>")
        if codes:
            new.append(codes.pop())
        new.append(f"<p>{_inline(writer, writer.text(rng.randint(100, 260)))}</p>")
        parts += new
        texts += [p for p in new if not p.startswith(("<pre", "<div"))]


_TAG = re.compile(r"<[^>]+>")


def _plain(markup: str) -> str:
    return html.unescape(_TAG.sub("", markup))
