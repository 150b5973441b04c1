"""How the tools scripts can call are presented in each request while `codemode` is declared.

`codemode.mode` (setting, default `on`):

- `on`: the tools declared to the model stay declared; those a script can also call (the built-in
  ones whose script value is known) say so at the end of their description:
  ``Codemode: `tools.<id>(args)` resolves to <what>.``
- `only`: the codemode description lists every callable tool, and the declarations of the declared
  `direct` tools are left out of the request, so the model reaches them through scripts only.

The change is made on the request's leading system message (`context_with_system`), so the stored
transcript keeps the declarations as the session made them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi.app.codemode.catalog import identifier
from pi.app.codemode.description import DEFAULT_INLINE_BUDGET, MODES, hidden_declarations

if TYPE_CHECKING:
    from pi.app.extensions.api import ExtensionAPI

TOOL_NAME = "codemode"
SCRIPT_VALUES = {
    "bash": "`{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`",
    "read": "a string, or `{ type, data, mimeType, note }` for an image file",
    "edit": "a string",
    "write": "a string",
    "grep": "a string",
    "find": "a string",
    "ls": "a string",
    "powershell": "a string",
}
"""What a script gets from the built-in tools; other tools' values depend on their output schema."""


def codemode_settings(settings: Mapping[str, Any]) -> tuple[str, float]:
    """(`codemode.mode`, `codemode.inlineBudget`) from the effective settings; invalid values fall back."""
    section = settings.get("codemode")
    section = section if isinstance(section, Mapping) else {}
    mode = section.get("mode")
    budget = section.get("inlineBudget")
    limit = float(DEFAULT_INLINE_BUDGET)
    if isinstance(budget, int | float) and not isinstance(budget, bool) and math.isfinite(budget) and budget >= 0:
        limit = float(budget)
    return (mode if mode in MODES else "on"), limit


def script_call_note(name: str) -> str | None:
    """The description suffix of a declared tool scripts can call, when its script value is known."""
    value = SCRIPT_VALUES.get(name)
    if value is None:
        return None
    return f"\n\nCodemode: `tools.{identifier(name)}(args)` resolves to {value}."


def _tool_name(tool: Any) -> Any:
    return tool.get("name") if isinstance(tool, Mapping) else getattr(tool, "name", None)


def _with_description(tool: Any, note: str) -> Any:
    if isinstance(tool, Mapping):
        return {**tool, "description": str(tool.get("description") or "").rstrip() + note}
    return tool


class Loadout:
    """The `context_with_system` handler of one codemode instance (see the module docstring)."""

    def __init__(self, pi: ExtensionAPI) -> None:
        self.pi = pi

    def __call__(self, event: Any, _ctx: Any = None) -> dict[str, Any] | None:
        messages = list(getattr(event, "messages", None) or [])
        if not messages or getattr(messages[0], "role", None) != "system":
            return None
        leading = messages[0]
        declared = getattr(leading, "tools_added", None)
        active = self.pi.get_active_tools()
        if not isinstance(declared, list) or TOOL_NAME not in active:
            return None
        mode, _budget = codemode_settings(self.pi.get_settings())
        infos = self.pi.get_all_tools()
        hidden = set(hidden_declarations(infos, active, mode))
        callable_names = {str(i.name) for i in infos if i.exposure in ("direct", "codemode", "deferred")}
        tools: list[Any] = []
        for tool in declared:
            name = _tool_name(tool)
            if name in hidden:
                continue
            note = script_call_note(str(name)) if mode == "on" and name in callable_names else None
            tools.append(_with_description(tool, note) if note else tool)
        if tools == declared:
            return None
        messages[0] = leading.model_copy(update={"tools_added": tools or None})
        return {"messages": messages}


__all__ = ["Loadout", "codemode_settings", "script_call_note"]
