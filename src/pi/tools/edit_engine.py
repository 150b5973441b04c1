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
import re
import unicodedata
from collections.abc import Sequence
from typing import Literal

from msgspec import Struct

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
    """The style of the first newline: what a line break inside new text gets when its line has none."""
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    return "\n"


def normalize_to_lf(text: str) -> str:
    """CRLF and lone CR both become LF, so matching never depends on how the model wrote newlines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


_LF_BREAKS = re.compile("\r\n|\n")


class LineMap:
    """A file's text with every line break as LF, and the way back to the original's positions.

    Line breaks are CRLF or LF; a lone CR is a break only in a file with no LF at all (old Mac
    files), elsewhere it is content. Keeping each line's own break lets an edit change some lines
    while every untouched line keeps its ending, also in files that mix CRLF and LF.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        breaks = _LF_BREAKS if "\n" in text else re.compile("\r")
        self.original_starts = [0]
        self.endings: list[str] = []
        parts: list[str] = []
        cursor = 0
        for found in breaks.finditer(text):
            parts.append(text[cursor : found.start()])
            self.endings.append(found.group())
            cursor = found.end()
            self.original_starts.append(cursor)
        parts.append(text[cursor:])
        self.endings.append("")
        self.normalized = "\n".join(parts)
        self.normalized_starts = [0]
        for part in parts[:-1]:
            self.normalized_starts.append(self.normalized_starts[-1] + len(part) + 1)

    def to_original(self, offset: int) -> int:
        line = _line_of(self.normalized_starts, offset)
        return self.original_starts[line] + offset - self.normalized_starts[line]

    def ending_at(self, offset: int) -> str:
        """The line break used for new lines inserted at `offset`: that line's own, else the one before it."""
        line = _line_of(self.normalized_starts, offset)
        for candidate in (line, line - 1):
            if candidate >= 0 and self.endings[candidate]:
                return self.endings[candidate]
        return detect_line_ending(self.text) if "\n" in self.text else (self.endings[0] or "\n")

    def splice(self, splices: Sequence[tuple[int, int, str]]) -> str:
        """The original text with each normalised (start, end, text) replaced, breaks in `text` matching their line."""
        parts: list[str] = []
        cursor = 0
        for start, end, replacement in splices:
            original_start = self.to_original(start)
            parts.append(self.text[cursor:original_start])
            ending = self.ending_at(start)
            parts.append(replacement.replace("\n", ending) if ending != "\n" else replacement)
            cursor = self.to_original(end)
        parts.append(self.text[cursor:])
        return "".join(parts)


# --- fuzzy normalisation --------------------------------------------------------------------------


def normalize_fuzzy_line(line: str, collapse_whitespace: bool = False) -> str:
    """One line as the fuzzy comparison sees it (see `normalize_for_fuzzy_match`)."""
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
            return "\n".join(normalize_fuzzy_line(line, collapse_whitespace) for line in text.split("\n"))
        text = normalized
    if _may_have_trailing_whitespace(text):
        text = "\n".join(line.rstrip(_JS_WHITESPACE) for line in text.split("\n"))
    if not text.isascii() and _FUZZY_CHARACTERS.search(text):
        text = text.translate(_FUZZY_TRANSLATION)
    if collapse_whitespace:
        text = _INTERIOR_RUN.sub(" ", text)
    return text


# --- bytes that are not UTF-8 ---------------------------------------------------------------------

# The tool decodes files with surrogateescape, so each byte that is not UTF-8 is one lone surrogate
# U+DC80..U+DCFF; `read` decodes with "replace" and shows each undecodable sequence as one U+FFFD.
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")


def shown_as_read(text: str) -> str:
    """`text` as `read` showed it: every undecodable byte sequence as one U+FFFD."""
    if text.isascii():
        return text
    return _ESCAPED_BYTES.sub(
        lambda run: run.group().encode("utf-8", "surrogateescape").decode("utf-8", "replace"), text
    )


def _undecodable_sequences(text: str) -> list[tuple[int, int]]:
    """(start, end) in `text` of each run of escaped bytes that `read` showed as one U+FFFD."""
    sequences: list[tuple[int, int]] = []
    for run in _ESCAPED_BYTES.finditer(text):
        raw = run.group().encode("utf-8", "surrogateescape")
        at = 0
        while at < len(raw):
            # An invalid sequence is at most 3 bytes; 4 are enough to see where the first one ends.
            length = 1
            try:
                raw[at : at + 4].decode("utf-8")
            except UnicodeDecodeError as exc:
                length = max(1, exc.end) if exc.start == 0 else 1
            sequences.append((run.start() + at, run.start() + at + length))
            at += length
    return sequences


def _as_copied_from_read(content: str, old_text: str, path: str, index: int, single: bool) -> str | None:
    """The file's own text for an oldText copied from `read` output, U+FFFD standing for bad bytes.

    Each U+FFFD then matches exactly one undecodable sequence, so the edit replaces those bytes and
    leaves the file's other bytes as they were. None when the text is not found that way either.
    """
    if "\ufffd" not in old_text or content.isascii():
        return None
    sequences = _undecodable_sequences(content)
    if not sequences:
        return None
    shown = shown_as_read(content)
    hits = _occurrence_lines(shown, old_text)
    if len(hits) > 1:
        raise EditError(_ambiguous_message(path, index, single, hits))
    if not hits:
        return None
    shown_start = shown.find(old_text)
    shown_end = shown_start + len(old_text)

    def to_content(position: int) -> int:
        # Each sequence before `position` is one character in `shown` and end - start in `content`.
        extra = 0
        for start, end in sequences:
            if start - extra >= position:
                break
            extra += end - start - 1
        return position + extra

    return content[to_content(shown_start) : to_content(shown_end)]


# --- applying edits -------------------------------------------------------------------------------


class Replacement(Struct, frozen=True):
    old_text: str
    new_text: str


class _Match(Struct, frozen=True):
    edit_index: int
    start: int
    length: int
    new_text: str

    @property
    def end(self) -> int:
        return self.start + self.length


class AppliedEdits(Struct, frozen=True):
    base_content: str
    """The file as matched against: BOM removed, LF line endings."""
    new_content: str
    """The result in the same form; compare with `base_content` for diffs."""
    used_fuzzy_match: bool
    splices: tuple[tuple[int, int, str], ...] = ()
    """What changed, as sorted (start, end, replacement) ranges of `base_content`."""


def _prepared(content: str, edits: Sequence[Replacement], path: str, collapse_whitespace: bool) -> list[Replacement]:
    """The edits with LF newlines, each oldText checked non-empty; one that does not match as sent is
    replaced by the file text it unambiguously means (other indentation, escaped newlines), if any."""
    from pi.tools.loose_match import recover_edit

    single = len(edits) == 1
    prepared: list[Replacement] = []
    fuzzy_content: str | None = None
    for i, edit in enumerate(edits):
        old_text, new_text = normalize_to_lf(edit.old_text), normalize_to_lf(edit.new_text)
        if not old_text:
            label = "oldText" if single else f"edits[{i}].oldText"
            raise EditError(
                f"{label} must not be empty in {path}.\nCopy the text to replace from the file; to insert text, "
                "put a neighbouring line in both oldText and newText."
            )
        if old_text not in content:
            if fuzzy_content is None:
                fuzzy_content = normalize_for_fuzzy_match(content, collapse_whitespace=collapse_whitespace)
            fuzzy_old = normalize_for_fuzzy_match(old_text, collapse_whitespace=collapse_whitespace)
            copied = _as_copied_from_read(content, old_text, path, i, single)
            if copied is not None:
                old_text = copied
            elif not fuzzy_old or fuzzy_old not in fuzzy_content:
                label = "the text" if single else f"edits[{i}]"
                recovered = recover_edit(content, old_text, new_text, path, label, collapse_whitespace)
                if recovered is not None:
                    old_text, new_text = recovered
        prepared.append(Replacement(old_text, new_text))
    return prepared


def apply_edits_to_normalized_content(
    content: str, edits: Sequence[Replacement], path: str, *, collapse_whitespace: bool = False
) -> AppliedEdits:
    """Apply every edit to the LF-normalised, BOM-less `content`; each is matched against the original.

    Raises EditError (nothing applied) when an oldText is empty, missing, not unique, overlaps
    another one, or when the result equals the input.
    """
    single = len(edits) == 1
    normalized = _prepared(content, edits, path, collapse_whitespace)

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
        occurrences = _occurrence_lines(fuzzy_content, fuzzy_old)
        if len(occurrences) > 1:
            raise EditError(_ambiguous_message(path, i, single, occurrences))
        matches.append(_Match(i, index, len(needle), edit.new_text))

    ordered = sorted(matches, key=lambda m: m.start)
    for earlier, later in itertools.pairwise(ordered):
        if earlier.end > later.start:
            raise EditError(
                f"edits[{earlier.edit_index}] and edits[{later.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )

    if use_fuzzy:
        splices = _line_splices(content, fuzzy_content, ordered)
    else:
        splices = [(m.start, m.end, m.new_text) for m in ordered]
    new_content = _splice(content, splices)

    if new_content == content:
        if single:
            raise EditError(
                f"No changes made to {path}. The replacement produced identical content. "
                "This might indicate an issue with special characters or the text not existing as expected. "
                "Read the file again to see its current text."
            )
        raise EditError(
            f"No changes made to {path}. The replacements produced identical content. "
            "Read the file again to see its current text."
        )
    return AppliedEdits(content, new_content, use_fuzzy, tuple(splices))


def _ambiguous_message(path: str, index: int, single: bool, lines: Sequence[int]) -> str:
    where = ", ".join(str(line) for line in lines[:10]) + (", ..." if len(lines) > 10 else "")
    if single:
        head = (
            f"Found {len(lines)} occurrences of the text in {path}. "
            "The text must be unique. Please provide more context to make it unique."
        )
    else:
        head = (
            f"Found {len(lines)} occurrences of edits[{index}] in {path}. "
            "Each oldText must be unique. Please provide more context to make it unique."
        )
    return f"{head}\nThey start at lines {where}; include a neighbouring line that differs between them."


def _occurrence_lines(haystack: str, needle: str) -> list[int]:
    """1-based line numbers where `needle` starts, overlapping occurrences included (`aXa` in `aXaXa` is two)."""
    if not needle:
        return []
    lines: list[int] = []
    line = 1
    scanned = 0
    index = haystack.find(needle)
    while index != -1:
        line += haystack.count("\n", scanned, index)
        scanned = index
        lines.append(line)
        index = haystack.find(needle, index + 1)
    return lines


def _splice(text: str, splices: Sequence[tuple[int, int, str]]) -> str:
    parts: list[str] = []
    cursor = 0
    for start, end, replacement in splices:
        parts.append(text[cursor:start])
        parts.append(replacement)
        cursor = end
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


def _line_splices(original: str, fuzzy: str, ordered: Sequence[_Match]) -> list[tuple[int, int, str]]:
    """Fuzzy-space matches as splices of `original` that leave every untouched line byte-for-byte as it was.

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

    splices: list[tuple[int, int, str]] = []
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
        splices.append((original_starts[first], line_end(original_starts, original, last), "".join(rebuilt)))
    return splices


# --- whole-file pipeline --------------------------------------------------------------------------


class EditOutcome(Struct, frozen=True):
    base_content: str
    """Original text, BOM removed, LF endings (what diffs are computed from)."""
    new_content: str
    """Edited text in the same form."""
    final_text: str
    """What goes back to disk: BOM and every untouched line's own line break kept."""
    bom: str
    line_ending: LineEnding
    """The style of the file's first line break."""
    used_fuzzy_match: bool


def apply_edits(raw: str, edits: Sequence[Replacement], path: str, *, collapse_whitespace: bool = False) -> EditOutcome:
    """Full `edit` pipeline on decoded file text: strip BOM, match on LF text, splice into the original.

    Only the replaced ranges change on disk; a line break inside new text takes the break of the
    line where its range starts, so a file that mixes CRLF and LF keeps both.
    """
    bom, text = strip_bom(raw)
    lines = LineMap(text)
    applied = apply_edits_to_normalized_content(lines.normalized, edits, path, collapse_whitespace=collapse_whitespace)
    return EditOutcome(
        base_content=applied.base_content,
        new_content=applied.new_content,
        final_text=bom + lines.splice(applied.splices),
        bom=bom,
        line_ending=detect_line_ending(text),
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
    # Lines are shown as `read` showed them, so that undecodable bytes appear as U+FFFD, not as escapes.
    content = shown_as_read(content)
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    old_lines = old_text.split("\n")
    anchor = next((line.strip() for line in old_lines if line.strip()), "")
    if anchor:
        fuzzy_lines = [normalize_fuzzy_line(line, collapse_whitespace) for line in lines]
        fuzzy_anchor = normalize_fuzzy_line(anchor, collapse_whitespace).strip()
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


__all__ = [
    "BOM",
    "AppliedEdits",
    "EditError",
    "EditOutcome",
    "LineEnding",
    "LineMap",
    "Replacement",
    "apply_edits",
    "apply_edits_to_normalized_content",
    "closest_match_hint",
    "detect_line_ending",
    "normalize_for_fuzzy_match",
    "normalize_fuzzy_line",
    "normalize_to_lf",
    "shown_as_read",
    "strip_bom",
]
