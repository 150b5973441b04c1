"""Replace a built-in tool: a `read` that refuses files outside the project and says so.

An extension tool named like a built-in one takes its place. This one resolves the path, refuses
anything outside the session's directory, and otherwise returns the file's lines (cut with the
shared truncation helpers, so a huge file cannot flood the context).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.app.extensions import ExtensionAPI
from pi.app.extensions.helpers import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_head

PARAMETERS = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "File to read, relative to the project"}},
    "required": ["path"],
}


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        root = Path(ctx.cwd).resolve()
        target = (root / params["path"]).resolve()
        if root != target and root not in target.parents:
            raise ValueError(f"{params['path']} is outside the project; only files under {root} can be read")
        text = target.read_text(encoding="utf-8", errors="replace")
        cut = truncate_head(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
        body = cut.content + ("\n[truncated]" if cut.truncated else "")
        return {"content": [{"type": "text", "text": f"{body}\n[read by the project-only reader]"}], "details": None}

    pi.register_tool(
        {
            "name": "read",
            "label": "Read (project only)",
            "description": "Read a text file inside the project.",
            "parameters": PARAMETERS,
            "execute": execute,
        }
    )
