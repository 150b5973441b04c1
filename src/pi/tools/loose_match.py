"""Second chances for an edit whose oldText is not in the file as sent.

Two mistakes are common enough to repair and safe to repair when the result is unambiguous:

* Indentation. The model re-typed a block with other indentation: tabs where the file has spaces,
  or the block dedented (copied out of context) or over-indented. The file's lines are compared
  with their leading whitespace set aside; when exactly one run of lines matches and the
  difference in indentation follows one rule (a prefix added, a prefix removed, or indent levels
  shifted and re-spelled in the file's unit), the new text is re-indented by the same rule. When
  both rules fit the old lines but would indent the new text differently, nothing says which one
  the model meant, and the edit is refused rather than guessed.
* Escaped newlines. The model wrote ``\\n`` as two characters (its JSON escaped twice) while the
  file has real line breaks; the escapes are undone in both texts and the match is tried again.

A repair only ever turns the edit into an exact one (the oldText becomes the file's own text), so
the engine's usual uniqueness and overlap checks still apply to it. Two places that fit equally
well are never guessed between: the edit is refused, naming both.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from pi.tools.edit_engine import EditError, normalize_for_fuzzy_match, normalize_fuzzy_line

Reindent = Callable[[str], str]

_ESCAPES = re.compile(r"\\([ntr\"\\])")
_ESCAPED = {"n": "\n", "t": "\t", "r": "", '"': '"', "\\": "\\"}
_SPACE_UNITS = (4, 2, 8, 3)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _key(line: str, collapse_whitespace: bool) -> str:
    """A line as compared here: fuzzy-normalised, indentation and trailing blanks set aside."""
    return normalize_fuzzy_line(line, collapse_whitespace).lstrip(" \t")


def _prefix_rule(pairs: Sequence[tuple[str, str]], lines: Sequence[str]) -> Reindent | None:
    """The file's indentation is the old one with a fixed prefix added, or with one removed."""
    old, new = pairs[0]
    if new.endswith(old) and all(f == new[: len(new) - len(old)] + o for o, f in pairs):
        prefix = new[: len(new) - len(old)]
        return lambda line: prefix + line if line.strip() else line
    if old.endswith(new) and all(o == old[: len(old) - len(new)] + f for o, f in pairs):
        prefix = old[: len(old) - len(new)]
        if all(line.startswith(prefix) for line in lines if line.strip()):
            return lambda line: line[len(prefix) :] if line.strip() else line
    return None


def _levels(indent: str, unit: str) -> int | None:
    if not indent:
        return 0
    if indent != unit * (len(indent) // len(unit)):
        return None
    return len(indent) // len(unit)


def _units(indents: Sequence[str]) -> list[str]:
    """Indent units the given indentation may be written in, most likely first."""
    used = [i for i in indents if i]
    if not used:
        return []
    if all(set(i) == {"\t"} for i in used):
        return ["\t"]
    if not all(set(i) == {" "} for i in used):
        return []
    common = math.gcd(*(len(i) for i in used))
    return [" " * width for width in dict.fromkeys([common, *_SPACE_UNITS]) if common % width == 0]


def _level_rule(pairs: Sequence[tuple[str, str]], lines: Sequence[str], file_units: Sequence[str]) -> Reindent | None:
    """Indent levels shifted by a constant and written in the file's unit (tabs for spaces, 2 for 4, ...)."""
    new_indents = [_indent(line) for line in lines if line.strip()]
    # The whole file's unit comes first: the matched lines alone may all sit at one depth (8 spaces
    # says nothing about whether the file steps by 4 or by 8), while the file's other lines show it.
    candidates = list(dict.fromkeys([*file_units, *_units([f for _, f in pairs])]))
    for old_unit in _units([o for o, _ in pairs] + new_indents) or [" " * 4]:
        new_levels = [_levels(indent, old_unit) for indent in new_indents]
        for file_unit in candidates:
            shifts = {_shift(old, new, old_unit, file_unit) for old, new in pairs}
            if len(shifts) != 1 or None in shifts:
                continue
            shift = shifts.pop()
            assert shift is not None
            if all(level is not None and level + shift >= 0 for level in new_levels):
                return _shifted(old_unit, file_unit, shift)
    return None


def _shift(old: str, new: str, old_unit: str, file_unit: str) -> int | None:
    old_level, new_level = _levels(old, old_unit), _levels(new, file_unit)
    return None if old_level is None or new_level is None else new_level - old_level


def _shifted(old_unit: str, file_unit: str, shift: int) -> Reindent:
    def reindent(line: str) -> str:
        if not line.strip():
            return line
        indent = _indent(line)
        return file_unit * (len(indent) // len(old_unit) + shift) + line[len(indent) :]

    return reindent


def _file_units(lines: Sequence[str]) -> list[str]:
    """The units the file indents by, most used first, from the steps by which its indentation grows.

    Steps rather than a common divisor of all indents: one continuation line aligned at 5 spaces
    would make the divisor 1 and hide that the file indents by 4.
    """
    steps: Counter[str] = Counter()
    previous = ""
    for line in [line for line in lines if line.strip()][:2000]:
        indent = _indent(line)
        step = indent[len(previous) :]
        if step and indent.startswith(previous):
            if set(step) == {"\t"}:
                steps["\t"] += 1
            elif set(step) == {" "}:
                steps[step] += 1
        previous = indent
    return [unit for unit, _ in steps.most_common()]


def _reindented(rule: Reindent | None, lines: Sequence[str]) -> str | None:
    return None if rule is None else "\n".join(rule(line) for line in lines)


def _reindent_new_text(
    old_lines: Sequence[str], window: Sequence[str], new_lines: Sequence[str], file_lines: Sequence[str], where: str
) -> str | None:
    """The new text re-indented as the file's block differs from oldText, or None when no rule fits.

    Both rules are tried. When both fit but disagree (a 4-space oldText over a 2-space file: strip
    2 spaces from every line, or halve every level?), the new text's nesting is not determined by
    what the model sent, and a guess can leave broken code, so the edit is refused with `where`.
    """
    pairs = [(_indent(o), _indent(f)) for o, f in zip(old_lines, window, strict=True) if o.strip()]
    if not pairs:
        return None
    by_prefix = _reindented(_prefix_rule(pairs, new_lines), new_lines)
    by_level = _reindented(_level_rule(pairs, new_lines, _file_units(file_lines)), new_lines)
    if by_prefix is not None and by_level is not None and by_prefix != by_level:
        raise EditError(where)
    return by_prefix if by_prefix is not None else by_level


def _windows(file_keys: Sequence[str], old_keys: Sequence[str]) -> list[int]:
    """Start lines where the old lines' keys match a run of file lines."""
    anchor = next(i for i, key in enumerate(old_keys) if key)
    count = len(old_keys)
    starts = []
    for line, key in enumerate(file_keys):
        start = line - anchor
        fits = key == old_keys[anchor] and start >= 0 and start + count <= len(file_keys)
        if fits and list(file_keys[start : start + count]) == list(old_keys):
            starts.append(start)
    return starts


def reindented_match(
    content: str, old_text: str, new_text: str, path: str, label: str, collapse_whitespace: bool = False
) -> tuple[str, str] | None:
    """(the file's text, re-indented new text) for a block that differs from the file only in indentation.

    None when no run of lines fits; raises EditError when several do.
    """
    with_newline = old_text.endswith("\n")
    old_lines = old_text.split("\n")
    if with_newline:
        old_lines.pop()
    old_keys = [_key(line, collapse_whitespace) for line in old_lines]
    if not any(old_keys):
        return None
    file_lines = content.split("\n")
    file_keys = [_key(line, collapse_whitespace) for line in file_lines]
    starts = _windows(file_keys, old_keys)
    if not starts:
        return None
    if len(starts) > 1:
        where = ", ".join(str(start + 1) for start in starts[:10])
        raise EditError(
            f"Found {len(starts)} places in {path} that match {label} apart from indentation "
            f"(starting at lines {where}). Copy oldText exactly from one of them, with a neighbouring line "
            "that differs between them."
        )
    start = starts[0]
    window = file_lines[start : start + len(old_lines)]
    new_lines = new_text.split("\n")
    undetermined = (
        f"The indentation of {label} does not match {path}, and its new text could be re-indented more than "
        f"one way. Copy oldText exactly as the file has it, with the file's indentation (the block starts at "
        f"line {start + 1}), and indent newText the same way."
    )
    replacement = _reindent_new_text(old_lines, window, new_lines, file_lines, undetermined)
    if replacement is None:
        return None
    matched = "\n".join(window)
    if with_newline:
        if start + len(old_lines) < len(file_lines):
            matched += "\n"
        else:
            replacement = replacement.removesuffix("\n")
    return matched, replacement


def _unescape(text: str) -> str:
    return _ESCAPES.sub(lambda found: _ESCAPED[found.group(1)], text)


def recover_edit(
    content: str, old_text: str, new_text: str, path: str, label: str, collapse_whitespace: bool = False
) -> tuple[str, str] | None:
    """An exact (oldText, newText) pair for an edit that does not match as sent, or None."""
    found = reindented_match(content, old_text, new_text, path, label, collapse_whitespace)
    if found is not None:
        return found
    if "\n" in old_text or "\\n" not in old_text:
        return None
    old = _unescape(old_text)
    new = new_text if "\n" in new_text else _unescape(new_text)
    if old in content:
        return old, new
    if normalize_for_fuzzy_match(old, collapse_whitespace=collapse_whitespace) in normalize_for_fuzzy_match(
        content, collapse_whitespace=collapse_whitespace
    ):
        return old, new
    return reindented_match(content, old, new, path, label, collapse_whitespace)


__all__ = ["recover_edit", "reindented_match"]
