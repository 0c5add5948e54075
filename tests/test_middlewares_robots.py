"""A robots.txt that cannot be fetched: one WARNING per host, the traceback only at DEBUG.

Scrapy's RobotsTxtMiddleware logs the failure at ERROR with a traceback (and its retries add a
"Gave up retrying" ERROR); ``crawler.middlewares.robots`` rewrites those records, and leaves
robots.txt obeyed as before.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from scrapy.http import Request
from scrapy.utils.project import get_project_settings
from scrapy.utils.test import get_crawler
from support.faultserver import Fault, cards_site, crawl

from crawler.devtools.samples.server import Route
from crawler.middlewares.robots import QuietRobotsTxtMiddleware, RobotsFailureFilter
from crawler.runs.summary import EXIT_OK

LOG_LINE = re.compile(r"^[\d-]+ [\d:]+ \[(?P<logger>[^\]]+)\] (?P<level>[A-Z]+): (?P<text>.*)")


def log_lines(stderr: str, containing: str) -> list[tuple[str, str]]:
    """(level, text) of the log lines whose text contains ``containing``."""
    found = []
    for line in stderr.splitlines():
        match = LOG_LINE.match(line)
        if match and containing in match["text"]:
            found.append((match["level"], match["text"]))
    return found


def test_the_project_replaces_scrapys_robots_middleware() -> None:
    middlewares = get_project_settings().getdict("DOWNLOADER_MIDDLEWARES")
    assert middlewares["scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"] is None
    assert middlewares["crawler.middlewares.robots.QuietRobotsTxtMiddleware"] == 100


def test_a_reset_robots_txt_is_one_warning_and_no_traceback(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.program("/robots.txt", Fault(reset="before", times=None))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]  # crawled as if robots.txt allowed all
    assert "Traceback" not in run.result.stderr
    robots = f"{server.base_url}/robots.txt"
    lines = log_lines(run.result.stderr, "robots.txt")
    assert lines == [
        (
            "WARNING",
            f"robots.txt {robots} could not be fetched (ConnectionLost: "
            "Connection to the other side was lost in a non-clean fashion.)",
        )
    ]
    assert len(server.requests("/robots.txt")) == 4  # retried as any request, then given up


def test_the_traceback_is_kept_at_debug(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.program("/robots.txt", Fault(reset="before", times=None))
    run = crawl("cards", server.url(), "-L", "DEBUG", output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    robots = f"{server.base_url}/robots.txt"
    assert ("DEBUG", f"the error fetching {robots}") in log_lines(run.result.stderr, robots)
    assert "Traceback" in run.result.stderr
    assert not [line for line in log_lines(run.result.stderr, "robots.txt") if line[0] == "ERROR"]


def test_a_robots_txt_answering_503_is_one_warning_with_the_status(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.program("/robots.txt", Fault(status=503, times=None))
    run = crawl("cards", server.url(), output=tmp_path)
    assert run.status == EXIT_OK, run.result.stderr[-3000:]
    robots = f"{server.base_url}/robots.txt"
    assert log_lines(run.result.stderr, "robots.txt") == [
        ("WARNING", f"robots.txt {robots} could not be fetched (HTTP 503 Service Unavailable)")
    ]


def test_robots_txt_is_still_obeyed(serve, tmp_path: Path) -> None:
    server = serve(cards_site())
    server.site.routes["/robots.txt"] = Route(
        body=b"User-agent: *\nDisallow: /hot\n", content_type="text/plain"
    )
    crawl("cards", server.url(), output=tmp_path)
    assert server.paths() == []


# ---- the filter itself ------------------------------------------------------------------------
def record(name: str, level: int, msg: str, args: dict) -> logging.LogRecord:
    made = logging.LogRecord(name, level, __file__, 1, msg, None, None)
    made.args = args  # a dict, as Scrapy's middlewares log (LogRecord would unpack a 1-item one)
    return made


def gave_up_record(request: Request, reason: object) -> logging.LogRecord:
    """The retry middleware's record when it gives a request up."""
    message = "Gave up retrying %(request)s (failed %(retry_times)d times): %(reason)s"
    args = {"request": request, "retry_times": 4, "reason": reason}
    return record("scrapy.downloadermiddlewares.retry", logging.ERROR, message, args)


def test_other_records_pass_unchanged() -> None:
    page = Request("https://blog.example.cn/hot")
    gave_up = gave_up_record(page, "503 Service Unavailable")
    other = record("scrapy.core.scraper", logging.ERROR, "Error processing %(item)s", {"item": 1})
    for unchanged in (gave_up, other):
        before = (unchanged.levelno, unchanged.msg, unchanged.args)
        assert RobotsFailureFilter().filter(unchanged)
        assert (unchanged.levelno, unchanged.msg, unchanged.args) == before


def test_the_retry_give_up_of_robots_txt_is_debug_when_robots_logs_it_too() -> None:
    robots = Request("https://blog.example.cn/robots.txt", meta={"dont_obey_robotstxt": True})
    gave_up = gave_up_record(robots, TimeoutError("slow"))
    RobotsFailureFilter().filter(gave_up)
    assert gave_up.levelno == logging.DEBUG


def test_the_filter_is_installed_once_per_logger() -> None:
    loggers = [
        logging.getLogger(f"scrapy.downloadermiddlewares.{name}") for name in ("robotstxt", "retry")
    ]
    try:
        for _ in range(2):  # e.g. two crawlers in one process
            QuietRobotsTxtMiddleware(get_crawler(settings_dict={"ROBOTSTXT_OBEY": True}))
        for target in loggers:
            assert target.filters.count(QuietRobotsTxtMiddleware.log_filter) == 1
    finally:
        for target in loggers:
            target.removeFilter(QuietRobotsTxtMiddleware.log_filter)
