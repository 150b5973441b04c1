"""Which key runs which extension shortcut, given the built-in key bindings.

Keys bound to a reserved action (interrupt, exit, submit, ...) can never be taken: the extension's
shortcut is skipped with a warning. Any other built-in binding gives way to the extension, and
between extensions the later one wins; both cases are warned about so the user knows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi.app.extensions.extension import RegisteredShortcut
from pi.app.extensions.types import Diagnostic

RESERVED_ACTIONS = (
    "app.interrupt",
    "app.clear",
    "app.exit",
    "app.suspend",
    "app.thinking.cycle",
    "app.model.cycleForward",
    "app.model.cycleBackward",
    "app.model.select",
    "app.tools.expand",
    "app.thinking.toggle",
    "app.editor.external",
    "app.message.copy",
    "app.message.followUp",
    "tui.input.submit",
    "tui.select.confirm",
    "tui.select.cancel",
    "tui.input.copy",
    "tui.editor.deleteToLineEnd",
)


def resolve_shortcuts(
    shortcuts: Sequence[RegisteredShortcut], bindings: Mapping[str, Sequence[str]]
) -> tuple[dict[str, RegisteredShortcut], list[Diagnostic]]:
    """`shortcuts` in load order; `bindings` maps action ids to their keys. Returns key → shortcut."""
    reserved: set[str] = set()
    builtin: dict[str, str] = {}
    for action, keys in bindings.items():
        for key in keys:
            lowered = key.lower()
            if action in RESERVED_ACTIONS:
                reserved.add(lowered)
            builtin.setdefault(lowered, action)
    chosen: dict[str, RegisteredShortcut] = {}
    warnings: list[Diagnostic] = []
    for shortcut in shortcuts:
        key = shortcut.key.lower()
        path = shortcut.extension_path
        if key in reserved:
            warnings.append(
                Diagnostic(
                    "warning",
                    f"Extension shortcut '{key}' from {path} conflicts with built-in shortcut. Skipping.",
                    path,
                )
            )
            continue
        previous = chosen.get(key)
        if previous is not None:
            text = f"Extension shortcut conflict: '{key}' from {path} replaces the one from {previous.extension_path}."
            warnings.append(Diagnostic("warning", text, path))
        elif key in builtin:
            text = f"Extension shortcut conflict: '{key}' from {path} replaces built-in shortcut {builtin[key]}."
            warnings.append(Diagnostic("warning", text, path))
        chosen[key] = shortcut
    return chosen, warnings


__all__ = ["RESERVED_ACTIONS", "resolve_shortcuts"]
