"""The whole post: a post body's HTML as Markdown, with its word count.

:func:`body_markdown` takes the body element a layout found on a post page (or the HTML of a
feed's ``content``), removes what is not the post (the theme's boxes, scripts, line-number
gutters, hidden copies), gives every code block one plain ``<pre><code class="language-…">``
and hands the rest to html-to-markdown, a maintained converter (Rust core): the Markdown is
its output. :func:`main_text` is the fallback for a page no layout knows: the body selectors
of every layout, then trafilatura's main-text extraction.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import html_to_markdown
from lxml import etree, html
from parsel import Selector
from parsel.csstranslator import css2xpath

from crawler.parsing.xpath import string_value

# Never part of a post, whatever the theme: code, forms, hidden copies, code tool bars,
# line-number gutters (hexo/NexT td.gutter, rouge td.gutter/.lineno, Prism
# .line-numbers-rows; Chroma's are taken out with the code blocks), heading anchors with no
# text of their own (NexT a.headerlink).
COMMON_CHROME: tuple[str, ...] = (
    "script",
    "style",
    "noscript",
    "template",
    "textarea",
    "button",
    "form",
    "input",
    "select",
    "svg",
    "iframe",
    "object",
    "embed",
    "canvas",
    "[hidden]",
    "[style*='display:none']",
    "[style*='display: none']",
    "td.gutter",
    ".gutter",
    ".lineno",
    ".rouge-gutter",
    ".line-numbers-rows",
    "a.headerlink",
    ".copy-btn",
    ".copy-button",
    ".code-copy",
    ".highlight-tools",
)

# Containers a highlighter puts around one code block: replaced by the block itself.
_CODE_WRAPPERS = {"table", "tbody", "tr", "td", "figure", "div"}
_LANGUAGE = re.compile(
    r"(?:^|\s)(?:(?:language|lang|highlight-source)[-:]|brush:\s*)([A-Za-z0-9_+#.-]+)"
)
# highlight.js before 10 marks a block "hljs python" (Hexo Fluid).
_HLJS = re.compile(r"(?:^|\s)hljs\s+([A-Za-z0-9_+#-]+)")
# figure class="highlight python" (hexo), div class="highlight-python" (Sphinx).
_HIGHLIGHT = re.compile(r"(?:^|\s)highlight[\s-]+([A-Za-z0-9_+#.-]+)")
_NOT_LANGUAGES = {"highlight", "highlighter-rouge", "code", "none", "nohighlight", "hljs"}
# Lazy-loading themes keep the image in data-src and a placeholder in src.
_LAZY_SOURCES = ("data-src", "data-original", "data-lazy-src", "data-actualsrc")

# CJK ideographs, kana and hangul count one a character; other scripts count words.
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

# Every choice given as the library's enum member: a name would be looked up on every call.
_OPTIONS = html_to_markdown.ConversionOptions(
    extract_metadata=False,
    heading_style=html_to_markdown.HeadingStyle.ATX,
    list_indent_type=html_to_markdown.ListIndentType.SPACES,
    bullets="-",
    code_block_style=html_to_markdown.CodeBlockStyle.BACKTICKS,
    highlight_style=html_to_markdown.HighlightStyle.DOUBLE_EQUAL,
    whitespace_mode=html_to_markdown.WhitespaceMode.NORMALIZED,
    newline_style=html_to_markdown.NewlineStyle.SPACES,
    inline_data_media=html_to_markdown.InlineDataMedia.KEEP,
    hidden_content=html_to_markdown.HiddenContent.DROP,
    url_escape_style=html_to_markdown.UrlEscapeStyle.ANGLE,
    link_style=html_to_markdown.LinkStyle.INLINE,
    output_format=html_to_markdown.OutputFormat.MARKDOWN,
    tier_strategy=html_to_markdown.TierStrategy.AUTO,
    autolinks=False,
)


@dataclass(frozen=True, slots=True)
class PostBody:
    """A post body as Markdown, and its word count (code blocks not counted)."""

    markdown: str
    word_count: int


# A compound selector without combinators: tag, #id, .classes, [attribute], [a='v'], [a*='v'].
_COMPOUND = re.compile(
    r"^(?P<tag>[A-Za-z][\w-]*|\*)?(?P<id>#[\w-]+)?(?P<classes>(?:\.[\w-]+)*)"
    r"(?P<attributes>(?:\[[\w-]+(?:\*?=(?:'[^']*'|\"[^\"]*\"|[\w-]+))?\])*)$"
)
_ATTRIBUTE = re.compile(r"\[([\w-]+)(?:(\*?=)(?:'([^']*)'|\"([^\"]*)\"|([\w-]+)))?\]")


@dataclass(frozen=True, slots=True)
class _Compound:
    """One compound selector: every part given must match."""

    tag: str | None
    id: str | None
    classes: frozenset[str]
    attributes: tuple[tuple[str, str | None, str], ...]

    def matches(self, element: etree._Element, classes: set[str]) -> bool:
        if self.tag and element.tag != self.tag:
            return False
        if self.id and element.get("id") != self.id:
            return False
        if not self.classes <= classes:
            return False
        for name, operator, value in self.attributes:
            actual = element.get(name)
            if actual is None:
                return False
            if (operator == "=" and actual != value) or (operator == "*=" and value not in actual):
                return False
        return True


class ChromeMatcher:
    """Finds the elements any of a set of CSS selectors matches, in one walk of the tree.

    libxml2 evaluates an XPath union (what cssselect makes of a selector list) once per
    branch, and a long predicate slowly on every element: on a post body full of highlighted
    code that is several milliseconds. Compound selectors (most of a theme's chrome) are
    indexed by tag, class and id and tested in Python; selectors with combinators go through
    ``css2xpath`` as usual."""

    def __init__(self, selectors: Sequence[str]) -> None:
        self.by_tag: dict[str, list[_Compound]] = {}
        self.by_class: dict[str, list[_Compound]] = {}
        self.by_id: dict[str, list[_Compound]] = {}
        self.others: list[_Compound] = []  # attribute-only selectors: tried on every element
        paths = []
        for selector in selectors:
            compound = _compound(selector)
            if compound is None:
                paths.append(selector if selector.startswith(("/", "(")) else css2xpath(selector))
            elif compound.id:
                self.by_id.setdefault(compound.id, []).append(compound)
            elif compound.classes:
                self.by_class.setdefault(min(compound.classes), []).append(compound)
            elif compound.tag:
                self.by_tag.setdefault(compound.tag, []).append(compound)
            else:
                self.others.append(compound)
        self.xpath = etree.XPath(" | ".join(paths)) if paths else None

    def find(self, root: etree._Element) -> list[etree._Element]:
        """The matching elements under ``root`` (not ``root`` itself), in document order."""
        found = []
        for element in root.iterdescendants():
            tag = element.tag
            if not isinstance(tag, str):
                continue
            names = element.get("class")
            classes = set(names.split()) if names else set()
            candidates = [*self.by_tag.get(tag, ()), *self.others]
            for name in classes:
                candidates += self.by_class.get(name, ())
            element_id = element.get("id")
            if element_id is not None:
                candidates += self.by_id.get(str(element_id), ())
            if any(c.matches(element, classes) for c in candidates):
                found.append(element)
        if self.xpath is not None:
            matched = self.xpath(root)
            if isinstance(matched, list):
                found += [e for e in matched if isinstance(e, etree._Element) and e is not root]
        return found


def _compound(selector: str) -> _Compound | None:
    match = _COMPOUND.match(selector.strip())
    if match is None or not selector.strip():
        return None
    tag = match["tag"] if match["tag"] not in (None, "*") else None
    # findall gives "" for the groups that did not take part: at most one value is given.
    attributes = tuple(
        (name, operator or None, "".join(values))
        for name, operator, *values in _ATTRIBUTE.findall(match["attributes"])
    )
    return _Compound(
        tag,
        match["id"][1:] if match["id"] else None,
        frozenset(c for c in match["classes"].split(".") if c),
        attributes,
    )


@cache
def chrome_matcher(selectors: tuple[str, ...]) -> ChromeMatcher:
    """The matcher of a layout's chrome selectors with :data:`COMMON_CHROME`, made once."""
    return ChromeMatcher((*COMMON_CHROME, *selectors))


def _remove(element: etree._Element) -> None:
    """Take ``element`` out of the tree, keeping the text that follows it."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _classes(element: etree._Element) -> str:
    return " ".join(str(element.get(name, "")) for name in ("class", "data-lang", "lang"))


def code_language(pre: etree._Element) -> str | None:
    """The language the page marks a code block with: on the ``pre``, its ``code``, or the
    highlighter's wrappers around it (``figure.highlight go``, ``div.language-python``)."""
    candidates = [pre, *pre.iterchildren("code"), *_wrappers(pre)]
    for element in candidates:
        classes = _classes(element)
        if element.get("data-lang"):
            return str(element.get("data-lang")).strip().lower() or None
        for pattern in (_LANGUAGE, _HIGHLIGHT, _HLJS):
            for match in pattern.finditer(classes):
                language = match.group(1).lower()
                if language not in _NOT_LANGUAGES:
                    return language
    return None


def _code_text(pre: etree._Element) -> str:
    """The code of a ``pre`` as its lines: ``<br>`` is a line break (hexo ends lines so);
    line numbers inside it (rouge's table in the ``pre``, Prism's rows) are left out."""
    for gutter in [e for e in pre.iterdescendants() if _is_gutter_element(e)]:
        _remove(gutter)
    for br in pre.iter("br"):
        br.tail = "\n" + (br.tail or "")
    return "".join(str(text) for text in pre.itertext()).strip("\n")


# Chroma's line numbers (Hugo): span.lnt in a table column of their own, span.ln in a line.
_CHROMA_NUMBERS = {"ln", "lnt"}


def _is_gutter_element(element: etree._Element) -> bool:
    """Line numbers beside code: hexo td.gutter, rouge td.rouge-gutter / pre.lineno, Prism
    span.line-numbers-rows, Chroma span.lnt / span.ln."""
    names = str(element.get("class", ""))
    return (
        "gutter" in names
        or "lineno" in names
        or "line-numbers-rows" in names
        or not _CHROMA_NUMBERS.isdisjoint(names.split())
    )


def _wrappers(pre: etree._Element) -> list[etree._Element]:
    """The highlighter's elements around a ``pre``, inner first: up to its ``figure`` (Hexo:
    ``figure.highlight > table > tr > td > div.code-wrapper > pre``), at most six."""
    found: list[etree._Element] = []
    for ancestor in pre.iterancestors():
        if ancestor.tag not in _CODE_WRAPPERS or len(found) == 6:
            break
        found.append(ancestor)
        if ancestor.tag == "figure":
            break
    return found


def _is_gutter(pre: etree._Element) -> bool:
    """A ``pre`` of line numbers beside the code (in a gutter cell, or Chroma's: nothing but
    its numbers)."""
    for element in (pre, *_wrappers(pre)):
        if _is_gutter_element(element):
            return True
        if element.tag == "td":  # the cell holding this pre: beyond it, the code's own
            break
    numbers = [e for e in pre.iterdescendants() if _is_gutter_element(e)]
    if not numbers:
        return False
    counted = sum(len(string_value(e)) for e in numbers)
    return len(string_value(pre).strip()) <= counted


def _code_container(pre: etree._Element, body: etree._Element) -> etree._Element:
    """The outermost highlighter wrapper holding only this code block (or the ``pre``)."""
    container = pre
    for ancestor in pre.iterancestors():
        if ancestor is body or ancestor.tag not in _CODE_WRAPPERS:
            break
        if ancestor.tag in ("figure", "div") and not re.search(
            r"highlight|code|language-|syntax", _classes(ancestor)
        ):
            break
        if sum(1 for p in ancestor.iter("pre") if not _is_gutter(p)) != 1:
            break
        container = ancestor
    return container


def _plain_code_blocks(body: etree._Element) -> None:
    """Each code block as ``<pre><code class="language-X">code</code></pre>``, without the
    highlighter's markup (thousands of spans the later steps need not walk) or gutter."""
    for pre in list(body.iter("pre")):
        if _is_gutter(pre) or any(a.tag == "pre" for a in pre.iterancestors()):
            continue
        language = code_language(pre)
        container = _code_container(pre, body)
        block = etree.Element("pre")
        code = etree.SubElement(block, "code")
        if language:
            code.set("class", f"language-{language}")
        code.text = _code_text(pre)
        block.tail = container.tail
        parent = container.getparent()
        if container is body or parent is None:  # the body itself is the code block
            body.clear()
            body.append(block)
        else:
            parent.replace(container, block)


# A heading's link to itself (``<h2 id="x"><a href="#x">Title</a></h2>``: VuePress, Hugo
# Stack, many themes): its text stays, the link goes; one holding only a mark goes whole.
_HEADING_ANCHORS = etree.XPath(
    ".//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
    "//a[starts-with(@href, '#')]"
)
_ANCHOR_MARKS = {"", "#", "¶", "§", "🔗"}


def _heading_anchors(body: etree._Element) -> None:
    found = _HEADING_ANCHORS(body)
    for anchor in [a for a in found if isinstance(a, etree._Element)]:  # type: ignore[union-attr]
        parent = anchor.getparent()
        if parent is None:
            continue
        if "".join(str(text) for text in anchor.itertext()).strip() not in _ANCHOR_MARKS:
            previous = anchor.getprevious()
            if previous is not None:
                previous.tail = (previous.tail or "") + (anchor.text or "")
            else:
                parent.text = (parent.text or "") + (anchor.text or "")
            for child in list(anchor):  # each before the anchor: their order is kept
                parent.insert(parent.index(anchor), child)
        _remove(anchor)


def _lazy_images(body: etree._Element) -> None:
    for image in body.iter("img"):
        for attribute in _LAZY_SOURCES:
            source = image.get(attribute)
            if source:
                image.set("src", source)
                break


def word_count(texts: Iterable[str]) -> int:
    """CJK characters plus words of other scripts."""
    rest, cjk = _CJK.subn(" ", " ".join(texts))
    return cjk + len(_WORD.findall(rest))


# Rules a body starts or ends with once its chrome is gone: the theme's separators around
# the boxes (a post does not open or close on a rule).
_EDGE_RULES = re.compile(r"\A(?:(?:---|\*\*\*|___)\s*\n\s*)+|(?:\n\s*(?:---|\*\*\*|___))+\s*\Z")
_TEXTS_OUTSIDE_CODE = etree.XPath(".//text()[not(ancestor::pre)]")
# lxml.html (parsel's parser) looks up a Python element class for every element a walk
# touches; a plain etree parser does not, which halves the cost of the steps below.
_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True)


def _plain_copy(root: etree._Element) -> etree._Element:
    """A copy of ``root`` in a tree of plain lxml elements, to change freely."""
    markup = etree.tostring(root, encoding="unicode", method="html", with_tail=False)
    document = etree.fromstring(f"<html><body>{markup}</body></html>", _PARSER)
    return document[0][0] if len(document) and len(document[0]) else document


def body_markdown(
    body: Selector | etree._Element, base_url: str, chrome: Sequence[str] = ()
) -> PostBody:
    """The post body ``body`` as Markdown without ``chrome`` (CSS selectors of the theme's
    boxes inside it) or :data:`COMMON_CHROME`; links and images absolute against
    ``base_url``. The page's own tree is not changed."""
    root = body.root if isinstance(body, Selector) else body
    if not isinstance(root, etree._Element):  # a text node or attribute selected
        return PostBody("", 0)
    element = _plain_copy(root)
    _plain_code_blocks(element)
    for found in chrome_matcher(tuple(chrome)).find(element):
        _remove(found)
    _heading_anchors(element)
    _lazy_images(element)
    texts = [str(text) for text in _TEXTS_OUTSIDE_CODE(element)]  # type: ignore[union-attr]
    markup = etree.tostring(element, encoding="unicode", method="html")
    options = dataclasses.replace(_OPTIONS, base_url=base_url)
    markdown = html_to_markdown.convert(markup, options).content or ""
    return PostBody(_EDGE_RULES.sub("", markdown.strip()), word_count(texts))


def html_markdown(markup: str, base_url: str, chrome: Sequence[str] = ()) -> PostBody:
    """An HTML fragment (a feed's ``content:encoded`` or Atom ``content``) as Markdown."""
    if not markup.strip():
        return PostBody("", 0)
    fragment = html.fragment_fromstring(markup, create_parent="div")
    return body_markdown(fragment, base_url, chrome)


def main_text(
    page: Selector, base_url: str, selectors: Sequence[str]
) -> tuple[PostBody | None, str | None]:
    """The post of a page its layout cannot read, and how it was found: the first of
    ``selectors`` (every layout's post body) that holds text (``"selector"``), else
    trafilatura's main text (``"trafilatura"``); ``(None, None)`` if neither finds one."""
    for selector in selectors:
        found = page.css(selector)[:1]
        if found and found.xpath("normalize-space()").get():
            return body_markdown(found[0], base_url), "selector"
    # Imported here: trafilatura loads its extractors and language data (a second of start-up)
    # and a crawl of known layouts never needs it.
    import trafilatura

    extracted = trafilatura.extract(
        page.get(),
        url=base_url,
        output_format="html",
        include_links=True,
        include_images=True,
        include_tables=True,
        include_formatting=True,
        favor_recall=True,
    )
    if not extracted:
        return None, None
    return html_markdown(extracted, base_url), "trafilatura"
