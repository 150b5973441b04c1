"""Slash commands as the editor sees them: the built-in registry when it is available, else a minimum.

The registry (`commands.registry.CommandRegistry`) decides which submissions are commands and runs
their handlers against the app. While a build has no registry (or one of its handler modules fails
to import), `/quit` and `/new` still work here, and every other `/text` goes to the model.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from pi.tui.autocomplete import SlashCommand

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp

logger = logging.getLogger(__name__)

_MINIMAL = (SlashCommand("new", "Start a new session"), SlashCommand("quit", "Quit pi"))


class LocalCommands:
    """Finds and runs the command in a submission (see the module docstring)."""

    def __init__(self, app: InteractiveApp) -> None:
        self.app = app
        self.registry: Any = None
        self._parse: Any = None
        try:
            module = importlib.import_module("pi.app.modes.interactive.commands.registry")
            self.registry = module.CommandRegistry(app.session)
            self._parse = module.parse_command
        except Exception:  # an incomplete command package must not keep the UI from starting
            logger.debug("slash command registry unavailable", exc_info=True)

    def slash_commands(self) -> list[SlashCommand]:
        if self.registry is not None:
            try:
                return list(self.registry.slash_commands())
            except Exception:
                logger.debug("slash command list failed", exc_info=True)
        return list(_MINIMAL)

    def try_run(self, text: str) -> bool:
        """Run `text` if it is a command (True); False: it is a prompt for the model."""
        if self.registry is not None and self._parse is not None:
            parsed = self._parse(text)
            handler = None
            if parsed is not None:
                try:
                    handler = self.registry.handler(parsed.name)
                except Exception:
                    logger.debug("slash command handlers unavailable", exc_info=True)
            if handler is not None:
                self.app.spawn(handler(self.app, parsed.args))
                return True
        return self._run_minimal(text)

    def _run_minimal(self, text: str) -> bool:
        if text == "/quit":
            self.app.quit()
            return True
        if text == "/new":
            self.app.spawn(self._new_session())
            return True
        return False

    async def _new_session(self) -> None:
        await self.app.session.new_session()
        self.app.rebuild_chat()
        self.app.show_status("✓ New session started")

    def double_escape(self) -> None:
        """Esc Esc on an empty idle editor: `doubleEscapeAction` (`tree`, `fork` or `none`)."""
        action = self.app.settings.get("doubleEscapeAction", "tree")
        if action in ("tree", "fork"):
            self.try_run(f"/{action}")


__all__ = ["LocalCommands"]
