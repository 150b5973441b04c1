"""Line diffs of an edit: a compact numbered view for people and a unified patch for tools.

Both come from one line-level Myers diff whose tokens keep their newline, so a last line that
gained or lost its newline counts as changed (as jsdiff, and therefore pi, sees it). `difflib`
is not used: it aligns some changes differently and formats hunk headers and end-of-file markers
differently from the patches pi writes into session files.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, overload

from msgspec import Struct

Op = Literal[" ", "-", "+"]
_EQUAL: Op = " "
_REMOVE: Op = "-"
_ADD: Op = "+"

DEFAULT_CONTEXT_LINES = 4
_MAX_EDIT_DISTANCE = 1000
"""Above this many changed lines the middle is shown as one removal plus one insertion: an exact
minimal diff would cost quadratic memory for a change nobody will read line by line."""

_NO_NEWLINE = "\\ No newline at end of file"


def split_line_tokens(text: str) -> list[str]:
    """Lines with their newline kept; a final newline makes no extra empty token."""
    if not text:
        return []
    tokens = text.split("\n")
    last = tokens.pop()
    result = [token + "\n" for token in tokens]
    if last:
        result.append(last)
    return result


class TextLines(Sequence[str]):
    """The tokens of a run of whole lines, split only as far as they are looked at.

    The unchanged text before the first and after the last change is usually almost the whole
    file; a diff only ever shows a few lines at either end of it, so those runs are not split.
    """

    __slots__ = ("_count", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._count = text.count("\n") + (1 if text and not text.endswith("\n") else 0)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(split_line_tokens(self._text))

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, int):
            position = index + self._count if index < 0 else index
            if not 0 <= position < self._count:
                raise IndexError(index)
            return self[position : position + 1][0]
        start, stop, step = index.indices(self._count)
        if step != 1:
            return list(self)[index]
        if stop <= start:
            return []
        if start <= self._count - stop:
            begin = self._offset_from_start(start)
            end = self._offset_from_start(stop)
        else:
            begin = self._offset_from_end(self._count - start)
            end = self._offset_from_end(self._count - stop)
        return split_line_tokens(self._text[begin:end])

    def _offset_from_start(self, tokens: int) -> int:
        """Where token number `tokens` begins (the text's length for the count itself)."""
        position = 0
        for _ in range(tokens):
            newline = self._text.find("\n", position)
            if newline == -1:
                return len(self._text)
            position = newline + 1
        return position

    def _offset_from_end(self, tokens: int) -> int:
        """Where the `tokens`-th token counted from the end begins."""
        position = len(self._text)
        if tokens == 0:
            return position
        search_end = position - 1 if self._text.endswith("\n") else position
        for _ in range(tokens):
            newline = self._text.rfind("\n", 0, search_end)
            position = newline + 1
            search_end = newline
            if newline == -1:
                return 0
        return position


class DiffPart(Struct, frozen=True):
    op: Op
    tokens: Sequence[str]
    """Lines with their newline kept."""


_SCAN_BLOCK = 1 << 16


def _common_prefix_length(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index : index + _SCAN_BLOCK] == b[index : index + _SCAN_BLOCK]:
        index += _SCAN_BLOCK
    if index >= limit:
        return limit
    low, high = index, min(index + _SCAN_BLOCK, limit)  # a[:low] == b[:low]; they differ before `high`
    while high - low > 1:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    return low + 1 if a[low] == b[low] else low


def _common_suffix_length(a: str, b: str, floor: int) -> int:
    """Length of the common ending of `a[floor:]` and `b[floor:]`."""
    limit = min(len(a), len(b)) - floor
    length = 0
    while length < limit:
        size = min(_SCAN_BLOCK, limit - length)
        if a[len(a) - length - size : len(a) - length] != b[len(b) - length - size : len(b) - length]:
            break
        length += size
    else:
        return limit
    low, high = length, min(length + _SCAN_BLOCK, limit)  # endings of `low` agree; they differ within `high`
    while high - low > 1:
        middle = (low + high) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle
    return low + 1 if a[len(a) - low - 1] == b[len(b) - low - 1] else low


def diff_lines(old: str, new: str) -> list[DiffPart]:
    """Minimal line diff as runs of equal / removed / added tokens (removals before additions)."""
    if old == new:
        return [DiffPart(_EQUAL, TextLines(old))] if old else []
    # Common leading and trailing whole lines are found on the strings, without splitting them.
    head = _common_prefix_length(old, new)
    cut = old.rfind("\n", 0, head) + 1
    tail = _common_suffix_length(old, new, cut)
    old_tail_start = len(old) - tail
    new_tail_start = len(new) - tail
    while tail and not (
        (old_tail_start == cut or old[old_tail_start - 1] == "\n")
        and (new_tail_start == cut or new[new_tail_start - 1] == "\n")
    ):
        newline = old.find("\n", old_tail_start)
        step = len(old) - old_tail_start if newline == -1 else newline + 1 - old_tail_start
        old_tail_start += step
        new_tail_start += step
        tail -= step
    a = split_line_tokens(old[cut:old_tail_start])
    b = split_line_tokens(new[cut:new_tail_start])
    parts: list[DiffPart] = []
    if cut:
        parts.append(DiffPart(_EQUAL, TextLines(old[:cut])))
    for part in _group(_myers(a, b), a, b):
        if part.op == _EQUAL and parts and parts[-1].op == _EQUAL:
            parts[-1] = DiffPart(_EQUAL, [*parts[-1].tokens, *part.tokens])
        else:
            parts.append(part)
    if tail:
        suffix = TextLines(old[old_tail_start:])
        if parts and parts[-1].op == _EQUAL:
            parts[-1] = DiffPart(_EQUAL, [*parts[-1].tokens, *suffix])
        else:
            parts.append(DiffPart(_EQUAL, suffix))
    return parts


def _myers(a: Sequence[str], b: Sequence[str]) -> list[Op]:
    """Edit script (one op per token) by Myers' greedy O(ND) algorithm."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return [_REMOVE] * n + [_ADD] * m
    ids: dict[str, int] = {}
    ai = [ids.setdefault(t, len(ids)) for t in a]
    bi = [ids.setdefault(t, len(ids)) for t in b]
    max_d = min(n + m, _MAX_EDIT_DISTANCE)
    offset = max_d + 1
    v = [0] * (2 * max_d + 3)
    trace: list[list[int]] = []
    for d in range(max_d + 1):
        trace.append(v[offset - d - 1 : offset + d + 2])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and ai[x] == bi[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m, d)
    return [_REMOVE] * n + [_ADD] * m


def _backtrack(trace: Sequence[Sequence[int]], n: int, m: int, final_d: int) -> list[Op]:
    ops: list[Op] = []
    x, y = n, m
    for d in range(final_d, 0, -1):
        snapshot = trace[d]  # V before step d: index k maps to snapshot[k + d + 1]
        k = x - y
        came_down = k == -d or (k != d and snapshot[k - 1 + d + 1] < snapshot[k + 1 + d + 1])
        prev_k = k + 1 if came_down else k - 1
        prev_x = snapshot[prev_k + d + 1]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            ops.append(" ")
            x -= 1
            y -= 1
        ops.append("+" if prev_k == k + 1 else "-")
        x, y = prev_x, prev_y
    ops.extend([_EQUAL] * x)  # the d=0 snake: x == y here
    ops.reverse()
    return ops


def _group(ops: Sequence[Op], a: Sequence[str], b: Sequence[str]) -> list[DiffPart]:
    """Collapse per-token ops into parts; within each change run, removals come first."""
    parts: list[DiffPart] = []
    i = j = 0
    index = 0
    while index < len(ops):
        if ops[index] == " ":
            start = i
            while index < len(ops) and ops[index] == " ":
                i += 1
                j += 1
                index += 1
            parts.append(DiffPart(" ", tuple(a[start:i])))
            continue
        removed: list[str] = []
        added: list[str] = []
        while index < len(ops) and ops[index] != " ":
            if ops[index] == "-":
                removed.append(a[i])
                i += 1
            else:
                added.append(b[j])
                j += 1
            index += 1
        if removed:
            parts.append(DiffPart("-", tuple(removed)))
        if added:
            parts.append(DiffPart("+", tuple(added)))
    return parts


def _strip_newline(token: str) -> str:
    return token[:-1] if token.endswith("\n") else token


# --- numbered display diff ------------------------------------------------------------------------


class DiffResult(Struct, frozen=True):
    diff: str
    first_changed_line: int | None
    """Line number in the new text of the first change, for jumping there in an editor."""


def generate_diff_string(
    old: str, new: str, context_lines: int = DEFAULT_CONTEXT_LINES, parts: Sequence[DiffPart] | None = None
) -> DiffResult:
    """Changed lines with a few lines of context, numbered, unchanged stretches elided as `...`.

    `-N text` removed (old numbering), `+N text` added (new numbering), ` N text` context.
    `parts` may pass in an already computed `diff_lines(old, new)`.
    """
    if parts is None:
        parts = diff_lines(old, new)
    width = len(str(max(old.count("\n") + 1, new.count("\n") + 1)))
    elision = f" {' ' * width} ..."
    output: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    last_was_change = False

    def context(tokens: Sequence[str], start_old: int) -> None:
        output.extend(f" {str(start_old + n).rjust(width)} {_strip_newline(t)}" for n, t in enumerate(tokens))

    for index, part in enumerate(parts):
        tokens = part.tokens
        count = len(tokens)
        if part.op != _EQUAL:
            if first_changed is None:
                first_changed = new_no
            for token in tokens:
                if part.op == _ADD:
                    output.append(f"+{str(new_no).rjust(width)} {_strip_newline(token)}")
                    new_no += 1
                else:
                    output.append(f"-{str(old_no).rjust(width)} {_strip_newline(token)}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = index + 1 < len(parts) and parts[index + 1].op != _EQUAL
        if last_was_change and next_is_change:
            if count <= context_lines * 2:
                context(tokens[:], old_no)
            else:
                context(tokens[:context_lines], old_no)
                output.append(elision)
                context(tokens[count - context_lines :], old_no + count - context_lines)
        elif last_was_change:
            context(tokens[:context_lines], old_no)
            if count > context_lines:
                output.append(elision)
        elif next_is_change:
            skipped = max(0, count - context_lines)
            if skipped:
                output.append(elision)
            context(tokens[skipped:], old_no + skipped)
        old_no += count
        new_no += count
        last_was_change = False
    return DiffResult("\n".join(output), first_changed)


# --- unified patch --------------------------------------------------------------------------------


class _Hunk(Struct):
    old_start: int
    new_start: int
    lines: list[tuple[Op, str]]


def generate_unified_patch(
    path: str,
    old: str,
    new: str,
    context_lines: int = DEFAULT_CONTEXT_LINES,
    parts: Sequence[DiffPart] | None = None,
) -> str:
    """A unified diff with `--- path` / `+++ path` headers only, as pi stores it in edit results.

    Changes closer than twice the context share a hunk; a last line without a newline is followed
    by `\\ No newline at end of file`. `parts` may pass in an already computed `diff_lines(old, new)`.
    """
    if parts is None:
        parts = diff_lines(old, new)
    hunks: list[_Hunk] = []
    current: _Hunk | None = None
    old_no = new_no = 1
    for index, part in enumerate(parts):
        count = len(part.tokens)
        if part.op != _EQUAL:
            if current is None:
                before = parts[index - 1].tokens if index > 0 else []
                lead = before[max(0, len(before) - context_lines) :]
                current = _Hunk(old_no - len(lead), new_no - len(lead), [(_EQUAL, t) for t in lead])
            current.lines.extend((part.op, t) for t in part.tokens)
            if part.op == _ADD:
                new_no += count
            else:
                old_no += count
            continue
        if current is not None:
            if count <= 2 * context_lines and index < len(parts) - 1:
                current.lines.extend((_EQUAL, t) for t in part.tokens[:])
            else:
                current.lines.extend((_EQUAL, t) for t in part.tokens[:context_lines])
                hunks.append(current)
                current = None
        old_no += count
        new_no += count
    if current is not None:
        hunks.append(current)

    out = [f"--- {path}", f"+++ {path}"]
    for hunk in hunks:
        old_lines = sum(1 for op, _ in hunk.lines if op != _ADD)
        new_lines = sum(1 for op, _ in hunk.lines if op != _REMOVE)
        old_start = hunk.old_start if old_lines else hunk.old_start - 1
        new_start = hunk.new_start if new_lines else hunk.new_start - 1
        out.append(f"@@ -{old_start},{old_lines} +{new_start},{new_lines} @@")
        for op, token in hunk.lines:
            out.append(op + _strip_newline(token))
            if not token.endswith("\n"):
                out.append(_NO_NEWLINE)
    return "\n".join(out) + "\n"


__all__ = [
    "DEFAULT_CONTEXT_LINES",
    "DiffPart",
    "DiffResult",
    "TextLines",
    "diff_lines",
    "generate_diff_string",
    "generate_unified_patch",
    "split_line_tokens",
]
