"""The shared runtime behind every extension's `pi` object: what the session lets extensions do.

Until the session binds its `ExtensionRuntimeActions`, action methods raise (setup runs before any
session exists). When the session is replaced or reloaded the runtime goes stale, and every use of
a `pi` or `ctx` captured from it raises, so old code cannot act on the new session by accident.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Literal, Protocol

from pi.app.extensions import errors
from pi.app.extensions.registry import ExtensionRegistry
from pi.app.extensions.types import CommandInfo, PendingProviderCall, ToolInfo

RUNTIME_PATH = "<runtime>"
DeliverAs = Literal["steer", "followUp", "nextTurn"]


class ExtensionRuntimeActions(Protocol):
    """What the session implements for the action methods of `pi` (extension spec §1.4).

    Methods may return a value or an awaitable of it. `send_message` and `send_user_message`
    failures (raised or from the awaitable) are reported as extension errors of `<runtime>`.
    """

    def send_message(self, message: dict[str, Any], trigger_turn: bool, deliver_as: DeliverAs) -> Any: ...

    def send_user_message(
        self, content: str | list[Any], deliver_as: Literal["steer", "followUp"] | None, expand_prompt_templates: bool
    ) -> Any: ...

    def append_entry(self, custom_type: str, data: Any) -> Any: ...

    def set_session_name(self, name: str) -> Any: ...

    def get_session_name(self) -> str | None: ...

    def set_label(self, entry_id: str, label: str | None) -> Any: ...

    def get_active_tools(self) -> list[str]: ...

    def get_all_tools(self) -> list[ToolInfo]: ...

    def set_active_tools(self, names: list[str]) -> Any: ...

    def get_settings(self) -> dict[str, Any]: ...

    def get_commands(self) -> list[CommandInfo]: ...

    def set_model(self, model: Any) -> Awaitable[bool] | bool: ...

    def get_thinking_level(self) -> str: ...

    def set_thinking_level(self, level: str) -> Any: ...

    def register_provider(self, name: str, config: Any) -> Any: ...

    def unregister_provider(self, name: str) -> Any: ...

    def register_virtual_model(self, model: Any, extension_path: str) -> Any: ...

    def unregister_virtual_model(self, provider: str, model_id: str) -> Any: ...


class ExtensionRuntime:
    """One generation of loaded extensions: the registry, the bound actions, and staleness."""

    def __init__(self, registry: ExtensionRegistry, cwd: Path, generation: int = 1) -> None:
        self.registry = registry
        self.cwd = cwd
        self.generation = generation
        self.actions: ExtensionRuntimeActions | None = None
        self.stale = False
        self._tasks: set[asyncio.Task[Any]] = set()

    def check_stale(self) -> None:
        if self.stale:
            raise errors.StaleExtensionContextError()

    def require_actions(self) -> ExtensionRuntimeActions:
        self.check_stale()
        if self.actions is None:
            raise errors.ExtensionRuntimeNotInitializedError()
        return self.actions

    @property
    def bound(self) -> bool:
        return self.actions is not None

    async def bind_core(self, actions: ExtensionRuntimeActions) -> None:
        """Make action methods live and apply the provider registrations queued during loading, in order."""
        self.actions = actions
        for ext in self.registry.active():
            pending, ext.pending_providers = ext.pending_providers, []
            for call in pending:
                await self.apply_provider_call(call)

    async def apply_provider_call(self, call: PendingProviderCall) -> None:
        actions = self.require_actions()
        method = getattr(actions, call.kind)
        event = "register_virtual_model" if "virtual" in call.kind else "register_provider"
        try:
            result = method(*call.args)
            if inspect.isawaitable(result):
                await result
        except Exception as error:
            self.registry.report(call.extension_path, event, error)

    def fire_and_report(self, result: Any, event: str, path: str = RUNTIME_PATH) -> None:
        """Let an action's awaitable run on its own; its failure becomes an extension error."""
        if not inspect.isawaitable(result):
            return

        async def run() -> None:
            try:
                await result
            except Exception as error:
                self.registry.report(path, event, error)

        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for fire-and-forget actions started so far (used at shutdown and by tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def invalidate(self) -> None:
        """Mark the runtime stale (reload or session replacement) and drop bus subscriptions."""
        self.stale = True
        for ext in self.registry.extensions:
            for unsubscribe in ext.bus_unsubscribers:
                unsubscribe()
            ext.bus_unsubscribers.clear()


__all__ = ["RUNTIME_PATH", "DeliverAs", "ExtensionRuntime", "ExtensionRuntimeActions"]
