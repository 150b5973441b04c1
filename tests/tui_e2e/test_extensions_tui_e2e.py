"""Extensions in the real `pi` terminal UI, loaded with `-e` from examples/extensions/ (tmux): a footer
status line and a widget, a select dialog answered by keys, an overlay game played with arrow keys,
and a custom footer; plus the same examples in print mode, where `ctx.ui` does nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


def example(name: str) -> str:
    return str(EXAMPLES / name)


def test_status_line_widget_and_select_dialog(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    server.queue(anthropic_reply("All done here."))
    pi.start("-e", example("status_line.py"))
    text = pi.wait_for("turns: ready")
    assert " tool calls this session: 0" in text
    rows = [row for row in pi.screen() if row.strip()]
    assert rows[-1].startswith("turns: ready")
    pi.type("hello")
    pi.keys("Enter")
    pi.wait_for("All done here.")
    pi.wait_for("1 turn done")
    pi.type("/status-line")
    pi.keys("Enter")
    text = pi.wait_for("→ Show turns")
    assert "Status line" in text and "Hide" in text
    pi.keys("Down")
    pi.wait_for("→ Hide")
    pi.keys("Enter")
    text = pi.wait_for("Status line: hidden")
    assert "turn done" not in text and "tool calls this session" not in text
    pi.keys("C-d")
    assert pi.wait_exit() == 0


def _solution(board: tuple[int, ...]) -> list[str]:
    """Arrow-key names (tmux) that solve the 8-puzzle `board`, by breadth-first search."""
    moves = {"Up": (1, 0), "Down": (-1, 0), "Left": (0, 1), "Right": (0, -1)}
    solved = (1, 2, 3, 4, 5, 6, 7, 8, 0)

    def slide(state: tuple[int, ...], key: str) -> tuple[int, ...]:
        gap = state.index(0)
        r, c = divmod(gap, 3)
        r2, c2 = r + moves[key][0], c + moves[key][1]
        if not (0 <= r2 < 3 and 0 <= c2 < 3):
            return state
        cells = list(state)
        cells[gap], cells[r2 * 3 + c2] = cells[r2 * 3 + c2], 0
        return tuple(cells)

    paths: dict[tuple[int, ...], list[str]] = {board: []}
    queue = deque([board])
    while queue:
        current = queue.popleft()
        if current == solved:
            return paths[current]
        for key in moves:
            after = slide(current, key)
            if after not in paths:
                paths[after] = [*paths[current], key]
                queue.append(after)
    raise AssertionError("unsolvable board")


def _board(text: str) -> tuple[int, ...]:
    cells: list[int] = []
    for line in text.split("\n"):
        if line.strip().startswith("[") and line.count("[") == 3:
            cells.extend(0 if part.strip() == "" else int(part) for part in line.strip()[1:-1].split("] ["))
    assert len(cells) == 9, text
    return tuple(cells)


def test_overlay_game_takes_the_arrow_keys(make_pi: Any) -> None:
    pi: TmuxPi = make_pi()
    pi.start("-e", example("sliding_puzzle.py"))
    pi.wait_for("fake-claude • medium")
    pi.type("/puzzle 7")
    pi.keys("Enter")
    text = pi.wait_for("moves: 0")
    keys = _solution(_board(text))
    pi.keys(keys[0])
    pi.wait_for("moves: 1")
    if keys[1:]:
        pi.keys(*keys[1:])
    pi.wait_for(f"Solved in {len(keys)} moves!")
    assert "8-puzzle" not in pi.text()
    pi.keys("C-d")
    assert pi.wait_exit() == 0


def test_custom_footer_toggles(make_pi: Any) -> None:
    pi: TmuxPi = make_pi()
    pi.start("-e", example("custom_footer.py"))
    pi.wait_for("work (main)")
    pi.wait_for("fake-claude · 0 turns")
    pi.type("/footer")
    pi.keys("Enter")
    pi.wait_for("pi's footer restored")
    pi.wait_for(lambda s: "· 0 turns" not in s and "fake-claude • medium" in s)
    pi.keys("C-d")
    assert pi.wait_exit() == 0


def test_tui_examples_do_nothing_harmful_in_print_mode(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()  # only for its agent dir and project; pi runs as a plain subprocess here
    server.queue(anthropic_reply("Printed answer."))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_CODING_AGENT_DIR": str(pi.agent_dir), "HOME": str(pi.home), "PI_OFFLINE": "1"})
    args = [sys.executable, "-m", "pi", "-p", "hello"]
    for name in ("status_line.py", "custom_footer.py", "message_renderer.py", "sliding_puzzle.py"):
        args[3:3] = ["-e", example(name)]
    done = subprocess.run(args, cwd=pi.cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Printed answer.\n"
    assert "error" not in done.stderr.lower()
