"""No pydantic model of ours names ``list`` (or another builtin with a readable signature) as its default factory.

Pydantic reads each factory's signature while building a validator, and the first builtin it reads
(``list``) costs every run milliseconds before its first request; `empty_list` costs nothing.
(``dict`` has no signature to read: pydantic gives up on it at once, so it may stay.)
"""

from __future__ import annotations

import importlib
import pkgutil

from pydantic import BaseModel

import pi
from pi.ai.field_defaults import empty_list

BUILTIN_FACTORIES = (list, set, tuple, bytearray)


def _our_models() -> list[type[BaseModel]]:
    for info in pkgutil.walk_packages(pi.__path__, "pi."):
        if not info.name.endswith("__main__"):  # importing that one would run pi
            importlib.import_module(info.name)
    found: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [BaseModel]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("pi."):
                found.append(sub)
    return found


def test_model_fields_use_a_python_factory_for_empty_lists() -> None:
    models = _our_models()
    assert len(models) > 50  # the wire types, stored entries, settings and tool parameters are all in
    offenders = [
        f"{model.__module__}.{model.__qualname__}.{name}"
        for model in models
        for name, info in model.model_fields.items()
        if info.default_factory in BUILTIN_FACTORIES
    ]
    assert offenders == []


def test_empty_list_gives_a_new_list_each_time() -> None:
    first, second = empty_list(), empty_list()
    assert first == [] and first is not second
