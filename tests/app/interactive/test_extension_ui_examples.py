"""The terminal-UI examples of examples/extensions/, loaded as `-e` files into the in-process app:
status-line, custom-footer, message-renderer and the sliding-puzzle overlay."""

from __future__ import annotations

import importlib.util
from collections import deque
from pathlib import Path
from types import ModuleType

import pytest

from pi.ai.faux import faux_assistant_message, faux_tool_call
from tests.app.interactive.core_support import faux_provider
from tests.app.interactive.extension_ui_support import CTRL_O, DOWN, ENTER, ESC, example, make_extension_app

pytestmark = pytest.mark.asyncio
ARROWS = {"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D"}


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name[:-3]}", example(name))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_status_line_follows_turns_and_can_be_hidden(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message([faux_tool_call("nothing", {})]), faux_assistant_message("ok")])
        h = make_extension_app(faux, tmp_path, paths=[example("status_line.py")])
        await h.start()
        text = await h.wait("turns: ready")
        assert " tool calls this session: 0" in text
        h.type("go")
        h.keys(ENTER)
        text = await h.wait("2 turns done")
        assert " tool calls this session: 1" in text
        h.type("/status-line")
        h.keys(ENTER)
        await h.wait("→ Show turns")
        h.keys(DOWN, ENTER)
        text = await h.wait("Status line: hidden")
        assert "turns done" not in text and "tool calls this session" not in text
        h.check_frames()


async def test_custom_footer_replaces_and_restores_pi_footer(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("hi")])
        h = make_extension_app(faux, tmp_path, paths=[example("custom_footer.py")])
        await h.start()
        last = await h.wait(lambda s: s.rstrip().endswith(f"{faux.model.id} · 0 turns"))
        assert tmp_path.name in last.rstrip().split("\n")[-1]
        h.type("hello")
        h.keys(ENTER)
        await h.wait(f"{faux.model.id} · 1 turns")
        h.type("/footer")
        h.keys(ENTER)
        await h.wait("pi's footer restored")
        await h.wait(lambda s: "· 1 turns" not in s and s.rstrip().endswith(faux.model.id))
        h.check_frames()


async def test_message_renderer_draws_report_cards(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, paths=[example("message_renderer.py")])
        await h.start()
        h.type("/report build passed")
        h.keys(ENTER)
        await h.wait("Report added")
        h.app.chat.rebuild(h.app.session.messages)  # the stored message, as a resumed session shows it
        h.app.request_render()
        text = await h.wait("REPORT build passed")
        assert "reported at" not in text and "[report]" not in text
        h.keys(CTRL_O)
        await h.wait("reported at ")
        h.check_frames()


def solve(board: tuple[int, ...], puzzle: ModuleType) -> list[str]:
    """The arrow keys that solve `board` (breadth-first search)."""
    paths: dict[tuple[int, ...], list[str]] = {board: []}
    queue = deque([board])
    while queue:
        current = queue.popleft()
        if current == puzzle.SOLVED:
            return paths[current]
        for key in puzzle.MOVES:
            after = puzzle.slide(current, key)
            if after not in paths:
                paths[after] = [*paths[current], key]
                queue.append(after)
    raise AssertionError("unsolvable board")


async def test_sliding_puzzle_overlay_is_played_with_arrow_keys(tmp_path: Path) -> None:
    puzzle = load_example("sliding_puzzle.py")
    keys = solve(puzzle.shuffled(7), puzzle)
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, paths=[example("sliding_puzzle.py")])
        await h.start()
        h.type("/puzzle 7")
        h.keys(ENTER)
        text = await h.wait("8-puzzle")
        assert "moves: 0" in text and "[ ]" in text
        h.type("x")  # keys go to the game, not the editor
        h.keys(ARROWS[keys[0]])
        await h.wait("moves: 1")
        assert h.app.editor.get_text() == ""
        h.keys(*(ARROWS[k] for k in keys[1:]))
        await h.wait(f"Solved in {len(keys)} moves!")
        assert h.app.tui.overlays == []
        h.type("/puzzle 3")
        h.keys(ENTER)
        await h.wait("8-puzzle")
        h.keys(ESC)
        await h.wait("Puzzle abandoned")
        assert not h.terminal.too_wide  # (the frame check redraws without overlays, so it is not used here)
