"""Layout of RSS 2.0 and Atom feeds: each item or entry of a feed is one post."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from contextlib import suppress
from functools import lru_cache

from lxml import etree
from parsel import Selector
from scrapy.http import Response, TextResponse

from crawler.layouts.base import Layout
from crawler.parsing.loaders import PostLoader
from crawler.parsing.markdown import html_markdown
from crawler.parsing.processors import html_to_text
from crawler.parsing.xpath import node_elements, string_value

# Namespaces are removed first, so dc:creator is "creator", content:encoded "encoded".
# RSS 0.9x/1.0 items sit under rss or rdf:RDF directly; an HTML page matches nothing.
_NODES = "/rss/channel/item | /rss/item | /RDF/item | /feed/entry"
# RFC 5005 paged feeds: Atom's link rel="next" (also as atom:link inside an RSS channel).
_NEXT = "/feed/link[@rel='next']/@href | /rss/channel/link[@rel='next']/@href"
# RSS <author> is "email (Name)" by the spec (Hugo prints it so): the name is the author.
_EMAIL_NAME = re.compile(r"^\S+@\S+\s*\((.+)\)$")


@lru_cache(maxsize=8)  # the hooks each need it: parse a page once
def feed_document(response: Response) -> Selector:
    """The response parsed as XML with namespaces removed: the one XML parsing of feeds.

    A fresh selector, so ``response.selector`` stays untouched; also for feeds served as
    ``text/html`` or ``octet-stream`` (decoded by their XML declaration). parsel's XML parser
    never resolves external entities.
    """
    if not isinstance(response, TextResponse):
        response = TextResponse(url=response.url, body=response.body, headers=response.headers)
    feed = Selector(text=response.text, type="xml")
    feed.remove_namespaces()
    # A prefix the template forgot to declare stays in the name ("dc:creator"): drop it too.
    # What the parser's recovery made of stray markup ("<:", "<a:1>") is no name to keep.
    for element in feed.xpath("//*[contains(name(), ':')]"):
        with suppress(ValueError):
            element.root.tag = element.root.tag.rpartition(":")[2]
    return feed


def _first(node: Selector, *paths: str) -> etree._Element | None:
    """The first non-blank element found by ``paths``, tried in order of preference."""
    for path in paths:
        found = node_elements(node, f"{path}[normalize-space()]")
        if found:
            return found[0]
    return None


def _element(node: Selector, path: str) -> etree._Element | None:
    """The first element ``path`` finds (blank or not), None without one."""
    found = node_elements(node, path)
    return found[0] if found else None


def _text(element: etree._Element | None) -> str | None:
    """All the text in an element (XPath ``string()``); None without an element."""
    return None if element is None else string_value(element)


def _add_text(
    loader: PostLoader,
    field: str,
    element: etree._Element | None,
    default_type: str = "text",
    base_url: str = "",
) -> None:
    """Add an RSS element or Atom text construct; HTML (escaped, CDATA, xhtml) becomes text.

    Atom says by ``type`` whether it holds text or markup (default text); RSS descriptions
    hold HTML, RSS titles text (their entities are still unescaped by the loader).
    """
    if element is None:
        return
    if element.get("type", default_type) in ("text", "text/plain"):
        loader.add_value(field, _text(element))
        return
    if len(element):  # inline markup (Atom xhtml): serialised as it stands
        markup = "".join(Selector(root=element, type="xml").xpath("node()").getall())
    else:  # escaped HTML or CDATA: one text node
        markup = element.text or ""
    if field == "summary":
        loader.add_html_summary(markup)
    elif field == "content":
        body = html_markdown(_unescaped(markup), base_url)
        loader.add_value("content", body.markdown)
        loader.add_value("word_count", body.word_count)
    else:
        loader.add_value(field, html_to_text(markup))


def _joined(response: TextResponse, link: str | None) -> str:
    """A post's absolute URL (the base of its content's links), or the feed's own URL."""
    try:
        return response.urljoin(link.strip()) if link else response.url
    except ValueError:
        return response.url


def _unescaped(markup: str) -> str:
    """HTML that is still entity-escaped (read as text twice, as Hugo's RSS) unescaped once."""
    return html.unescape(markup) if "<" not in markup and "&lt;" in markup else markup


class FeedLayout(Layout):
    """Reads RSS 2.0 ``channel/item`` and Atom ``entry`` elements.

    Markup checked against Hugo's built-in RSS template (gohugoio/hugo,
    tpl/tplimpl/embedded/templates/rss.xml: entity-escaped HTML descriptions), jekyll-feed's
    Atom (jekyll/jekyll-feed, lib/jekyll-feed/feed.xml) and Halo's CDATA RSS
    (halo-dev/plugin-feed, RssXmlBuilder.java: dc:creator, category).
    """

    name = "feed"
    signature = ("/rss/channel/item", "/feed/entry", "/RDF/item")

    @classmethod
    def post_nodes(cls, response: TextResponse) -> Iterable[Selector]:
        return feed_document(response).xpath(_NODES)

    @classmethod
    def populate(cls, loader: PostLoader, node: Selector, response: TextResponse) -> None:
        if node.root.tag == "entry":
            link = node.xpath("link[@rel='alternate' or not(@rel)]/@href").get()
            loader.add_value("url", link)
            _add_text(loader, "title", _element(node, "title"))
            _add_text(loader, "summary", _first(node, "summary", "content"))
            # An entry's content is the whole post (a feed of excerpts gives only summary).
            # Links in it are relative to the post, not to the feed.
            _add_text(loader, "content", _first(node, "content"), base_url=_joined(response, link))
            # `updated` is the last edit, not the publication; but Atom requires only
            # `updated`, so it is the feed's one date when `published` is absent.
            loader.add_value("published_raw", _text(_first(node, "published", "updated")))
            if _first(node, "published") is not None:
                loader.add_value("updated_raw", _text(_first(node, "updated")))
            # RFC 4287: without its own author an entry has its source's or feed's.
            loader.add_xpath("author", "author/name/text() | source/author/name/text()")
            loader.add_xpath("author", "/feed/author/name/text()")
            # Hexo's and Hugo's feeds tell categories from tags by the term's scheme URL.
            loader.add_xpath("category", "category[contains(@scheme, '/categories/')]/@term")
            loader.add_xpath("tags", "category[not(contains(@scheme, '/categories/'))]/@term")
            return
        # RSS: a missing <link> falls back to a permalink <guid> (isPermaLink defaults true).
        link = _text(_first(node, "link", "guid[not(@isPermaLink='false')]"))
        loader.add_value("url", link)
        _add_text(loader, "title", _element(node, "title"))
        _add_text(loader, "summary", _first(node, "description", "encoded"), "html")
        # content:encoded is the whole post (WordPress, Halo); a description alone is not.
        _add_text(loader, "content", _first(node, "encoded"), "html", _joined(response, link))
        loader.add_value("published_raw", _text(_first(node, "pubDate", "date")))
        author = _text(_first(node, "author", "creator"))
        if author is not None:
            named = _EMAIL_NAME.match(author.strip())
            loader.add_value("author", named.group(1) if named else author)
        # RSS 2.0: an item's <category> elements are its categories.
        categories = [_text(category) for category in node_elements(node, "category")]
        loader.add_value("category", categories)

    @classmethod
    def page_problem(cls, response: TextResponse) -> str | None:
        root = feed_document(response).xpath("name(/*)").get()
        if root in ("rss", "feed", "RDF"):
            return None
        return f"not an RSS or Atom feed (its root element is <{root or 'nothing'}>)"

    @classmethod
    def next_page_urls(cls, response: TextResponse) -> Iterable[str]:
        return list(dict.fromkeys(h.strip() for h in feed_document(response).xpath(_NEXT).getall()))
