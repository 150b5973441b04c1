"""`@record` behaves like a slotted dataclass: same repr, equality, hashing and field handling."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from unittest.mock import ANY

import pytest

from pi.ai.record import record


@record
class Point:
    x: int
    y: int
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", repr=False, compare=False)


@record(frozen=True)
class Key:
    name: str
    version: int = 1


@record(kw_only=True)
class Options:
    depth: int
    label: str = "x"


@record(eq=False)
class Handle:
    value: int


@record
class Custom:
    value: int

    def __repr__(self) -> str:
        return "custom!"


def test_repr_lists_the_fields_shown_in_repr_like_a_dataclass() -> None:
    assert repr(Point(1, 2, ["a"], note="hidden")) == "Point(x=1, y=2, tags=['a'])"
    assert repr(Key("k")) == "Key(name='k', version=1)"


def test_equality_compares_the_compared_fields_of_the_same_class() -> None:
    assert Point(1, 2) == Point(1, 2, note="ignored")
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2, ["a"]) != Point(1, 2, ["b"])
    assert Key("k") != ("k", 1)
    assert Point(1, 2) == ANY  # another class's __eq__ still gets asked


def test_mutable_records_are_unhashable_and_frozen_ones_hash_their_fields() -> None:
    with pytest.raises(TypeError):
        hash(Point(1, 2))
    assert hash(Key("k", 2)) == hash(Key("k", 2))
    assert {Key("k"), Key("k"), Key("j")} == {Key("k"), Key("j")}


def test_frozen_records_reject_assignment() -> None:
    key = Key("k")
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.name = "other"  # type: ignore[misc]


def test_records_are_slotted_dataclasses() -> None:
    point = Point(1, 2)
    assert dataclasses.is_dataclass(point)
    assert Point.__slots__ == ("x", "y", "tags", "note")
    with pytest.raises(AttributeError):
        point.z = 3  # type: ignore[attr-defined]
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    assert Point(1, 2).tags is not Point(1, 2).tags


def test_kw_only_records_take_keywords_only() -> None:
    assert Options(depth=2).label == "x"
    with pytest.raises(TypeError):
        Options(2)  # type: ignore[misc]


def test_eq_false_keeps_identity_equality_and_hashing() -> None:
    a, b = Handle(1), Handle(1)
    assert a != b
    assert a == a
    assert len({a, b}) == 2


def test_a_method_the_class_wrote_itself_is_kept() -> None:
    assert repr(Custom(1)) == "custom!"


def test_an_undocumented_record_is_described_by_its_fields() -> None:
    @record
    class Pair:
        left: int
        right: str

    assert Pair.__doc__ == "Pair(left, right)"
    assert Key.__doc__ == "Key(name, version)"
