"""robots.txt obeyed as Scrapy does, with a robots.txt that cannot be fetched told in one line.

Scrapy's :class:`~scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware` logs a robots.txt
download error at ERROR with a traceback (and names the page that triggered it, not the
robots.txt), and its retries add a "Gave up retrying" ERROR: a run without network prints dozens
of traceback lines for what is one fact per host. The logging is inline in its
``robot_parser``, with no public hook, so this subclass changes nothing of what the middleware
does (the host is then crawled as if robots.txt allowed everything, as Scrapy does) and only
installs :class:`RobotsFailureFilter`, which rewrites those records:

- one WARNING per host: ``robots.txt <URL> could not be fetched (<reason>)``;
- the traceback at DEBUG;
- the retry middleware's "Gave up retrying" of a robots.txt request at DEBUG (the WARNING says
  it all).

A spider may lower the WARNING with a ``robotstxt_failure_level`` attribute (a ``logging``
level): ``scrapy detect`` does, as its page fails the same way and it reports that.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached

logger = logging.getLogger(__name__)
# The loggers of Scrapy's middlewares whose records are rewritten (by their modules' names).
robotstxt_logger = logging.getLogger("scrapy.downloadermiddlewares.robotstxt")
retry_logger = logging.getLogger("scrapy.downloadermiddlewares.retry")


def robots_url(request: Request) -> str:
    """The robots.txt URL of a request's host (as Scrapy's middleware builds it)."""
    parts = urlparse_cached(request)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def _is_robots_request(request: Any) -> bool:
    return (
        isinstance(request, Request)
        and bool(request.meta.get("dont_obey_robotstxt"))
        and request.url == robots_url(request)
    )


def _reason(reason: Any) -> str:
    """Why robots.txt could not be fetched, in a few words."""
    if not isinstance(reason, BaseException):  # the retry middleware's "503 Service Unavailable"
        return f"HTTP {reason}"
    # Twisted's ResponseFailed (the cause of Scrapy's DownloadFailedError) words itself as a
    # list of Failure reprs: name its first failure instead.
    failures = getattr(reason.__cause__, "reasons", None) or getattr(reason, "reasons", None)
    if failures and hasattr(failures[0], "getErrorMessage"):
        return f"{failures[0].type.__name__}: {failures[0].getErrorMessage()}"
    message = str(reason).strip()
    return type(reason).__name__ + (f": {message}" if message else "")


def _set_level(record: logging.LogRecord, level: int) -> bool:
    """Give ``record`` another level; whether its logger lets it through at that level."""
    record.levelno, record.levelname = level, logging.getLevelName(level)
    # The logger checked the level it was logged at; handlers check the new one again.
    return logging.getLogger(record.name).isEnabledFor(level)


class RobotsFailureFilter(logging.Filter):
    """Rewrites the robots.txt failure records of Scrapy's robots.txt and retry middlewares
    (see the module docstring); every other record passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, dict) else {}
        request = args.get("request")
        if not isinstance(request, Request):
            return True
        if record.name == robotstxt_logger.name and "f_exception" in args:
            if record.exc_info:
                logger.debug("the error fetching %s", robots_url(request), exc_info=record.exc_info)
            return self._one_line(record, request, args["f_exception"])
        gave_up = str(record.msg).startswith("Gave up retrying")
        if record.name == retry_logger.name and gave_up and _is_robots_request(request):
            if isinstance(args.get("reason"), BaseException):
                # The robots.txt middleware logs the same exception next: one line is enough.
                return _set_level(record, logging.DEBUG)
            return self._one_line(record, request, args.get("reason"))  # an HTTP status
        return True

    @staticmethod
    def _one_line(record: logging.LogRecord, request: Request, reason: Any) -> bool:
        spider = getattr(record, "spider", None)
        level = getattr(spider, "robotstxt_failure_level", logging.WARNING)
        record.msg = "robots.txt %(url)s could not be fetched (%(reason)s)"
        record.args = {"url": robots_url(request), "reason": _reason(reason)}
        record.exc_info, record.exc_text = None, None
        return _set_level(record, level)


class QuietRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, its fetch failures logged as one line per host."""

    log_filter = RobotsFailureFilter()

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)  # NotConfigured without ROBOTSTXT_OBEY: no filter then
        # On the loggers, not on a handler: Scrapy's log handlers change with each crawler.
        for target in (robotstxt_logger, retry_logger):
            if self.log_filter not in target.filters:
                target.addFilter(self.log_filter)
