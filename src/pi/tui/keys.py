"""Decoding key sequences into key ids such as ``ctrl+k``, ``alt+enter`` or ``ctrl+shift+up``.

Terminals encode keys in several ways: legacy control bytes and escape prefixes, CSI/SS3 cursor
keys with a modifier parameter, xterm modifyOtherKeys (``CSI 27;mod;code~``) and the kitty keyboard
protocol (``CSI code[:shifted[:base]];mod[:event]u``). Every form is decoded to the same canonical
ids, so a binding written once matches whatever the terminal sends. One legacy byte can stand for
several keys (Tab is also Ctrl+I), so a sequence decodes to a set of ids.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "KeyEvent",
    "decode_printable",
    "is_key_release",
    "is_printable",
    "key_ids",
    "matches_key",
    "normalize_key_id",
    "parse_key",
]

MODIFIER_ORDER = ("ctrl", "shift", "alt", "super")
_SHIFT, _ALT, _CTRL, _SUPER = 1, 2, 4, 8
_MOD_BITS = {"shift": _SHIFT, "alt": _ALT, "ctrl": _CTRL, "super": _SUPER}

_NAMED_KEYS = {
    "escape": "escape",
    "esc": "escape",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "space": "space",
    "backspace": "backspace",
    "delete": "delete",
    "insert": "insert",
    "clear": "clear",
    "home": "home",
    "end": "end",
    "pageup": "pageUp",
    "pagedown": "pageDown",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 13)},
}
_SYMBOLS = set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?\"")

# Final bytes of CSI/SS3 cursor-style keys.
_LETTER_KEYS = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end", "E": "clear"}
_LETTER_KEYS |= {"P": "f1", "Q": "f2", "R": "f3", "S": "f4"}
# Numbers of CSI <n>~ keys.
_TILDE_KEYS = {
    1: "home",
    2: "insert",
    3: "delete",
    4: "end",
    5: "pageUp",
    6: "pageDown",
    7: "home",
    8: "end",
    11: "f1",
    12: "f2",
    13: "f3",
    14: "f4",
    15: "f5",
    17: "f6",
    18: "f7",
    19: "f8",
    20: "f9",
    21: "f10",
    23: "f11",
    24: "f12",
}
# Kitty functional key codes (private use area) that pi understands; other PUA codes are ignored.
_KITTY_KEYS = {
    57399: "0",
    57400: "1",
    57401: "2",
    57402: "3",
    57403: "4",
    57404: "5",
    57405: "6",
    57406: "7",
    57407: "8",
    57408: "9",
    57409: ".",
    57410: "/",
    57411: "*",
    57412: "-",
    57413: "+",
    57414: "enter",
    57415: "=",
    57417: "left",
    57418: "right",
    57419: "up",
    57420: "down",
    57421: "pageUp",
    57422: "pageDown",
    57423: "home",
    57424: "end",
    57425: "insert",
    57426: "delete",
}
_CODEPOINT_KEYS = {27: "escape", 13: "enter", 9: "tab", 127: "backspace", 8: "backspace", 32: "space"}

_KITTY_RE = re.compile(r"^\x1b\[(\d+)(?::(\d*))?(?::(\d+))?(?:;(\d*)(?::(\d+))?)?(?:;[\d:]*)?u$")
_MOK_RE = re.compile(r"^\x1b\[27;(\d+);(\d+)~$")
_CSI_RE = re.compile(r"^\x1b\[(\d*)(?:;(\d+)(?::(\d+))?)?([~A-Za-z^$@])$")
_SS3_RE = re.compile(r"^\x1bO(\d*)([A-Za-z])$")


class KeyEvent:
    """A decoded key: its base name, modifier bits and kitty event type (1 press, 2 repeat, 3 release)."""

    __slots__ = ("event", "key", "mods", "shifted", "text")

    def __init__(
        self, key: str, mods: int = 0, event: int = 1, text: str | None = None, shifted: str | None = None
    ) -> None:
        self.key = key
        self.mods = mods
        self.event = event
        self.text = text
        self.shifted = shifted

    def key_id(self) -> str:
        names = [m for m in MODIFIER_ORDER if self.mods & _MOD_BITS[m]]
        return "+".join([*names, self.key])


def normalize_key_id(key_id: str) -> str | None:
    """The canonical form of a key id (modifiers in a fixed order, aliases resolved), or None if invalid."""
    text = key_id.strip()
    if not text:
        return None
    if text.endswith("++"):
        parts = [*text[:-2].split("+"), "+"] if len(text) > 2 else ["+"]
    elif text == "+":
        parts = ["+"]
    else:
        parts = text.split("+")
    *mods, key = parts
    seen = set()
    for mod in mods:
        m = mod.lower()
        if m not in _MOD_BITS or m in seen:
            return None
        seen.add(m)
    lowered = key.lower()
    if lowered in _NAMED_KEYS:
        name = _NAMED_KEYS[lowered]
    elif len(key) == 1 and (key.isascii() and (key.isalnum() or key in _SYMBOLS)):
        name = key.lower()
    else:
        return None
    return "+".join([m for m in MODIFIER_ORDER if m in seen] + [name])


def _with_mods(key: str, mods: int) -> str:
    return KeyEvent(key, mods).key_id()


def _legacy_byte_ids(ch: str) -> set[str]:
    """Ids of a single legacy byte/character."""
    code = ord(ch)
    if ch == "\x1b":
        return {"escape", "ctrl+["}
    if ch == "\r":
        return {"enter", "ctrl+m"}
    if ch == "\n":
        return {"ctrl+j"}
    if ch == "\t":
        return {"tab", "ctrl+i"}
    if ch == "\x7f":
        return {"backspace"}
    if ch == "\x08":
        return {"ctrl+h", "ctrl+backspace"}
    if ch == "\x00":
        return {"ctrl+space", "ctrl+@", "ctrl+2"}
    if 1 <= code <= 26:
        return {"ctrl+" + chr(code + 96)}
    if ch == "\x1c":
        return {"ctrl+\\", "ctrl+4"}
    if ch == "\x1d":
        return {"ctrl+]", "ctrl+5"}
    if ch == "\x1e":
        return {"ctrl+^", "ctrl+6"}
    if ch == "\x1f":
        return {"ctrl+-", "ctrl+_", "ctrl+/", "ctrl+7"}
    if ch == " ":
        return {"space"}
    if ch.isascii() and ch.isalpha() and ch.isupper():
        return {"shift+" + ch.lower()}
    if ch.isascii() and ch.isprintable():
        return {ch}
    return set()


def _decode_codepoint(code: int, shifted: int | None, mods: int) -> str | None:
    if code in _CODEPOINT_KEYS:
        return _CODEPOINT_KEYS[code]
    if code in _KITTY_KEYS:
        return _KITTY_KEYS[code]
    if 57344 <= code <= 63743:  # other kitty functional keys: F13+, media, modifier keys
        return None
    if 32 < code < 127:
        ch = chr(code)
        if ch.isalpha():
            return ch.lower()
        return ch
    if code > 127:
        return chr(code).lower()
    return None


def _mods(text: str | None) -> int:
    """Modifier bits from a `1 + bitmask` parameter (caps and num lock ignored)."""
    return max(0, int(text) - 1) & 0b1111 if text else 0


def _kitty_event(m: re.Match[str]) -> KeyEvent | None:
    code = int(m.group(1))
    shifted = int(m.group(2)) if m.group(2) else None
    mods = _mods(m.group(4))
    key = _decode_codepoint(code, shifted, mods)
    if key is None:
        return None
    text = None
    if not mods & ~_SHIFT and 32 <= code < 57344 and code not in _CODEPOINT_KEYS:
        text = chr(shifted) if (mods & _SHIFT and shifted) else (chr(code).upper() if mods & _SHIFT else chr(code))
    elif code in _KITTY_KEYS and len(_KITTY_KEYS[code]) == 1 and not mods & ~_SHIFT:
        text = _KITTY_KEYS[code]
    shifted_key = chr(shifted) if shifted and 32 < shifted < 127 and not chr(shifted).isalnum() else None
    return KeyEvent(key, mods, int(m.group(5) or "1"), text, shifted_key)


def _modify_other_keys_event(m: re.Match[str]) -> KeyEvent | None:
    mods = _mods(m.group(1))
    code = int(m.group(2))
    key = _decode_codepoint(code, None, mods)
    if key is None:
        return None
    text = None
    if not mods & ~_SHIFT and 32 <= code < 127:
        text = chr(code).upper() if mods & _SHIFT else chr(code)
    return KeyEvent(key, mods, 1, text)


def _csi_event(m: re.Match[str]) -> KeyEvent | None:
    number, mod_text, event_text, final = m.groups()
    mods = _mods(mod_text)
    event = int(event_text) if event_text else 1
    if final == "~":
        name = _TILDE_KEYS.get(int(number or "0"))
        return KeyEvent(name, mods, event) if name else None
    if final == "Z":
        return KeyEvent("tab", mods | _SHIFT, event)
    if final in _LETTER_KEYS and number in ("", "1"):
        return KeyEvent(_LETTER_KEYS[final], mods, event)
    if final in "abcd" and not number:  # rxvt shift+arrows
        return KeyEvent(_LETTER_KEYS[final.upper()], _SHIFT)
    if final in "^@" and number:  # rxvt ctrl (^) and ctrl+shift (@) editing keys
        name = _TILDE_KEYS.get(int(number))
        return KeyEvent(name, _CTRL | (_SHIFT if final == "@" else 0)) if name else None
    if final == "$" and number:
        name = _TILDE_KEYS.get(int(number))
        return KeyEvent(name, _SHIFT) if name else None
    return None


def _ss3_event(m: re.Match[str]) -> KeyEvent | None:
    mod_text, final = m.groups()
    mods = _mods(mod_text)
    if final in _LETTER_KEYS:
        return KeyEvent(_LETTER_KEYS[final], mods)
    if final == "M":
        return KeyEvent("enter", mods)
    if final in "abcd":  # rxvt ctrl+arrows
        return KeyEvent(_LETTER_KEYS[final.upper()], _CTRL)
    return None


def decode_event(data: str) -> KeyEvent | None:
    """The structured key of an escape sequence (kitty, modifyOtherKeys, CSI, SS3), or None."""
    for pattern, decode in (
        (_KITTY_RE, _kitty_event),
        (_MOK_RE, _modify_other_keys_event),
        (_CSI_RE, _csi_event),
        (_SS3_RE, _ss3_event),
    ):
        m = pattern.match(data)
        if m:
            return decode(m)
    return None


@lru_cache(maxsize=1024)
def key_ids(data: str) -> frozenset[str]:
    """Every key id that `data` (one complete key sequence) can stand for; empty for releases."""
    if not data:
        return frozenset()
    if len(data) == 1:
        return frozenset(_legacy_byte_ids(data))
    if data[0] == "\x1b":
        event = decode_event(data)
        if event is not None:
            if event.event == 3:
                return frozenset()
            ids = {event.key_id()}
            if event.shifted and event.mods & _SHIFT:  # shift+1 is also "!"
                ids.add(KeyEvent(event.shifted, event.mods & ~_SHIFT).key_id())
            if event.key == "backspace" and event.mods == _CTRL:
                ids.add("ctrl+h")
            return frozenset(ids)
        rest = data[1:]
        if len(rest) == 1:  # ESC + key: alt
            return frozenset(_alt(i) for i in _legacy_byte_ids(rest))
        if rest.startswith("\x1b"):  # ESC + escape sequence: alt with that key
            return frozenset(_alt(i) for i in key_ids(rest))
        return frozenset()
    if len(data) > 1 and data.isprintable():
        return frozenset()
    return frozenset()


def _alt(key_id: str) -> str:
    normalized = normalize_key_id("alt+" + key_id)
    return normalized if normalized is not None else key_id


def parse_key(data: str) -> str | None:
    """The canonical id of a key sequence (the most specific reading), for display and debugging."""
    ids = key_ids(data)
    if not ids:
        return None
    preferred = (
        "enter",
        "tab",
        "escape",
        "backspace",
        "ctrl+backspace",
        "ctrl+space",
        "ctrl+-",
        "ctrl+]",
        "ctrl+\\",
        "ctrl+^",
    )
    for name in preferred:
        if name in ids:
            return name
    return min(ids, key=lambda i: (len(i), i))


def matches_key(data: str, key_id: str) -> bool:
    """Whether the key sequence `data` is the key `key_id` (any modifier order, aliases allowed)."""
    normalized = _normalized(key_id)
    return normalized is not None and normalized in key_ids(data)


@lru_cache(maxsize=1024)
def _normalized(key_id: str) -> str | None:
    return normalize_key_id(key_id)


def is_key_release(data: str) -> bool:
    """Whether `data` is a kitty key-release event."""
    if not data.startswith("\x1b["):
        return False
    event = decode_event(data)
    return event is not None and event.event == 3


def decode_printable(data: str) -> str | None:
    """The text a key inserts: plain printable characters, or a kitty/modifyOtherKeys key carrying text."""
    if not data:
        return None
    if data[0] != "\x1b":
        return data if data.isprintable() else None
    event = decode_event(data)
    if event is None or event.event == 3:
        return None
    return event.text


def is_printable(data: str) -> bool:
    """Whether `data` inserts text rather than being a command key."""
    return decode_printable(data) is not None
