"""Schema versions, one mechanism for every backend.

A backend lists its schema as ordered steps; the version of a store is the number of steps
applied, kept in a ``schema_version`` table. Opening a store applies the steps it lacks, in
order, in one transaction; a store of a newer version than the code knows is refused (an
older crawler must not write a schema it does not understand). Published steps are never
edited: a change is a new step at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from crawler.store.base import StoreUnavailable

# A step: SQL (one or more statements), or a function of the connection for what SQL alone
# cannot say (a column added only where it is missing).
Step = str | Callable[[Any], None]


def pending_steps(current: int, steps: Sequence[Step], where: str) -> list[tuple[int, Step]]:
    """The ``(version, step)`` pairs a store at version ``current`` lacks; raises
    :class:`StoreUnavailable` for a store newer than ``steps``."""
    if current > len(steps):
        raise StoreUnavailable(
            f"the store {where} has schema version {current}, newer than this crawler's"
            f" {len(steps)}: upgrade the crawler"
        )
    return [(version, steps[version - 1]) for version in range(current + 1, len(steps) + 1)]
