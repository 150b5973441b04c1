"""The `ctx` handlers, tools and commands receive: a view of the session they run in.

Each context reads through a host the session implements (`ExtensionContextHost`, plus
`ToolContextHost` for tool `execute`, `CommandContextHost` for command handlers). Every member
checks the runtime first: after a reload or session replacement a captured ctx raises the stale
message instead of acting on a session that is gone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pi.app.extensions.runtime import ExtensionRuntime

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.extensions.ui import UIContext

Mode = Literal["tui", "rpc", "json", "print"]
NESTED_CALLS_UNAVAILABLE = "Nested tool calls are not available in this context"


class ExtensionContextHost(Protocol):
    """What the session provides to every `ExtensionContext` (extension spec §1.7)."""

    def get_ui(self) -> UIContext: ...

    def get_mode(self) -> Mode: ...

    def get_cwd(self) -> str: ...

    def get_session_manager(self) -> Any: ...

    def get_model_registry(self) -> Any: ...

    def get_model(self) -> Any: ...

    def get_scoped_models(self) -> list[dict[str, Any]]: ...

    def get_thinking_level(self) -> str: ...

    def is_idle(self) -> bool: ...

    def is_project_trusted(self) -> bool: ...

    def get_signal(self) -> AbortSignal | None: ...

    def abort(self) -> None: ...

    def has_pending_messages(self) -> bool: ...

    def shutdown(self) -> None: ...

    def get_context_usage(self) -> dict[str, Any] | None: ...

    def compact(
        self,
        custom_instructions: str | None,
        on_complete: Callable[[Any], Any] | None,
        on_error: Callable[[BaseException], Any] | None,
    ) -> None: ...

    def get_system_prompt(self) -> str: ...


class ToolContextHost(Protocol):
    """Nested tool calls for `ExtensionToolContext` (§1.5)."""

    def get_callable_tools(self) -> list[str]: ...

    def execute_tool(
        self, name: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Callable[[Any], Any] | None
    ) -> Awaitable[Any]: ...


class CommandContextHost(Protocol):
    """The session-changing operations only command handlers get."""

    def get_system_prompt_options(self) -> dict[str, Any]: ...

    def wait_for_idle(self) -> Awaitable[None]: ...

    def new_session(self, parent_session: str | None, setup: Any, with_session: Any) -> Awaitable[dict[str, Any]]: ...

    def fork(
        self, entry_id: str, position: Literal["before", "at"], with_session: Any
    ) -> Awaitable[dict[str, Any]]: ...

    def navigate_tree(
        self,
        target_id: str,
        summarize: bool,
        custom_instructions: str | None,
        replace_instructions: bool,
        label: str | None,
    ) -> Awaitable[dict[str, Any]]: ...

    def switch_session(self, path: str, with_session: Any) -> Awaitable[dict[str, Any]]: ...

    def reload(self) -> Awaitable[None]: ...


class ExtensionContext:
    """`ctx` of event handlers (18 members)."""

    def __init__(self, host: ExtensionContextHost, runtime: ExtensionRuntime) -> None:
        self._host = host
        self._runtime = runtime

    def _live(self) -> ExtensionContextHost:
        self._runtime.check_stale()
        return self._host

    @property
    def ui(self) -> UIContext:
        return self._live().get_ui()

    @property
    def mode(self) -> Mode:
        return self._live().get_mode()

    @property
    def has_ui(self) -> bool:
        """True in the terminal UI and RPC; False in print and JSON modes."""
        return self._live().get_mode() in ("tui", "rpc")

    @property
    def cwd(self) -> str:
        return self._live().get_cwd()

    @property
    def session_manager(self) -> Any:
        return self._live().get_session_manager()

    @property
    def model_registry(self) -> Any:
        return self._live().get_model_registry()

    @property
    def model(self) -> Any:
        return self._live().get_model()

    @property
    def scoped_models(self) -> list[dict[str, Any]]:
        return self._live().get_scoped_models()

    @property
    def thinking_level(self) -> str:
        return self._live().get_thinking_level()

    @property
    def signal(self) -> AbortSignal | None:
        return self._live().get_signal()

    def is_idle(self) -> bool:
        return self._live().is_idle()

    def is_project_trusted(self) -> bool:
        return self._live().is_project_trusted()

    def abort(self) -> None:
        self._live().abort()

    def has_pending_messages(self) -> bool:
        return self._live().has_pending_messages()

    def shutdown(self) -> None:
        """Ask for a graceful exit (a no-op in print and JSON modes)."""
        self._live().shutdown()

    def get_context_usage(self) -> dict[str, Any] | None:
        return self._live().get_context_usage()

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> None:
        """Start a compaction; does not wait for it."""
        self._live().compact(custom_instructions, on_complete, on_error)

    def get_system_prompt(self) -> str:
        return self._live().get_system_prompt()


def nested_unavailable() -> dict[str, Any]:
    return {"content": [{"type": "text", "text": NESTED_CALLS_UNAVAILABLE}], "details": None, "is_error": True}


class ExtensionToolContext(ExtensionContext):
    """`ctx` of a tool's `execute`: adds the callable tools and nested calls."""

    def __init__(
        self, host: ExtensionContextHost, runtime: ExtensionRuntime, tools: ToolContextHost | None = None
    ) -> None:
        super().__init__(host, runtime)
        self._tools = tools

    @property
    def tools(self) -> list[str]:
        self._runtime.check_stale()
        return self._tools.get_callable_tools() if self._tools is not None else []

    async def execute_tool(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[Any], Any] | None = None,
    ) -> Any:
        """Run another callable tool through validation and the tool hooks; never raises for its failure."""
        self._runtime.check_stale()
        if self._tools is None:
            return nested_unavailable()
        return await self._tools.execute_tool(name, args, signal, on_update)


class ExtensionCommandContext(ExtensionContext):
    """`ctx` of command handlers: adds operations that replace or wait for the session."""

    def __init__(self, host: ExtensionContextHost, runtime: ExtensionRuntime, commands: CommandContextHost) -> None:
        super().__init__(host, runtime)
        self._commands = commands

    def _cmd(self) -> CommandContextHost:
        self._runtime.check_stale()
        return self._commands

    def get_system_prompt_options(self) -> dict[str, Any]:
        return self._cmd().get_system_prompt_options()

    async def wait_for_idle(self) -> None:
        await self._cmd().wait_for_idle()

    async def new_session(
        self, *, parent_session: str | None = None, setup: Any = None, with_session: Any = None
    ) -> dict[str, Any]:
        return await self._cmd().new_session(parent_session, setup, with_session)

    async def fork(
        self, entry_id: str, *, position: Literal["before", "at"] = "before", with_session: Any = None
    ) -> dict[str, Any]:
        return await self._cmd().fork(entry_id, position, with_session)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        return await self._cmd().navigate_tree(target_id, summarize, custom_instructions, replace_instructions, label)

    async def switch_session(self, path: str, *, with_session: Any = None) -> dict[str, Any]:
        return await self._cmd().switch_session(path, with_session)

    async def reload(self) -> None:
        """Reload extensions and resources; treat it as the last thing the handler does."""
        await self._cmd().reload()


class ReplacedSessionContext(ExtensionCommandContext):
    """The argument of `with_session`: a command context on the replacement session that can send."""

    def __init__(
        self,
        host: ExtensionContextHost,
        runtime: ExtensionRuntime,
        commands: CommandContextHost,
        send_message: Callable[..., Awaitable[None]],
        send_user_message: Callable[..., Awaitable[None]],
    ) -> None:
        super().__init__(host, runtime, commands)
        self._send_message = send_message
        self._send_user_message = send_user_message

    async def send_message(self, message: dict[str, Any], **options: Any) -> None:
        self._runtime.check_stale()
        await self._send_message(message, **options)

    async def send_user_message(self, content: Any, **options: Any) -> None:
        self._runtime.check_stale()
        await self._send_user_message(content, **options)


class ProjectTrustContext:
    """The limited `ctx` of `project_trust` handlers: no session exists yet."""

    def __init__(self, cwd: str, mode: Mode, ui: UIContext) -> None:
        self.cwd = cwd
        self.mode = mode
        self.has_ui = mode in ("tui", "rpc")
        self.ui = ui


__all__ = [
    "NESTED_CALLS_UNAVAILABLE",
    "CommandContextHost",
    "ExtensionCommandContext",
    "ExtensionContext",
    "ExtensionContextHost",
    "ExtensionToolContext",
    "Mode",
    "ProjectTrustContext",
    "ReplacedSessionContext",
    "ToolContextHost",
]
