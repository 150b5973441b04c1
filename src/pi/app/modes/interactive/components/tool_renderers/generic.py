"""Cards for tools without a renderer of their own.

A tool that is defined (an extension or SDK tool) shows `name key=value …` on one line of at most
100 characters and ten result lines; expanded, its arguments as `  key: value` lines and the whole
output. A tool the session does not know at all (the model made the name up) shows its name, the
arguments as indented JSON and the output text, the same collapsed or expanded.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.formatting import wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    BaseRenderer,
    ToolState,
    colored_block,
    image_placeholders,
    list_result,
    output_lines,
    pretty_json,
    title,
)

if TYPE_CHECKING:
    from pi.tui.theme import Theme

CALL_LINE_LIMIT = 100
PREVIEW_LINES = 10


def value_text(value: Any) -> str:
    """An argument value on one line: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value.replace("\n", "\\n")
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


class GenericRenderer(BaseRenderer):
    """A defined tool with no renderer."""

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        pairs = " ".join(f"{key}={value_text(value)}" for key, value in state.args.items())
        call = f"{state.name} {pairs}" if pairs else state.name
        if len(call) > CALL_LINE_LIMIT:
            call = call[: CALL_LINE_LIMIT - 3] + "..."
        name, _, rest = call.partition(" ")
        out = wrap(title(theme, name) + (" " + theme.fg("toolOutput", rest) if rest else ""), width)
        if state.expanded:
            for key, value in state.args.items():
                out.extend(wrap(theme.fg("toolOutput", f"  {key}: {value_text(value)}"), width))
        return out + list_result(state, theme, width, PREVIEW_LINES, lambda _details: [])


class UnknownToolRenderer(BaseRenderer):
    """A tool name the session has no definition for."""

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        out = wrap(title(theme, state.name), width)
        out.append("")
        out.extend(colored_block(pretty_json(state.args).split("\n"), width, lambda s: s))
        output = state.output
        if output is not None:
            lines = output_lines(output.text) + image_placeholders(output)
            out.extend(colored_block(lines, width, lambda s: s))
        return out


__all__ = ["CALL_LINE_LIMIT", "PREVIEW_LINES", "GenericRenderer", "UnknownToolRenderer", "value_text"]
