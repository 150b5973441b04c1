"""A small game in an overlay: the 8-puzzle, played with the arrow keys.

Run it with `pi -e examples/extensions/sliding_puzzle.py`, then `/puzzle`. A 3×3 board with one
gap opens over the screen; an arrow key slides the tile next to the gap into it. Put the tiles in
order (1–8, gap last) to win; Esc gives up. The command then reports how many moves it took.

It shows what `ctx.ui.custom` offers: the factory `(tui, theme, keybindings, done)` builds a
component that gets every key while it is shown (`handle_input`), asks for frames with
`tui.request_render()`, and ends the dialog with `done(value)`, which `custom` returns.
`/puzzle <number>` picks the shuffle (the same number gives the same board).
"""

from __future__ import annotations

import random
from typing import Any

from pi.app.extensions import ExtensionAPI
from pi.tui.keys import matches_key

SOLVED: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 0)
# Arrow key -> where the tile that moves sits, seen from the gap (row, column offsets).
MOVES = {"up": (1, 0), "down": (-1, 0), "left": (0, 1), "right": (0, -1)}


def slide(board: tuple[int, ...], key: str) -> tuple[int, ...]:
    """The board after pressing `key` (unchanged when no tile can move that way)."""
    gap = board.index(0)
    row, col = divmod(gap, 3)
    d_row, d_col = MOVES[key]
    r, c = row + d_row, col + d_col
    if not (0 <= r < 3 and 0 <= c < 3):
        return board
    cells = list(board)
    cells[gap], cells[r * 3 + c] = cells[r * 3 + c], 0
    return tuple(cells)


def shuffled(seed: int, steps: int = 30) -> tuple[int, ...]:
    """A solvable board: the solved one after `steps` random slides."""
    rng = random.Random(seed)
    board = SOLVED
    while board == SOLVED:
        for _ in range(steps):
            board = slide(board, rng.choice(list(MOVES)))
    return board


class Puzzle:
    """The overlay component: the board in a frame, the move count, a hint line."""

    def __init__(self, board: tuple[int, ...], tui: Any, theme: Any, done: Any) -> None:
        self.board = board
        self.moves = 0
        self.tui = tui
        self.theme = theme
        self.done = done
        self.focused = False

    def handle_input(self, data: str) -> bool:
        if matches_key(data, "escape"):
            self.done(None)
            return True
        for key in MOVES:
            if matches_key(data, key):
                after = slide(self.board, key)
                if after != self.board:
                    self.board = after
                    self.moves += 1
                self.tui.request_render()
                if self.board == SOLVED:
                    self.done(self.moves)
                return True
        return True  # every other key stays in the game while it is open

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        theme = self.theme
        lines = [theme.fg("accent", theme.bold(" 8-puzzle")), ""]
        for row in range(3):
            cells = self.board[row * 3 : row * 3 + 3]
            lines.append("   " + " ".join(f"[{n}]" if n else "[ ]" for n in cells))
        lines += ["", f" moves: {self.moves}", theme.dim(" arrows slide · esc gives up")]
        return lines  # pi cuts lines wider than the overlay


def setup(pi: ExtensionAPI) -> None:
    async def play(args: str, ctx: Any) -> None:
        seed = int(args) if args.strip().isdigit() else random.randrange(1_000_000)
        board = shuffled(seed)

        def factory(tui: Any, theme: Any, keybindings: Any, done: Any) -> Puzzle:
            return Puzzle(board, tui, theme, done)

        moves = await ctx.ui.custom(factory, overlay=True, overlay_options={"anchor": "center", "width": 34})
        if moves is None:
            ctx.ui.notify("Puzzle abandoned")
        else:
            ctx.ui.notify(f"Solved in {moves} moves!")

    pi.register_command("puzzle", play, description="Play the 8-puzzle in an overlay")
