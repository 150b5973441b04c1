from __future__ import annotations

import pytest

from pi.tui.keys import (
    decode_printable,
    is_key_release,
    is_printable,
    key_ids,
    matches_key,
    normalize_key_id,
    parse_key,
)

LEGACY = [
    ("\r", "enter"),
    ("\t", "tab"),
    ("\x1b", "escape"),
    ("\x7f", "backspace"),
    ("\x1b[Z", "shift+tab"),
    ("\x01", "ctrl+a"),
    ("\x0b", "ctrl+k"),
    ("\x1f", "ctrl+-"),
    ("\x1d", "ctrl+]"),
    ("\x00", "ctrl+space"),
    ("\x1b\r", "alt+enter"),
    ("\x1b\x7f", "alt+backspace"),
    ("\x1bb", "alt+b"),
    ("\x1b\x1d", "ctrl+alt+]"),
    ("\x1b[A", "up"),
    ("\x1bOB", "down"),
    ("\x1b[C", "right"),
    ("\x1b[D", "left"),
    ("\x1b[H", "home"),
    ("\x1b[F", "end"),
    ("\x1b[1~", "home"),
    ("\x1b[4~", "end"),
    ("\x1b[2~", "insert"),
    ("\x1b[3~", "delete"),
    ("\x1b[5~", "pageUp"),
    ("\x1b[6~", "pageDown"),
    ("\x1bOP", "f1"),
    ("\x1b[15~", "f5"),
    ("\x1b[24~", "f12"),
    ("\x1b[1;5A", "ctrl+up"),
    ("\x1b[1;6A", "ctrl+shift+up"),
    ("\x1b[1;3D", "alt+left"),
    ("\x1b[1;5H", "ctrl+home"),
    ("\x1b[1;5F", "ctrl+end"),
    ("\x1b[5;5~", "ctrl+pageUp"),
    ("\x1b[3;3~", "alt+delete"),
    ("\x1b\x1b[A", "alt+up"),
    ("\x1b[1;3A", "alt+up"),
    ("L", "shift+l"),
    ("a", "a"),
]

KITTY = [
    ("\x1b[13u", "enter"),
    ("\x1b[13;2u", "shift+enter"),
    ("\x1b[13;3u", "alt+enter"),
    ("\x1b[27u", "escape"),
    ("\x1b[9;2u", "shift+tab"),
    ("\x1b[127;5u", "ctrl+backspace"),
    ("\x1b[107;5u", "ctrl+k"),
    ("\x1b[112;6u", "ctrl+shift+p"),
    ("\x1b[102;6u", "ctrl+shift+f"),
    ("\x1b[45;5u", "ctrl+-"),
    ("\x1b[93;7u", "ctrl+alt+]"),
    ("\x1b[57414u", "enter"),  # keypad enter
    ("\x1b[1;5A", "ctrl+up"),
    ("\x1b[107;5:1u", "ctrl+k"),  # explicit press event
    ("\x1b[107;5:2u", "ctrl+k"),  # repeat still matches
    ("\x1b[1;9A", "super+up"),
]

MODIFY_OTHER_KEYS = [
    ("\x1b[27;2;13~", "shift+enter"),
    ("\x1b[27;5;13~", "ctrl+enter"),
    ("\x1b[27;3;13~", "alt+enter"),
    ("\x1b[27;5;107~", "ctrl+k"),
    ("\x1b[27;6;112~", "ctrl+shift+p"),
    ("\x1b[27;5;45~", "ctrl+-"),
]


@pytest.mark.parametrize(("data", "key"), LEGACY + KITTY + MODIFY_OTHER_KEYS)
def test_sequences_decode_to_key_ids(data: str, key: str) -> None:
    assert matches_key(data, key), (data, sorted(key_ids(data)))


def test_legacy_bytes_that_stand_for_several_keys() -> None:
    assert matches_key("\t", "tab") and matches_key("\t", "ctrl+i")
    assert matches_key("\r", "enter") and matches_key("\r", "ctrl+m")
    assert matches_key("\x08", "ctrl+h") and matches_key("\x08", "ctrl+backspace")
    assert not matches_key("\r", "shift+enter")


def test_modifier_order_and_aliases_in_key_ids() -> None:
    assert matches_key("\x1b[1;6A", "shift+ctrl+up")
    assert matches_key("\x1b", "esc")
    assert matches_key("\r", "return")
    assert matches_key("\x1b[5~", "pageup")
    assert normalize_key_id("Shift+Ctrl+P") == "ctrl+shift+p"
    assert normalize_key_id("ctrl+alt+]") == "ctrl+alt+]"
    assert normalize_key_id("ctrl++") == "ctrl++"
    assert normalize_key_id("hyper+x") is None
    assert normalize_key_id("ctrl+ctrl+x") is None
    assert normalize_key_id("ctrl+nope") is None


def test_kitty_release_events_match_nothing() -> None:
    assert is_key_release("\x1b[107;5:3u")
    assert is_key_release("\x1b[1;1:3A")
    assert not matches_key("\x1b[107;5:3u", "ctrl+k")
    assert not is_key_release("\x1b[107;5u")


def test_kitty_f13_and_modifier_keys_are_ignored() -> None:
    assert key_ids("\x1b[57376u") == frozenset()  # F13
    assert key_ids("\x1b[57441u") == frozenset()  # left shift


def test_shifted_symbols_from_kitty_alternate_keys() -> None:
    assert matches_key("\x1b[49:33;2u", "!")
    assert decode_printable("\x1b[49:33;2u") == "!"


def test_printable_text() -> None:
    assert decode_printable("a") == "a"
    assert decode_printable("中") == "中"
    assert decode_printable("\x1b[97u") == "a"
    assert decode_printable("\x1b[97;2u") == "A"
    assert decode_printable("\x1b[27;2;65~") == "A"
    assert decode_printable("\x1b[57400u") == "1"  # keypad 1
    assert not is_printable("\x1b[97;5u")  # ctrl+a inserts nothing
    assert not is_printable("\r")
    assert not is_printable("\x1b[A")
    assert not is_printable("\x1b[97;1:3u")


def test_parse_key_gives_a_canonical_name() -> None:
    assert parse_key("\r") == "enter"
    assert parse_key("\x1b[1;6A") == "ctrl+shift+up"
    assert parse_key("\x1b[127;5u") == "ctrl+backspace"
    assert parse_key("\x1b[999;5q") is None
