"""Edit diffs as shown in tool cards: numbered ``+``/``-``/context lines with word changes.

Input is the numbered diff text the edit tool produces (``+<n> text``, ``-<n> text``,
`` <n> text``, `` … ...`` for skipped context); ``diff_from_texts`` and ``diff_from_unified``
produce the same format from two texts or from a unified patch. A lone removed line followed by a
lone added line gets a word diff: the changed words are shown in reverse video, leaving out the
indentation both lines share.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from pi.tui.text_width import wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.theme import Theme

CONTEXT_LINES = 4
_LINE_RE = re.compile(r"^([+\- ])( *\d*) (.*)$", re.DOTALL)
_WORD_RE = re.compile(r"\w+|\s+|[^\w\s]")
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _number(n: int, width: int) -> str:
    return str(n).rjust(width)


def diff_from_texts(old: str, new: str, context: int = CONTEXT_LINES) -> str:
    """The numbered diff of two texts (old numbers on context and removed lines, new on added)."""
    a = old.split("\n")
    b = new.split("\n")
    width = len(str(max(len(a), len(b))))
    elision = f" {' ' * width} ..."
    out: list[str] = []
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            out.extend(f"-{_number(i + 1, width)} {a[i]}" for i in range(i1, i2))
            out.extend(f"+{_number(j + 1, width)} {b[j]}" for j in range(j1, j2))
            continue
        before = index > 0
        after = index + 1 < len(opcodes)
        keep = list(range(i1, i2))
        if before and after and len(keep) > 2 * context:
            head, tail = keep[:context], keep[-context:]
            out.extend(f" {_number(i + 1, width)} {a[i]}" for i in head)
            out.append(elision)
            out.extend(f" {_number(i + 1, width)} {a[i]}" for i in tail)
            continue
        if before and not after:
            shown = keep[:context]
            out.extend(f" {_number(i + 1, width)} {a[i]}" for i in shown)
            if len(keep) > context:
                out.append(elision)
            continue
        if after and not before:
            shown = keep[-context:] if context else []
            if len(keep) > len(shown):
                out.append(elision)
            out.extend(f" {_number(i + 1, width)} {a[i]}" for i in shown)
            continue
        if before and after:
            out.extend(f" {_number(i + 1, width)} {a[i]}" for i in keep)
    return "\n".join(out)


def diff_from_unified(patch: str) -> str:
    """The numbered diff of a unified patch (``---``/``+++`` headers are skipped)."""
    entries: list[tuple[str, int, str]] = []
    old_no = new_no = 0
    in_hunk = False
    biggest = 1
    for line in patch.split("\n"):
        match = _HUNK_RE.match(line)
        if match:
            if in_hunk:
                entries.append(("...", 0, ""))
            old_no, new_no = int(match.group(1)), int(match.group(3))
            in_hunk = True
            continue
        if not in_hunk or line.startswith("\\"):
            continue
        if line.startswith("+"):
            entries.append(("+", new_no, line[1:]))
            new_no += 1
        elif line.startswith("-"):
            entries.append(("-", old_no, line[1:]))
            old_no += 1
        elif line.startswith(" ") or line == "":
            entries.append((" ", old_no, line[1:]))
            old_no += 1
            new_no += 1
        biggest = max(biggest, old_no, new_no)
    width = len(str(biggest))
    return "\n".join(
        f" {' ' * width} ..." if kind == "..." else f"{kind}{_number(n, width)} {text}" for kind, n, text in entries
    )


def _word_diff(old: str, new: str, theme: Theme) -> tuple[str, str]:
    """Both lines with the changed words in reverse video, shared indentation left plain."""
    lead = len(old) - len(old.lstrip())
    lead = min(lead, len(new) - len(new.lstrip()))
    shared = 0
    while shared < lead and old[shared] == new[shared]:
        shared += 1
    a = _WORD_RE.findall(old[shared:])
    b = _WORD_RE.findall(new[shared:])
    out_a = [old[:shared]]
    out_b = [new[:shared]]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left = "".join(a[i1:i2])
        right = "".join(b[j1:j2])
        if tag == "equal":
            out_a.append(left)
            out_b.append(right)
            continue
        if left:
            out_a.append(theme.inverse(left))
        if right:
            out_b.append(theme.inverse(right))
    return "".join(out_a), "".join(out_b)


def render_diff(diff: str, theme: Theme) -> list[str]:
    """Coloured lines of a numbered diff (not wrapped)."""
    parsed: list[tuple[str, str, str]] = []
    for raw in diff.replace("\t", "   ").split("\n"):
        match = _LINE_RE.match(raw)
        if match is None:
            parsed.append(("?", "", raw))
        else:
            parsed.append((match.group(1), match.group(2), match.group(3)))
    lines: list[str] = []
    i = 0
    while i < len(parsed):
        kind, num, text = parsed[i]
        if kind in ("+", "-"):
            removed: list[tuple[str, str]] = []
            added: list[tuple[str, str]] = []
            while i < len(parsed) and parsed[i][0] == "-":
                removed.append(parsed[i][1:])
                i += 1
            while i < len(parsed) and parsed[i][0] == "+":
                added.append(parsed[i][1:])
                i += 1
            if len(removed) == 1 and len(added) == 1:
                old_text, new_text = _word_diff(removed[0][1], added[0][1], theme)
                lines.append(theme.fg("toolDiffRemoved", f"-{removed[0][0]} {old_text}"))
                lines.append(theme.fg("toolDiffAdded", f"+{added[0][0]} {new_text}"))
                continue
            lines.extend(theme.fg("toolDiffRemoved", f"-{n} {t}") for n, t in removed)
            lines.extend(theme.fg("toolDiffAdded", f"+{n} {t}") for n, t in added)
            continue
        if kind == "?":
            lines.append(theme.fg("toolDiffContext", text))
        else:
            lines.append(theme.fg("toolDiffContext", f" {num} {text}"))
        i += 1
    return lines


class DiffView:
    """A numbered diff as a component: coloured, word-diffed, wrapped to the width, cached."""

    def __init__(self, diff: str, theme: Theme) -> None:
        self._diff = diff
        self.theme = theme
        self._colored: list[str] | None = None
        self._cache: tuple[int, list[str]] | None = None

    @classmethod
    def from_texts(cls, old: str, new: str, theme: Theme, context: int = CONTEXT_LINES) -> DiffView:
        return cls(diff_from_texts(old, new, context), theme)

    def set_diff(self, diff: str) -> None:
        if diff != self._diff:
            self._diff = diff
            self.invalidate()

    def invalidate(self) -> None:
        self._colored = None
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        if self._colored is None:
            self._colored = render_diff(self._diff, self.theme) if self._diff else []
        lines: list[str] = []
        for line in self._colored:
            lines.extend(wrap_text_with_ansi(line, max(1, width)))
        self._cache = (width, lines)
        return lines
