"""Turning an MCP `CallToolResult` (as a JSON dict) into what pi's model and UI get.

Text and images pass through; resources are unwrapped, saved to temp files or described; long
text is cut to a head and a tail with the full output kept in a temp file, so the model can read
the rest with `read`. Codemode scripts get the whole result as `structuredContent`, untruncated.
"""

from __future__ import annotations

import base64
import json
import math
import mimetypes
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi.ai.types import ImageContent, TextContent
from pi.tools.truncate import format_size

MCP_OUTPUT_MAX_BYTES = 20480
HEAD_TAIL_BYTES = 10240
TEXT_LIKE = ("application/json", "application/xml", "application/javascript", "application/yaml")

Block = TextContent | ImageContent


def _is_text_mime(mime: str | None) -> bool:
    return bool(mime) and (
        str(mime).startswith("text/") or str(mime).split(";")[0] in TEXT_LIKE or "+json" in str(mime)
    )


def save_temp(data: bytes, *, prefix: str = "pi-mcp-", suffix: str = "") -> Path:
    """Write `data` to a new temp file that outlives the call (the model may read it later)."""
    with tempfile.NamedTemporaryFile(prefix=prefix, suffix=suffix, delete=False) as handle:
        handle.write(data)
    return Path(handle.name)


def resource_blocks(resource: Mapping[str, Any]) -> list[Block]:
    """One embedded resource (`{uri, mimeType?, text}` or `{uri, mimeType?, blob}`) as content blocks."""
    uri = str(resource.get("uri", ""))
    mime = resource.get("mimeType")
    if "text" in resource:
        return [TextContent(text=str(resource["text"]))]
    raw = base64.b64decode(str(resource.get("blob", "")))
    if mime and str(mime).startswith("image/"):
        return [ImageContent(data=str(resource.get("blob", "")), mime_type=str(mime))]
    if _is_text_mime(mime):
        return [TextContent(text=raw.decode("utf-8", errors="replace"))]
    suffix = mimetypes.guess_extension(str(mime)) if mime else None
    path = save_temp(raw, suffix=suffix or ".bin")
    shown_mime = mime or "application/octet-stream"
    return [TextContent(text=f"[Binary resource {uri} ({shown_mime}, {format_size(len(raw))}) saved to {path}]")]


def _resource_link(block: Mapping[str, Any], server: str, readable: bool) -> str:
    uri = block.get("uri", "")
    label = block.get("title") or block.get("name") or uri
    facts = [str(x) for x in (block.get("mimeType"), block.get("size")) if x is not None]
    if isinstance(block.get("size"), int):
        facts[-1] = format_size(int(block["size"]))
    text = f'[Resource {uri} "{label}"'
    if facts:
        text += f" ({', '.join(facts)})"
    if block.get("description"):
        text += f": {block['description']}"
    if readable:
        text += f'. Read it with read_mcp_resource (server "{server}")'
    return text + "]"


def content_blocks(blocks: list[Mapping[str, Any]], server: str, *, readable: bool = False) -> list[Block]:
    out: list[Block] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            out.append(TextContent(text=str(block.get("text", ""))))
        elif kind == "image":
            out.append(ImageContent(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "image/png"))))
        elif kind == "audio":
            out.append(TextContent(text=f"[Audio content ({block.get('mimeType', 'audio')}) omitted]"))
        elif kind == "resource" and isinstance(block.get("resource"), Mapping):
            out.extend(resource_blocks(block["resource"]))
        elif kind == "resource_link":
            out.append(TextContent(text=_resource_link(block, server, readable)))
    return out


def _cut_head(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def _cut_tail(text: str, limit: int) -> str:
    return text.encode("utf-8")[-limit:].decode("utf-8", errors="ignore")


def truncate_text(text: str) -> tuple[str, Path | None]:
    """Text over 20 KB → warning, head, marker, tail and the path of the full output."""
    size = len(text.encode("utf-8"))
    if size <= MCP_OUTPUT_MAX_BYTES:
        return text, None
    path = save_temp(text.encode("utf-8"), suffix=".txt")
    head = _cut_head(text, HEAD_TAIL_BYTES)
    tail = _cut_tail(text, HEAD_TAIL_BYTES)
    removed = len(text) - len(head) - len(tail)
    lines = text.count("\n") + 1
    body = (
        f"Warning: truncated output (original token count: {math.ceil(size / 4)})\n"
        f"Total output lines: {lines}\n\n"
        f"{head}…{removed} chars truncated…{tail}\n\n"
        f"[Full output: {path} (read it with offset/limit)]"
    )
    return body, path


def convert_call_result(result: Mapping[str, Any], server: str, tool: str, *, readable: bool = False) -> dict[str, Any]:
    """The pi tool result for one `CallToolResult` dict (camelCase keys, as the wire has them)."""
    is_error = bool(result.get("isError"))
    blocks = content_blocks(list(result.get("content") or []), server, readable=readable)
    if not blocks and result.get("structuredContent") is not None:
        blocks = [TextContent(text=json.dumps(result["structuredContent"], indent=2))]
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    images = [b for b in blocks if isinstance(b, ImageContent)]
    if is_error and not any(t.strip() for t in texts):
        blocks = [TextContent(text=f"MCP tool {server}/{tool} returned an error"), *images]
        texts = [blocks[0].text]  # type: ignore[union-attr]
    details: dict[str, Any] = {"server": server, "tool": tool}
    shown, full_path = truncate_text("\n".join(texts))
    if full_path is not None:
        details["fullOutputPath"] = str(full_path)
        blocks = [TextContent(text=shown), *images]
    structured = {key: value for key, value in result.items() if key != "_meta"}
    out: dict[str, Any] = {"content": blocks, "details": details, "structuredContent": structured}
    if is_error:
        out["isError"] = True
    return out


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    """What `on_update` shows for a progress notification."""
    if message:
        return message
    shown = f"{progress:g}"
    return f"Progress {shown}/{total:g}" if total is not None else f"Progress {shown}"


__all__ = [
    "MCP_OUTPUT_MAX_BYTES",
    "content_blocks",
    "convert_call_result",
    "progress_text",
    "resource_blocks",
    "save_temp",
    "truncate_text",
]
