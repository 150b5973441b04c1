"""What a script's `await tools.<id>(args)` resolves to, made from the tool's result.

Structured results win (an `outputSchema` tool's `structuredContent`, also on an error result
that carries one, and `bash`'s `{output, truncated, exit_code, ...}`); `read` of an image gives the
image block with its note; everything else gives the text. A failed call rejects with its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BASH_OUTPUT_LIMIT = 1024 * 1024
BASH_KEEP = 512 * 1024


def _blocks(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for block in outcome.get("content") or []:
        if hasattr(block, "model_dump"):
            block = block.model_dump(by_alias=True)
        if isinstance(block, Mapping):
            out.append(dict(block))
    return out


def result_text(outcome: Mapping[str, Any]) -> str:
    """The text blocks of a result, joined."""
    return "\n".join(str(b.get("text", "")) for b in _blocks(outcome) if b.get("type") == "text")


def _bash_value(structured: Mapping[str, Any]) -> dict[str, Any]:
    value = dict(structured)
    output = value.get("output")
    if isinstance(output, str) and len(output) > BASH_OUTPUT_LIMIT:
        value["output"] = output[:BASH_KEEP] + output[-BASH_KEEP:]
        value["truncated"] = True
    return value


def script_value(name: str, outcome: Mapping[str, Any]) -> tuple[bool, Any]:
    """(resolved?, value): the value the promise resolves to, or the error text it rejects with."""
    structured = outcome.get("structuredContent")
    if structured is not None:
        return True, _bash_value(structured) if name == "bash" and isinstance(structured, Mapping) else structured
    text = result_text(outcome)
    if outcome.get("isError"):
        return False, text or f"Tool {name} failed"
    if name == "read":
        image = next((b for b in _blocks(outcome) if b.get("type") == "image"), None)
        if image is not None:
            return True, {"type": "image", "data": image.get("data"), "mimeType": image.get("mimeType"), "note": text}
    return True, text


__all__ = ["result_text", "script_value"]
