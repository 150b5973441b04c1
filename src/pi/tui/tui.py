"""The TUI: one component tree, shown by the fullscreen or the regular renderer, driven by input.

The tree is a *document* (header, transcript) and a *dock* (queue, widgets, editor, footer). In
regular mode they are one inline stack; in fullscreen the document scrolls above the fixed dock.
Frames are requested by whoever changed something and coalesced: at most one frame per 16 ms, each
written in a single synchronized-output write. Switching modes keeps the tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pi.tui.component import Component, Container, Focusable
from pi.tui.keybindings import KeybindingsManager
from pi.tui.overlay import Anchor, Overlay, composite
from pi.tui.render_fullscreen import EDITOR_MIN_ROWS, FullscreenRenderer, ScrollbarMode, compose_screen, pill_span
from pi.tui.render_regular import RegularRenderer, WidthOverflow
from pi.tui.scroll_view import ScrollView, WheelAccelerator
from pi.tui.terminal import SYNC_BEGIN, SYNC_END, Terminal
from pi.tui.text_width import visible_width
from pi.tui.theme import Theme
from pi.tui.tui_input import MouseEvent, handle_mouse, handle_scroll_key

if TYPE_CHECKING:
    from pi.tui.capabilities import ImageProtocol
    from pi.tui.flash import FlashController
    from pi.tui.image import ImageRegistry

__all__ = ["EDITOR_MIN_ROWS", "TUI", "InputListener", "Mode", "MouseHandler", "RowDecorator", "TUIStopped"]

logger = logging.getLogger(__name__)

Mode = Literal["fullscreen", "regular"]
ExitOutput = Literal["transcript", "resume-hint"]
#: Sees every key sequence before the focused component; returns True to consume it.
InputListener = Callable[[str], bool]
#: Sees fullscreen mouse events the TUI did not use itself (wheel, pill, scrollbar); True if handled.
MouseHandler = Callable[[MouseEvent], bool]
#: Restyles the visible transcript rows of a fullscreen frame: (rows, first document line, width) -> rows.
RowDecorator = Callable[[list[str], int, int], list[str]]
FRAME_INTERVAL = 0.016
#: How long an `auto` scrollbar stays after the view was scrolled (pi: 1 s).
SCROLLBAR_SHOW_SECONDS = 1.0


class TUIStopped(Exception):
    """The TUI stopped itself (a render error); the message says why."""


class TUI:
    """Owns the terminal while running. See `start`, `stop`, `request_render`, `set_mode`."""

    def __init__(
        self,
        terminal: Terminal,
        document: Container | None = None,
        dock: Container | None = None,
        *,
        mode: Mode = "fullscreen",
        keybindings: KeybindingsManager | None = None,
        theme: Theme | None = None,
        scrollbar: ScrollbarMode = "auto",
        clear_on_shrink: bool | None = None,
        show_hardware_cursor: bool | None = None,
        crash_log_path: Path | None = None,
        wheel_lines: int | str = "auto",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.terminal = terminal
        self.document = document if document is not None else Container()
        self.dock = dock if dock is not None else Container()
        self.mode: Mode = mode
        self.keybindings = keybindings or KeybindingsManager()
        self.theme = theme
        self.scrollbar: ScrollbarMode = scrollbar
        self.crash_log_path = crash_log_path
        self.clock = clock
        self.scroll = ScrollView()
        self.wheel = WheelAccelerator(wheel_lines)
        self.overlays: list[Overlay] = []
        self.focused: Focusable | None = None
        self.input_listeners: list[InputListener] = []
        self.mouse_handlers: list[MouseHandler] = []
        self.row_decorators: list[RowDecorator] = []
        #: Called with True/False when the terminal gains or loses focus (mouse mode ?1004).
        self.focus_listeners: list[Callable[[bool], None]] = []
        self.images: ImageRegistry | None = None
        self._flash: FlashController | None = None
        self.dock_min_rows: dict[int, int] = {}
        env = terminal.environ
        if clear_on_shrink is None:
            clear_on_shrink = env.get("PI_CLEAR_ON_SHRINK") == "1"
        if show_hardware_cursor is None:
            show_hardware_cursor = env.get("PI_HARDWARE_CURSOR") == "1"
        self.regular = RegularRenderer(clear_on_shrink, show_hardware_cursor)
        self.fullscreen = FullscreenRenderer(show_hardware_cursor)
        self.running = False
        self.stopped_reason: str | None = None
        self.frames = 0
        self._view_height = 0
        self._doc_width = 0
        self.dragging_scrollbar = False
        self._bar_timer: asyncio.TimerHandle | None = None
        self.terminal_focused = True
        #: Called with the error when a scheduled frame fails (after the terminal is restored).
        self.on_fatal: Callable[[BaseException], None] | None = None
        self._frame_handle: asyncio.Handle | None = None
        self._last_frame = -1.0
        self._dirty = False
        self._focus_stack: list[Focusable | None] = []

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self, query_palette: bool = False) -> None:
        """Take the terminal: raw input, key protocol, and (fullscreen) the alternate screen."""
        term = self.terminal
        term.on_input = self.handle_input
        term.on_input_batch = self._draw_input_now
        term.on_resize = lambda: self.request_render(full=True)
        if term.on_suspend_signal is None:
            term.on_suspend_signal = self.suspend
        if term.on_continue is None:
            term.on_continue = self._on_continue
        with contextlib.suppress(RuntimeError):  # without a running loop the owner feeds input itself
            term.attach(asyncio.get_running_loop())
        term.start(query_palette)
        self.running = True
        if self.mode == "fullscreen":
            term.write(term.enter_fullscreen_sequence())
        else:
            term.write(term.cursor_sequence(False))
        self.regular.reset()
        self.fullscreen.reset()
        self.render_now()

    def stop(self, exit_output: ExitOutput = "transcript") -> None:
        """Give the terminal back. Fullscreen with `transcript` prints the whole document inline."""
        if not self.running:
            self.terminal.restore()
            return
        self.running = False
        self._cancel_frame()
        term = self.terminal
        try:
            term.drain_input()
            if self.mode == "fullscreen":
                term.write(term.leave_fullscreen_sequence())
                if exit_output == "transcript":
                    term.write(self._inline_print(self.document.render(term.columns) + self._dock_lines(term.columns)))
            else:
                term.write(self.regular.end())
        except Exception:
            logger.exception("printing the transcript on exit failed")
        finally:
            term.restore()
            term.detach()

    def __enter__(self) -> TUI:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _inline_print(self, lines: list[str]) -> str:
        printer = RegularRenderer()
        prefix = ""
        if self.images is not None:
            lines = self.images.resolve(lines, crop=False)
            prefix = self.images.take_output()
        try:
            body = printer.frame(lines, self.terminal.columns, self.terminal.rows)
        except WidthOverflow:
            return ""
        return prefix + body + printer.end()

    # --- frames ------------------------------------------------------------------------------
    def request_render(self, full: bool = False) -> None:
        """Ask for a frame; requests within one frame interval are merged."""
        if full:
            self.regular.reset(fresh=False)
            self.fullscreen.reset()
        self._dirty = True
        if not self.running or self._frame_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the owner calls render_now()
        delay = max(0.0, self._last_frame + FRAME_INTERVAL - self.clock())
        self._frame_handle = loop.call_later(delay, self._on_frame_timer)

    def _on_frame_timer(self) -> None:
        self._frame_handle = None
        if not self._dirty:
            return
        try:
            self.render_now()
        except Exception as exc:
            # A frame failed outside any caller's try block: give the terminal back first.
            if self.running:
                self.stop("resume-hint")
            if self.on_fatal is None:
                raise
            self.on_fatal(exc)

    def _draw_input_now(self) -> None:
        """Draw what a batch of input (one read) changed now, not at the next frame slot: while a reply
        streams, a key typed just after a frame would otherwise wait up to `FRAME_INTERVAL` to show."""
        if self._frame_handle is not None:
            self._frame_handle.cancel()
        self._on_frame_timer()

    def _cancel_frame(self) -> None:
        if self._frame_handle is not None:
            self._frame_handle.cancel()
            self._frame_handle = None
        if self._bar_timer is not None:
            self._bar_timer.cancel()
            self._bar_timer = None

    def render_now(self) -> None:
        """Render and write one frame immediately."""
        if not self.running:
            return
        self._dirty = False
        self._last_frame = self.clock()
        term = self.terminal
        width, height = term.columns, term.rows
        try:
            if self.mode == "fullscreen":
                body = self._fullscreen_frame(width, height)
            else:
                body = self._regular_frame(width, height)
        except WidthOverflow as exc:
            self._crash(exc)
            return
        self.frames += 1
        if body:
            term.write(SYNC_BEGIN + body + SYNC_END)

    def set_min_rows(self, component: Component, rows: int = EDITOR_MIN_ROWS) -> None:
        """Rows a dock component keeps when the dock must shrink (the editor keeps 3)."""
        self.dock_min_rows[id(component)] = rows

    def _dock_parts(self, width: int) -> list[tuple[list[str], int]]:
        return [(c.render(width), self.dock_min_rows.get(id(c), 0)) for c in self.dock.children]

    def _dock_lines(self, width: int) -> list[str]:
        return [line for lines, _ in self._dock_parts(width) for line in lines]

    def _fullscreen_frame(self, width: int, height: int) -> str:
        rows, self._view_height, self._doc_width = compose_screen(
            self.document,
            self._dock_parts(width),
            self.scroll,
            width,
            height,
            self.scrollbar,
            self.theme.fg if self.theme is not None else None,
            self._pill_style,
            self._decorate if self.row_decorators or self.images is not None else None,
            self._scrollbar_revealed(),
        )
        rows = self._with_overlays(rows, width, height)
        prefix = self.images.take_output() if self.images is not None else ""
        return prefix + self.fullscreen.frame(rows, width, height)

    def _scrollbar_revealed(self) -> bool:
        """Whether an `auto` scrollbar shows in this frame: for a second after the view was scrolled,
        and while the pointer is on it (as pi does: it is a scroll-position hint, not a fixture)."""
        scroll = self.scroll
        now = self.clock()
        if scroll.moves != scroll.bar_seen_moves:
            scroll.bar_seen_moves = scroll.moves
            self.reveal_scrollbar(now)
        return scroll.bar_active or now < scroll.bar_until

    def reveal_scrollbar(self, now: float | None = None) -> None:
        """Show an `auto` scrollbar for `SCROLLBAR_SHOW_SECONDS` from now, then redraw without it."""
        now = self.clock() if now is None else now
        self.scroll.bar_until = now + SCROLLBAR_SHOW_SECONDS
        if self._bar_timer is not None:
            self._bar_timer.cancel()
            self._bar_timer = None
        with contextlib.suppress(RuntimeError):  # without a loop the owner draws the next frame itself
            loop = asyncio.get_running_loop()
            self._bar_timer = loop.call_later(SCROLLBAR_SHOW_SECONDS + 0.02, self.request_render)

    def _decorate(self, rows: list[str], first_line: int, width: int) -> list[str]:
        for decorator in self.row_decorators:
            rows = decorator(rows, first_line, width)
        if self.images is not None:
            rows = self.images.resolve(rows, crop=True)
        return rows

    def _pill_style(self, text: str) -> str:
        if self.theme is None:
            return text
        return self.theme.bg("selectedBg", self.theme.fg("text", text))

    def _regular_frame(self, width: int, height: int) -> str:
        lines = self.document.render(width) + self._dock_lines(width)
        prefix = ""
        if self.images is not None:
            lines = self.images.resolve(lines, crop=False)
            prefix = self.images.take_output()
        if self.overlays:
            top = max(0, len(lines) - height)
            visible = lines[top:] + [""] * max(0, height - (len(lines) - top))
            lines = lines[:top] + self._with_overlays(visible, width, height)
        body = self.regular.frame(lines, width, height)
        return prefix + body if body else prefix

    def _with_overlays(self, rows: list[str], width: int, height: int) -> list[str]:
        for overlay in self.overlays:
            if overlay.hidden:
                continue
            w = overlay.resolved_width(width)
            lines = overlay.component.render(w)[:height]
            top, left = overlay.place(len(lines), w, width, height)
            rows = composite(rows, lines, top, left, w, width)
        return rows

    def _crash(self, exc: WidthOverflow) -> None:
        """A line wider than the terminal would corrupt the screen: log it and stop."""
        message = str(exc)
        self.stopped_reason = message
        if self.crash_log_path is not None:
            try:
                self.crash_log_path.parent.mkdir(parents=True, exist_ok=True)
                body = "\n".join(f"[{i}] (w={visible_width(line)}) {line!r}" for i, line in enumerate(exc.lines))
                self.crash_log_path.write_text(f"{message}\n\n{body}\n", encoding="utf-8")
            except OSError as err:
                logger.error("cannot write %s: %s", self.crash_log_path, err)
        self.running = False
        self._cancel_frame()
        if self.mode == "fullscreen":
            self.terminal.write(self.terminal.leave_fullscreen_sequence())
        self.terminal.restore()
        raise TUIStopped(message)

    def invalidate(self) -> None:
        """Drop every component cache (theme change, global toggles) and redraw everything."""
        self.document.invalidate()
        self.dock.invalidate()
        for overlay in self.overlays:
            overlay.component.invalidate()
        self.request_render(full=True)

    def _on_continue(self) -> None:
        """SIGCONT (also after an uncatchable SIGSTOP): raw input again and a full redraw."""
        if self.running:
            self.terminal.set_raw(True)
            self.request_render(full=True)

    # --- modes -------------------------------------------------------------------------------
    def set_mode(self, mode: Mode) -> None:
        """Switch renderer live, keeping the component tree."""
        if mode == self.mode:
            return
        term = self.terminal
        if self.running:
            if self.mode == "fullscreen":
                term.write(term.leave_fullscreen_sequence())
            else:
                term.write(self.regular.end())
        self.mode = mode
        self.regular.reset()
        self.fullscreen.reset()
        self.scroll.to_bottom()
        if self.images is not None:
            self.images.fullscreen = mode == "fullscreen"
            self.document.invalidate()
        if self.running:
            if mode == "fullscreen":
                term.write(term.enter_fullscreen_sequence())
            self.render_now()

    def suspend(self) -> None:
        """Ctrl+Z / SIGTSTP: give the terminal back, stop, and redraw everything when continued."""
        if not self.running:
            return
        term = self.terminal
        width = term.columns
        if self.mode == "fullscreen":
            term.write(term.leave_fullscreen_sequence() + self._inline_print(self._dock_lines(width)))
        else:
            term.write(self.regular.end())
        active = term.suspend_modes()
        term.suspend_process()
        term.resume_modes(active)
        if self.mode == "fullscreen":
            term.write(term.enter_fullscreen_sequence())
            self.fullscreen.reset()
        else:
            term.write(term.cursor_sequence(False))
            self.regular.reset(fresh=False)
        self.render_now()

    # --- focus, overlays, input --------------------------------------------------------------
    def set_focus(self, component: Focusable | None) -> None:
        if self.focused is component:
            return
        if self.focused is not None:
            self.focused.focused = False
        self.focused = component
        if component is not None:
            component.focused = True
        self.request_render()

    def show_overlay(
        self,
        component: Component,
        anchor: Anchor = "center",
        width: int | float | None = None,
        margin: int = 1,
        focus: bool = True,
    ) -> Overlay:
        """Draw `component` over the screen; focusable overlays take the keyboard until closed."""
        overlay = Overlay(component, anchor, width, margin)
        self.overlays.append(overlay)
        if focus and isinstance(component, Focusable):
            self._focus_stack.append(self.focused)
            self.set_focus(component)
        self.request_render()
        return overlay

    def close_overlay(self, overlay: Overlay) -> None:
        if overlay not in self.overlays:
            return
        self.overlays.remove(overlay)
        if self.focused is overlay.component and self._focus_stack:
            self.set_focus(self._focus_stack.pop())
        self.request_render(full=self.mode == "regular")

    def add_input_listener(self, listener: InputListener) -> Callable[[], None]:
        """Register a listener; returns a function that removes it."""
        self.input_listeners.append(listener)

        def remove() -> None:
            if listener in self.input_listeners:
                self.input_listeners.remove(listener)

        return remove

    def handle_input(self, data: str) -> None:
        """One key sequence, paste or mouse report from the terminal."""
        if data in ("\x1b[I", "\x1b[O"):  # focus in/out reports (mouse mode ?1004)
            self.terminal_focused = data == "\x1b[I"
            self.dragging_scrollbar = False
            if self.scroll.bar_active:
                self.scroll.bar_active = False
                self.reveal_scrollbar()
                self.request_render()
            for focus_listener in list(self.focus_listeners):
                focus_listener(self.terminal_focused)
            return
        if data.startswith("\x1b[<") and data[-1:] in ("M", "m"):
            if self.mode == "fullscreen" and handle_mouse(self, data):
                self.request_render()
            return
        for listener in list(self.input_listeners):
            if listener(data):
                self.request_render()
                return
        focused = self.focused
        if (
            self.mode == "fullscreen"
            and not self.has_active_overlays()
            and not getattr(focused, "captures_scroll_keys", False)
            and handle_scroll_key(self, data)
        ):
            self.request_render()
            return
        if focused is not None and focused.handle_input(data):
            self.request_render()

    def has_active_overlays(self) -> bool:
        """Whether an overlay that is not passive (a dialog, not a flash or the search box) is shown."""
        return any(not overlay.passive for overlay in self.overlays)

    # --- flash, images -----------------------------------------------------------------------
    @property
    def flash(self) -> FlashController:
        """The flash shown at the top right (created on first use)."""
        if self._flash is None:
            from pi.tui.flash import FlashController

            self._flash = FlashController(self)
        return self._flash

    def show_flash(self, text: str, *, error: bool = False, duration: float | None = None) -> None:
        """A short message at the top right (`Copied!`); errors stay 5 s."""
        self.flash.show(text, error=error, duration=duration)

    def enable_images(self, protocol: ImageProtocol | None, show: bool = True) -> ImageRegistry:
        """Turn on inline images with `protocol` (from `TerminalCapabilities.images`); returns the registry
        to give each `Image` component. `show` is the `terminal.showImages` setting."""
        from pi.tui.image import ImageRegistry

        term = self.terminal
        self.images = ImageRegistry(
            protocol, lambda: term.cell_size_px, fullscreen=self.mode == "fullscreen", show=show
        )
        return self.images

    def jump_to_latest(self) -> None:
        self.scroll.to_bottom()
        self.request_render()

    @property
    def view_height(self) -> int:
        """Transcript rows of the last fullscreen frame."""
        return self._view_height

    @property
    def document_width(self) -> int:
        """Width the transcript was rendered at in the last fullscreen frame (one less with a scrollbar)."""
        return self._doc_width or self.terminal.columns

    def pill_hit(self, row: int, col: int) -> bool:
        """Whether screen cell (row, col), 0-based, is on the jump pill."""
        if self.scroll.following or self._view_height <= 0 or row != self._view_height - 1:
            return False
        start, w = pill_span(self.document_width)
        return start <= col < start + w
