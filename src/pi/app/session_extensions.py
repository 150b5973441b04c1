"""The extensions of one `AgentSession`: loading them, binding them to the session, replacing them.

`SessionExtensions` owns the current runtime generation (loader, registry, runner). Loading runs
discovery, imports and `setup(pi)`, then binds the session's actions (`SessionActions`), puts the
runner on the session's hook chains, adds extension tools to the agent and starts forwarding
session events to extension handlers. A mode then binds its `ctx.ui` and the session emits
`session_start`. `/reload` and session replacement build a new generation; the old one goes stale,
so a `pi` or `ctx` captured from it raises instead of acting on the new session.

Failures inside extensions never escape: they reach the error listeners (`on_error`) as
`ExtensionErrorInfo`, and whatever the session was doing goes on.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.extensions.context import ExtensionCommandContext, ExtensionContext, ExtensionToolContext, Mode
from pi.app.extensions.discovery import DiscoveryOptions, ExtensionSource, discover_extensions, inline_sources
from pi.app.extensions.errors import ExtensionError, error_text
from pi.app.extensions.events import (
    BeforeAgentStartCustomEvent,
    BeforeAgentStartEvent,
    BeforeAgentStartUserEvent,
    McpServersChangeEvent,
    ResourcesDiscoverEvent,
    SessionBeforeForkEvent,
    SessionBeforeForkEventResult,
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchEventResult,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
    UiPromptEndEvent,
    UiPromptStartEvent,
)
from pi.app.extensions.extension import Extension
from pi.app.extensions.hook_bridge import RunnerHooks, install_runner_hooks
from pi.app.extensions.loader import ExtensionLoader, load_extensions
from pi.app.extensions.runner import ExtensionRunner
from pi.app.extensions.types import Diagnostic, ExtensionErrorInfo
from pi.app.extensions.ui import NoOpUI, UIContext
from pi.app.session_extension_host import SessionActions, SessionContextHost, add_discovered_resources
from pi.app.session_extension_tools import SessionToolSet
from pi.app.session_extensions_config import ExtensionConfig

if TYPE_CHECKING:
    from pi.agent.messages import AgentMessage
    from pi.ai.types import UserMessage
    from pi.app.agent_session import AgentSession

logger = logging.getLogger(__name__)
ErrorListener = Callable[[ExtensionErrorInfo], None]
RELOAD_WHILE_STREAMING = "Wait for the current response to finish before reloading."
RELOAD_WHILE_COMPACTING = "Wait for compaction to finish before reloading."


class SessionExtensions:
    """See the module docstring. Created by the session when `wants_extensions()` said yes."""

    def __init__(self, session: AgentSession, config: ExtensionConfig) -> None:
        self.session = session
        self.config = config
        self.loader: ExtensionLoader | None = None
        self.runner: ExtensionRunner | None = None
        self.diagnostics: list[Diagnostic] = []
        self.ui: UIContext = NoOpUI()
        self.mode: Mode = "print"
        self.tools = SessionToolSet(session, lambda: self.prompted)
        self.tools.admit_with(config.admits_late_tool)
        from pi.app.session_tool_requests import tool_requester

        settings = session.settings
        self.tools.requested = tool_requester(config.tool_selection, settings.global_data, settings.project_data)
        self.tools.tool_options = config.tool_options
        self.host = SessionContextHost(self)
        self.actions = SessionActions(self)
        self.shutdown_handler: Callable[[], None] | None = None
        """What `ctx.shutdown()` does in this mode (None: nothing, as in print and JSON modes)."""
        self.prompted = False
        self.pending_next_turn: list[AgentMessage] = []
        self._restore_prompt: str | None = None
        self._listeners: list[ErrorListener] = []
        self._early_errors: list[ExtensionErrorInfo] = []
        self._bridge: RunnerHooks | None = None
        self._started = False
        self._unsubscribe_events: Callable[[], None] | None = None
        self._tasks: set[asyncio.Future[Any]] = set()
        self._unconnected_mcp: set[str] = set()
        from pi.app.session_extension_points import ExtensionPoints
        from pi.app.session_extension_virtual import SessionVirtualModels

        self.points = ExtensionPoints(self)
        self.virtual = SessionVirtualModels(self)

    # -- errors ---------------------------------------------------------------------------------

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        """Be told of every extension failure; failures from before the first listener are replayed."""
        self._listeners.append(listener)
        early, self._early_errors = self._early_errors, []
        for info in early:
            self._deliver(info)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _deliver(self, info: ExtensionErrorInfo) -> None:
        if not self._listeners:
            self._early_errors.append(info)
            return
        for listener in list(self._listeners):
            try:
                listener(info)
            except Exception as error:
                logger.error("an extension error listener failed: %s", error_text(error))

    def report(self, path: str, event: str, error: BaseException | str) -> None:
        if self.runner is not None:
            self.runner.registry.report(path, event, error)

    # -- loading --------------------------------------------------------------------------------

    def _sources(self) -> tuple[list[ExtensionSource], list[Diagnostic]]:
        config = self.config
        session = self.session
        trusted = config.project_trusted
        user_entries = session.settings.global_data.get("extensions") or []
        project_entries = (session.settings.project_data.get("extensions") or []) if trusted else []
        package_paths, package_eps = self._package_resources()
        from pi.app.extensions.builtins import builtin_factories

        options = DiscoveryOptions(
            cwd=session.cwd,
            agent_dir=config.agent_dir,
            project_trusted=trusted,
            cli_paths=list(config.paths),
            no_extensions=config.no_extensions or not config.discover,
            user_entries=[e for e in user_entries if isinstance(e, str)],
            project_entries=[e for e in project_entries if isinstance(e, str)],
            builtins=builtin_factories(config.builtin_overrides, startup_provider=config.startup_provider),
            disabled_builtins=list(config.disabled_builtins),
            entry_points=False,
            load_builtins=config.builtins,
            package_paths=package_paths,
            package_entry_points=package_eps,
        )
        found = discover_extensions(options)
        return [*found.sources, *inline_sources(config.factories)], found.diagnostics

    def _package_resources(self) -> tuple[list[Path], list[tuple[str, Any]]]:
        """Extension paths and entry points of configured packages (none when packages are not set up)."""
        if self.config.no_extensions or not self.config.discover:
            return [], []
        found = self.session.resources.packages
        if found is None:
            try:
                from pi.app.packages.session_resources import package_resources
            except ImportError:
                return [], []
            warnings: list[str] = []
            found = package_resources(
                self.config.agent_dir, self.session.cwd, project_trusted=self.config.project_trusted, warnings=warnings
            )
            for message in warnings:
                logger.warning("%s", message)
        found.activate_site_dirs()
        return list(found.extensions), [(ep.label, ep.entry_point) for ep in found.entry_points]

    async def load(self) -> list[Diagnostic]:
        """Load every extension and bind them to the session (once per generation)."""
        if self.runner is not None:
            return self.diagnostics
        sources, diagnostics = self._sources()
        from pi.app.extensions.loader import take_offered_loader

        earlier = take_offered_loader(self.session.cwd) if self.loader is None else None
        if earlier is not None:  # the trust pass's instances: their setup already ran
            loader, result = earlier, await earlier.load(sources)
        else:
            loader, result = await load_extensions(sources, self.session.cwd)
        self.loader = loader
        runtime = loader.runtime
        registry = runtime.registry
        registry.flag_values.update(self.config.flags)
        registry.on_error(self._deliver)
        runner = ExtensionRunner(runtime, self._context_for)
        self.runner = runner
        self.diagnostics = [*diagnostics, *result.diagnostics]
        await runtime.bind_core(self.actions)
        registry.on_tools_changed = self.tools.refresh
        registry.on_mcp_servers_changed = self._mcp_changed
        self.tools.bind(registry, self._tool_context)
        if self._bridge is None:
            self._bridge = install_runner_hooks(runner, self.session.hooks)
            self.session.set_before_start(self.before_start)
            self.session.install_extension_points(self.points)
        else:
            self._bridge.runner = runner
        if self._unsubscribe_events is None:
            from pi.app.session_extension_events import EventForwarder

            self._unsubscribe_events = self.session.subscribe(EventForwarder(self), awaited=True)
        self._report_unconnected_mcp()
        return self.diagnostics

    def _spawn_emit(self, event: Any) -> None:
        """Emit a notify event without waiting for it (from synchronous code)."""
        runner = self.runner
        if runner is None or not runner.has_handlers(event.type):
            return
        task = asyncio.ensure_future(runner.emit(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _mcp_changed(self) -> None:
        if self.runner is not None:
            self._spawn_emit(McpServersChangeEvent(servers=self.runner.registry.mcp_server_list()))
            self._report_unconnected_mcp()

    def _report_unconnected_mcp(self) -> None:
        """Servers registered while nothing connects MCP servers (the built-in left out or replaced): said once each."""
        runner = self.runner
        if runner is None or runner.has_handlers("mcp_servers_change"):
            return
        for server in runner.registry.mcp_servers.values():
            if server.name in self._unconnected_mcp:
                continue
            self._unconnected_mcp.add(server.name)
            message = (
                f'MCP server "{server.name}" is registered, but no loaded extension connects MCP servers; '
                "another extension may have replaced the built-in MCP support"
            )
            runner.registry.report(server.extension_path, "register_mcp_server", message)

    def ui_prompt(self, phase: str, kind: Any, title: str | None) -> None:
        """`ui_prompt_start` / `ui_prompt_end` around a blocking dialog (emitted, not awaited)."""
        model = UiPromptStartEvent if phase == "start" else UiPromptEndEvent
        self._spawn_emit(model(kind=kind, title=title))

    def _context_for(self, extension: Extension | None) -> ExtensionContext:
        assert self.loader is not None
        return ExtensionContext(self.host, self.loader.runtime)

    def extension_context(self) -> ExtensionContext:
        """A `ctx` of the current generation (for callbacks such as a virtual model's `route`)."""
        return self._context_for(None)

    def _tool_context(self, tool_call_id: str) -> ExtensionToolContext:
        from pi.app.session_extension_nested import NestedCalls

        assert self.loader is not None
        return ExtensionToolContext(self.host, self.loader.runtime, NestedCalls(self, tool_call_id))

    def command_context(self) -> ExtensionCommandContext:
        assert self.loader is not None
        return ExtensionCommandContext(self.host, self.loader.runtime, self.host)

    # -- the mode and session_start --------------------------------------------------------------

    async def bind(self, ui: UIContext | None, mode: Mode) -> None:
        """Give extensions the mode's UI, then emit `session_start` and `resources_discover` (once)."""
        await self.load()
        self.set_ui(ui, mode)
        if self._started:
            return
        self._started = True
        await self._emit_start("startup")

    def set_flags(self, values: Mapping[str, bool | str]) -> None:
        self.config.flags = {**self.config.flags, **values}
        if self.runner is not None:
            self.runner.registry.flag_values.update(values)

    def set_ui(self, ui: UIContext | None, mode: Mode) -> None:
        self.ui = ui if ui is not None else NoOpUI()
        self.mode = mode

    async def _emit_start(self, reason: Any, previous_session_file: str | None = None) -> None:
        runner = self.runner
        if runner is None:
            return
        await runner.emit(SessionStartEvent(reason=reason, previous_session_file=previous_session_file))
        if reason in ("startup", "reload") and runner.has_handlers("resources_discover"):
            found = await runner.emit_resources_discover(
                ResourcesDiscoverEvent(cwd=str(self.session.cwd), reason=reason)
            )
            add_discovered_resources(self.session, found.skill_paths or [], found.prompt_paths or [])

    # -- prompts ---------------------------------------------------------------------------------

    async def before_start(self, message: UserMessage) -> list[AgentMessage]:
        """`before_agent_start`: returned messages go after the prompt; a returned prompt replaces
        the system prompt for this run (it comes back when the run settles)."""
        from pi.app.session_extension_host import custom_message

        self.prompted = True
        extra, self.pending_next_turn = list(self.pending_next_turn), []
        runner = self.runner
        if runner is None or not runner.has_handlers("before_agent_start"):
            return extra
        agent = self.session.agent
        event: BeforeAgentStartEvent
        options = self.host.get_system_prompt_options()
        edits = self.points.prompt_edits(options)
        if getattr(message, "role", "user") == "custom":
            event = BeforeAgentStartCustomEvent(
                message=message, system_prompt=agent.state.system_prompt, system_prompt_options=options
            )
        else:
            content = message.content if isinstance(message.content, list) else []
            text = "".join(getattr(b, "text", "") for b in content) if content else str(message.content)
            images = [b for b in content if getattr(b, "type", None) == "image"]
            event = BeforeAgentStartUserEvent(
                prompt=text,
                images=images or None,
                system_prompt=agent.state.system_prompt,
                system_prompt_options=options,
            )
        outcome = await runner.emit_before_agent_start(event)
        for raw in outcome.messages:
            try:
                extra.append(custom_message(raw))
            except Exception as error:
                self.report("<runtime>", "before_agent_start", error)
        prompt = outcome.system_prompt if outcome.system_prompt is not None else edits.edited_prompt(options)
        if prompt is not None:
            if self._restore_prompt is None:
                self._restore_prompt = agent.state.system_prompt
            agent.set_system_prompt(prompt)
        return extra

    def run_settled(self) -> None:
        """Put back the system prompt a `before_agent_start` handler replaced for the run."""
        if self._restore_prompt is not None:
            self.session.agent.set_system_prompt(self._restore_prompt)
            self._restore_prompt = None

    async def run_command(self, text: str) -> bool:
        """Run `/name args` when `name` is an extension command; False when it is not one."""
        runner = self.runner
        if runner is None or not text.startswith("/"):
            return False
        name, _, args = text[1:].partition(" ")
        command = runner.registry.command(name)
        if command is None:
            return False
        try:
            result = command.handler(args.strip(), self.command_context())
            if inspect.isawaitable(result):
                await result
        except Exception as error:
            runner.registry.report(command.extension_path, f"command:{name}", error)
        return True

    # -- reload, replacement, shutdown -----------------------------------------------------------

    async def shutdown(self, reason: Any = "quit", target_session_file: str | None = None) -> None:
        """Emit `session_shutdown` (when some handler listens) and wait for fire-and-forget actions."""
        runner = self.runner
        if runner is None:
            return
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if runner.has_handlers("session_shutdown"):
            await runner.emit(SessionShutdownEvent(reason=reason, target_session_file=target_session_file))
        await runner.runtime.drain()

    async def _rebuild(self) -> list[Diagnostic]:
        """Invalidate the current generation and load a fresh one (new imports, same flags and tools)."""
        if self.loader is not None:
            self.loader.runtime.invalidate()
        self.runner = None
        self.virtual.clear()
        diagnostics = await self.load()
        self.tools.refresh()
        return diagnostics

    async def reload(self) -> list[Diagnostic]:
        """`/reload`: shutdown(reload), a fresh generation, session_start(reload), resources_discover."""
        if self.session.is_compacting:
            raise ExtensionError(RELOAD_WHILE_COMPACTING)
        if self.session.agent.state.is_streaming:
            raise ExtensionError(RELOAD_WHILE_STREAMING)
        await self.shutdown("reload")
        from pi.app.resources import reload_packages

        await reload_packages(self.session.resources, self.session.cwd, self.config.agent_dir)
        diagnostics = await self._rebuild()
        for diagnostic in diagnostics:
            self._deliver(ExtensionErrorInfo(diagnostic.path or "<runtime>", "reload", diagnostic.message))
        await self._emit_start("reload")
        return diagnostics

    async def before_switch(self, reason: Any, target_session_file: str | None = None) -> bool:
        """Ask `session_before_switch`; True when a handler cancelled. Otherwise shut the old instance down."""
        runner = self.runner
        if runner is None:
            return False
        result = await runner.emit_gate(
            SessionBeforeSwitchEvent(reason=reason, target_session_file=target_session_file),
            SessionBeforeSwitchEventResult,
        )
        if result is not None and result.cancel:
            return True
        await self.shutdown(reason, target_session_file)
        return False

    async def before_fork(self, entry_id: str, position: Any) -> bool:
        """Ask `session_before_fork`; True when a handler cancelled. Otherwise shut the old instance down."""
        runner = self.runner
        if runner is None:
            return False
        result = await runner.emit_gate(
            SessionBeforeForkEvent(entry_id=entry_id, position=position), SessionBeforeForkEventResult
        )
        if result is not None and result.cancel:
            return True
        await self.shutdown("fork")
        return False

    async def tree_moved(
        self, new_leaf: str | None, old_leaf: str | None, summary: tuple[Any, bool] | None = None
    ) -> None:
        """`session_tree` after a move in the session tree; `summary` is the recorded summary entry and
        whether an extension wrote it (`summaryEntry` / `fromExtension`, both absent without one)."""
        runner = self.runner
        if runner is not None and runner.has_handlers("session_tree"):
            entry, from_extension = summary if summary is not None else (None, None)
            await runner.emit(
                SessionTreeEvent(
                    new_leaf_id=new_leaf, old_leaf_id=old_leaf, summary_entry=entry, from_extension=from_extension
                )
            )

    async def replaced(self, reason: Any, previous_session_file: str | None) -> None:
        """The session moved to another file: a new generation gets `session_start(reason)`."""
        await self._rebuild()
        await self._emit_start(reason, previous_session_file)


__all__ = ["RELOAD_WHILE_COMPACTING", "RELOAD_WHILE_STREAMING", "SessionExtensions"]
