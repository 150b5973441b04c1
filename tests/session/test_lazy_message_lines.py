"""Resuming reads message lines as far as their envelope; each message is decoded when first asked for.

The decoded message must be exactly what reading the whole line gives (`parse_lines`, the path every
other line takes), lines of another shape keep their order and extra fields, and the file written
back or forked is the same JSON.
"""

from __future__ import annotations

import gc
import json
import shutil
import weakref
from pathlib import Path

import pytest

from pi.ai.types import TextContent, UserMessage
from pi.session import SessionManager
from pi.session.entries import MessageEntry
from pi.session.storage import parse_lines
from tests.session.test_deferred_context import ALL, FIXTURES

HEADER = {
    "type": "session",
    "version": 3,
    "id": "0197a1b2-0000-7000-8000-000000000000",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/w",
}


def _line(entry_id: str, parent: str | None, message: dict[str, object]) -> dict[str, object]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": message,
    }


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _compact(data: dict[str, object]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _messages(manager: SessionManager) -> list[MessageEntry]:
    return [entry for entry in manager.get_entries() if isinstance(entry, MessageEntry)]


def test_messages_stay_text_until_read_and_roles_are_known_without_decoding(tmp_path: Path) -> None:
    lines = [_compact(HEADER)]
    parent = None
    for n in range(6):
        role = "user" if n % 2 == 0 else "assistant"
        message = {"role": role, "content": [{"type": "text", "text": f"message {n}"}], "timestamp": n}
        lines.append(_compact(_line(f"{n:08x}", parent, message)))
        parent = f"{n:08x}"
    manager = SessionManager.open(_write(tmp_path / "s.jsonl", lines))
    entries = _messages(manager)
    assert [entry.role for entry in entries] == ["user", "assistant"] * 3
    assert all(entry.stored is None and entry.raw is not None for entry in entries)
    assert manager.build_deferred_context().messages.__len__() == 6
    assert entries[3].message_json == json.loads(lines[4])["message"]
    assert entries[3].stored is not None and entries[3].raw is None
    assert entries[2].stored is None  # only what was asked for was decoded


def test_a_role_that_is_not_the_first_key_is_still_found(tmp_path: Path) -> None:
    message = {"content": "hi", "timestamp": 1, "role": "user"}
    manager = SessionManager.open(_write(tmp_path / "s.jsonl", [_compact(HEADER), _compact(_line("a", None, message))]))
    [entry] = _messages(manager)
    assert entry.role == "user" and entry.stored is None


TRICKY = [
    (b'{"role":"user","content":"caf\xc3\xa9 \xff broken","timestamp":1}', True),  # invalid UTF-8 in a string
    (b'{"role":"user","content":"half \\ud83d emoji","timestamp":1}', False),  # a lone surrogate: read whole
    (b'{"role":"assistant","content":[],"usage":{"input":123456789012345678901234567890},"timestamp":1.5e3}', True),
    (b'{ "role" : "toolResult" , "toolCallId":"c","content":[{"type":"text","text":"\\u2028"}],"timestamp":2}', True),
]


@pytest.mark.parametrize(("message", "lazy"), TRICKY)
def test_a_decoded_message_equals_what_reading_the_whole_line_gives(tmp_path: Path, message: bytes, lazy: bool) -> None:
    line = b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":' + message + b"}"
    data = _compact(HEADER) + b"\n" + line + b"\n"
    expected = parse_lines(data).lines[1]
    manager = SessionManager.open(_write(tmp_path / "s.jsonl", data.splitlines()))
    [entry] = _messages(manager)
    assert (entry.raw is not None) is lazy
    assert entry.role == expected["message"]["role"]
    assert entry.to_dict() == expected
    assert list(entry.to_dict()) == list(expected)


LINE_SHAPES = [
    (json.dumps(_line("a", None, {"role": "user", "content": "x", "timestamp": 1})).encode(), b"\n", True),
    (
        b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message" :\t{"role":"user","content":"x"} }',
        b"\n",
        True,
    ),
    (_compact(_line("a", None, {"role": "user", "content": "x", "timestamp": 1})), b"\r\n", True),
    (
        b'{"type":"message","id":"a","parentId":null,"timestamp":"a\\"message\\": {","message":{"role":"user"}}',
        b"\n",
        True,
    ),
    (b'{"type":"message","id":"a","parentId":null,"timestamp":"x\\"message","message":{"role":"user"}}', b"\n", False),
    (b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":[{"role":"user"}]}', b"\n", False),
]


@pytest.mark.parametrize(("line", "ending", "lazy"), LINE_SHAPES)
def test_a_message_text_is_found_in_the_file_or_its_line_is_read_whole(
    tmp_path: Path, line: bytes, ending: bytes, lazy: bool
) -> None:
    data = _compact(HEADER) + ending + line + ending
    expected = parse_lines(data).lines[1]
    (tmp_path / "s.jsonl").write_bytes(data)
    manager = SessionManager.open(tmp_path / "s.jsonl")
    [entry] = manager.get_entries()
    assert (isinstance(entry, MessageEntry) and entry.raw is not None) is lazy
    assert entry.to_dict() == expected


def test_lines_of_another_shape_keep_their_order_and_extra_fields(tmp_path: Path) -> None:
    message = {"role": "user", "content": "x", "timestamp": 1}
    reordered: dict[str, object] = {
        "id": "a",
        "type": "message",
        "parentId": None,
        "timestamp": "t",
        "message": message,
    }
    extra = {**_line("b", "a", {"role": "user", "content": "y", "timestamp": 2}), "note": "kept"}
    manager = SessionManager.open(
        _write(tmp_path / "s.jsonl", [_compact(HEADER), _compact(reordered), _compact(extra)])
    )
    first, second = _messages(manager)
    assert first.raw is None and list(first.to_dict()) == list(reordered)
    assert second.raw is None and second.to_dict() == extra


CURRENT_FORMAT = [name for name in ALL if parse_lines((FIXTURES / name).read_bytes()).lines[0].get("version") == 3]
"""Older formats are migrated on load (tested with the migration); these must read back unchanged."""


def test_fixtures_in_the_current_format_are_found() -> None:
    assert any(name.startswith("ts16/") for name in CURRENT_FORMAT) and len(CURRENT_FORMAT) >= 5


@pytest.mark.parametrize("name", CURRENT_FORMAT)
def test_every_fixture_reads_the_same_lazily_as_whole(name: str, tmp_path: Path) -> None:
    source = FIXTURES / name
    whole = parse_lines(source.read_bytes()).lines
    target = tmp_path / Path(name).name
    shutil.copy(source, target)
    manager = SessionManager.open(target)
    assert [entry.to_dict() for entry in manager.get_entries()] == whole[1:]


def test_a_resumed_session_appends_without_touching_what_it_has_not_read(tmp_path: Path) -> None:
    lines = [_compact(HEADER), _compact(_line("a", None, {"role": "user", "content": "hi", "timestamp": 1}))]
    file = _write(tmp_path / "s.jsonl", lines)
    before = file.read_bytes()
    manager = SessionManager.open(file)
    manager.append_message(manager.build_session_context().messages[0])
    after = file.read_bytes()
    assert after.startswith(before)
    assert json.loads(after.splitlines()[-1])["message"] == json.loads(lines[1])["message"]


def test_a_message_line_whose_message_is_not_an_object_is_kept_as_an_unknown_entry(tmp_path: Path) -> None:
    odd: dict[str, object] = {"type": "message", "id": "a", "parentId": None, "timestamp": "t", "message": "just text"}
    manager = SessionManager.open(_write(tmp_path / "s.jsonl", [_compact(HEADER), _compact(odd)]))
    [entry] = manager.get_entries()
    assert not isinstance(entry, MessageEntry)
    assert entry.to_dict() == odd
    assert any("unexpected shape" in warning for warning in manager.warnings)


def test_torn_and_garbled_lines_are_reported_by_number(tmp_path: Path) -> None:
    good = _compact(_line("a", None, {"role": "user", "content": "hi", "timestamp": 1}))
    data = _compact(HEADER) + b"\n\nnot json\n" + good + b"\n" + good[:30]
    file = tmp_path / "s.jsonl"
    file.write_bytes(data)
    manager = SessionManager.open(file)
    assert [entry.role for entry in _messages(manager)] == ["user"]
    assert manager.warnings == [
        f"{file}:3: skipped not a JSON object",
        f"{file}:5: skipped incomplete last line (interrupted write?)",
    ]


def test_a_resumed_session_gives_the_collector_nothing_to_track_per_message(tmp_path: Path) -> None:
    """Each message entry of a long session would otherwise be walked by every full collection and at exit."""
    count = 3000
    lines = [_compact(HEADER)]
    parent = None
    for n in range(count):
        message = {"role": "user", "content": [{"type": "text", "text": f"message {n}"}], "timestamp": n}
        lines.append(_compact(_line(f"{n:08x}", parent, message)))
        parent = f"{n:08x}"
    path = _write(tmp_path / "long.jsonl", lines)
    SessionManager.open(path)  # anything imported or cached on first use is made before counting
    gc.collect()
    before = len(gc.get_objects())
    manager = SessionManager.open(path)
    added = len(gc.get_objects()) - before
    assert len(_messages(manager)) == count
    assert added < count // 20
    first = _messages(manager)[0]
    assert not gc.is_tracked(first)
    assert first.message_json["content"] == [{"type": "text", "text": "message 0"}]
    assert gc.is_tracked(first.message_json)  # what an entry holds is still the collector's to see


class _Note:
    """An application's own message class, which keeps a reference to the entry it was stored as."""

    role = "note"

    def __init__(self) -> None:
        self.entry: MessageEntry | None = None


def test_an_entry_for_an_applications_message_is_collected_even_in_a_cycle() -> None:
    note = _Note()
    entry = MessageEntry.of(note, id="n1", parent_id=None)
    note.entry = entry
    assert gc.is_tracked(entry)
    alive = weakref.ref(note)
    del note, entry
    gc.collect()
    assert alive() is None


def test_entries_for_pis_own_messages_stay_untracked() -> None:
    message = UserMessage(content=[TextContent(text="hi")])
    assert not gc.is_tracked(MessageEntry.of(message, id="u1", parent_id=None))
