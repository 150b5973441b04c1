"""`@record`: a slotted dataclass whose repr, equality and hash are shared, not generated per class.

`dataclasses.dataclass` writes the source of `__repr__`, `__eq__` (and for frozen classes
`__hash__`) for every class and compiles it with `exec`: about 0.1 ms per class at import time,
close to half of what making a small dataclass costs. pi defines around a hundred small data
classes on its start-up path (events, session entries, options, results), so those methods alone
cost a noticeable slice of the time before the first request. A record gets the same three methods
as plain functions written once here, which read the fields at call time; only `__init__` (and,
when frozen, the guards against assignment) is still generated. Repr and equality are for tests,
logs and the odd comparison, never a hot path, so reading the fields dynamically there is the right
trade.

Semantics match the dataclass defaults: repr lists the fields with ``repr=True``, two records are
equal when they are of the same class and their ``compare=True`` fields are equal, a mutable record
is unhashable and a frozen one hashes its compared fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from types import NotImplementedType
from typing import Any, TypeVar, cast, dataclass_transform, overload

_T = TypeVar("_T", bound=type)


def _record_repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{type(self).__qualname__}({shown})"


def _record_eq(self: Any, other: object) -> bool | NotImplementedType:
    names = [f.name for f in fields(self) if f.compare]
    if type(other) is not type(self):
        return NotImplemented  # type: ignore[no-any-return]  # Python then asks `other`, as with dataclasses
    equal: bool = all(getattr(self, name) == getattr(other, name) for name in names)
    return equal


def _record_hash(self: Any) -> int:
    return hash(tuple(getattr(self, f.name) for f in fields(self) if f.compare))


def _make_record(cls: _T, *, frozen: bool, kw_only: bool, eq: bool) -> _T:
    own = cls.__dict__  # like dataclass, never replace a method the class body wrote itself
    if cls.__doc__ is None:
        # dataclass would write one from `inspect.signature(cls)`, the slowest step of making a record.
        cls.__doc__ = f"{cls.__name__}({', '.join(own.get('__annotations__', ()))})"
    if "__repr__" not in own:
        cls.__repr__ = _record_repr  # type: ignore[assignment]
    if eq and "__eq__" not in own:
        cls.__eq__ = _record_eq  # type: ignore[assignment]
        if own.get("__hash__") is None:
            cls.__hash__ = _record_hash if frozen else None  # type: ignore[assignment]
    return cast(_T, dataclass(slots=True, frozen=frozen, kw_only=kw_only, repr=False, eq=False)(cls))


@overload
def record(cls: _T, /) -> _T: ...


@overload
def record(*, frozen: bool = False, kw_only: bool = False, eq: bool = True) -> Callable[[_T], _T]: ...


@dataclass_transform(field_specifiers=(field,))
def record(
    cls: _T | None = None, /, *, frozen: bool = False, kw_only: bool = False, eq: bool = True
) -> _T | Callable[[_T], _T]:
    """Make `cls` a slotted dataclass with the shared repr/eq/hash; ``eq=False`` keeps identity equality."""
    if cls is not None:
        return _make_record(cls, frozen=frozen, kw_only=kw_only, eq=eq)

    def wrap(target: _T) -> _T:
        return _make_record(target, frozen=frozen, kw_only=kw_only, eq=eq)

    return wrap


__all__ = ["record"]
