"""Slash commands as the editor sees them: which submissions are commands, and running them.

The built-in commands, their handlers and the `/` menu rows live in `commands.registry`; this is
the app's side of it (spawning a handler, and the double-Escape action).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.commands.registry import CommandRegistry, Handler, parse_command
from pi.tui.autocomplete import SlashCommand

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp


class LocalCommands:
    """Finds and runs the command in a submission."""

    def __init__(self, app: InteractiveApp) -> None:
        self.app = app
        self.registry = CommandRegistry(app.session)

    def slash_commands(self) -> list[SlashCommand]:
        return list(self.registry.slash_commands())

    def try_run(self, text: str) -> bool:
        """Run `text` if it is a command (True); False: it is a prompt for the model."""
        parsed = parse_command(text)
        handler = self.registry.handler(parsed.name) if parsed is not None else None
        if parsed is None or handler is None:
            return False
        self.app.spawn(self._run(handler, parsed.args))
        return True

    async def _run(self, handler: Handler, args: str) -> None:
        await handler(self.app, args)

    def double_escape(self) -> None:
        """Esc Esc on an empty idle editor: `doubleEscapeAction` (`tree`, `fork` or `none`)."""
        action = self.app.settings.get("doubleEscapeAction", "tree")
        if action in ("tree", "fork"):
            self.try_run(f"/{action}")


__all__ = ["LocalCommands"]
