"""Blog layouts, one module each, named after the layout (``cnblogs.py`` is ``cnblogs``; a
``-`` in a name is written ``_``): every module of this package is imported with it, so each
layout is known by name as soon as the package is (the contract is in :mod:`.base`)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from crawler.layouts.base import Layout, defined_layouts


def module_name(layout: str) -> str:
    """The module a layout lives in: ``crawler.layouts.<name>``, ``-`` written ``_``."""
    return f"{__name__}.{layout.replace('-', '_')}"


def _import_all() -> None:
    for info in pkgutil.iter_modules(__path__, f"{__name__}."):
        importlib.import_module(info.name)


# Every layout module, imported with the package: a layout is known as soon as any is.
_import_all()


@cache
def layouts() -> dict[str, type[Layout]]:
    """Every layout of this package, by name."""
    return dict(sorted(defined_layouts().items()))


def get_layout(name: str) -> type[Layout]:
    """The layout called ``name``; ``KeyError`` naming the known ones if there is none."""
    try:
        return layouts()[name]
    except KeyError:
        raise KeyError(f"unknown layout {name!r} (known: {', '.join(layouts())})") from None
