"""Cutting tool output down to what fits in a model's context, and saying how much was cut.

Every tool that can produce unbounded text (read, bash, grep, find, ls) goes through the same two
limits, lines and bytes, so that the notices the model sees mean the same thing everywhere. The
counting rules are pi's, byte for byte, because the numbers appear in notices the model acts on
(``Use offset=2001 to continue``) and in transcripts shared with the TypeScript pi.
"""

from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple, TypeAlias

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TRUNCATED_LINE_SUFFIX = "... [truncated]"

TruncatedBy: TypeAlias = Literal["lines", "bytes"]


class TruncationResult(BaseModel):
    """What was kept and how much there was; it travels in tool `details` (camelCase in JSON, as in pi)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True)

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    """Complete lines in `content` (a partial last line of a tail cut counts as one)."""
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int | None
    """None when only the byte limit applied (grep, find, ls)."""
    max_bytes: int


class TruncatedLine(NamedTuple):
    text: str
    was_truncated: bool


def _count_lines(content: str) -> tuple[list[str], int]:
    """Split on LF only; a final newline ends the last line rather than starting an empty one."""
    if not content:
        return [], 0
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines, len(lines)


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _reported(max_lines: int | float) -> int | None:
    return None if max_lines == float("inf") else int(max_lines)


def _untouched(
    content: str, total_lines: int, total_bytes: int, max_lines: int | None, max_bytes: int
) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=total_lines,
        output_bytes=total_bytes,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, max_lines: int | float = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start (read, grep, find, ls): the beginning is what the model asked for.

    `max_lines` may be `math.inf` for tools that only want the byte limit.
    """
    total_bytes = _utf8_len(content)
    lines, total_lines = _count_lines(content)
    reported_max_lines = _reported(max_lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, reported_max_lines, max_bytes)

    if lines and _utf8_len(lines[0]) > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=reported_max_lines,
            max_bytes=max_bytes,
        )

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines):
        if len(kept) >= max_lines:
            break
        cost = _utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    else:
        # Every line fit once the input's final newline is not counted: the bytes limit is what cut.
        truncated_by = "bytes" if total_bytes > max_bytes else "lines"

    return TruncationResult(
        content="\n".join(kept),
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=used,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=reported_max_lines,
        max_bytes=max_bytes,
    )


def _utf8_tail(text: str, max_bytes: int) -> str:
    """The last `max_bytes` bytes of `text`, starting on a character boundary (never half a character)."""
    raw = text.encode("utf-8", "surrogatepass")
    start = max(0, len(raw) - max_bytes)
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode("utf-8", "replace")


def truncate_tail(
    content: str, max_lines: int | float = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end (bash): errors and results come last in command output."""
    total_bytes = _utf8_len(content)
    lines, total_lines = _count_lines(content)
    reported_max_lines = _reported(max_lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, reported_max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    last_line_partial = False
    for index in range(len(lines) - 1, -1, -1):
        if len(kept) >= max_lines:
            break
        line = lines[index]
        cost = _utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                tail = _utf8_tail(line, max_bytes)
                kept.append(tail)
                used = _utf8_len(tail)
                last_line_partial = True
            break
        kept.append(line)
        used += cost
    else:
        truncated_by = "bytes" if total_bytes > max_bytes else "lines"
    kept.reverse()

    return TruncationResult(
        content="\n".join(kept),
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=used,
        last_line_partial=last_line_partial,
        first_line_exceeds_limit=False,
        max_lines=reported_max_lines,
        max_bytes=max_bytes,
    )


def utf16_length(text: str) -> int:
    """Length as JavaScript counts it (UTF-16 code units), which is what pi's limits are stated in."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> TruncatedLine:
    """Cut one line to `max_chars` UTF-16 code units plus a marker, never splitting a surrogate pair."""
    if len(line) <= max_chars and utf16_length(line) <= max_chars:
        return TruncatedLine(line, False)
    units = 0
    end = 0
    for char in line:
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > max_chars:
            break
        units += width
        end += 1
    if end == len(line):
        return TruncatedLine(line, False)
    return TruncatedLine(line[:end] + TRUNCATED_LINE_SUFFIX, True)


def _one_decimal(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def format_size(size: int) -> str:
    """Human size as pi prints it: ties round up like JavaScript's toFixed (1280 bytes is 1.3KB)."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_one_decimal(Decimal(size) / 1024)}KB"
    return f"{_one_decimal(Decimal(size) / (1024 * 1024))}MB"


__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "TRUNCATED_LINE_SUFFIX",
    "TruncatedBy",
    "TruncatedLine",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "utf16_length",
]
