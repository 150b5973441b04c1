"""The interactive UI's first frame does not wait for the Unicode width tables.

`wcwidth` costs tens of milliseconds of CPU to import. Everything the first frame draws (the header,
the editor's box, the footer's bullets and arrows) is printable ASCII or one of
`pi.tui.text_width.NARROW_SYMBOLS`, so the real app runs to its first full frame in a fresh
interpreter without importing it; wide text loads it on first use and is measured as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import wcwidth

from pi.tui.text_width import NARROW_SYMBOLS, slice_columns, truncate_to_width, visible_width

REPO = Path(__file__).resolve().parents[2]

_FIRST_FRAME = """
import asyncio, json, sys, tempfile
from pathlib import Path
from pi.ai.faux import FauxProvider
from pi.app.modes.interactive.app import InteractiveApp
from pi.app.modes.interactive.context import InteractiveContext
from pi.tui.terminal import Terminal
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import builtin_theme
from tests.support.faux_session import make_faux_session

class Capture(Terminal):
    # keeps what is written: a screen emulator would import wcwidth itself

    def __init__(self) -> None:
        super().__init__({"TERM": "xterm-256color"})
        self.out: list[str] = []

    def write(self, data: str) -> None:
        self.out.append(data)

    @property
    def columns(self) -> int:
        return 100

    @property
    def rows(self) -> int:
        return 30

async def main(tmp: Path) -> dict:
    faux = FauxProvider().register()
    session = make_faux_session(faux, tmp, None)
    terminal = Capture()
    context = InteractiveContext(agent_dir=tmp / "agent", cwd=tmp, version="9.8.7", terminal=terminal)
    app = InteractiveApp(session, context, terminal, builtin_theme("dark"), KeybindingsManager())
    task = asyncio.ensure_future(app.run())
    for _ in range(2000):
        screen = "".join(terminal.out)
        if "v9.8.7" in screen and session.model.id in screen:
            break
        if task.done():
            break
        await asyncio.sleep(0.005)
    loaded = "wcwidth" in sys.modules
    task.cancel()
    return {"screen": screen, "wcwidth_loaded": loaded, "model": session.model.id}

with tempfile.TemporaryDirectory() as tmp:
    print(json.dumps(asyncio.run(main(Path(tmp)))))
"""


def test_the_first_full_frame_is_drawn_without_importing_wcwidth() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_FRAME], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip(), done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "v9.8.7" in result["screen"] and result["model"] in result["screen"], result["screen"]
    assert "─" in result["screen"] and "\x1b[" in result["screen"]  # a real frame: the editor's box, styled
    assert result["wcwidth_loaded"] is False


def test_every_narrow_symbol_is_one_cell_for_wcwidth() -> None:
    for ch in NARROW_SYMBOLS:
        assert wcwidth.wcwidth(ch) == 1, hex(ord(ch))
        assert len(list(wcwidth.iter_graphemes("a" + ch + "b"))) == 3, hex(ord(ch))


def test_text_of_narrow_symbols_measures_as_wcwidth_does() -> None:
    text = "".join(sorted(NARROW_SYMBOLS))
    assert visible_width(text) == wcwidth.wcswidth(text) == len(text)
    line = "\x1b[2m─── ↑1.2k ↓340 • ⠸ working…\x1b[0m"
    assert visible_width(line) == wcwidth.wcswidth("─── ↑1.2k ↓340 • ⠸ working…")
    assert visible_width(truncate_to_width(line, 10)) <= 10
    assert slice_columns("╭──╮ ok", 1, 3) == "──"


def test_a_narrow_symbol_joined_by_a_combining_mark_or_selector_goes_through_wcwidth() -> None:
    for text in ("▶\ufe0f", "•\u0301x", "─日本─"):
        assert visible_width(text) == wcwidth.wcswidth(text), repr(text)
