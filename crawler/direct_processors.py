"""itemloaders processors turned into plain functions, once per loader class and field.

itemloaders re-wraps every processor function for the loader context on each value it
processes (a ``ChainMap``, a ``partial``, an ``arg_to_iter`` per step); with ten fields a post
that is most of the loader's cost. A :class:`DirectProcessor` does the same steps with the
wrapping decided once. It handles the processors :class:`~crawler.loaders.PostLoader` uses
(``Identity``, ``MapCompose``, ``Compose``, ``TakeFirst``) and calls any other processor the
way itemloaders does, so results are identical either way (``tests/test_fast_paths.py``
compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from itemloaders.common import wrap_loader_context
from itemloaders.processors import Compose, Identity, MapCompose, TakeFirst
from itemloaders.utils import arg_to_iter, get_func_args

DirectProcessor = Callable[[Any, MutableMapping[str, Any]], Any]


def _step(function: Callable[..., Any]) -> Callable[[Any, Mapping[str, Any]], Any]:
    """``function`` as a two-argument call, the loader context passed only if it takes one."""
    try:
        takes_context = "loader_context" in get_func_args(function)
    except TypeError:  # not introspectable: itemloaders then passes no context either
        takes_context = False
    if takes_context:
        return lambda value, context: function(value, loader_context=context)
    return lambda value, context: function(value)


def as_list(result: Any) -> list[Any]:
    """``result`` as a list by ``arg_to_iter``'s rules (the frequent cases first)."""
    if type(result) is list:
        return result
    if result is None:
        return []
    if isinstance(result, str | int):
        return [result]
    return list(arg_to_iter(result))


def _map_compose(processor: MapCompose) -> DirectProcessor:
    steps = [_step(function) for function in processor.functions]

    def run(value: Any, context: MutableMapping[str, Any]) -> list[Any]:
        values = as_list(value)
        for step in steps:
            mapped: list[Any] = []
            for item in values:
                try:
                    mapped += as_list(step(item, context))
                except Exception as error:
                    raise ValueError(
                        f"Error in MapCompose value={value!r} error='{type(error).__name__}:"
                        f" {error!s}'"
                    ) from error
            values = mapped
        return values

    return run


def _compose(processor: Compose) -> DirectProcessor:
    steps = [_step(function) for function in processor.functions]
    stop_on_none = processor.stop_on_none

    def run(value: Any, context: MutableMapping[str, Any]) -> Any:
        for step in steps:
            if value is None and stop_on_none:
                break
            try:
                value = step(value, context)
            except Exception as error:
                raise ValueError(
                    f"Error in Compose value={value!r} error='{type(error).__name__}: {error!s}'"
                ) from error
        return value

    return run


def _take_first(values: Any, context: MutableMapping[str, Any]) -> Any:
    for value in values:
        if value is not None and value != "":
            return value
    return None


def direct(processor: Callable[..., Any]) -> DirectProcessor:
    """A function ``(value, loader_context) -> result`` equal to calling ``processor``
    through itemloaders."""
    if type(processor) is Identity:
        return lambda value, context: as_list(value)
    if type(processor) is TakeFirst:
        return _take_first
    if type(processor) is MapCompose and not processor.default_loader_context:
        return _map_compose(processor)
    if type(processor) is Compose and not processor.default_loader_context:
        return _compose(processor)
    return lambda value, context: wrap_loader_context(processor, context)(value)
