"""Compact without asking the model: the summary lists what the user asked for so far.

When pi compacts (`/compact`, or automatically near the context limit) this extension writes the
summary itself from the prompts being compacted away, which is instant and costs no tokens. The
messages pi keeps after the cut stay as they are.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

HEADER = "Summary of the earlier conversation (prompts only):"


def prompt_text(message: Any) -> str | None:
    if getattr(message, "role", None) != "user":
        return None
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(getattr(block, "text", "") for block in content if getattr(block, "type", None) == "text")


def setup(pi: ExtensionAPI) -> None:
    @pi.on("session_before_compact")
    def compact(event: Any, ctx: Any) -> dict[str, Any]:
        preparation = event.preparation
        prompts = [text for text in map(prompt_text, preparation.messages_to_summarize) if text]
        lines = [HEADER, *(f"- {text.strip().splitlines()[0]}" for text in prompts if text.strip())]
        if preparation.previous_summary:
            lines.insert(1, preparation.previous_summary)
        return {
            "compaction": {
                "summary": "\n".join(lines),
                "firstKeptEntryId": preparation.first_kept_entry_id,
                "tokensBefore": preparation.tokens_before,
            }
        }
