"""The text-replacement engine behind `edit`: matching, normalisation, line endings and argument repair.

Models copy text out of a file they read earlier and ask for it to be replaced. They never type a
BOM, they often get CRLF wrong, and text that passed through a web page comes back with smart
quotes, long dashes, non-breaking spaces or lost trailing blanks. So the engine matches exactly
first and falls back to a normalised ("fuzzy") comparison, and it works on a BOM-less, LF-only
copy of the file whose BOM and line-ending style are restored on write. What it must never do is
touch bytes the model did not ask to change: in the fuzzy case only the lines a match touches are
rewritten, everything else is copied from the original.

All messages here are read by the model, which retries with them; the one-line forms are pi's.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

LineEnding = Literal["\r\n", "\n"]

BOM = "\ufeff"

# JavaScript's String.prototype.trimEnd whitespace set: what pi strips from line ends. It differs from
# str.rstrip(): U+FEFF is included; U+0085 and U+001C..U+001F are not.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SPECIAL_SPACES = "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_FUZZY_TRANSLATION = str.maketrans(
    {
        **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b"), "'"),
        **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f"), '"'),
        **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-"),
        **dict.fromkeys(map(ord, _SPECIAL_SPACES), " "),
    }
)
_INTERIOR_RUN = re.compile(r"(?<=\S)[ \t]+(?=\S)")
_FUZZY_CHARACTERS = re.compile("[" + re.escape("".join(map(chr, _FUZZY_TRANSLATION))) + "]")


class EditError(Exception):
    """An edit that cannot be applied; the message tells the model how to fix its call."""


# --- BOM and line endings -------------------------------------------------------------------------


def strip_bom(text: str) -> tuple[str, str]:
    """Split off a leading BOM: returns (bom or "", rest)."""
    if text.startswith(BOM):
        return BOM, text[1:]
    return "", text


def detect_line_ending(text: str) -> LineEnding:
    """The style of the first newline decides for the whole file (LF when there is none)."""
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    return "\n"


def normalize_to_lf(text: str) -> str:
    """CRLF and lone CR both become LF, so matching never depends on how the model wrote newlines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: LineEnding) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


# --- fuzzy normalisation --------------------------------------------------------------------------


def _normalize_line(line: str, collapse_whitespace: bool) -> str:
    line = unicodedata.normalize("NFKC", line).rstrip(_JS_WHITESPACE).translate(_FUZZY_TRANSLATION)
    if collapse_whitespace:
        line = _INTERIOR_RUN.sub(" ", line)
    return line


_ASCII_BLANKS = (" ", "\t", "\v", "\f", "\r")


def _may_have_trailing_whitespace(text: str) -> bool:
    if not text.isascii():
        return True
    return text.endswith(_ASCII_BLANKS) or any(blank + "\n" in text for blank in _ASCII_BLANKS)


def normalize_for_fuzzy_match(text: str, *, collapse_whitespace: bool = False) -> str:
    """Fold what models get wrong but a reader would not notice.

    NFKC (full-width forms, composed accents), trailing whitespace per line, smart quotes, Unicode
    dashes and special spaces. Indentation and interior spacing are kept: they carry meaning. With
    `collapse_whitespace`, runs of blanks between two non-blank characters count as one space.
    The result has exactly as many lines as the input, which is what lets the engine rewrite only
    the lines a fuzzy match touches.
    """
    # Whole-text passes, each skipped when it has nothing to do: files are mostly ASCII code, and
    # a per-line loop over a large file costs more than the rest of an edit together.
    if not text.isascii() and not unicodedata.is_normalized("NFKC", text):
        normalized = unicodedata.normalize("NFKC", text)
        if normalized.count("\n") != text.count("\n"):  # never seen; keep lines aligned regardless
            return "\n".join(_normalize_line(line, collapse_whitespace) for line in text.split("\n"))
        text = normalized
    if _may_have_trailing_whitespace(text):
        text = "\n".join(line.rstrip(_JS_WHITESPACE) for line in text.split("\n"))
    if not text.isascii() and _FUZZY_CHARACTERS.search(text):
        text = text.translate(_FUZZY_TRANSLATION)
    if collapse_whitespace:
        text = _INTERIOR_RUN.sub(" ", text)
    return text


@dataclass(slots=True, frozen=True)
class FuzzyMatch:
    found: bool
    index: int
    match_length: int
    used_fuzzy_match: bool
    content_for_replacement: str
    """The text `index` refers to: the content itself, or its fuzzy-normalised form."""


def fuzzy_find_text(content: str, old_text: str, *, collapse_whitespace: bool = False) -> FuzzyMatch:
    """First occurrence of `old_text`: exact if possible, else in the fuzzy-normalised space."""
    index = content.find(old_text)
    if index != -1:
        return FuzzyMatch(True, index, len(old_text), False, content)
    fuzzy_content = normalize_for_fuzzy_match(content, collapse_whitespace=collapse_whitespace)
    fuzzy_old = normalize_for_fuzzy_match(old_text, collapse_whitespace=collapse_whitespace)
    index = fuzzy_content.find(fuzzy_old) if fuzzy_old else -1
    if index == -1:
        return FuzzyMatch(False, -1, 0, False, content)
    return FuzzyMatch(True, index, len(fuzzy_old), True, fuzzy_content)


# --- applying edits -------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Replacement:
    old_text: str
    new_text: str


@dataclass(slots=True, frozen=True)
class _Match:
    edit_index: int
    start: int
    length: int
    new_text: str

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(slots=True, frozen=True)
class AppliedEdits:
    base_content: str
    """The file as matched against: BOM removed, LF line endings."""
    new_content: str
    """The result in the same form; compare with `base_content` for diffs."""
    used_fuzzy_match: bool


def apply_edits_to_normalized_content(
    content: str, edits: Sequence[Replacement], path: str, *, collapse_whitespace: bool = False
) -> AppliedEdits:
    """Apply every edit to the LF-normalised, BOM-less `content`; each is matched against the original.

    Raises EditError (nothing applied) when an oldText is empty, missing, not unique, overlaps
    another one, or when the result equals the input.
    """
    single = len(edits) == 1
    normalized = [Replacement(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]

    for i, edit in enumerate(normalized):
        if not edit.old_text:
            label = "oldText" if single else f"edits[{i}].oldText"
            raise EditError(f"{label} must not be empty in {path}.")

    # One fuzzy edit puts every edit into the fuzzy space, so that all indices refer to one text.
    use_fuzzy = any(content.find(edit.old_text) == -1 for edit in normalized)
    fuzzy_content = normalize_for_fuzzy_match(content, collapse_whitespace=collapse_whitespace)
    space = fuzzy_content if use_fuzzy else content

    matches: list[_Match] = []
    for i, edit in enumerate(normalized):
        fuzzy_old = normalize_for_fuzzy_match(edit.old_text, collapse_whitespace=collapse_whitespace)
        needle = fuzzy_old if use_fuzzy else edit.old_text
        index = space.find(needle) if needle else -1
        if index == -1:
            raise EditError(_not_found_message(content, edit.old_text, path, i, single, collapse_whitespace))
        occurrences = _count_occurrences(fuzzy_content, fuzzy_old)
        if occurrences > 1:
            if single:
                raise EditError(
                    f"Found {occurrences} occurrences of the text in {path}. "
                    "The text must be unique. Please provide more context to make it unique."
                )
            raise EditError(
                f"Found {occurrences} occurrences of edits[{i}] in {path}. "
                "Each oldText must be unique. Please provide more context to make it unique."
            )
        matches.append(_Match(i, index, len(needle), edit.new_text))

    ordered = sorted(matches, key=lambda m: m.start)
    for earlier, later in itertools.pairwise(ordered):
        if earlier.end > later.start:
            raise EditError(
                f"edits[{earlier.edit_index}] and edits[{later.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )

    new_content = _splice(content, ordered) if not use_fuzzy else _splice_lines(content, fuzzy_content, ordered)

    if new_content == content:
        if single:
            raise EditError(
                f"No changes made to {path}. The replacement produced identical content. "
                "This might indicate an issue with special characters or the text not existing as expected."
            )
        raise EditError(f"No changes made to {path}. The replacements produced identical content.")
    return AppliedEdits(base_content=content, new_content=new_content, used_fuzzy_match=use_fuzzy)


def _count_occurrences(haystack: str, needle: str) -> int:
    """Occurrences including overlapping ones: `aXa` in `aXaXa` is ambiguous, not unique."""
    if not needle:
        return 0
    count = 0
    index = haystack.find(needle)
    while index != -1:
        count += 1
        index = haystack.find(needle, index + 1)
    return count


def _splice(text: str, ordered: Sequence[_Match]) -> str:
    parts: list[str] = []
    cursor = 0
    for match in ordered:
        parts.append(text[cursor : match.start])
        parts.append(match.new_text)
        cursor = match.end
    parts.append(text[cursor:])
    return "".join(parts)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def _line_of(starts: Sequence[int], offset: int) -> int:
    """Index of the line holding character `offset` (binary search over line starts)."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _splice_lines(original: str, fuzzy: str, ordered: Sequence[_Match]) -> str:
    """Apply fuzzy-space matches while copying every untouched line byte-for-byte from `original`.

    Each match is widened to the whole lines it touches; matches sharing a line form one group,
    whose lines are rebuilt from the normalised text with the replacements spliced in. Both texts
    have the same number of lines, so line k of one is line k of the other.
    """
    fuzzy_starts = _line_starts(fuzzy)
    original_starts = _line_starts(original)
    line_count = len(fuzzy_starts)

    def line_end(starts: Sequence[int], text: str, line: int) -> int:
        """Offset just past `line`, its newline included."""
        return starts[line + 1] if line + 1 < line_count else len(text)

    groups: list[tuple[int, int, list[_Match]]] = []
    for match in ordered:
        first = _line_of(fuzzy_starts, match.start)
        last = _line_of(fuzzy_starts, max(match.start, match.end - 1))
        if groups and first <= groups[-1][1]:
            start_line, end_line, members = groups[-1]
            groups[-1] = (start_line, max(end_line, last), [*members, match])
        else:
            groups.append((first, last, [match]))

    parts: list[str] = []
    cursor = 0
    for first, last, members in groups:
        region_start = fuzzy_starts[first]
        region_end = line_end(fuzzy_starts, fuzzy, last)
        rebuilt: list[str] = []
        inner = region_start
        for match in members:
            rebuilt.append(fuzzy[inner : match.start])
            rebuilt.append(match.new_text)
            inner = match.end
        rebuilt.append(fuzzy[inner:region_end])
        parts.append(original[cursor : original_starts[first]])
        parts.append("".join(rebuilt))
        cursor = line_end(original_starts, original, last)
    parts.append(original[cursor:])
    return "".join(parts)


# --- whole-file pipeline --------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class EditOutcome:
    base_content: str
    """Original text, BOM removed, LF endings (what diffs are computed from)."""
    new_content: str
    """Edited text in the same form."""
    final_text: str
    """What goes back to disk: BOM and the file's line-ending style restored."""
    bom: str
    line_ending: LineEnding
    used_fuzzy_match: bool


def apply_edits(raw: str, edits: Sequence[Replacement], path: str, *, collapse_whitespace: bool = False) -> EditOutcome:
    """Full `edit` pipeline on decoded file text: strip BOM, detect endings, match, apply, restore."""
    bom, text = strip_bom(raw)
    ending = detect_line_ending(text)
    applied = apply_edits_to_normalized_content(
        normalize_to_lf(text), edits, path, collapse_whitespace=collapse_whitespace
    )
    return EditOutcome(
        base_content=applied.base_content,
        new_content=applied.new_content,
        final_text=bom + restore_line_endings(applied.new_content, ending),
        bom=bom,
        line_ending=ending,
        used_fuzzy_match=applied.used_fuzzy_match,
    )


# --- not-found diagnostics ------------------------------------------------------------------------

_PREFIX_LENGTHS = (60, 50, 40, 30, 20, 10)


def _not_found_message(
    content: str, old_text: str, path: str, index: int, single: bool, collapse_whitespace: bool
) -> str:
    if single:
        head = f"Could not find the exact text in {path}. The old text must match exactly"
    else:
        head = f"Could not find edits[{index}] in {path}. The oldText must match exactly"
    head += " including all whitespace and newlines."
    return head + "\n" + closest_match_hint(content, old_text, collapse_whitespace=collapse_whitespace)


def _numbered(lines: Sequence[str], first_number: int) -> str:
    return "\n".join(f"  {first_number + offset}: {line}" for offset, line in enumerate(lines))


def closest_match_hint(content: str, old_text: str, *, collapse_whitespace: bool = False) -> str:
    """Where the text the model meant probably is, so its retry can copy the real lines.

    Looks for ever shorter prefixes of the first non-blank line of `old_text` (fuzzy-normalised on
    both sides) and shows the lines around the first hit; without a hit, shows the file's start.
    """
    if not content:
        return "File is empty."
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    old_lines = old_text.split("\n")
    anchor = next((line.strip() for line in old_lines if line.strip()), "")
    if anchor:
        fuzzy_lines = [_normalize_line(line, collapse_whitespace) for line in lines]
        fuzzy_anchor = _normalize_line(anchor, collapse_whitespace).strip()
        tried: set[str] = set()
        for length in _PREFIX_LENGTHS:
            prefix = fuzzy_anchor[:length]
            if prefix in tried or not prefix:
                continue
            tried.add(prefix)
            hit = next((n for n, line in enumerate(fuzzy_lines) if prefix in line), None)
            if hit is not None:
                start = max(0, hit - 2)
                stop = min(len(lines), hit + len(old_lines) + 3)
                return f"Closest match is around line {hit + 1}:\n" + _numbered(lines[start:stop], start + 1)
    return "File starts with:\n" + _numbered(lines[:5], 1)


# --- argument repair ------------------------------------------------------------------------------

_LEGACY_FIELD_PAIRS = (("oldText", "newText"), ("old_text", "new_text"), ("old_string", "new_string"))


def prepare_edit_arguments(args: Any) -> Any:
    """Repair the argument shapes models are known to send before schema validation sees them.

    * `edits` as a JSON string of the array (seen from several models) is parsed.
    * A flat `oldText`/`newText` pair (the old schema, also `old_string`/`new_string`) becomes one
      more entry after any `edits` already given.
    Anything unrecognised is left alone, so validation can report it.
    """
    if not isinstance(args, dict):
        return args
    repaired = dict(args)
    edits = repaired.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(_is_edit_entry(entry) for entry in parsed):
            repaired["edits"] = parsed
    for old_key, new_key in _LEGACY_FIELD_PAIRS:
        old_value, new_value = repaired.get(old_key), repaired.get(new_key)
        if isinstance(old_value, str) and isinstance(new_value, str):
            current = repaired.get("edits")
            entries = list(current) if isinstance(current, list) else []
            entries.append({"oldText": old_value, "newText": new_value})
            repaired["edits"] = entries
            del repaired[old_key], repaired[new_key]
    return repaired


def _is_edit_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("oldText"), str) and isinstance(entry.get("newText"), str)


__all__ = [
    "BOM",
    "AppliedEdits",
    "EditError",
    "EditOutcome",
    "FuzzyMatch",
    "LineEnding",
    "Replacement",
    "apply_edits",
    "apply_edits_to_normalized_content",
    "closest_match_hint",
    "detect_line_ending",
    "fuzzy_find_text",
    "normalize_for_fuzzy_match",
    "normalize_to_lf",
    "prepare_edit_arguments",
    "restore_line_endings",
    "strip_bom",
]
