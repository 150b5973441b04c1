"""Conformance cases 1-12 (tools.md §8.1) for the truncation functions shared by every tool."""

from __future__ import annotations

import math

import pytest

from pi.ai.types import ToolResultMessage
from pi.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
    utf16_length,
)


def test_constants() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH) == (2000, 51200, 500)


def test_case_01_empty_input() -> None:
    result = truncate_head("")
    assert not result.truncated
    assert (result.total_lines, result.total_bytes, result.content) == (0, 0, "")


def test_case_02_trailing_newline_is_not_a_line() -> None:
    result = truncate_head("a\nb\n")
    assert not result.truncated
    assert result.total_lines == 2
    assert result.content == "a\nb\n"
    assert truncate_head("a\nb").total_lines == 2
    assert truncate_head("\n").total_lines == 1


def test_case_03_head_by_lines() -> None:
    result = truncate_head("\n".join(f"Line {i}" for i in range(1, 2501)))
    assert result.truncated_by == "lines"
    assert result.output_lines == 2000
    assert result.content.endswith("Line 2000")
    assert result.total_lines == 2500


def test_case_04_head_by_bytes() -> None:
    result = truncate_head("\n".join(f"Line {i}: " + "x" * 200 for i in range(1, 501)))
    assert result.truncated_by == "bytes"
    assert (result.output_lines, result.output_bytes) == (243, 51164)
    assert len(result.content.encode()) == 51164


def test_case_05_head_first_line_too_long() -> None:
    result = truncate_head("x" * 60000)
    assert result.content == ""
    assert result.first_line_exceeds_limit
    assert result.truncated_by == "bytes"
    assert result.output_lines == 0


def test_case_06_boundaries() -> None:
    assert not truncate_head("x" * 51200).truncated
    assert truncate_head("x" * 51201).first_line_exceeds_limit
    assert not truncate_head("\n".join("l" for _ in range(2000))).truncated
    over = truncate_head("\n".join("l" for _ in range(2001)))
    assert over.truncated
    assert over.truncated_by == "lines"


def test_case_07_tail_by_lines() -> None:
    result = truncate_tail("".join(f"{i}\n" for i in range(1, 3001)))
    assert result.truncated_by == "lines"
    assert result.output_lines == 2000
    assert result.total_lines == 3000
    assert result.content == "\n".join(str(i) for i in range(1001, 3001))


def test_case_08_tail_by_bytes() -> None:
    result = truncate_tail("".join("y" * 100 + "\n" for _ in range(1000)))
    assert result.truncated_by == "bytes"
    assert (result.output_lines, result.output_bytes) == (506, 51105)


def test_case_09_tail_partial_last_line() -> None:
    result = truncate_tail("a" * 60000)
    assert result.last_line_partial
    assert result.output_bytes == 51200
    assert result.content == "a" * 51200


def test_case_10_tail_cut_on_character_boundary() -> None:
    result = truncate_tail("€" * 25601)
    assert result.last_line_partial
    assert result.content == "€" * 17066
    assert result.output_bytes == 51198


def test_case_11_truncate_line() -> None:
    assert truncate_line("a" * 500) == ("a" * 500, False)
    text, was_truncated = truncate_line("a" * 501)
    assert text == "a" * 500 + "... [truncated]"
    assert was_truncated


def test_truncate_line_counts_utf16_units_and_keeps_pairs_whole() -> None:
    assert utf16_length("😀") == 2
    line = "a" + "😀" * 300  # 601 code units
    text, was_truncated = truncate_line(line, 500)
    assert was_truncated
    assert text == "a" + "😀" * 249 + "... [truncated]"  # 499 units: the 250th emoji would split a pair
    assert truncate_line("😀" * 250) == ("😀" * 250, False)


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (1280, "1.3KB"),
        (51200, "50.0KB"),
        (60000, "58.6KB"),
        (1048576, "1.0MB"),
        (5242881, "5.0MB"),
    ],
)
def test_case_12_format_size(size: int, expected: str) -> None:
    assert format_size(size) == expected


def test_head_without_line_limit() -> None:
    result = truncate_head("\n".join("l" for _ in range(5000)), max_lines=math.inf)
    assert not result.truncated
    assert result.max_lines is None


def test_head_loses_trailing_newline_when_cut_by_bytes_alone() -> None:
    # Lines plus separators fit exactly; only the final newline goes over the limit.
    content = "a" * 10 + "\n" + "b" * 9 + "\n"
    result = truncate_head(content, max_bytes=20)
    assert result.truncated
    assert result.truncated_by == "bytes"
    assert result.content == "a" * 10 + "\n" + "b" * 9


def test_result_serialises_with_pi_field_names() -> None:
    result = truncate_tail("a" * 60000)
    message = ToolResultMessage(tool_call_id="1", tool_name="bash", details={"truncation": result})
    truncation = message.to_json_dict()["details"]["truncation"]
    assert truncation["truncatedBy"] == "bytes"
    assert truncation["lastLinePartial"] is True
    assert truncation["outputBytes"] == 51200
    assert isinstance(result, TruncationResult)
