"""Request-body JSON: compact, UTF-8, and never an encoding crash."""

from __future__ import annotations

import json

from msgspec import Struct

from pi.ai.wire_json import encode_json, json_text


def test_bodies_are_compact_utf8_json_with_text_as_written() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "café \u2028 ok"}], "n": 1.5, "stream": True}
    encoded = encode_json(body)
    assert (
        encoded
        == '{"model":"m","messages":[{"role":"user","content":"café \u2028 ok"}],"n":1.5,"stream":true}'.encode()
    )
    assert json.loads(encoded) == body


def test_a_lone_surrogate_is_dropped_and_everything_else_kept() -> None:
    body = {"tools": [{"description": "half an emoji \ud83d here"}], "big": 2**70}
    encoded = encode_json(body)
    assert json.loads(encoded) == {"tools": [{"description": "half an emoji  here"}], "big": 2**70}


def test_arguments_text_is_compact_json() -> None:
    assert json_text({"path": "é", "limit": 3}) == '{"path":"é","limit":3}'
    assert json_text({"oldText": "x\ud800y"}) == '{"oldText":"xy"}'


class Note(Struct):
    text: str


def test_the_slow_path_writes_what_msgspec_writes() -> None:
    # A record msgspec encodes natively, in a body that needs the surrogate clean-up.
    assert encode_json({"notes": [Note("ok"), Note("half \udc00")]}) == b'{"notes":[{"text":"ok"},{"text":"half "}]}'
