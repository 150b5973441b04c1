"""CommandRegistry: which editor submissions are commands, what runs them, and the `/` menu rows.

Only the exact text `/name` or `/name <args>` of a built-in command runs it. Everything else that
starts with `/` (a prompt template, `/skill:<name>`, a mistyped or removed command such as `/exit`)
goes to the model as a prompt; the session expands templates and skills itself.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from pi.app.modes.interactive.commands.catalog import BUILTIN_COMMANDS, CommandInfo
from pi.tui.autocomplete import Completion, SlashCommand
from pi.tui.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.modes.interactive.commands.api import InteractiveApi

Handler = Callable[["InteractiveApi", str], Awaitable[None]]

_COMMAND_RE = re.compile(r"^/([^\s/][^\s]*)(?: (.*))?$", re.DOTALL)


class ParsedCommand(Struct, frozen=True):
    name: str
    args: str


def parse_command(text: str) -> ParsedCommand | None:
    """`/name` or `/name <args>` of a built-in command, else None (the text is a prompt)."""
    match = _COMMAND_RE.match(text)
    if match is None:
        return None
    name = match.group(1)
    if not any(info.name == name for info in BUILTIN_COMMANDS):
        return None
    return ParsedCommand(name, (match.group(2) or "").strip())


def _source_tag(source: str) -> str:
    return {"user": "u", "project": "p"}.get(source, source)


def _handlers() -> dict[str, Handler]:
    from pi.app.modes.interactive.commands import (
        account_commands,
        file_commands,
        info_commands,
        mcp_command,
        model_commands,
        session_commands,
    )

    table: dict[str, Handler] = {}
    for module in (account_commands, file_commands, info_commands, model_commands, session_commands, mcp_command):
        table.update(module.HANDLERS)
    from pi.app.modes.interactive.commands import bug_command, share_command

    table.update(share_command.HANDLERS)
    table.update(bug_command.HANDLERS)
    return table


class CommandRegistry:
    """Built-in commands plus the session's prompt templates and skills, for running and for the menu."""

    def __init__(self, session: AgentSession) -> None:
        self.session = session
        self._handlers: dict[str, Handler] | None = None
        self.extension_commands: Callable[[], list[SlashCommand]] | None = None
        """The extensions' commands for the `/` menu (after the built-ins), while extensions are loaded."""
        self.extension_arguments: Callable[[str, str], Sequence[Completion] | None] | None = None
        """Argument completions of extension commands (their `get_argument_completions`)."""

    # -- running -------------------------------------------------------------------------------
    def handler(self, name: str) -> Handler | None:
        if self._handlers is None:
            self._handlers = _handlers()
        return self._handlers.get(name)

    async def execute(self, api: InteractiveApi, text: str) -> bool:
        """Run `text` when it is a built-in command and return True; False means: send it to the model."""
        parsed = parse_command(text)
        if parsed is None:
            return False
        handler = self.handler(parsed.name)
        if handler is None:
            return False
        await handler(api, parsed.args)
        return True

    # -- the menu ------------------------------------------------------------------------------
    def builtins(self) -> list[CommandInfo]:
        return [info for info in BUILTIN_COMMANDS if not info.hidden]

    def slash_commands(self) -> list[SlashCommand]:
        """The `/` menu: built-ins in menu order, then prompt templates, then `skill:<name>`."""
        rows = [SlashCommand(i.name, i.description, i.argument_hint) for i in self.builtins()]
        if self.extension_commands is not None:
            rows.extend(self.extension_commands())
        resources = self.session.resources
        for template in resources.templates:
            rows.append(
                SlashCommand(template.name, template.description, template.argument_hint, _source_tag(template.source))
            )
        if self.session.settings.get("enableSkillCommands", True) is not False:
            for skill in resources.skills:
                rows.append(SlashCommand(f"skill:{skill.name}", skill.description, "", _source_tag(skill.source)))
        return rows

    def complete_argument(self, name: str, text: str) -> Sequence[Completion] | None:
        """Completions for the argument of `/model` (provider/id) and `/thinking` (levels)."""
        if name == "model":
            return self._model_completions(text)
        if name == "thinking":
            from pi.app.modes.interactive.pickers.thinking_selector import LEVEL_DESCRIPTIONS

            levels = self.session.available_thinking_levels()
            items = [
                Completion(value=lv, label=lv, description=LEVEL_DESCRIPTIONS.get(lv, ""), insert=lv) for lv in levels
            ]
            return fuzzy_filter(items, text.strip(), key=lambda item: item.value) or None
        if self.extension_arguments is not None:
            return self.extension_arguments(name, text)
        return None

    def _model_completions(self, text: str) -> list[Completion] | None:
        from pi.app.modes.interactive.commands.model_commands import selectable_models

        items = [
            Completion(value=f"{m.provider}/{m.id}", label=m.id, description=m.provider, insert=f"{m.provider}/{m.id}")
            for m in selectable_models(self.session)
        ]
        return fuzzy_filter(items, text.strip(), key=lambda item: item.value) or None


__all__ = ["CommandRegistry", "Handler", "ParsedCommand", "parse_command"]
