"""Terminal cell widths of styled text, and the cutting operations built on them.

Every component promises lines no wider than the terminal; these functions are how they keep the
promise. Escape sequences (SGR, OSC 8 links, APC markers) take no cells, East-Asian wide characters
and emoji take two, combining marks none, and a tab is shown as three spaces. Plain ASCII text is the
common case and is measured with string methods only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from types import ModuleType
from typing import ClassVar

__all__ = [
    "ANSI_RE",
    "SgrState",
    "pad_to_width",
    "slice_columns",
    "strip_ansi",
    "truncate_to_width",
    "visible_width",
    "wrap_text_with_ansi",
]

#: One escape sequence: CSI, OSC/DCS/APC/PM/SOS strings ended by BEL or ST, or a two-byte escape.
ANSI_RE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]P_^X][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])",
)
_SPLIT_RE = re.compile(f"({ANSI_RE.pattern})")
_WORD_RE = re.compile(r"( +)")
_TAB = "   "
# ASCII control characters take no cell; a tab becomes three spaces.
_ASCII_CONTROLS = {c: None for c in range(32)} | {9: _TAB, 127: None}
_SGR_RESET = "\x1b[0m"
_OSC8_CLOSE = "\x1b]8;;\x1b\\"

#: Characters the UI draws on every frame (box drawing, block elements, the spinner's braille, the
#: footer's arrows and bullets) that take exactly one cell each and never join a neighbour into a
#: grapheme. Text made only of these and printable ASCII is measured without the Unicode tables, so
#: the first frame does not wait for `wcwidth` to load; tests check every one against wcwidth.
NARROW_SYMBOLS = frozenset(
    "\u00b7\u2022\u2026\u2190\u2191\u2192\u2193\u23ce\u25b6\u25b8\u25cb\u25cf\u2713\u2717"
    + "".join(chr(c) for c in range(0x2500, 0x25A0))
    + "".join(chr(c) for c in range(0x2800, 0x2900))
)
_wcwidth_module: ModuleType | None = None


def _wc() -> ModuleType:
    """`wcwidth`, imported the first time text needs its tables (it costs tens of milliseconds)."""
    global _wcwidth_module
    if _wcwidth_module is None:
        import wcwidth

        _wcwidth_module = wcwidth
    return _wcwidth_module


def _all_narrow(text: str) -> bool:
    """Every character is printable ASCII or one of `NARROW_SYMBOLS`: one cell each."""
    return all((" " <= ch <= "~") or ch in NARROW_SYMBOLS for ch in text)


def strip_ansi(text: str) -> str:
    """Text without its escape sequences."""
    if "\x1b" not in text:
        return text
    return ANSI_RE.sub("", text)


def visible_width(text: str) -> int:
    """Terminal cells that `text` occupies."""
    if text.isascii():
        if text.isprintable():
            return len(text)
        if "\x1b" in text:
            text = ANSI_RE.sub("", text)
            if text.isprintable():
                return len(text)
        return len(text.translate(_ASCII_CONTROLS))
    return _wide_text_width(text)


_ZWJ = "\u200d"


@lru_cache(maxsize=8192)
def _wide_text_width(text: str) -> int:
    text = strip_ansi(text)
    if "\t" in text:
        text = text.replace("\t", _TAB)
    if _all_narrow(text):
        return len(text)
    wcwidth = _wc()
    if _ZWJ not in text:
        width = wcwidth.wcswidth(text)
        if width >= 0:
            return int(width)
    # Control characters are present, or a zero-width joiner: count grapheme by grapheme, as
    # `_cells` does. Over a whole string wcswidth joins a ZWJ with whatever follows it, even a
    # space or a letter outside any emoji sequence, which the terminal still shows in its cell.
    return sum(_grapheme_width(g) for g in wcwidth.iter_graphemes(text))


def _grapheme_width(grapheme: str) -> int:
    if grapheme.isascii():
        return 1 if grapheme.isprintable() else 0
    if len(grapheme) == 1 and grapheme in NARROW_SYMBOLS:
        return 1
    width = _wc().wcswidth(grapheme)
    return int(width) if width > 0 else 0


def _tokens(text: str) -> list[str]:
    """Alternating text/escape pieces: even indices are text, odd indices escape sequences."""
    if "\x1b" not in text:
        return [text]
    return _SPLIT_RE.split(text)


def _cells(segment: str) -> Iterator[tuple[str, int]]:
    """Graphemes of a text segment (no escapes) with their widths."""
    if segment.isascii():
        for ch in segment:
            yield ch, (1 if ch.isprintable() else 0)
        return
    if _all_narrow(segment):
        for ch in segment:
            yield ch, 1
        return
    for grapheme in _wc().iter_graphemes(segment):
        yield grapheme, _grapheme_width(grapheme)


class SgrState:
    """The SGR attributes in effect at some point of a line, so they can be re-opened elsewhere.

    Foreground, background and underline colour are kept as their last parameter strings; other
    attributes as a set of their "on" codes. An OSC 8 hyperlink left open is tracked as well.
    """

    __slots__ = ("attrs", "bg", "fg", "link", "ul")

    _OFF: ClassVar[dict[int, tuple[int, ...]]] = {
        22: (1, 2),
        23: (3,),
        24: (4,),
        25: (5, 6),
        27: (7,),
        28: (8,),
        29: (9,),
    }

    def __init__(self) -> None:
        self.fg = ""
        self.bg = ""
        self.ul = ""
        self.attrs: dict[int, None] = {}
        self.link = ""

    def reset(self) -> None:
        self.fg = self.bg = self.ul = ""
        self.attrs = {}

    def apply(self, sequence: str) -> None:
        """Update the state with one escape sequence (non-SGR sequences other than OSC 8 are ignored)."""
        if sequence.startswith("\x1b]8;"):
            end = sequence.find(";", 4)
            url = sequence[end + 1 :].rstrip("\x07").removesuffix("\x1b\\") if end >= 0 else ""
            self.link = sequence if url else ""
            return
        if not (sequence.startswith("\x1b[") and sequence.endswith("m")):
            return
        body = sequence[2:-1]
        if not body:
            self.reset()
            return
        params = body.replace(":", ";").split(";")
        i = 0
        while i < len(params):
            code = int(params[i]) if params[i].isdigit() else 0
            if code in (38, 48, 58):
                take = 3 if i + 1 < len(params) and params[i + 1] == "5" else 5
                value = ";".join(params[i : i + take])
                if code == 38:
                    self.fg = value
                elif code == 48:
                    self.bg = value
                else:
                    self.ul = value
                i += take
                continue
            self._apply_code(code, params[i])
            i += 1

    def _apply_code(self, code: int, raw: str) -> None:
        if code == 0:
            self.reset()
        elif 30 <= code <= 37 or 90 <= code <= 97:
            self.fg = raw
        elif code == 39:
            self.fg = ""
        elif 40 <= code <= 47 or 100 <= code <= 107:
            self.bg = raw
        elif code == 49:
            self.bg = ""
        elif code == 59:
            self.ul = ""
        elif code in self._OFF:
            for on in self._OFF[code]:
                self.attrs.pop(on, None)
        elif 1 <= code <= 9 or code == 53:
            self.attrs[code] = None

    def open(self) -> str:
        """The escape sequences that re-establish this state after a reset."""
        params = [str(a) for a in self.attrs]
        params.extend(p for p in (self.fg, self.bg, self.ul) if p)
        sgr = f"\x1b[{';'.join(params)}m" if params else ""
        return sgr + self.link

    def close(self) -> str:
        """What to write at a line end so that nothing leaks to the next row."""
        return _OSC8_CLOSE if self.link else ""


def truncate_to_width(text: str, width: int, ellipsis: str = "...") -> str:
    """`text` cut to at most `width` cells; when cut, the ellipsis and a reset are appended."""
    if width <= 0:
        return ""
    if visible_width(text) <= width:
        return text
    ellipsis_width = visible_width(ellipsis)
    if ellipsis_width > width:
        ellipsis, ellipsis_width = "", 0
    head = _take_cells(text, width - ellipsis_width)
    return head + _SGR_RESET + ellipsis + _SGR_RESET if ellipsis else head + _SGR_RESET


def _take_cells(text: str, limit: int) -> str:
    """The longest prefix of `text` that fits in `limit` cells (escapes before the cut kept)."""
    out: list[str] = []
    used = 0
    for index, piece in enumerate(_tokens(text.replace("\t", _TAB) if "\t" in text else text)):
        if index % 2:
            out.append(piece)
            continue
        if not piece:
            continue
        if piece.isascii() and piece.isprintable():
            room = limit - used
            if len(piece) <= room:
                out.append(piece)
                used += len(piece)
                continue
            out.append(piece[:room])
            break
        for grapheme, w in _cells(piece):
            if used + w > limit:
                return "".join(out)
            out.append(grapheme)
            used += w
    else:
        return "".join(out)
    return "".join(out)


def pad_to_width(text: str, width: int) -> str:
    """`text` right-padded with spaces (or truncated) to exactly `width` cells."""
    current = visible_width(text)
    if current > width:
        text = truncate_to_width(text, width, "")
        current = visible_width(text)
    return text + " " * (width - current)


def slice_columns(text: str, start: int, end: int) -> str:
    """Cells [start, end) of a line; styles active at `start` are re-opened at the front.

    A wide character cut by either edge is replaced by spaces so columns stay aligned.
    """
    if end <= start:
        return ""
    if "\t" in text:
        text = text.replace("\t", _TAB)
    state = SgrState()
    out: list[str] = []
    col = 0
    started = False
    for index, piece in enumerate(_tokens(text)):
        if col >= end:
            break
        if index % 2:
            if started:
                out.append(piece)
            else:
                state.apply(piece)
            continue
        if not piece:
            continue
        if piece.isascii() and piece.isprintable() and col + len(piece) <= start:
            col += len(piece)
            continue
        for grapheme, w in _cells(piece):
            if col >= end:
                break
            if col + w <= start:
                col += w
                continue
            if not started:
                out.append(state.open())
                started = True
            if col < start:  # wide character cut on the left
                out.append(" " * (col + w - start))
            elif col + w > end:  # wide character cut on the right
                out.append(" " * (end - col))
            else:
                out.append(grapheme)
            col += w
    return "".join(out)


def wrap_text_with_ansi(text: str, width: int) -> list[str]:
    """Word-wrap to lines of at most `width` cells, re-opening active styles on continued lines."""
    if width <= 0:
        return [""]
    if "\t" in text:
        text = text.replace("\t", _TAB)
    result: list[str] = []
    state = SgrState()
    for line in text.split("\n"):
        prefix = state.open()
        _scan(state, line)
        if visible_width(line) <= width:
            result.append(prefix + line if prefix else line)
            continue
        if not prefix and "\x1b" not in line:
            result.extend(_wrap_plain(line, width))
        else:
            result.extend(_wrap_line(prefix + line, width))
    return result


_NON_SPACE_RE = re.compile(r"[^ ]")


def _wrap_ascii(line: str, width: int) -> list[str] | None:
    """Greedy wrap of printable ASCII: one `rfind` per output line; None if a word is too long."""
    lines: list[str] = []
    pos = 0
    n = len(line)
    while n - pos > width:
        cut = line.rfind(" ", pos, pos + width + 1)
        if cut < 0:
            return None
        lines.append(line[pos:cut].rstrip(" "))
        m = _NON_SPACE_RE.search(line, cut)
        if m is None:
            return lines
        pos = m.start()
    lines.append(line[pos:].rstrip(" "))
    return lines


def _wrap_plain(line: str, width: int) -> list[str]:
    """Greedy word wrap of text without escapes (the common case), using string methods only."""
    if line.isascii() and line.isprintable():
        fast = _wrap_ascii(line, width)
        return fast if fast is not None else _wrap_line(line, width)
    measure = visible_width
    parts = _WORD_RE.split(line)
    if max(map(measure, parts)) > width and any(p[:1] != " " and measure(p) > width for p in parts):
        return _wrap_line(line, width)  # a word longer than a line: break it by cells
    lines: list[str] = []
    current: list[str] = []
    used = 0
    for part in parts:
        if not part:
            continue
        w = measure(part)
        if part[0] == " ":
            if used == 0 and lines:
                continue  # no leading spaces on a continued line
            if used + w <= width:
                current.append(part)
                used += w
            else:
                lines.append("".join(current).rstrip(" "))
                current, used = [], 0
            continue
        if used + w <= width:
            current.append(part)
            used += w
        else:
            lines.append("".join(current).rstrip(" "))
            current, used = [part], w
    last = "".join(current).rstrip(" ")
    if last or not lines:
        lines.append(last)
    return lines


def _scan(state: SgrState, text: str) -> None:
    if "\x1b" in text:
        for match in ANSI_RE.finditer(text):
            state.apply(match.group())


def _split_words(line: str) -> list[str]:
    """Runs of spaces and runs of non-spaces, escapes kept with the run they precede or end."""
    pieces: list[str] = []
    for index, token in enumerate(_tokens(line)):
        if index % 2:
            if pieces:
                pieces[-1] += token
            else:
                pieces.append(token)
            continue
        for part in _WORD_RE.split(token):
            if part:
                pieces.append(part)
    return pieces


def _wrap_line(line: str, width: int) -> list[str]:
    lines: list[str] = []
    state = SgrState()
    current: list[str] = []
    current_width = 0

    def flush() -> None:
        nonlocal current, current_width
        text = "".join(current).rstrip(" ")
        _scan(state, text)
        lines.append(text + state.close())
        current = [state.open()]
        current_width = 0

    for word in _split_words(line):
        w = visible_width(word)
        is_space = w > 0 and strip_ansi(word).strip(" ") == ""
        if is_space:
            if current_width == 0 and lines:
                current.append(strip_spaces(word))
            elif current_width + w <= width:
                current.append(word)
                current_width += w
            else:
                flush()
                current.append(strip_spaces(word))
            continue
        if current_width + w <= width:
            current.append(word)
            current_width += w
            continue
        if w <= width and current_width > 0:
            flush()
            current.append(word)
            current_width = w
            continue
        # A word longer than a line: break it by cells.
        rest = word
        while visible_width(rest) > width - current_width:
            head = _take_cells(rest, width - current_width)
            if not strip_ansi(head) and current_width == 0:
                head = _take_cells(rest, width)  # a wide character that never fits: give up cleanly
                if not strip_ansi(head):
                    rest = ""
                    break
            current.append(head)
            rest = rest[len(head) :]
            flush()
        current.append(rest)
        current_width += visible_width(rest)
    text = "".join(current).rstrip(" ")
    if lines and not strip_ansi(text):
        return lines  # only trailing spaces were left: no empty row for them
    _scan(state, text)
    lines.append(text + state.close())
    return lines


def strip_spaces(word: str) -> str:
    """The escapes of a whitespace run without its spaces (styles survive a dropped break space)."""
    return word.replace(" ", "")
