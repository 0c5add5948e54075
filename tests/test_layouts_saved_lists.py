"""Every saved-page case under tests/cases, one assertion per field so a failure names it."""

from __future__ import annotations

import pytest
from support.project import CASES

from crawler.devtools.cases import EXPECTED_FIELDS, find_cases, next_pages, run_case

CASES = find_cases(CASES)
_RESULTS: dict[str, list[dict]] = {}


def _actual(case) -> list[dict]:
    if case.name not in _RESULTS:
        _RESULTS[case.name] = run_case(case)
    return _RESULTS[case.name]


def test_cases_exist_for_every_layout() -> None:
    layouts = {case.layout for case in CASES}
    assert {"cnblogs", "hux", "cards", "feed"} <= layouts


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_item_count(case) -> None:
    assert len(_actual(case)) == len(case.expected())


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.next_pages is not None], ids=lambda c: c.name
)
def test_next_pages(case) -> None:
    assert next_pages(case) == case.next_pages


@pytest.mark.parametrize(
    ("case", "index", "field"),
    [
        (case, index, field)
        for case in CASES
        for index in range(len(case.expected()))
        for field in EXPECTED_FIELDS
    ],
    ids=lambda v: v.name if hasattr(v, "name") else str(v),
)
def test_field(case, index: int, field: str) -> None:
    expected = case.expected()[index]
    actual = _actual(case)
    assert index < len(actual), f"{case.name}: item {index} missing"
    assert actual[index][field] == expected[field], (
        f"{case.name} item {index} ({expected.get('title')!r}) field {field!r}"
    )
