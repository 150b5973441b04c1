"""Custom messages with a look of their own in the transcript.

Run it with `pi -e examples/extensions/message_renderer.py`, then `/report build passed`. The
command stores a `report` message (the model sees it as context on the next turn) and the renderer
draws it as a framed card: a coloured `REPORT` label and the text; expanded (Ctrl+O) it also shows
when the report was made. Messages of other custom types keep pi's default panel.

A renderer is called as `renderer(message, {"expanded": bool}, theme)` and returns a component, a
string or a list of lines; returning None falls back to the default panel.
"""

from __future__ import annotations

import time
from typing import Any

from pi.app.extensions import ExtensionAPI
from pi.tui.text_width import truncate_to_width

CUSTOM_TYPE = "report"


class ReportCard:
    """A blank line, then the report between two rules."""

    def __init__(self, text: str, details: Any, expanded: bool, theme: Any) -> None:
        self.text = text
        self.details = details if isinstance(details, dict) else {}
        self.expanded = expanded
        self.theme = theme

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        theme = self.theme
        rule = theme.fg("border", "─" * width)
        body = [theme.fg("accent", theme.bold("REPORT")) + " " + self.text]
        if self.expanded and "at" in self.details:
            body.append(theme.dim(f"reported at {self.details['at']}"))
        return ["", rule, *(truncate_to_width(" " + line, width) for line in body), rule]


def setup(pi: ExtensionAPI) -> None:
    def render(message: Any, options: dict[str, Any], theme: Any) -> ReportCard:
        content = message.content if isinstance(message.content, str) else ""
        return ReportCard(content, message.details, bool(options.get("expanded")), theme)

    pi.register_message_renderer(CUSTOM_TYPE, render)

    def report(args: str, ctx: Any) -> None:
        text = args.strip() or "(empty report)"
        details = {"at": time.strftime("%H:%M:%S")}
        pi.send_message({"customType": CUSTOM_TYPE, "content": text, "display": True, "details": details})
        ctx.ui.notify("Report added")

    pi.register_command("report", report, description="Add a report card to the transcript")
