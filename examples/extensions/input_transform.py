"""Rewrite or answer prompts before the model sees them.

- `?q <question>` becomes "Respond briefly: <question>".
- `ping` is answered by the extension itself (a notice "pong"); nothing is sent to the model.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI


def setup(pi: ExtensionAPI) -> None:
    @pi.on("input")
    def transform(event: Any, ctx: Any) -> dict[str, Any] | None:
        text = event.text.strip()
        if text.startswith("?q "):
            return {"action": "transform", "text": f"Respond briefly: {text[3:].strip()}"}
        if text == "ping":
            ctx.ui.notify("pong")
            return {"action": "handled"}
        return None
