"""`LoginInteraction` on plain streams, for `pi auth login` on a headless machine."""

from __future__ import annotations

import asyncio
import threading
from typing import IO

from pi.app.oauth.errors import LoginCancelled
from pi.app.oauth.interaction import DeviceCode, SelectOption


def _settle(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)


class ConsoleInteraction:
    """Writes instructions to `out` and reads answers line by line from `input`.

    Reads run on a daemon thread so a pending paste prompt can be abandoned when the browser
    callback wins, without keeping the process alive at exit.
    """

    def __init__(self, input: IO[str], out: IO[str], select_index: int = 0) -> None:
        self._input = input
        self._out = out
        self.select_index = select_index
        """Which option a method select takes without asking (0 = the default method)."""

    def _write(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    async def _readline(self, message: str) -> str:
        self._out.write(message + " ")
        self._out.flush()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()

        def read() -> None:
            try:
                line: str | None = self._input.readline()
            except (OSError, ValueError):
                line = None
            loop.call_soon_threadsafe(_settle, future, line or None)

        threading.Thread(target=read, name="pi-login-input", daemon=True).start()
        line = await future
        if line is None:
            raise LoginCancelled()
        return line.rstrip("\r\n")

    async def text(self, message: str, placeholder: str | None = None, allow_empty: bool = False) -> str:
        while True:
            value = (await self._readline(message)).strip()
            if value or allow_empty:
                return value

    async def secret(self, message: str) -> str:
        """Not echoed when reading from a terminal."""
        if not self._input.isatty():
            return await self.text(message)
        import getpass

        try:
            value = await asyncio.to_thread(getpass.getpass, message + " ")
        except EOFError:
            raise LoginCancelled() from None
        return value.strip()

    async def select(self, message: str, options: list[SelectOption]) -> str | None:
        if not options:
            return None
        return options[min(self.select_index, len(options) - 1)].id

    async def manual_code(self, message: str) -> str:
        return await self.text(message)

    def auth_url(self, url: str, instructions: str | None = None) -> None:
        self._write(f"Open this URL to sign in:\n  {url}")
        if instructions:
            self._write(instructions)

    def device_code(self, code: DeviceCode) -> None:
        self._write(f"Open {code.verification_uri} and enter code: {code.user_code}")
        self._write("Waiting for authentication...")

    def progress(self, message: str) -> None:
        self._write(message)

    def info(self, message: str) -> None:
        self._write(message)


__all__ = ["ConsoleInteraction"]
