"""Per-tool card renderers (bash, read, write, edit, grep, find, ls) and the fallbacks."""

from __future__ import annotations

from collections.abc import Callable

from pi.app.modes.interactive.components.tool_renderers.base import ToolRenderer

BUILTIN_TOOLS = frozenset(("bash", "read", "write", "edit", "grep", "find", "ls"))


def renderer_for(name: str, defined: bool | None, now: Callable[[], float]) -> ToolRenderer:
    """The renderer of a tool: its own for the built-ins, else generic (defined) or unknown.

    `defined=None` means the caller does not know: a built-in name counts as defined, any other
    name as unknown. `defined=False` always gives the unknown-tool card (a disabled built-in).
    """
    if defined is False:
        from pi.app.modes.interactive.components.tool_renderers.generic import UnknownToolRenderer

        return UnknownToolRenderer()
    if name == "bash":
        from pi.app.modes.interactive.components.tool_renderers.bash import BashRenderer

        return BashRenderer(now)
    if name == "read":
        from pi.app.modes.interactive.components.tool_renderers.read import ReadRenderer

        return ReadRenderer()
    if name == "write":
        from pi.app.modes.interactive.components.tool_renderers.write import WriteRenderer

        return WriteRenderer()
    if name == "edit":
        from pi.app.modes.interactive.components.tool_renderers.edit import EditRenderer

        return EditRenderer()
    if name == "grep":
        from pi.app.modes.interactive.components.tool_renderers.grep import GrepRenderer

        return GrepRenderer()
    if name == "find":
        from pi.app.modes.interactive.components.tool_renderers.find import FindRenderer

        return FindRenderer()
    if name == "ls":
        from pi.app.modes.interactive.components.tool_renderers.ls import LsRenderer

        return LsRenderer()
    from pi.app.modes.interactive.components.tool_renderers.generic import GenericRenderer, UnknownToolRenderer

    return GenericRenderer() if defined else UnknownToolRenderer()


__all__ = ["BUILTIN_TOOLS", "renderer_for"]
