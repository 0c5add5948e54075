"""The site registry and the validation of spider arguments."""

from __future__ import annotations

import pytest

from crawler.arguments import validate_arguments
from crawler.sites import SiteError, load_registry, name_from_url, registry, resolve_site


def test_packaged_registry_is_valid() -> None:
    sites = registry()
    assert sites["robindevnotes"].layout == "cnblogs"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('[sites."a/b"]\nlayout="cnblogs"\nurl="https://x.org/"', "name"),
        ('[sites."a..b"]\nlayout="cnblogs"\nurl="https://x.org/"', ".."),
        ('[sites.a]\nlayout="cnblogs"\nurl="file:///etc/passwd"', "http"),
        ('[sites.a]\nlayout="cnblogs"\nurl="ftp://x.org/"', "http"),
        ('[sites.a]\nlayout="cnblogs"\nurl="https://x.org/"\ntimezone="Mars/Base"', "timezone"),
        ('[sites.a]\nlayout="cnblogs"\nurl="https://x.org/"\ncolour="red"', "colour"),
    ],
)
def test_bad_registry_entries_are_refused_with_the_reason(entry: str, message: str) -> None:
    with pytest.raises(SiteError, match=message):
        load_registry(entry)


def test_resolve_by_url_matches_registry_or_derives_a_safe_name() -> None:
    assert resolve_site("cnblogs", url="https://www.cnblogs.com/RobinDevNotes/").name == (
        "robindevnotes"
    )
    other = resolve_site("cnblogs", url="https://www.cnblogs.com/SomeOne/")
    assert other.name == "cnblogs.com-someone"
    assert name_from_url("http://127.0.0.1:8080/index.xml") == "127.0.0.1-8080"


@pytest.mark.parametrize(
    ("layout", "args", "message"),
    [
        ("cnblogs", {}, "-a url="),
        ("cnblogs", {"url": "file:///etc/passwd"}, "http"),
        ("cnblogs", {"url": "ftp://example.org/"}, "http"),
        ("cnblogs", {"url": "not a url"}, "http"),
        ("cnblogs", {"site": "nope"}, "unknown site"),
        ("hux", {"site": "robindevnotes"}, "layout 'cnblogs'"),
        ("cnblogs", {"url": "https://x.org/", "ulr": "typo"}, "ulr"),
        ("cnblogs", {"url": "https://x.org/", "full": "maybe"}, "full"),
    ],
)
def test_bad_spider_arguments_are_clear_errors(layout: str, args: dict, message: str) -> None:
    with pytest.raises(SiteError, match=message):
        validate_arguments(layout, args)


def test_scrapyd_job_argument_is_not_ours_and_passes() -> None:
    args, _ = validate_arguments("cards", {"url": "https://x.org/hot", "_job": "abc"})
    assert args.url == "https://x.org/hot"


def test_flags_parse_and_scrapyd_private_arguments_pass() -> None:
    from crawler.spiders.blogs import CardsSpider  # type: ignore[attr-defined]

    spider = CardsSpider(url="https://x.org/hot", full="1", _job="abc123")
    [site] = spider.site_configs
    assert spider.full is True and site.url == "https://x.org/hot"
    assert spider._job == "abc123"
