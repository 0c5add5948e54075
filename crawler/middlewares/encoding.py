"""Decode Chinese pages that declare no charset: UTF-8 if valid, else GB18030."""

from __future__ import annotations

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse

from crawler.parsing.encodings import declared_encoding


class ChineseEncodingMiddleware:
    """For a text response that declares no encoding and is not valid UTF-8, use GB18030.

    Scrapy's own guess for undeclared bytes is cp1252, which turns GBK Chinese into mojibake;
    GB18030 is a superset of GBK and GB2312, the encodings such pages really use.
    """

    def __init__(self, crawler: Crawler) -> None:
        assert crawler.stats is not None
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ChineseEncodingMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, TextResponse) or not response.body:  # a 304: no bytes
            return response
        content_type = (response.headers.get("Content-Type") or b"").decode("latin-1")
        if declared_encoding(response.body, content_type):
            return response
        try:
            response.body.decode("utf-8")
        except UnicodeDecodeError:
            self.stats.inc_value("encoding/gb18030_fallback")
            return response.replace(encoding="gb18030")
        return response.replace(encoding="utf-8")
