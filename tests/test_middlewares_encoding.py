"""ChineseEncodingMiddleware: pages that declare no charset, UTF-8 when valid, else GB18030."""

from __future__ import annotations

from scrapy import Request
from scrapy.http import HtmlResponse, Response
from support.project import project_crawler

from crawler.middlewares.encoding import ChineseEncodingMiddleware
from crawler.parsing.encodings import declared_encoding

TEXT = "<html><body><p>分布式训练</p></body></html>"


def respond(body: bytes, content_type: str = "text/html") -> Response:
    request = Request("https://x.cn/")
    response = HtmlResponse(
        request.url, body=body, headers={"Content-Type": content_type}, request=request
    )
    return ChineseEncodingMiddleware.from_crawler(project_crawler()).process_response(
        request, response
    )


def test_an_undeclared_gbk_page_is_read_as_gb18030() -> None:
    response = respond(TEXT.encode("gbk"))
    assert response.text == TEXT  # type: ignore[attr-defined]


def test_an_undeclared_utf8_page_is_read_as_utf8() -> None:
    response = respond(TEXT.encode("utf-8"))
    assert response.text == TEXT  # type: ignore[attr-defined]


def test_a_declared_charset_is_left_to_scrapy() -> None:
    traditional = "<html><body><p>分散式訓練</p></body></html>"
    response = respond(traditional.encode("big5"), "text/html; charset=big5")
    assert response.text == traditional  # type: ignore[attr-defined]
    meta = b'<meta charset="gbk">' + TEXT.encode("gbk")
    assert declared_encoding(meta, "text/html") == "gb18030"  # w3lib reads GBK as its superset
    assert declared_encoding("\ufeff".encode() + b"x", "") == "utf-8"
    assert declared_encoding(b"<p>x</p>", "text/html") is None
