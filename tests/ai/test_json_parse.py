"""Streaming tool arguments: every prefix of a JSON object reads as an object."""

from __future__ import annotations

import json

import pytest

from pi.ai.json_parse import parse_partial_json, parse_streaming_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, {}),
        ("", {}),
        ("   ", {}),
        ("{", {}),
        ('{"a":"hel', {"a": "hel"}),
        ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
        ('{"a": {"b": {"c": tr', {"a": {"b": {}}}),
        ('{"a": true, "b": nul', {"a": True}),
        ('{"path": "x", "con', {"path": "x"}),
        ('{"path": "x", "content":', {"path": "x"}),
        ('{"n": 12', {"n": 12}),
        ('{"n": -', {}),
        ('{"s": "line\\nnext\\u00e9', {"s": "line\nnext\u00e9"}),
        ('{"s": "cut \\u00', {"s": "cut "}),
        ('{"s": "ends with \\', {"s": "ends with "}),
        ('{"a": [{"x": 1}, {"y": "z', {"a": [{"x": 1}, {"y": "z"}]}),
    ],
)
def test_partial_objects(text: str | None, expected: dict[str, object]) -> None:
    assert parse_streaming_json(text) == expected


@pytest.mark.parametrize("text", ["garbage", "}{", "[1, 2]", '"text"', "42", "null", "{'single': 1}", "{1: 2}"])
def test_anything_but_an_object_gives_an_empty_object(text: str) -> None:
    assert parse_streaming_json(text) == {}


def test_valid_json_is_exact() -> None:
    value = {"command": "ls -la", "nested": {"list": [1, 2.5, None, False], "text": 'quote " and \\ backslash'}}
    assert parse_streaming_json(json.dumps(value)) == value


def test_every_prefix_of_a_document_parses_to_an_object_that_only_grows() -> None:
    value = {"path": "src/main.py", "edits": [{"old": "a = 1", "new": "a = 2"}], "dry": False, "n": 3}
    text = json.dumps(value)
    previous_keys: set[str] = set()
    for end in range(len(text) + 1):
        parsed = parse_streaming_json(text[:end])
        assert isinstance(parsed, dict)
        assert previous_keys <= set(parsed)
        previous_keys = set(parsed)
    assert parse_streaming_json(text) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"s": "smile \\ud83d\\ude00 and', {"s": "smile \U0001f600 and"}),
        ('{"s": "smile \\ud83d', {"s": "smile "}),
        ('{"s": "smile \\ud83d\\', {"s": "smile "}),
        ('{"s": "smile \\ud83d\\ude0', {"s": "smile "}),
    ],
)
def test_escaped_pairs_outside_the_bmp_are_joined_or_awaited(text: str, expected: dict[str, str]) -> None:
    parsed = parse_streaming_json(text)
    assert parsed == expected
    json.dumps(parsed, ensure_ascii=False).encode()  # a lone surrogate would fail to encode here


def test_a_complete_document_with_a_lone_escaped_surrogate_keeps_its_fields() -> None:
    assert parse_streaming_json('{"s": "half \\ud83d", "n": 1}') == {"s": "half \ud83d", "n": 1}


def test_partial_reader_says_when_nothing_is_readable() -> None:
    assert parse_partial_json('{"a": [1, {"b": "c') == {"a": [1, {"b": "c"}]}
    for text in (None, "", "nope", "[1]", "{1: 2}"):
        assert parse_partial_json(text) is None
