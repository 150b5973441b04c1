"""The sign-in screen `/login` puts in the editor's place while a login runs.

It is the terminal's `LoginInteraction`: the flow shows a sign-in URL (opened in a browser when
one is available), a device code to enter elsewhere, progress lines, and asks for a line of text,
a secret, a choice, or a pasted code or redirect URL (the paste prompt is cancelled by the flow
when the loopback callback arrives first). Escape cancels whatever is pending and the login itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from pi.app.modes.interactive.pickers.frame import framed
from pi.app.oauth.errors import LoginCancelled
from pi.app.oauth.interaction import DeviceCode, SelectOption
from pi.tui.input import Input
from pi.tui.select_list import select_hint
from pi.tui.text_width import wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

WAITING = "Waiting for authentication..."


class _Line(Struct):
    text: str
    color: str = "text"


class _Ask(Struct):
    """A pending question: a text field (maybe masked) or a list of options."""

    future: asyncio.Future[str | None]
    message: str
    secret: bool = False
    options: list[SelectOption] | None = None
    selected: int = 0


class LoginDialog:
    """See the module docstring. `attach(task)` ties the running login to Escape."""

    def __init__(
        self,
        provider_name: str,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        open_url: Callable[[str], None] | None = None,
        copy: Callable[[str], None] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.title = f"Login to {provider_name}"
        self.theme = theme
        self.keybindings = keybindings
        self.focused = True
        self._open_url = open_url
        self._copy = copy
        self._device: DeviceCode | None = None
        """The device code on screen, which Enter opens and copies."""
        self._on_change = on_change
        self._lines: list[_Line] = []
        self._ask: _Ask | None = None
        self._input = Input(theme, prompt="> ", keybindings=keybindings, on_submit=self._submit)
        self._task: asyncio.Task[Any] | None = None
        self.cancelled = False
        self.auth_url_shown: str | None = None

    # -- the login's side ---------------------------------------------------------------------

    def attach(self, task: asyncio.Task[Any]) -> None:
        self._task = task

    async def text(self, message: str, placeholder: str | None = None, allow_empty: bool = False) -> str:
        while True:
            shown = f"{message} (e.g., {placeholder})" if placeholder else message
            value = (await self._question(_Ask(self._future(), shown)) or "").strip()
            if value or allow_empty:
                return value

    async def secret(self, message: str) -> str:
        return (await self._question(_Ask(self._future(), message, secret=True)) or "").strip()

    async def select(self, message: str, options: list[SelectOption]) -> str | None:
        if not options:
            return None
        return await self._question(_Ask(self._future(), message, options=list(options)))

    async def manual_code(self, message: str) -> str:
        return await self._question(_Ask(self._future(), message)) or ""

    def auth_url(self, url: str, instructions: str | None = None) -> None:
        self.auth_url_shown = url
        self._device = None
        self._lines = [_Line(url, "accent")]
        if instructions:
            self._lines.append(_Line(instructions, "warning"))
        if self._open_url is not None and url.startswith(("http://", "https://")):
            self._open_url(url)
        self._changed()

    def device_code(self, code: DeviceCode) -> None:
        self._device = code
        self._lines = [_Line(code.verification_uri, "accent"), _Line(f"Enter code: {code.user_code}", "warning")]
        confirm = self.keybindings.key_hint("tui.select.confirm")
        self._lines.append(_Line(f"({confirm} to open browser and copy code)", "dim"))
        self._lines.append(_Line(WAITING, "dim"))
        self._changed()

    def _activate_device_code(self) -> None:
        """Enter on the device-code screen: open the verification page and copy the code."""
        code = self._device
        if code is None:
            return
        message = "Browser open requested"
        if self._copy is not None:
            try:
                self._copy(code.user_code)
                message = "Code copied to clipboard"
            except OSError:
                message = "Copy code manually"
        if self._open_url is not None and code.verification_uri.startswith(("http://", "https://")):
            self._open_url(code.verification_uri)
        self._lines[2] = _Line(message, "dim")
        self._changed()

    def progress(self, message: str) -> None:
        self._lines.append(_Line(message, "dim"))
        self._changed()

    def info(self, message: str) -> None:
        self._lines.append(_Line(message))
        self._changed()

    def _future(self) -> asyncio.Future[str | None]:
        return asyncio.get_running_loop().create_future()

    async def _question(self, ask: _Ask) -> str | None:
        if self.cancelled:
            raise LoginCancelled()
        self._ask = ask
        self._input.set_value("")
        self._changed()
        try:
            return await ask.future
        finally:
            if self._ask is ask:
                self._ask = None
                self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    # -- the keyboard's side ------------------------------------------------------------------

    def cancel(self) -> None:
        """Escape: fail the pending question and stop the login."""
        self.cancelled = True
        ask = self._ask
        if ask is not None and not ask.future.done():
            ask.future.set_exception(LoginCancelled())
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def _submit(self, value: str) -> None:
        ask = self._ask
        if ask is not None and ask.options is None and not ask.future.done():
            ask.future.set_result(value)

    def invalidate(self) -> None:
        self._input.invalidate()

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        ask = self._ask
        if kb.matches(data, "tui.select.cancel"):
            self.cancel()
            return True
        if ask is None:
            if self._device is not None and kb.matches(data, "tui.select.confirm"):
                self._activate_device_code()
                return True
            return False
        if ask.options is None:
            return self._input.handle_input(data)
        count = len(ask.options)
        if kb.matches(data, "tui.select.up"):
            ask.selected = (ask.selected - 1) % count
        elif kb.matches(data, "tui.select.down"):
            ask.selected = (ask.selected + 1) % count
        elif kb.matches(data, "tui.select.confirm"):
            if not ask.future.done():
                ask.future.set_result(ask.options[ask.selected].id)
        else:
            return False
        return True

    def render(self, width: int) -> list[str]:
        theme = self.theme
        room = max(1, width - 2)
        body = ["", " " + theme.fg("accent", theme.bold(self.title))]
        for line in self._lines:
            body.append("")
            body.extend(" " + part for part in wrap_text_with_ansi(theme.fg(line.color, line.text), room))
        ask = self._ask
        if ask is not None:
            body.append("")
            body.extend(" " + part for part in wrap_text_with_ansi(theme.fg("text", ask.message), room))
            if ask.options is not None:
                for index, option in enumerate(ask.options):
                    chosen = index == ask.selected
                    body.append(" " + theme.fg("accent", "→ " + option.label) if chosen else "   " + option.label)
                body.extend(["", " " + select_hint(theme, self.keybindings)])
            else:
                body.append(" " + self._field(width - 1))
                cancel = self.keybindings.key_hint("tui.select.cancel")
                confirm = self.keybindings.key_hint("tui.select.confirm")
                body.append(" " + theme.fg("dim", f"({cancel} to cancel, {confirm} to submit)"))
        else:
            body.extend(["", " " + theme.fg("dim", f"({self.keybindings.key_hint('tui.select.cancel')} to cancel)")])
        body.append("")
        return framed(theme, width, body)

    def _field(self, width: int) -> str:
        ask = self._ask
        if ask is not None and ask.secret:
            return "> " + "•" * min(len(self._input.value), max(0, width - 3))
        lines = self._input.render(max(1, width))
        return lines[0] if lines else "> "


__all__ = ["WAITING", "LoginDialog"]
