"""A tiny program that runs the TUI on its real terminal, for the pty tests.

Shows `READY <mode>` and the keys it received; `q` quits, `z` suspends like Ctrl+Z.
"""

from __future__ import annotations

import asyncio
import os
import sys

from pi.tui.component import Text
from pi.tui.terminal import TtyTerminal
from pi.tui.tui import TUI


async def main(mode: str) -> int:
    term = TtyTerminal(0, 1)
    tui = TUI(term, mode=mode)  # type: ignore[arg-type]
    status = Text(f"READY {mode} pid={os.getpid()}")
    keys = Text("")
    tui.document.add(status)
    tui.dock.add(keys)
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    seen: list[str] = []

    def on_key(data: str) -> bool:
        if data == "q":
            done.set_result(0)
        elif data == "z":
            tui.suspend()
            status.set_text(f"RESUMED {mode}")
        else:
            seen.append(repr(data))
            keys.set_text("keys: " + " ".join(seen))
        return True

    tui.add_input_listener(on_key)
    tui.start()  # attaches to the running loop: input, SIGWINCH, SIGTSTP/SIGCONT, SIGTERM/SIGHUP
    try:
        return await done
    finally:
        tui.stop()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "fullscreen")))
