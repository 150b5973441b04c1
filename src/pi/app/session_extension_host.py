"""What extensions may do to and read from their session: the actions behind `pi.*` and `ctx.*`.

`SessionActions` implements `ExtensionRuntimeActions` (sending messages, entries, names, labels,
tools, settings, commands, model and thinking level, providers) on an `AgentSession`.
`SessionContextHost` implements the context hosts: what every `ctx` reads (UI, mode, cwd, model,
idle state, ...) and the session-changing operations only command handlers get. Both only call
the session's public methods.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi.app.extensions.context import Mode, ReplacedSessionContext
from pi.app.extensions.errors import ExtensionError
from pi.app.extensions.runtime import DeliverAs
from pi.app.extensions.types import CommandInfo, SourceInfo, ToolInfo
from pi.app.extensions.ui import UIContext

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.session_extensions import SessionExtensions
    from pi.session.messages import CustomMessage

BUSY_WITHOUT_BEHAVIOR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)


def _get(data: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in data:
            return data[name]
    return default


def custom_message(raw: Mapping[str, Any]) -> CustomMessage:
    """A `CustomMessage` from `{customType, content, display, details?}` (snake_case keys too)."""
    from pi.session.messages import CustomMessage

    custom_type = _get(raw, "customType", "custom_type")
    if not isinstance(custom_type, str) or not custom_type:
        raise ExtensionError("A custom message needs a non-empty customType")
    content = _get(raw, "content", default="")
    if isinstance(content, list):
        from pi.app.extensions.tool_adapter import content_blocks

        content = content_blocks(content)
    return CustomMessage(
        custom_type=custom_type,
        content=content,
        display=bool(_get(raw, "display", default=True)),
        details=_get(raw, "details"),
    )


def _spawn(work: Awaitable[Any]) -> asyncio.Future[Any]:
    return asyncio.ensure_future(work)


class SessionActions:
    """`ExtensionRuntimeActions` on the session of `owner`."""

    def __init__(self, owner: SessionExtensions) -> None:
        self.owner = owner

    @property
    def session(self) -> Any:
        return self.owner.session

    def send_message(self, message: dict[str, Any], trigger_turn: bool, deliver_as: DeliverAs) -> Any:
        custom = custom_message(message)
        session = self.session
        if deliver_as == "nextTurn":
            self.owner.pending_next_turn.append(custom)
            return None
        if session.is_streaming:
            if deliver_as == "followUp":
                session.agent.follow_up(custom)
            else:
                session.agent.steer(custom)
            return None
        return session.add_custom_message(custom, trigger_turn)

    def send_user_message(
        self, content: str | list[Any], deliver_as: Literal["steer", "followUp"] | None, expand_prompt_templates: bool
    ) -> Any:
        session = self.session
        text = (
            content
            if isinstance(content, str)
            else "".join(
                str(getattr(b, "text", "") or (b.get("text", "") if isinstance(b, dict) else "")) for b in content
            )
        )
        if session.is_streaming:
            if deliver_as is None:
                raise ExtensionError(BUSY_WITHOUT_BEHAVIOR)
            return session.queue_message(text, None, deliver_as, source="extension")
        return session.prompt(text, expand=expand_prompt_templates, source="extension")

    def append_entry(self, custom_type: str, data: Any) -> Any:
        return self.session.append_entry(custom_type, data)

    def set_session_name(self, name: str) -> Any:
        self.session.set_session_name(name)

    def get_session_name(self) -> str | None:
        name: str | None = self.session.session_name
        return name

    def set_label(self, entry_id: str, label: str | None) -> Any:
        self.session.session.append_label_change(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return [tool.name for tool in self.session.agent.state.tools]

    def get_all_tools(self) -> list[ToolInfo]:
        return self.owner.tools.infos()

    def set_active_tools(self, names: list[str]) -> Any:
        self.owner.tools.set_active(names)

    def get_settings(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.session.settings.data))

    def get_commands(self) -> list[CommandInfo]:
        return command_infos(self.owner)

    def set_model(self, model: Any) -> bool:
        session = self.session
        if not self.owner.virtual.is_virtual(model) and not session.model_registry.has_auth(model):
            return False
        session.set_model(model)
        return True

    def get_thinking_level(self) -> str:
        level: str = self.session.thinking_level
        return level

    def set_thinking_level(self, level: str) -> Any:
        self.session.set_thinking_level(level)

    def register_provider(self, name: str, config: Any) -> Any:
        data = config.model_dump(by_alias=True, exclude_none=True) if hasattr(config, "model_dump") else dict(config)
        data.pop("name", None)
        self.session.model_registry.register_provider(name, data)

    def unregister_provider(self, name: str) -> Any:
        self.session.model_registry.unregister_provider(name)

    def register_virtual_model(self, model: Any, extension_path: str = "<runtime>") -> Any:
        self.owner.virtual.register(model, extension_path)

    def unregister_virtual_model(self, provider: str, model_id: str) -> Any:
        self.owner.virtual.unregister(provider, model_id)


def command_infos(owner: SessionExtensions) -> list[CommandInfo]:
    """Extension commands, then prompt templates, then skills (the order of RPC `get_commands`)."""
    runner = owner.runner
    infos = list(runner.registry.command_infos()) if runner is not None else []
    resources = owner.session.resources
    for template in resources.templates:
        info = SourceInfo(str(template.path), str(template.source))
        infos.append(CommandInfo(template.name, "prompt", info, template.description))
    for skill in resources.skills:
        info = SourceInfo(str(skill.path), str(skill.source))
        infos.append(CommandInfo(f"skill:{skill.name}", "skill", info, skill.description))
    return infos


class SessionContextHost:
    """`ExtensionContextHost` and `CommandContextHost` on the session of `owner`."""

    def __init__(self, owner: SessionExtensions) -> None:
        self.owner = owner

    @property
    def session(self) -> Any:
        return self.owner.session

    # -- every ctx ------------------------------------------------------------------------------

    def get_ui(self) -> UIContext:
        return self.owner.ui

    def get_mode(self) -> Mode:
        return self.owner.mode

    def get_cwd(self) -> str:
        return str(self.session.cwd)

    def get_session_manager(self) -> Any:
        return self.session.session

    def get_model_registry(self) -> Any:
        from pi.app.extensions.model_registry_view import ExtensionModelRegistry

        return ExtensionModelRegistry(self.session.model_registry, self.owner)

    def get_model(self) -> Any:
        return self.session.model

    def get_scoped_models(self) -> list[dict[str, Any]]:
        return [
            {"model": model, **({"thinkingLevel": level} if level else {})}
            for model, level in self.session.scoped_models
        ]

    def get_thinking_level(self) -> str:
        level: str = self.session.thinking_level
        return level

    def is_idle(self) -> bool:
        return not self.session.is_streaming

    def is_project_trusted(self) -> bool:
        return self.owner.config.project_trusted

    def get_signal(self) -> AbortSignal | None:
        signal: AbortSignal | None = self.session.agent.signal
        return signal

    def abort(self) -> None:
        _spawn(self.session.abort())

    def has_pending_messages(self) -> bool:
        return bool(self.session.pending_message_count)

    def shutdown(self) -> None:
        handler = self.owner.shutdown_handler
        if handler is not None:
            handler()

    def get_context_usage(self) -> dict[str, Any] | None:
        from pi.app.context_usage import context_usage

        return context_usage(self.session)

    def compact(
        self,
        custom_instructions: str | None,
        on_complete: Callable[[Any], Any] | None,
        on_error: Callable[[BaseException], Any] | None,
    ) -> None:
        async def run() -> None:
            try:
                result = await self.session.compact(custom_instructions)
            except Exception as error:
                if on_error is not None:
                    on_error(error)
                return
            if on_complete is not None:
                on_complete(result)

        _spawn(run())

    def get_system_prompt(self) -> str:
        prompt: str = self.session.agent.state.system_prompt
        return prompt

    # -- command ctx ----------------------------------------------------------------------------

    def get_system_prompt_options(self) -> dict[str, Any]:
        resources = self.session.resources
        return {
            "custom_prompt": resources.custom_system_prompt,
            "append_system_prompt": resources.append_system_prompt,
            "selected_tools": [tool.name for tool in self.session.agent.state.tools],
            "cwd": str(self.session.cwd),
            "context_files": [str(getattr(f, "path", f)) for f in resources.context_files],
            "skills": [skill.name for skill in resources.skills],
        }

    async def wait_for_idle(self) -> None:
        await self.session.wait_for_idle()

    def _replaced_context(self) -> ReplacedSessionContext:
        owner = self.owner
        assert owner.loader is not None

        async def send_message(message: dict[str, Any], **options: Any) -> None:
            owner.actions.send_message(message, bool(options.get("trigger_turn")), options.get("deliver_as", "steer"))

        async def send_user_message(content: Any, **options: Any) -> None:
            result = owner.actions.send_user_message(
                content, options.get("deliver_as"), bool(options.get("expand_prompt_templates"))
            )
            if asyncio.iscoroutine(result):
                await result

        return ReplacedSessionContext(self, owner.loader.runtime, self, send_message, send_user_message)

    async def _after(self, outcome: dict[str, Any], with_session: Any) -> dict[str, Any]:
        if not outcome.get("cancelled") and with_session is not None:
            result = with_session(self._replaced_context())
            if asyncio.iscoroutine(result):
                await result
        return outcome

    async def new_session(self, parent_session: str | None, setup: Any, with_session: Any) -> dict[str, Any]:
        outcome: dict[str, Any] = await self.session.new_session(parent_session)
        if not outcome.get("cancelled") and setup is not None:
            result = setup(self.session.session)
            if asyncio.iscoroutine(result):
                await result
        return await self._after(outcome, with_session)

    async def fork(self, entry_id: str, position: Literal["before", "at"], with_session: Any) -> dict[str, Any]:
        outcome: dict[str, Any] = await (self.session.fork(entry_id) if position == "before" else self.session.clone())
        return await self._after(outcome, with_session)

    async def navigate_tree(
        self,
        target_id: str,
        summarize: bool,
        custom_instructions: str | None,
        replace_instructions: bool,
        label: str | None,
    ) -> dict[str, Any]:
        if self.session.is_streaming:
            raise ExtensionError("Wait for the current response to finish before navigating the session tree.")
        if self.session.session.get_entry(target_id) is None:
            raise ExtensionError(f"Entry {target_id} not found")
        from pi.app.session_navigation import BranchSummaryCancelled

        try:
            text = await self.session.navigate_tree(
                target_id,
                summarize=summarize,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
            )
        except BranchSummaryCancelled:
            return {"cancelled": True, "aborted": True}
        if label is not None:
            self.session.session.append_label_change(target_id, label)
        return {"cancelled": False, **({"editorText": text} if text is not None else {})}

    async def switch_session(self, path: str, with_session: Any) -> dict[str, Any]:
        outcome: dict[str, Any] = await self.session.switch_session(path)
        return await self._after(outcome, with_session)

    async def reload(self) -> None:
        await self.session.reload_extensions()


def add_discovered_resources(session: Any, skill_paths: list[str], prompt_paths: list[str]) -> None:
    """Load the skills and prompt templates `resources_discover` handlers pointed at."""
    resources = session.resources
    if skill_paths:
        from pi.app.skills import load_skills

        loaded = load_skills([(Path(p), "extension") for p in skill_paths])
        names = {skill.name for skill in resources.skills}
        resources.skills.extend(s for s in loaded.skills if s.name not in names)
    if prompt_paths:
        from pi.app.prompt_templates import load_prompt_templates

        templates = load_prompt_templates([(Path(p), "extension") for p in prompt_paths], resources.template_warnings)
        names = {t.name for t in resources.templates}
        resources.templates.extend(t for t in templates if t.name not in names)


__all__ = [
    "BUSY_WITHOUT_BEHAVIOR",
    "SessionActions",
    "SessionContextHost",
    "add_discovered_resources",
    "command_infos",
    "custom_message",
]
