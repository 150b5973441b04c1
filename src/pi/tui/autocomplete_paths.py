"""Tab path completion: the directory entries that continue the path token before the cursor.

Understands ``./``, ``../``, ``~/``, absolute and bare relative paths, a leading ``@`` and an open
double quote (for names with spaces). Hidden entries are offered only when the name typed so far
starts with a dot.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.tui.autocomplete import Completion

PATH_RESULT_LIMIT = 100


def token_before_cursor(line: str, cursor: int) -> tuple[int, str] | None:
    """(start offset, text) of the path-like token that ends at the cursor; None when empty."""
    before = line[:cursor]
    quote = before.rfind('"')
    if before.count('"') % 2 == 1:
        start = quote - 1 if quote > 0 and before[quote - 1] == "@" else quote
        return start, before[start:]
    start = len(before)
    while start > 0 and not before[start - 1].isspace():
        start -= 1
    token = before[start:]
    return (start, token) if token else None


def _directory(typed_dir: str, cwd: str, home: str) -> str:
    if typed_dir == "~" or typed_dir.startswith("~/"):
        return home + typed_dir[1:]
    if typed_dir.startswith("/"):
        return typed_dir or "/"
    return os.path.join(cwd, typed_dir) if typed_dir else cwd


def complete_path(raw: str, cwd: str, home: str) -> list[Completion]:
    """Entries completing ``raw``: directories first (label ``name/``), then files, by name."""
    from pi.tui.autocomplete import Completion

    at = raw.startswith("@")
    body = raw[1:] if at else raw
    quoted = body.startswith('"')
    path = body[1:] if quoted else body
    if path == "~":
        path = "~/"
    typed_dir, _, base = path.rpartition("/")
    if "/" in path and not typed_dir:
        typed_dir = "/"
    directory = _directory(typed_dir, cwd, home)
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    lowered = base.lower()
    found: list[tuple[bool, str]] = []
    for entry in entries:
        name = entry.name
        if name.startswith(".") and not base.startswith("."):
            continue
        if not name.lower().startswith(lowered):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        found.append((is_dir, name))
    found.sort(key=lambda pair: (not pair[0], pair[1].lower()))
    prefix = "" if not typed_dir else (typed_dir if typed_dir.endswith("/") else typed_dir + "/")
    items: list[Completion] = []
    for is_dir, name in found[:PATH_RESULT_LIMIT]:
        full = prefix + name + ("/" if is_dir else "")
        needs_quote = quoted or " " in full
        insert = full
        if needs_quote:
            insert = '"' + full + ("" if is_dir else '"')
        if at:
            insert = "@" + insert + ("" if is_dir else " ")
        label = name + ("/" if is_dir else "")
        items.append(Completion(value=full, label=label, insert=insert, keep_open=is_dir))
    return items
