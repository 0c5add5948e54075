"""Decode Chinese pages that declare no charset: UTF-8 if valid, else GB18030."""

from __future__ import annotations

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom


def declared_encoding(body: bytes, content_type: str) -> str | None:
    """The encoding a page declares: BOM, the Content-Type's charset, or its ``<meta>`` /
    XML declaration; None when it declares none (the one place this is decided)."""
    return (
        read_bom(body)[0]
        or http_content_type_encoding(content_type)
        or html_body_declared_encoding(body)
    )


class ChineseEncodingMiddleware:
    """For a text response that declares no encoding and is not valid UTF-8, use GB18030.

    Scrapy's own guess for undeclared bytes is cp1252, which turns GBK Chinese into mojibake;
    GB18030 is a superset of GBK and GB2312, the encodings such pages really use.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ChineseEncodingMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, TextResponse):
            return response
        content_type = response.headers.get("Content-Type", b"").decode("latin-1")
        if declared_encoding(response.body, content_type):
            return response
        try:
            response.body.decode("utf-8")
        except UnicodeDecodeError:
            self.stats.inc_value("encoding/gb18030_fallback")
            return response.replace(encoding="gb18030")
        return response.replace(encoding="utf-8")
