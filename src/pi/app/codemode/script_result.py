"""The `codemode` tool result: header, output items in order, console block, and the failure.

    Script completed|Script failed
    Wall time <s.s> seconds
    Output:
    <text items (`==> text N/M <==` headers when more than one), image notices>
    <console_output> ... </console_output>
    Script error: ...   (failure only, with the tool calls made before it)

Output over the `max_output_tokens` budget (4 characters per token) keeps a head and a tail; the
whole output goes to a temp file the model can read with offset/limit.
"""

from __future__ import annotations

import base64
import hashlib
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pi.ai.types import Usage

CHARS_PER_TOKEN = 4
IMAGE_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


class CallRecord(Struct):
    """One tool call of a script, as `details.calls` reports it."""

    id: str
    name: str
    args: str
    status: str = "running"
    duration_ms: float | None = None
    error: str | None = None
    cost: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "args": self.args, "status": self.status}
        if self.duration_ms is not None:
            out["durationMs"] = round(self.duration_ms)
        if self.error is not None:
            out["error"] = self.error
        if self.cost is not None:
            out["cost"] = self.cost
        return out


class ScriptRun(Struct):
    """What one script did."""

    ok: bool
    wall_s: float
    items: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    calls: list[CallRecord] = field(default_factory=list)
    store_writes: dict[str, Any] | None = None
    started: bool = True
    """False when no worker was free: the error text already says the script did not start."""
    generated_images: int = 0
    """Images `models.generateImages()` returned to the script."""
    usage: Usage | None = None
    """The summed usage of the script's `models.*` calls (tool calls report theirs themselves)."""


def _save(data: bytes, prefix: str, suffix: str) -> Path:
    with tempfile.NamedTemporaryFile(prefix=prefix, suffix=suffix, delete=False) as handle:
        handle.write(data)
    return Path(handle.name)


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def calls_summary(calls: Sequence[CallRecord]) -> str:
    """`Tool calls made before the failure (they are not undone): a (ok), b (error)` or `No tool calls were made.`"""
    if not calls:
        return "No tool calls were made."
    listed = ", ".join(f"{c.name} ({c.status})" for c in calls)
    return f"Tool calls made before the failure (they are not undone): {listed}"


def budget_text(text: str, max_tokens: int) -> tuple[str, Path | None]:
    """The output within the budget (head + tail around a marker) and the file with all of it."""
    tokens = math.ceil(len(text) / CHARS_PER_TOKEN)
    if tokens <= max_tokens:
        return text, None
    path = _save(text.encode("utf-8"), "pi-codemode-", ".txt")
    keep = max_tokens * CHARS_PER_TOKEN
    head, tail = text[: keep // 2], text[len(text) - (keep - keep // 2) :] if keep - keep // 2 else ""
    dropped = tokens - math.ceil((len(head) + len(tail)) / CHARS_PER_TOKEN)
    lines = text.count("\n") + 1
    cut = (
        f"Warning: truncated output (original token count: {tokens})\nTotal output lines: {lines}\n\n"
        f"{head}…{dropped} tokens truncated…{tail}\n\n[Full output: {path} (read with offset/limit)]"
    )
    return cut, path


class ImageStore:
    """Saves each distinct image once per script and names its file in the notice."""

    def __init__(self) -> None:
        self.saved: dict[str, Path] = {}

    def notice(self, item: dict[str, Any]) -> str:
        data = str(item.get("data") or "")
        mime = str(item.get("mimeType") or "image/png")
        raw = base64.b64decode(data)
        key = hashlib.sha256(raw).hexdigest()
        path = self.saved.get(key)
        if path is None:
            path = self.saved[key] = _save(raw, "pi-codemode-image-", IMAGE_SUFFIX.get(mime, ".bin"))
        return f"[Image saved to {path} ({mime}, {_size(len(raw))})]"


def _output_text(items: Sequence[dict[str, Any]], images: ImageStore) -> tuple[str, list[dict[str, Any]]]:
    """The text part (texts and image notices in order, then the console block) and the image blocks."""
    texts = [i for i in items if i.get("type") == "text"]
    parts: list[str] = []
    blocks: list[dict[str, Any]] = []
    number = 0
    for item in items:
        kind = item.get("type")
        if kind == "text":
            number += 1
            body = str(item.get("text", ""))
            parts.append(f"==> text {number}/{len(texts)} <==\n{body}" if len(texts) > 1 else body)
        elif kind == "image":
            parts.append(images.notice(item))
            blocks.append({"type": "image", "data": item["data"], "mimeType": item["mimeType"]})
    console = [str(i.get("text", "")) for i in items if i.get("type") == "console"]
    if console:
        parts.append("<console_output>\n" + "\n".join(console) + "\n</console_output>")
    return "\n".join(parts), blocks


def unshown_images_note(count: int) -> str:
    """The note for images `models.generateImages()` made that the script never passed to `image()`."""
    plural = "" if count == 1 else "s"
    return (
        f"Note: models.generateImages() returned {count} image{plural} that the script did not show. "
        "Show each image block of result.output with image(block)."
    )


def build_result(run: ScriptRun, max_output_tokens: int) -> dict[str, Any]:
    """The tool result (`content`, `details`, `isError` on failure)."""
    header = f"Script {'completed' if run.ok else 'failed'}\nWall time {run.wall_s:.1f} seconds\nOutput:\n"
    body, images = _output_text(run.items, ImageStore())
    body, full_path = budget_text(body, max_output_tokens)
    text = header + body
    if not run.ok:
        summary = f"\n\n{calls_summary(run.calls)}" if run.started else ""
        text += ("\n\n" if body else "") + f"Script error:\n{run.error or 'Error'}{summary}"
    if run.generated_images and not images:
        text += "\n" + unshown_images_note(run.generated_images)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}, *images]
    details: dict[str, Any] = {"calls": [c.to_json() for c in run.calls]}
    if full_path is not None:
        details["fullOutputPath"] = str(full_path)
    result: dict[str, Any] = {"content": content, "details": details}
    if not run.ok:
        result["isError"] = True
    if run.usage is not None:
        result["usage"] = run.usage.to_json_dict()
    return result


__all__ = [
    "CallRecord",
    "ImageStore",
    "ScriptRun",
    "budget_text",
    "build_result",
    "calls_summary",
    "unshown_images_note",
]
