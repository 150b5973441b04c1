from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from pi.ai.types import ImageContent, TextContent
from pi.app.mcp.results import convert_call_result, progress_text


def texts(result: dict[str, Any]) -> list[str]:
    return [b.text for b in result["content"] if isinstance(b, TextContent)]


def test_text_and_images_pass_through_with_details_and_structured_content() -> None:
    raw = {
        "content": [{"type": "text", "text": "hi"}, {"type": "image", "data": "AAA", "mimeType": "image/png"}],
        "_meta": {"x": 1},
    }
    out = convert_call_result(raw, "s", "t")
    assert texts(out) == ["hi"]
    assert isinstance(out["content"][1], ImageContent) and out["content"][1].mime_type == "image/png"
    assert out["details"] == {"server": "s", "tool": "t"}
    assert out["structuredContent"] == {"content": raw["content"]}
    assert "isError" not in out


def test_acceptance_36_long_text_is_truncated_with_full_output_file() -> None:
    text = "".join(f"row {i:05d}\n" for i in range(3000))  # 30 KB
    out = convert_call_result({"content": [{"type": "text", "text": text}]}, "s", "t")
    [shown] = texts(out)
    size = len(text.encode())
    assert shown.startswith(
        f"Warning: truncated output (original token count: {-(-size // 4)})\nTotal output lines: 3001\n\n"
    )
    assert re.search(r"…\d+ chars truncated…", shown)
    path = out["details"]["fullOutputPath"]
    assert shown.endswith(f"\n\n[Full output: {path} (read it with offset/limit)]")
    assert Path(path).read_text() == text
    assert out["structuredContent"]["content"][0]["text"] == text


def test_error_results_without_text_get_a_message() -> None:
    out = convert_call_result({"content": [], "isError": True}, "s", "t")
    assert texts(out) == ["MCP tool s/t returned an error"] and out["isError"] is True


def test_structured_content_fallback_and_resources(tmp_path: Path) -> None:
    out = convert_call_result({"content": [], "structuredContent": {"a": 1}}, "s", "t")
    assert texts(out) == ['{\n  "a": 1\n}']
    blob = base64.b64encode(b"\x00\x01\x02").decode()
    blocks = [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inner"}},
        {
            "type": "resource",
            "resource": {"uri": "file:///b.bin", "mimeType": "application/octet-stream", "blob": blob},
        },
        {"type": "resource_link", "uri": "file:///c", "name": "c", "mimeType": "text/plain", "description": "Doc"},
    ]
    got = texts(convert_call_result({"content": blocks}, "s", "t", readable=True))
    assert got[0] == "inner"
    match = re.fullmatch(r"\[Binary resource file:///b\.bin \(application/octet-stream, 3B\) saved to (.+)\]", got[1])
    assert match is not None and Path(match.group(1)).read_bytes() == b"\x00\x01\x02"
    assert got[2] == '[Resource file:///c "c" (text/plain): Doc. Read it with read_mcp_resource (server "s")]'


def test_progress_text() -> None:
    assert progress_text(1, 4, None) == "Progress 1/4"
    assert progress_text(2, None, None) == "Progress 2"
    assert progress_text(2, 4, "Halfway") == "Halfway"
