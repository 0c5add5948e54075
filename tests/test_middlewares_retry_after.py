"""RetryAfterMiddleware: how long a Retry-After says, and what is done with it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from support.project import project_crawler

from crawler.middlewares.retry_after import RetryAfterMiddleware, retry_after_seconds

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        ("0", 0.0),
        ("Tue, 01 Dec 2026 08:00:30 GMT", 30.0),
        ("Tue, 01 Dec 2026 07:59:00 GMT", 0.0),  # a time past: no wait
        ("-5", None),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_as_seconds_or_as_a_date(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


def middleware(**settings: object) -> RetryAfterMiddleware:
    return RetryAfterMiddleware.from_crawler(project_crawler(**settings))


def answer(status: int, retry_after: str | None = None) -> tuple[Request, Response]:
    request = Request("https://x.cn/hot")
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return request, Response(request.url, status=status, headers=headers, request=request)


def test_without_the_header_or_on_other_statuses_the_response_passes() -> None:
    mw = middleware()
    for status, header in ((503, None), (500, "10"), (200, "10")):
        request, response = answer(status, header)
        assert asyncio.run(mw.process_response(request, response)) is response


def test_a_wait_beyond_the_limit_fails_the_request_instead(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mw = middleware(RETRY_AFTER_MAX=60)
    request, response = answer(429, "3600")
    assert asyncio.run(mw.process_response(request, response)) is response
    assert request.meta["dont_retry"] is True  # Scrapy's retry does not hammer it either
    assert "asks to wait 3600s (Retry-After), more than RETRY_AFTER_MAX=60s" in caplog.text
    assert mw.crawler.stats.get_value("retry_after/too_long") == 1  # type: ignore[union-attr]


def test_it_needs_retries() -> None:
    with pytest.raises(NotConfigured):
        middleware(RETRY_ENABLED=False)
