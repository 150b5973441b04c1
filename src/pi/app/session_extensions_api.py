"""The extension side of `AgentSession`: loading, binding and driving its extensions.

A mixin so the session's facade stays readable; every method delegates to `SessionExtensions`,
created on first need and only when `wants_extensions()` says something could load (a session
without extensions never imports the machinery).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi.app.session_extensions_config import ExtensionConfig, wants_extensions

if TYPE_CHECKING:
    from pi.agent.messages import AgentMessage
    from pi.agent.tool import AgentTool
    from pi.ai.types import Model
    from pi.app.extensions.context import Mode
    from pi.app.extensions.runner import ExtensionRunner
    from pi.app.extensions.types import Diagnostic
    from pi.app.extensions.ui import UIContext
    from pi.app.session_bash import UserBash
    from pi.app.session_extension_points import ExtensionPoints
    from pi.app.session_extensions import SessionExtensions
    from pi.app.session_navigation import Navigation
    from pi.app.session_prompting import Prompting
    from pi.app.session_requests import RequestResolver
    from pi.app.session_runtime import SessionCore


class SessionExtensionMethods:
    _extensions: SessionExtensions | None
    _extension_config: ExtensionConfig | None
    _extension_error_listeners: list[Callable[[Any], None]]
    _core: SessionCore
    _prompting: Prompting
    _navigation: Navigation
    _bash: UserBash

    if TYPE_CHECKING:

        def require_model(self) -> Model: ...

    # -- extensions --------------------------------------------------------------------------------

    @property
    def extension_runner(self) -> ExtensionRunner | None:
        """The runner of the loaded extensions (commands, flags, shortcuts, renderers); None without any."""
        return self._extensions.runner if self._extensions is not None else None

    def routed_model(self) -> tuple[str, str | None] | None:
        """When the current model is virtual: `(id, thinking level)` of the model its last request went to."""
        model = self._core.model
        if self._extensions is None or model is None:
            return None
        return self._extensions.virtual.last_route(model)

    def _extension_host(self) -> SessionExtensions | None:
        """The extension binding, created on first need; None when no extension could load (a cheap check)."""
        if self._extensions is None:
            config = self._extension_config
            settings = self._core.settings
            if config is None or not wants_extensions(
                config, self._core.cwd, settings.global_data, settings.project_data
            ):
                return None
            from pi.app.session_extensions import SessionExtensions

            self._extensions = SessionExtensions(self, config)  # type: ignore[arg-type]  # the mixin is an AgentSession
            for listener in self._extension_error_listeners:
                self._extensions.on_error(listener)
        return self._extensions

    async def load_extensions(self) -> list[Diagnostic]:
        """Discover, import and set up the extensions and bind them to this session (once).

        Returns the load diagnostics; at start-up an error among them is fatal for the CLI.
        """
        host = self._extension_host()
        return await host.load() if host is not None else []

    async def bind_extensions(self, *, ui: UIContext | None = None, mode: Mode = "print") -> None:
        """Give extensions the mode's `ctx.ui`, then emit `session_start` and `resources_discover` (once)."""
        host = self._extension_host()
        if host is not None:
            await host.bind(ui, mode)

    def notify_extension_ui_prompt(self, phase: str, kind: str, title: str | None) -> None:
        """A UI tells extensions a blocking dialog opened ("start") or closed ("end")."""
        if self._extensions is not None:
            self._extensions.ui_prompt(phase, kind, title)

    def set_extension_flags(self, values: Mapping[str, bool | str]) -> None:
        """Command-line values of extension flags (what `pi.get_flag` returns from now on, reloads included)."""
        if self._extensions is not None:
            self._extensions.set_flags(values)

    def set_extension_ui(self, ui: UIContext | None, mode: Mode) -> None:
        if self._extensions is not None:
            self._extensions.set_ui(ui, mode)

    def set_extension_shutdown_handler(self, handler: Callable[[], None] | None) -> None:
        """What `ctx.shutdown()` does in the running mode (nothing unless set)."""
        if self._extensions is not None:
            self._extensions.shutdown_handler = handler

    def on_extension_error(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call `listener(ExtensionErrorInfo)` for every failure inside an extension."""
        self._extension_error_listeners.append(listener)
        remove = self._extensions.on_error(listener) if self._extensions is not None else None

        def unsubscribe() -> None:
            if listener in self._extension_error_listeners:
                self._extension_error_listeners.remove(listener)
            if remove is not None:
                remove()

        return unsubscribe

    async def run_extension_command(self, text: str) -> bool:
        """Run `/name args` when `name` is an extension command; False otherwise."""
        return self._extensions is not None and await self._extensions.run_command(text)

    async def reload_extensions(self) -> list[Diagnostic]:
        """`/reload`: the old extension instances shut down, fresh imports start (`session_start` reload)."""
        return await self._extensions.reload() if self._extensions is not None else []

    async def shutdown_extensions(self, reason: str = "quit") -> None:
        """Emit `session_shutdown` to the extensions (modes call this as they exit)."""
        if self._extensions is not None:
            await self._extensions.shutdown(reason)

    async def emit_session_event(self, event: Any) -> None:
        """Tell every session listener (modes, extension handlers) of an event made outside the agent."""
        await self._core.events.emit(event)

    def install_extension_points(self, points: ExtensionPoints) -> None:
        """Put the extensions' gates and boundaries at their points of the session (once per session)."""
        self._navigation.before_tree = points.before_tree
        self._bash.before_run = points.user_bash
        self._prompting.before_settle = points.before_settle
        self._core.message_end = points.message_end
        agent = self._core.agent
        agent.stream_fn = points.wrap_stream(agent.stream_fn)

    def set_before_start(self, hook: Callable[[Any], Any] | None) -> None:
        """Called as each run starts with its prompt message; returns messages to send after it."""
        self._prompting.before_start = hook

    def replace_initial_tools(self, tools: Sequence[AgentTool[Any]]) -> None:
        """Before the first prompt: these are the session's tools, and the system prompt describes them."""
        from pi.app.session_requests import prompt_inputs
        from pi.app.system_prompt import build_system_prompt

        self._core.tools[:] = list(tools)
        self._core.agent.set_system_prompt(
            build_system_prompt(prompt_inputs(self._core.cwd, tools, self._core.resources))
        )

    def request_resolver(self) -> RequestResolver:
        """Credentials, headers and session id of this session's model requests (for requests made for extensions)."""
        return self._core.requests

    def add_custom_message(self, message: AgentMessage, trigger_turn: bool) -> Any:
        """An extension's message while idle: stored for the next request, or (trigger) sent now in a run.

        A stored one is announced at once (`message_start`, `message_end`) so that UIs show it now,
        not when the next run redraws the transcript."""
        core = self._core
        if not trigger_turn:
            core.agent.append_message(message)
            core.persist(message)
            return self._announce(message)
        self.require_model()
        core.run.enter()
        core.run.aborted = False
        return self._prompting.run(message)  # type: ignore[arg-type]

    async def _announce(self, message: AgentMessage) -> None:
        from pi.agent.events import MessageEndEvent, MessageStartEvent

        await self._core.events.emit(MessageStartEvent(message))
        await self._core.events.emit(MessageEndEvent(message))


__all__ = ["SessionExtensionMethods"]
