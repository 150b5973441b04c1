"""The terminal: modes turned on for the UI, and turned off again on every way out.

`Terminal` keeps track of every mode it switched on (bracketed paste, the kitty keyboard protocol or
modifyOtherKeys, the alternate screen, mouse capture, a hidden cursor) so that `restore()` can turn
exactly those off, once, whether the program quits, crashes or is killed. `TtyTerminal` is the real
thing over file descriptors (termios raw mode, SIGWINCH, SIGTSTP/SIGCONT, SIGTERM/SIGHUP);
`fake_terminal.FakeTerminal` drives an in-memory screen for tests.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import logging
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping
from typing import Any

from pi.tui.input_buffer import InputBuffer, escape_timeout_ms

__all__ = [
    "ALT_SCREEN",
    "AUTOWRAP_OFF",
    "BRACKETED_PASTE",
    "CURSOR_HIDDEN",
    "KITTY_KEYBOARD",
    "MODIFY_OTHER_KEYS",
    "SYNC_BEGIN",
    "SYNC_END",
    "Terminal",
    "TtyTerminal",
    "mouse_on_sequence",
    "parse_color_reply",
    "program_status_sequence",
    "window_title",
]

logger = logging.getLogger(__name__)

SYNC_BEGIN = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
# (on, off) pairs of the modes the UI uses.
BRACKETED_PASTE = ("\x1b[?2004h", "\x1b[?2004l")
KITTY_KEYBOARD = ("\x1b[>7u", "\x1b[<u")
MODIFY_OTHER_KEYS = ("\x1b[>4;2m", "\x1b[>4;0m")
ALT_SCREEN = ("\x1b[?1049h", "\x1b[?1049l")
AUTOWRAP_OFF = ("\x1b[?7l", "\x1b[?7h")
CURSOR_HIDDEN = ("\x1b[?25l", "\x1b[?25h")
MOUSE_OFF = "\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?1002l\x1b[?1000l"
KITTY_QUERY = "\x1b[?u"
DA1_QUERY = "\x1b[c"
PROGRAM_STATUS_QUERY = "\x1b]7501;?\x1b\\"
CELL_SIZE_QUERY = "\x1b[16t"
PROGRAM_STATES = ("working", "blocked", "done", "error", "idle", "clear")

_KITTY_REPLY_RE = re.compile(r"^\x1b\[\?(\d+)u$")
_DA1_REPLY_RE = re.compile(r"^\x1b\[\?[\d;]*c$")
_CELL_SIZE_RE = re.compile(r"^\x1b\[6;(\d+);(\d+)t$")
_PROGRAM_STATUS_REPLY = "\x1b]7501;?"
_COLOR_REPLY_RE = re.compile(r"^\x1b\](10|11|4;(\d+));rgba?:([0-9a-fA-F]+)/([0-9a-fA-F]+)/([0-9a-fA-F]+)")
# Restore order: screen modes first, then paste, the key protocol and modifyOtherKeys (as pi exits).
_RESTORE_ORDER = ("mouse", "alt_screen", "autowrap_off", "paste", "kitty", "modify_other_keys")


def mouse_on_sequence(environ: Mapping[str, str]) -> str:
    """Mouse capture for fullscreen; all-motion tracking (?1003) only outside multiplexers."""
    seq = "\x1b[?1000h\x1b[?1002h\x1b[?1004h\x1b[?1006h"
    term = environ.get("TERM", "")
    multiplexed = any(environ.get(v) for v in ("TMUX", "ZELLIJ", "STY")) or term.startswith(("tmux", "screen"))
    return seq if multiplexed else seq + "\x1b[?1003h"


def _clean_title(text: str) -> str:
    return "".join(" " if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in text)


def window_title(cwd: str, session_name: str | None = None) -> str:
    """`π - <cwd basename>`, or `π - <name> - <cwd basename>` for a named session."""
    base = os.path.basename(os.path.normpath(cwd)) or cwd
    name = (session_name or "").strip()
    return _clean_title(f"π - {name} - {base}" if name else f"π - {base}")


def program_status_sequence(state: str, message: str | None = None, app: str = "pi") -> str:
    """OSC 7501 report: `ESC ] 7501 ; state=<state>:app=<app>[:msg=<base64>] ESC \\`."""
    if state not in PROGRAM_STATES:
        raise ValueError(f"unknown program state {state!r}; use one of {', '.join(PROGRAM_STATES)}")
    body = f"state={state}" if state == "clear" else f"state={state}:app={app}"
    if message and state != "clear":
        import base64

        body += ":msg=" + base64.b64encode(_clean_title(message).encode("utf-8")).decode("ascii")
    return f"\x1b]7501;{body}\x1b\\"


def _channel(hex_digits: str) -> int:
    top = (1 << (4 * len(hex_digits))) - 1
    return round(int(hex_digits, 16) * 255 / top)


def parse_color_reply(seq: str) -> tuple[str, int, tuple[int, int, int]] | None:
    """An OSC 10/11/4 colour reply as ("fg"|"bg"|"ansi", slot, rgb), or None."""
    m = _COLOR_REPLY_RE.match(seq)
    if not m:
        return None
    rgb = (_channel(m.group(3)), _channel(m.group(4)), _channel(m.group(5)))
    if m.group(1) == "10":
        return ("fg", -1, rgb)
    if m.group(1) == "11":
        return ("bg", -1, rgb)
    return ("ansi", int(m.group(2) or "0"), rgb)


class Terminal:
    """Mode bookkeeping shared by real and fake terminals. Subclasses provide output, size and input."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self.environ: Mapping[str, str] = dict(os.environ if environ is None else environ)
        self.modes: dict[str, str] = {}  # mode name -> sequence that turns it off
        self.kitty_flags: int | None = None
        self.replies_done = False
        self.palette_replies: dict[str, tuple[int, int, int]] = {}
        self.on_input: Callable[[str], None] | None = None
        #: After each batch of input (one read, or the sequences a timeout completed) reached `on_input`.
        self.on_input_batch: Callable[[], None] | None = None
        self.on_resize: Callable[[], None] | None = None
        self.on_replies: Callable[[], None] | None = None
        #: SIGTSTP from outside (the TUI suspends); SIGCONT (redraw); SIGTERM/SIGHUP or a dead terminal.
        self.on_suspend_signal: Callable[[], None] | None = None
        self.on_continue: Callable[[], None] | None = None
        self.on_terminate: Callable[[int], None] | None = None
        self.input_buffer = InputBuffer(timeout_ms=escape_timeout_ms(self.environ))
        self.dead = False
        #: Ask at start for the cell size in pixels (`CSI 16t`, when images are supported) and whether the
        #: terminal takes OSC 7501 program status (the interactive mode turns it on unless `PI_PROGRAM_STATUS=0`).
        self.query_cell_size = False
        self.query_program_status = False
        self.cell_size_px: tuple[int, int] | None = None  # (width, height) of one cell
        self.program_status_supported = False

    # --- to be provided by subclasses -------------------------------------------------------
    def write(self, data: str) -> None:
        raise NotImplementedError

    @property
    def columns(self) -> int:
        raise NotImplementedError

    @property
    def rows(self) -> int:
        raise NotImplementedError

    def set_raw(self, raw: bool) -> None:
        """Switch the input side between raw and cooked mode."""

    def suspend_process(self) -> None:
        """Stop the process (job control) until it is continued."""

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start reading input and handling signals on `loop` (nothing to do for in-memory terminals)."""

    def detach(self) -> None:
        """Stop reading input and handling signals."""

    def drain_input(self, max_seconds: float = 1.0) -> None:
        """Before exit: pop the key protocol, then discard pending input so none of it reaches the shell."""
        off = self.modes.pop("kitty", None)
        if off:
            self.write(off)

    def set_title(self, title: str) -> None:
        """The window title (OSC 0), control characters replaced by spaces."""
        self.write(f"\x1b]0;{_clean_title(title)}\x07")

    @property
    def program_status_enabled(self) -> bool:
        """OSC 7501 is sent only after the terminal answered its query, or with `PI_PROGRAM_STATUS=1`."""
        flag = self.environ.get("PI_PROGRAM_STATUS")
        if flag in ("0", "1"):
            return flag == "1"
        return self.program_status_supported

    def set_program_status(self, state: str, message: str | None = None) -> bool:
        """Report working/blocked/done/error/idle (OSC 7501) when enabled; True if written."""
        sequence = program_status_sequence(state, message)
        if not self.program_status_enabled:
            return False
        self.write(sequence)
        return True

    def set_progress(self, working: bool) -> None:
        """OSC 9;4 progress: indeterminate while working, cleared otherwise."""
        self.write("\x1b]9;4;3;\x07" if working else "\x1b]9;4;0;\x07")

    # --- modes ---------------------------------------------------------------------------------
    def _mode(self, name: str, pair: tuple[str, str]) -> str:
        if name in self.modes:
            return ""
        self.modes[name] = pair[1]
        return pair[0]

    def start_sequence(self, query_palette: bool = False) -> str:
        """Raw input modes: bracketed paste, then kitty push + query with DA1 as the sentinel."""
        out = self._mode("paste", BRACKETED_PASTE)
        out += self._mode("kitty", KITTY_KEYBOARD) + KITTY_QUERY
        if self.query_program_status:
            out += PROGRAM_STATUS_QUERY
        if self.query_cell_size:
            out += CELL_SIZE_QUERY
        if query_palette:
            out += "\x1b]10;?\x1b\\\x1b]11;?\x1b\\" + "".join(f"\x1b]4;{i};?\x1b\\" for i in range(16))
        return out + DA1_QUERY

    def start(self, query_palette: bool = False) -> None:
        """Raw mode and input modes on; replies are consumed by `handle_reply`."""
        self.set_raw(True)
        self.modes.setdefault("raw", "")
        self.replies_done = False
        self.write(self.start_sequence(query_palette))

    def handle_reply(self, seq: str) -> bool:
        """Consume a terminal reply (kitty flags, DA1, colours); False for ordinary input."""
        if not seq.startswith("\x1b"):
            return False
        m = _KITTY_REPLY_RE.match(seq)
        if m:
            self.kitty_flags = int(m.group(1))
            return True
        if seq.startswith(_PROGRAM_STATUS_REPLY):
            self.program_status_supported = True
            return True
        size = _CELL_SIZE_RE.match(seq)
        if size:
            self.cell_size_px = (int(size.group(2)), int(size.group(1)))
            if self.replies_done and self.on_replies is not None:
                self.on_replies()
            return True
        if _DA1_REPLY_RE.match(seq):
            if not self.kitty_flags and "modify_other_keys" not in self.modes:
                self.write(self._mode("modify_other_keys", MODIFY_OTHER_KEYS))
            first = not self.replies_done
            self.replies_done = True
            if first and self.on_replies is not None:
                self.on_replies()
            return True
        color = parse_color_reply(seq)
        if color is not None:
            kind, slot, rgb = color
            self.palette_replies[kind if kind != "ansi" else f"ansi{slot}"] = rgb
            if self.replies_done and self.on_replies is not None:
                self.on_replies()  # a late answer still applies
            return True
        return False

    @property
    def kitty_active(self) -> bool:
        return bool(self.kitty_flags)

    def enter_fullscreen_sequence(self, mouse: bool = True) -> str:
        out = self._mode("alt_screen", ALT_SCREEN) + self._mode("autowrap_off", AUTOWRAP_OFF)
        out += "\x1b[2J\x1b[H" + self._mode("cursor_hidden", CURSOR_HIDDEN)
        if mouse and "mouse" not in self.modes:
            self.modes["mouse"] = MOUSE_OFF
            out += mouse_on_sequence(self.environ)
        return out

    def leave_fullscreen_sequence(self) -> str:
        out = ""
        for name in ("mouse", "autowrap_off", "alt_screen"):
            off = self.modes.pop(name, None)
            if off:
                out += off
        return out

    def cursor_sequence(self, visible: bool) -> str:
        if visible:
            off = self.modes.pop("cursor_hidden", None)
            return off or ""
        return self._mode("cursor_hidden", CURSOR_HIDDEN)

    def restore_sequence(self) -> str:
        """Everything that is on, turned off (and the end of any synchronized frame)."""
        out = SYNC_END
        for name in _RESTORE_ORDER:
            off = self.modes.pop(name, None)
            if off:
                out += off
        self.modes.pop("cursor_hidden", None)
        for name in list(self.modes):
            if name != "raw":
                out += self.modes.pop(name)
        return out + CURSOR_HIDDEN[1]  # the cursor is shown whatever state it was left in

    def restore(self) -> None:
        """Leave the terminal as it was found: no mouse reports, key protocol or paste mode left on.

        Idempotent: a second call writes nothing.
        """
        if not self.modes:
            return
        raw = "raw" in self.modes
        seq = self.restore_sequence()
        self.modes.clear()
        with contextlib.suppress(OSError):
            self.write(seq)
        if raw:
            with contextlib.suppress(OSError):
                self.set_raw(False)

    def suspend_modes(self) -> list[str]:
        """Turn every mode off for a job-control stop; returns what to turn back on."""
        active = [name for name in _RESTORE_ORDER if name in self.modes]
        self.restore()
        return active

    def resume_modes(self, active: list[str]) -> None:
        """Back to raw input after a stop (the renderer redraws the screen)."""
        self.set_raw(True)
        self.modes.setdefault("raw", "")
        out = self._mode("paste", BRACKETED_PASTE) + self._mode("kitty", KITTY_KEYBOARD)
        if "modify_other_keys" in active:
            out += self._mode("modify_other_keys", MODIFY_OTHER_KEYS)
        self.write(out)

    # --- input ---------------------------------------------------------------------------------
    def feed_bytes(self, data: bytes | str) -> list[str]:
        """Split input and dispatch it; returns the sequences that reached `on_input`."""
        return self._dispatch(self.input_buffer.feed(data))

    def flush_input(self) -> list[str]:
        return self._dispatch(self.input_buffer.flush())

    def _dispatch(self, sequences: list[str]) -> list[str]:
        delivered = []
        for seq in sequences:
            if self.handle_reply(seq):
                continue
            delivered.append(seq)
            if self.on_input is not None:
                self.on_input(seq)
        if delivered and self.on_input_batch is not None:
            self.on_input_batch()
        return delivered


class TtyTerminal(Terminal):
    """A real terminal on file descriptors, driven by an asyncio loop."""

    def __init__(self, input_fd: int = 0, output_fd: int = 1, environ: Mapping[str, str] | None = None) -> None:
        super().__init__(environ)
        self.input_fd = input_fd
        self.output_fd = output_fd
        self._saved_attrs: list[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._flush_handle: asyncio.TimerHandle | None = None
        self._size = os.terminal_size((80, 24))
        self._refresh_size()
        self._atexit_registered = False
        self._write_log = self.environ.get("PI_TUI_WRITE_LOG") or None

    def _refresh_size(self) -> None:
        with contextlib.suppress(OSError):
            self._size = os.get_terminal_size(self.output_fd)

    @property
    def columns(self) -> int:
        return max(1, self._size.columns)

    @property
    def rows(self) -> int:
        return max(1, self._size.lines)

    def write(self, data: str) -> None:
        if self.dead or not data:
            return
        if self._write_log is not None:
            self._log_write(data)
        view = memoryview(data.encode("utf-8", errors="replace"))
        while view:
            try:
                written = os.write(self.output_fd, view)
            except BlockingIOError:
                continue
            except OSError as exc:
                if exc.errno in (errno.EIO, errno.EPIPE, errno.EBADF):
                    self.dead = True  # the terminal went away; nothing more can be shown
                    return
                raise
            view = view[written:]

    def _log_write(self, data: str) -> None:
        """`PI_TUI_WRITE_LOG`: append everything written, for debugging rendering."""
        try:
            with open(self._write_log or "", "a", encoding="utf-8") as log:
                log.write(data)
        except OSError:
            self._write_log = None

    def drain_input(self, max_seconds: float = 1.0) -> None:
        super().drain_input(max_seconds)
        import select
        import time

        deadline = time.monotonic() + max_seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                ready, _, _ = select.select([self.input_fd], [], [], min(left, 0.05))
                if not ready or not os.read(self.input_fd, 65536):
                    return
            except (OSError, ValueError):
                return

    def set_raw(self, raw: bool) -> None:
        import termios

        try:
            if raw:
                if self._saved_attrs is None:
                    self._saved_attrs = termios.tcgetattr(self.input_fd)
                attrs = termios.tcgetattr(self.input_fd)
                attrs[0] &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
                attrs[1] |= termios.OPOST | termios.ONLCR
                attrs[2] |= termios.CS8
                attrs[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
                attrs[6][termios.VMIN] = 1
                attrs[6][termios.VTIME] = 0
                termios.tcsetattr(self.input_fd, termios.TCSANOW, attrs)
            elif self._saved_attrs is not None:
                termios.tcsetattr(self.input_fd, termios.TCSANOW, self._saved_attrs)
        except termios.error as exc:
            logger.debug("terminal mode change failed: %s", exc)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read input and handle signals on `loop`."""
        self._loop = loop
        loop.add_reader(self.input_fd, self._on_readable)
        for sig, handler in (
            (signal.SIGWINCH, self._on_winch),
            (signal.SIGTSTP, self._on_tstp),
            (signal.SIGCONT, self._on_cont),
            (signal.SIGTERM, lambda: self._on_terminate(signal.SIGTERM)),
            (signal.SIGHUP, lambda: self._on_terminate(signal.SIGHUP)),
        ):
            loop.add_signal_handler(sig, handler)
        if not self._atexit_registered:
            atexit.register(self.restore)
            self._atexit_registered = True

    def detach(self) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(self.input_fd)
        for sig in (signal.SIGWINCH, signal.SIGTSTP, signal.SIGCONT, signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(sig)
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._loop = None

    def restore(self) -> None:
        super().restore()
        if self._atexit_registered and not self.modes:
            with contextlib.suppress(Exception):
                atexit.unregister(self.restore)
            self._atexit_registered = False

    def _on_readable(self) -> None:
        try:
            data = os.read(self.input_fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # EOF or a dead terminal
            self.dead = True
            if self._loop is not None:
                with contextlib.suppress(ValueError, OSError):
                    self._loop.remove_reader(self.input_fd)
            if self.on_terminate is not None:
                self.on_terminate(signal.SIGHUP)
            return
        self.feed_bytes(data)
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self.input_buffer.has_pending() and not self.input_buffer.in_paste() and self._loop is not None:
            self._flush_handle = self._loop.call_later(self.input_buffer.timeout_ms / 1000, self._on_timeout)

    def _on_timeout(self) -> None:
        self._flush_handle = None
        self.flush_input()

    def _on_winch(self) -> None:
        self._refresh_size()
        if self.on_resize is not None:
            self.on_resize()

    def _on_tstp(self) -> None:
        if self.on_suspend_signal is not None:
            self.on_suspend_signal()
        else:
            active = self.suspend_modes()
            self.suspend_process()
            self.resume_modes(active)

    def _on_cont(self) -> None:
        self._refresh_size()
        if self.on_continue is not None:
            self.on_continue()

    def _on_terminate(self, sig: int) -> None:
        if self.on_terminate is not None:
            self.on_terminate(sig)
            return
        self.restore()
        self.detach()
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)

    def suspend_process(self) -> None:
        """Stop the process group with SIGTSTP (SIGINT ignored meanwhile); returns once continued."""
        if sys.platform == "win32":
            return
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(signal.SIGTSTP)
        previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        try:
            os.kill(0, signal.SIGTSTP)
        finally:
            signal.signal(signal.SIGINT, previous_int)
            if loop is not None:
                loop.add_signal_handler(signal.SIGTSTP, self._on_tstp)
            self._refresh_size()
