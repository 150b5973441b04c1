"""Copying text to the system clipboard: the platform's tool when there is one, else OSC 52.

A native tool (pbcopy, wl-copy, xclip, xsel) puts the text on the clipboard of the machine pi runs
on. OSC 52 asks the terminal to do it, which also works over SSH where no local tool helps; with
`PI_CLIPBOARD_OSC52=1` only OSC 52 is used. The tool runs as an asyncio subprocess with a
timeout, so a hung clipboard daemon never blocks the UI.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Callable, Mapping

from msgspec import Struct

__all__ = ["ClipboardResult", "copy_to_clipboard", "native_commands", "osc52_sequence"]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 2.0


class ClipboardResult(Struct, frozen=True):
    """How the text was copied: `native` names the tool that succeeded, `osc52` says whether OSC 52 was sent."""

    native: str | None
    osc52: bool

    @property
    def method(self) -> str:
        """`"native"`, `"osc52"` or `"none"` (nothing could be tried)."""
        if self.native:
            return "native"
        return "osc52" if self.osc52 else "none"

    @property
    def ok(self) -> bool:
        return self.method != "none"


def osc52_sequence(text: str) -> str:
    """`ESC ] 52 ; c ; <base64> BEL`: the terminal puts `text` on its clipboard."""
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\x07"


def native_commands(environ: Mapping[str, str], platform: str | None = None) -> list[list[str]]:
    """The clipboard commands worth trying here, most specific first."""
    plat = platform or sys.platform
    if plat == "darwin":
        return [["pbcopy"]]
    if plat == "win32":
        return [["clip"]]
    commands: list[list[str]] = []
    if environ.get("TERMUX_VERSION"):
        commands.append(["termux-clipboard-set"])
    if environ.get("WAYLAND_DISPLAY"):
        commands.append(["wl-copy"])
    if environ.get("DISPLAY"):
        commands += [["xclip", "-selection", "clipboard"], ["xsel", "-b", "-i"]]
    return commands


async def _run(argv: list[str], text: str, timeout: float, env: Mapping[str, str]) -> bool:
    """Feed `text` to a tool; True when it exits 0 in time.

    Output goes to /dev/null: xclip and wl-copy leave a child behind that serves the clipboard, and
    a pipe it inherited would never reach end-of-file.
    """
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
        )
    except OSError as exc:
        logger.debug("cannot run %s: %s", argv[0], exc)
        return False
    try:
        assert proc.stdin is not None
        proc.stdin.write(text.encode("utf-8"))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await asyncio.wait_for(proc.stdin.drain(), timeout)
        proc.stdin.close()
        code = await asyncio.wait_for(proc.wait(), timeout)
    except TimeoutError:
        logger.debug("%s did not finish within %.1fs", argv[0], timeout)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return False
    return code == 0


async def copy_to_clipboard(
    text: str,
    write: Callable[[str], None] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ClipboardResult:
    """Copy `text`: the first native tool that works, else OSC 52 (only OSC 52 with `PI_CLIPBOARD_OSC52=1`).

    `write` sends the OSC 52 sequence to the terminal (usually `Terminal.write`); without it OSC 52
    cannot be used. Tools are looked up on the `PATH` of `environ`.
    """
    env = os.environ if environ is None else environ
    force_osc52 = env.get("PI_CLIPBOARD_OSC52") == "1"
    native: str | None = None
    if not force_osc52:
        for argv in native_commands(env, platform):
            found = shutil.which(argv[0], path=env.get("PATH"))
            if found is None:
                continue
            if await _run([found, *argv[1:]], text, timeout, env):
                native = argv[0]
                break
    osc52 = False
    if (force_osc52 or native is None) and write is not None:
        write(osc52_sequence(text))
        osc52 = True
    return ClipboardResult(native, osc52)
