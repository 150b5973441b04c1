"""Replays the bytes written to a terminal and reports which modes are left on at the end."""

from __future__ import annotations

import re

_PRIVATE_RE = re.compile(r"\x1b\[\?([\d;]+)([hl])")
_KITTY_RE = re.compile(r"\x1b\[([><])(\d*)u")
_MOK_RE = re.compile(r"\x1b\[>4;(\d)m")

# Modes that must be off (or, for autowrap and the cursor, back to their default) at the shell.
WATCHED = {"1000", "1002", "1003", "1004", "1006", "2004", "1049", "2026"}


def modes_left_on(output: str) -> set[str]:
    """Names of modes still on after `output`: private mode numbers, `kitty`, `modifyOtherKeys`,
    `autowrap-off` and `cursor-hidden`."""
    events: list[tuple[int, str]] = []
    for m in _PRIVATE_RE.finditer(output):
        for number in m.group(1).split(";"):
            events.append((m.start(), f"{number}{m.group(2)}"))
    for m in _KITTY_RE.finditer(output):
        events.append((m.start(), "kitty+" if m.group(1) == ">" else "kitty-"))
    for m in _MOK_RE.finditer(output):
        events.append((m.start(), "mok+" if m.group(1) != "0" else "mok-"))
    on: set[str] = set()
    kitty_depth = 0
    for _, event in sorted(events):
        if event == "kitty+":
            kitty_depth += 1
        elif event == "kitty-":
            kitty_depth = max(0, kitty_depth - 1)
        elif event == "mok+":
            on.add("modifyOtherKeys")
        elif event == "mok-":
            on.discard("modifyOtherKeys")
        else:
            number, flag = event[:-1], event[-1]
            if number in WATCHED:
                (on.add if flag == "h" else on.discard)(number)
            elif number == "7":
                (on.discard if flag == "h" else on.add)("autowrap-off")
            elif number == "25":
                (on.discard if flag == "h" else on.add)("cursor-hidden")
    if kitty_depth:
        on.add("kitty")
    return on
