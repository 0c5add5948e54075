"""How a failed request is worded, the one place for it: run summaries, logs, ``detect``."""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure


def describe_failure(failure: Failure) -> str:
    """Why a request failed, in a few words: ``HTTP 404``, ``TimeoutError: …``, or what a
    middleware said when it dropped the request (robots.txt)."""
    error = failure.value
    if isinstance(error, HttpError):
        return f"HTTP {error.response.status}"
    if isinstance(error, IgnoreRequest):
        return str(error) or "request ignored"
    # Some Twisted errors carry no message: name the error alone then.
    message = failure.getErrorMessage().strip()
    return type(error).__name__ + (f": {message}" if message else "")
